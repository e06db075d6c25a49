// SPDX-License-Identifier: Apache-2.0
#pragma once
// Data parallelism: the gradient exchange under ZeRO 0-3 and gradient compression, its overlap with the
// backward pass, and the optimizer step (Rajbhandari et al. 2020; Megatron-LM's distributed optimizer).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Bytes per gradient element on the wire: gradient_bytes(dtype), at most 2 with fp16 compression, 1 with
/// int8; top-k sends values and indices apart (gradient_exchange_time()).
[[nodiscard]] double wire_bytes_per_gradient(const Strategy& strategy) noexcept;

/// One gradient group's exchange per step on one GPU, s.
struct GradientExchange {
  Seconds weight_gathers;          ///< ZeRO-3: every micro-batch's forward and backward weight all-gathers
  Seconds weight_gathers_exposed;  ///< of which left after overlap with the micro-batches' compute
  Seconds reduce;                  ///< gradient all-reduce, reduce-scatter (ZeRO >= 1) or top-k all-gather
  Seconds gather;                  ///< ZeRO-1/2: the all-gather of the updated weights
  Seconds exposed;                 ///< of reduce + gather, left after overlap
};

/// The exchange of `params` parameters of this GPU's stage replicated over `ranks` ranks on `path`, with the
/// layer's forward time `layer_forward` (s) setting the overlap windows: the reduction hides behind the last
/// micro-batch's backward, the weight all-gather behind the next step's first forward, ZeRO-3's gathers
/// behind each micro-batch's compute (when Strategy::overlap). All zero when ranks <= 1 or params <= 0.
[[nodiscard]] GradientExchange gradient_exchange_time(const StepInputs& in, double params, int ranks,
                                                      const LinkPath& path, Seconds layer_forward) noexcept;

/// The data-parallel exchange of one step on one GPU, s.
struct DataParallelComm {
  Seconds total;    ///< every gradient and ZeRO-3 weight exchange
  Seconds exposed;  ///< the part not hidden behind compute
};

/// The dense parameters' exchange over dp·cp ranks (SplitPaths::dp) then the experts' over dp·cp/ep ranks
/// (SplitPaths::expert_dp), of the stage parameters in `memory` (Estimator::memory()).
[[nodiscard]] DataParallelComm data_parallel_time(const StepInputs& in, const MemoryBreakdown& memory,
                                                  Seconds layer_forward) noexcept;

/// The optimizer step on the parameters this GPU updates (memory bound), plus the compression pass with
/// error feedback over the stage's gradients when compressed, s.
[[nodiscard]] Seconds optimizer_time(const StepInputs& in, const MemoryBreakdown& memory) noexcept;

}  // namespace costmodel
