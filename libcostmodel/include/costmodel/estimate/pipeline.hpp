// SPDX-License-Identifier: Apache-2.0
#pragma once
// Pipeline parallelism: activations and gradients between stages, and the 1F1B / interleaved bubble
// (Narayanan et al. 2021).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Pipeline send/recv of one micro-batch on one GPU: its activations forward and their gradients backward
/// at the stage boundary, v times when interleaved, T·h/t bytes each on SplitPaths::pp; 0 when pp == 1.
/// Not overlapped, s.
[[nodiscard]] Seconds pipeline_send_recv_time(const StepInputs& in) noexcept;

/// Pipeline fill and drain of one step: (p - 1)/v slots of `per_microbatch` seconds (one micro-batch's
/// compute and communication on the stage), s.
[[nodiscard]] Seconds pipeline_bubble_time(const StepInputs& in, Seconds per_microbatch) noexcept;

}  // namespace costmodel
