// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tensor parallelism: the collectives of one layer on one GPU (Shoeybi et al. 2019; Korthikanti et al. 2022).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Tensor-parallel collectives of one layer for one micro-batch, forward and backward (and again under full
/// recompute): 4 (6) AllReduces of the layer's activations, T·h bytes, or with sequence parallelism as many
/// reduce-scatter + all-gather pairs, on SplitPaths::tp with EstimateOptions::tp_algorithm (a MoE layer
/// with ep > 1 without its MLP's: expert.hpp); 0 when tp == 1. Never overlapped, s.
[[nodiscard]] Seconds tensor_parallel_layer_time(const StepInputs& in) noexcept;

/// The embedding's (first stage) or the output layer's (last stage) tensor-parallel collective for one
/// micro-batch: one AllReduce of T·h, or one reduce-scatter + all-gather pair; 0 when tp == 1. Never
/// overlapped, s.
[[nodiscard]] Seconds tensor_parallel_end_time(const StepInputs& in) noexcept;

}  // namespace costmodel
