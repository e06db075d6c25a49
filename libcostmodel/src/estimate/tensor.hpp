// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tensor parallelism: the collectives of one layer on one GPU (Shoeybi et al. 2019; Korthikanti et al. 2022).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"
#include "estimate/compute.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Tensor-parallel collectives of one layer for one micro-batch, forward and backward (and again under full
/// recompute): 4 (6) AllReduces of the layer's activations, T·h bytes, or with sequence parallelism as many
/// reduce-scatter + all-gather pairs, on SplitPaths::tp with EstimateOptions::tp_algorithm (a MoE layer
/// with ep > 1 without its MLP's: expert.hpp); 0 when tp == 1. All of it, before any overlap
/// (tensor_parallel_layer()), s.
[[nodiscard]] Seconds tensor_parallel_layer_time(const StepInputs& in) noexcept;

/// True when `strategy` runs its tensor-parallel collectives overlapped with their GEMMs: --tp-comm-overlap
/// (EstimateOptions::tp_comm_overlap), which Transformer Engine's userbuffers run only under sequence
/// parallelism with tp > 1, over the peer memory of one scale-up domain (`tp_in_one_domain`).
[[nodiscard]] constexpr bool tp_comm_overlapped(const Strategy& strategy, const EstimateOptions& options,
                                                bool tp_in_one_domain) {
  return options.tp_comm_overlap && strategy.sequence_parallel && strategy.tp > 1 && tp_in_one_domain;
}

/// The same collectives and what of them stays on the critical path, s.
struct TensorParallelLayer {
  Seconds total;    ///< tensor_parallel_layer_time()
  Seconds exposed;  ///< all of it, or with EstimateOptions::tp_comm_overlap what the GEMMs do not hide
  /// Of the hidden rest, what the forward pass's GEMMs hide, and the backward's (with the recomputed
  /// forward): the overlap budget of those windows is that much smaller for other streams.
  Seconds hidden_forward, hidden_backward;
};
/// With --tp-comm-overlap under sequence parallelism (Megatron-LM megatron/core/model_parallel_config.py
/// tp_comm_overlap; Transformer Engine userbuffers, transformer_engine/pytorch/module/base.py initialize_ub)
/// each all-gather is split into t chunks pipelined with the column-parallel GEMM it feeds and each
/// reduce-scatter with the row-parallel GEMM that produces it (Wang et al. 2023, ASPLOS, "Overlap
/// communication with dependent computation via decomposition"): per operator and pass, the first chunk's
/// share c/t waits and the rest runs beside the operator's GEMMs g, of which the GPU's overlap efficiency e
/// is hidden, as for every other stream (overlap.hpp: the userbuffers kernels take SMs and memory bandwidth
/// from the GEMMs they run beside): exposed = c/t + c (t-1)/t - e min(c (t-1)/t, g). The passes: forward
/// (g), backward (dgrad and wgrad, 2 g) and the recomputed forward. `forward` is one layer's forward pass
/// (its attention and MLP GEMMs). Checked against MegaScale's ablation (Jiang et al. NSDI 2024, Table 3: TP
/// overlap +2.2 MFU points on 175B over 256 Ampere GPUs with the parallel block, which halves the TP
/// traffic): tests/step_test.cpp.
[[nodiscard]] TensorParallelLayer tensor_parallel_layer(const StepInputs& in, const LayerForward& forward,
                                                        double efficiency) noexcept;

/// The embedding's (first stage) or the output layer's (last stage) tensor-parallel collective for one
/// micro-batch: one AllReduce of T·h, or one reduce-scatter + all-gather pair; 0 when tp == 1. Never
/// overlapped, s.
[[nodiscard]] Seconds tensor_parallel_end_time(const StepInputs& in) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
