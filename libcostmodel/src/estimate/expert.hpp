// SPDX-License-Identifier: Apache-2.0
#pragma once
// Expert parallelism: the dispatch and combine all-to-alls of the MoE layers (Lepikhin et al. 2020).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// True when the MoE layers route their tokens through the alltoall dispatcher instead of running the
/// dense MLP's tensor-parallel collectives: ep > 1, or experts kept whole (etp 1) under tp > 1.
[[nodiscard]] inline bool expert_dispatch(const Strategy& strategy) {
  return strategy.ep > 1 || strategy.expert_tp() < strategy.tp;
}

/// True when `strategy` overlaps its expert all-to-alls with another micro-batch's compute: --ep-comm-overlap
/// (EstimateOptions::ep_comm_overlap), which Megatron-Core runs only with expert parallelism (validate_args:
/// "overlap_moe_expert_parallel_comm is only supported with expert model parallelism") and with its combined
/// 1F1B, that is one pipeline stage or the interleaved schedule (megatron/core/pipeline_parallel/
/// combined_1f1b.py).
[[nodiscard]] inline bool ep_comm_overlapped(const Strategy& strategy, const EstimateOptions& options) {
  return options.ep_comm_overlap && strategy.ep > 1 && (strategy.pp == 1 || strategy.vpp > 1);
}

/// The share of the alltoall dispatcher's expert all-to-all traffic that the flex dispatcher
/// (EstimateOptions::moe_dispatcher deepep or hybridep) sends: one copy of a token per node of the expert
/// group holding any of its experts (per GPU inside one node) instead of one per routed expert, under
/// balanced routing. 1 for the alltoall dispatcher or without expert parallelism.
[[nodiscard]] double flex_dispatch_share(const StepInputs& in) noexcept;

/// Expert dispatch and combine per layer for one micro-batch, averaged over the layers (the MoE layers'
/// share), per Megatron-LM's alltoall token dispatcher (megatron/core/transformer/moe/token_dispatcher.py,
/// MoEAlltoAllTokenDispatcher): each TP rank dispatches its sequence-parallel 1/t of the tokens with an
/// all-to-all over SplitPaths::ep (T/t·top_k·h, times the capacity factor), then all-gathers them over the
/// expert-tensor-parallel group when etp > 1 (etp = tp: SplitPaths::tp); combine reduce-scatters and
/// all-to-alls back. Forward and backward, and again under full recompute. 0 without expert_dispatch() (the
/// allgather dispatcher's traffic is the dense MLP's tensor-parallel one, tensor.hpp) or for a dense model.
/// Overlapped only with EstimateOptions::ep_comm_overlap (step.cpp), s.
[[nodiscard]] Seconds expert_parallel_layer_time(const StepInputs& in) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
