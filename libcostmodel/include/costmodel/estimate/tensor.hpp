// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tensor parallelism: the collectives of one layer on one GPU (Shoeybi et al. 2019; Korthikanti et al. 2022).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Tensor-parallel collectives of one layer for one micro-batch, forward and backward (and again under full
/// recompute): 4 (6) AllReduces of the layer's activations, T·h bytes, or with sequence parallelism as many
/// reduce-scatter + all-gather pairs, on SplitPaths::tp with EstimateOptions::tp_algorithm; 0 when tp == 1.
/// Not overlapped, s.
[[nodiscard]] Seconds tensor_parallel_layer_time(const StepInputs& in) noexcept;

}  // namespace costmodel
