// SPDX-License-Identifier: Apache-2.0
#pragma once
// Compute time of the transformer's operations on one GPU: a roofline with a shape-dependent GEMM efficiency,
// and the per-layer and per-stage compute of one configuration built from it.

#include <cstdint>
#include "costmodel/version.hpp"

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Fraction of dense peak a GEMM of shape m x n x k reaches on `gpu` (dimensionless, in (0, gemm]):
/// efficiency.gemm · d / (d + efficiency.gemm_half_size) with d the smallest of m, n, k — small GEMMs
/// (tensor parallelism, small micro-batches) under-fill the GPU's tiles and waves.
[[nodiscard]] double gemm_efficiency(const GpuSpec& gpu, double m, double n, double k);

/// Time of one GEMM m x n x k (2mnk FLOPs) by the roofline: max(FLOPs / (peak · efficiency),
/// bytes / (HBM bandwidth · efficiency.hbm)), bytes = (mk + kn + mn) elements of `dtype`.
[[nodiscard]] Seconds gemm_time(const GpuSpec& gpu, Dtype dtype, double m, double n, double k);

/// Time of a memory-bound operation that moves `bytes` through HBM.
[[nodiscard]] Seconds memory_bound_time(const GpuSpec& gpu, Bytes bytes);

/// One transformer layer's forward pass on one GPU for one micro-batch, by part, s.
struct LayerForward {
  Seconds attention_gemms;  ///< QKV and output projection GEMMs
  Seconds mlp;              ///< dense MLP, or the MoE layers' share of experts, shared experts and router
  Seconds attention_core;   ///< QK^T and scores·V (flash or standard attention)
  Seconds elementwise;  ///< LayerNorms, residual adds, dropouts, the MLP activation, MoE token permutation
  Seconds fp8_casts;    ///< FP8: casting the linear layers' inputs (and their transposes) to FP8
  Seconds total;        ///< the sum of the above
};

/// One layer's backward pass and what recompute adds, given its forward pass, s.
struct LayerBackward {
  Seconds attention_core;  ///< the attention core's backward: 2.5 x its forward with flash attention
  Seconds total;           ///< 2 x the forward's GEMMs and element-wise work, the core's backward, FP8 casts
};

/// Compute of one micro-batch on one GPU, per layer and for the most loaded pipeline stage, s.
struct StageCompute {
  LayerForward layer_forward;    ///< one layer's forward pass
  LayerBackward layer_backward;  ///< one layer's backward pass
  Seconds layer_recompute;       ///< what recompute adds to one layer: its forward (full), its attention core
                                 ///< (selective), or nothing
  Seconds layer;                 ///< one layer's forward + backward + recompute
  Seconds logits;                ///< the output layer and the loss (vocabulary-parallel), on the last stage
  Seconds stage;  ///< the most loaded stage: its layers (StageLayers), plus logits and MTP on the last one
  Seconds mtp;    ///< the multi-token prediction modules (layer, projection, logits), on the last stage
};

/// QKV and output projection GEMMs of one layer, forward, tensor-parallel shapes (Shoeybi et al. 2019 §3).
[[nodiscard]] Seconds attention_gemm_time(const StepInputs& in) noexcept;
/// Up and down projections of one dense MLP, forward, tensor-parallel shapes (Shoeybi et al. 2019 §3).
[[nodiscard]] Seconds dense_mlp_time(const StepInputs& in) noexcept;
/// One MoE layer's local experts under balanced routing, its shared experts and its router, forward
/// (Lepikhin et al. 2020, GShard §2); 0 for a dense model.
[[nodiscard]] Seconds moe_mlp_time(const StepInputs& in) noexcept;
/// The attention core (QK^T and scores·V) of one layer, forward: flash attention at
/// GpuEfficiency::attention on the unmasked half (Dao et al. 2022 §3), or standard attention's batched GEMMs
/// plus its scores' HBM traffic (Korthikanti et al. 2022 §4.1).
[[nodiscard]] Seconds attention_core_time(const StepInputs& in) noexcept;
/// Memory-bound element-wise traffic of one layer, forward (Korthikanti et al. 2022 §4.1 tensors; the MoE
/// layers' experts at their own width and their token permutation).
[[nodiscard]] Seconds elementwise_time(const StepInputs& in) noexcept;
/// FP8 (Strategy::dtype fp8): casting one layer's linear-layer operands to FP8 with their transposes,
/// forward (inputs) or backward (output gradients), memory bound; 0 otherwise.
[[nodiscard]] Seconds fp8_cast_time(const StepInputs& in, bool backward) noexcept;
/// The attention core's backward given its forward: flash attention recomputes the scores (5 matmuls
/// against the forward's 2: 2.5 x, Dao 2023, FlashAttention-2 §3.1.2), standard attention 2 x.
[[nodiscard]] Seconds attention_core_backward_time(const StepInputs& in, Seconds forward) noexcept;
/// One layer's backward pass given its forward pass.
[[nodiscard]] LayerBackward layer_backward_time(const StepInputs& in, const LayerForward& forward) noexcept;
/// One layer's forward pass by part.
[[nodiscard]] LayerForward layer_forward_time(const StepInputs& in) noexcept;
/// What recompute adds to one layer given its forward pass (Korthikanti et al. 2022 §5).
[[nodiscard]] Seconds layer_recompute_time(const StepInputs& in, const LayerForward& forward) noexcept;
/// The output layer and the loss of one micro-batch, forward and backward (vocabulary-parallel), in bf16
/// under fp8 too (Megatron-LM's output layer is outside Transformer Engine's fp8_autocast).
[[nodiscard]] Seconds logits_time(const StepInputs& in) noexcept;
/// The most loaded stage's compute for one micro-batch: forward, backward and recompute of its layers, plus
/// the logits on the last stage.
[[nodiscard]] StageCompute stage_compute(const StepInputs& in) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
