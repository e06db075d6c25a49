// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/pipeline.hpp"

#include "communication.hpp"

namespace costmodel {

// Activations forward and gradients backward at every stage boundary, v times per micro-batch when
// interleaved; with sequence parallelism each TP rank sends its 1/t slice (Megatron-LM scatter-gather,
// Narayanan et al. 2021 §4.1).
Seconds pipeline_send_recv_time(const StepInputs& in) noexcept {
  if (in.strategy.pp <= 1) return Seconds(0.0);
  const CollectivePath& pp_path = in.paths.pp;
  const double n = in.tokens * in.hidden * kActivationBytes / in.tp;
  return Seconds(2.0 * in.vpp * detail::comm(Collective::kSendRecv, Algorithm::kAuto, n, pp_path).value);
}

// 1F1B: (m + p - 1) slots; interleaving shrinks the bubble to (p - 1)/v (Narayanan et al. 2021 §2.2).
Seconds pipeline_bubble_time(const StepInputs& in, Seconds per_microbatch) noexcept {
  return Seconds((in.pp - 1.0) / in.vpp * per_microbatch.value);
}

}  // namespace costmodel
