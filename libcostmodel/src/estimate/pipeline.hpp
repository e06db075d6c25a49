// SPDX-License-Identifier: Apache-2.0
#pragma once
// Pipeline parallelism: activations and gradients between stages, and the 1F1B / interleaved bubble
// (Narayanan et al. 2021).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Pipeline send/recv of one micro-batch on one GPU: its activations forward and their gradients backward
/// at the stage boundary, v times when interleaved, T·h/t bytes each on SplitPaths::pp, plus the all-gather
/// over tp that rebuilds them without sequence parallelism; 0 when pp == 1, s. Overlapped with compute
/// when pipeline_send_recv_overlapped() (step.cpp), on the critical path otherwise.
[[nodiscard]] Seconds pipeline_send_recv_time(const StepInputs& in) noexcept;
/// One of its v exchanges each way (pipeline_send_recv_time() is 2 v of them): what does not depend on the
/// layout of the stages; 0 when pp == 1, s.
[[nodiscard]] Seconds pipeline_send_recv_once(const StepInputs& in) noexcept;
/// pipeline_send_recv_time() from pipeline_send_recv_once()'s `once` (0 when pp == 1, so this is too).
[[nodiscard]] inline Seconds pipeline_send_recv_time(const StepInputs& in, Seconds once) noexcept {
  return Seconds(2.0 * in.vpp * once.value);
}

/// True when the pipeline send/recv of `strategy` overlaps compute: Megatron-LM's --overlap-p2p-communication
/// (EstimateOptions::pp_comm_overlap, on by default), which runs with the interleaved schedule only
/// (megatron/training/arguments.py validate_args: "non-interleaved schedule does not support overlapping p2p
/// communication"); 1F1B's send/recv are blocking.
[[nodiscard]] constexpr bool pipeline_send_recv_overlapped(const Strategy& strategy,
                                                           const EstimateOptions& options) {
  return options.pp_comm_overlap && strategy.pp > 1 && strategy.vpp > 1;
}

/// Pipeline fill and drain of one step given the stages' times for one micro-batch (compute and exposed
/// communication): (sum over the stages - the slowest) / v, which is (p - 1)/v slots of equal stages, s.
[[nodiscard]] Seconds pipeline_bubble_time(const StepInputs& in, Seconds stages_sum,
                                           Seconds slowest) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
