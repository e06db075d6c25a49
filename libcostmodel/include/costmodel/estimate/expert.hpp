// SPDX-License-Identifier: Apache-2.0
#pragma once
// Expert parallelism: the dispatch and combine all-to-alls of the MoE layers (Lepikhin et al. 2020).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Expert-parallel all-to-alls per layer for one micro-batch, averaged over the layers (the MoE layers'
/// share): dispatch and combine forward and backward (and again under full recompute), T·top_k·h bytes each,
/// on SplitPaths::ep; 0 when ep == 1 or the model is dense. Not overlapped, s.
[[nodiscard]] Seconds expert_parallel_layer_time(const StepInputs& in) noexcept;

}  // namespace costmodel
