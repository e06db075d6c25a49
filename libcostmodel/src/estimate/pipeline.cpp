// SPDX-License-Identifier: Apache-2.0
#include "estimate/pipeline.hpp"

#include "communication.hpp"

namespace costmodel::inline COSTMODEL_ABI {

// Activations forward and gradients backward at every stage boundary, v times per micro-batch when
// interleaved. Each TP rank sends its 1/t slice: with sequence parallelism the slice it holds; without, the
// scatter-gather optimisation, which all-gathers the slices over tp at the receiver (Narayanan et al. 2021
// §4.1).
Seconds pipeline_send_recv_once(const StepInputs& in) noexcept {
  if (in.strategy.pp <= 1) return Seconds(0.0);
  const double full = in.tokens * in.hidden * kActivationBytes;
  double one = detail::comm(Collective::kSendRecv, Algorithm::kAuto, full / in.tp, in.paths.pp).value;
  if (in.tp > 1 && !in.sequence_parallel) {
    one += detail::comm(Collective::kAllGather, in.options.tp_algorithm, full, in.paths.tp).value;
  }
  return Seconds(one);
}

Seconds pipeline_send_recv_time(const StepInputs& in) noexcept {
  return pipeline_send_recv_time(in, pipeline_send_recv_once(in));
}

// 1F1B with stages of unequal time: the slowest stage sets the period of the m micro-batches, and filling
// and draining the pipeline costs one micro-batch of every other stage; interleaving divides that by v
// (Narayanan et al. 2021 §2.2: (p - 1)/v slots when the stages are equal).
Seconds pipeline_bubble_time(const StepInputs& in, Seconds stages_sum, Seconds slowest) noexcept {
  return Seconds((stages_sum.value - slowest.value) / in.vpp);
}

}  // namespace costmodel::inline COSTMODEL_ABI
