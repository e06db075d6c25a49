// SPDX-License-Identifier: Apache-2.0
#pragma once
// Context parallelism: the ring-attention exchange of K/V blocks (Liu et al. 2023).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Context-parallel K/V exchange of one layer for one micro-batch, before overlap, s.
struct ContextParallelComm {
  Seconds forward;   ///< cp - 1 send/recv of the local K and V blocks
  Seconds backward;  ///< K, V and their gradients around the ring (2 x forward), and the forward's again
                     ///< when recompute reruns the attention core
};

/// The ring-attention exchange of one layer on SplitPaths::cp (K and V at least one head per TP rank); 0
/// when cp == 1. It overlaps only the attention core that consumes it (overlap.hpp).
[[nodiscard]] ContextParallelComm context_parallel_layer_comm(const StepInputs& in) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
