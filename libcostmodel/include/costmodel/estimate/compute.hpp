// SPDX-License-Identifier: Apache-2.0
#pragma once
// Compute time of the transformer's operations on one GPU: a roofline with a shape-dependent GEMM efficiency,
// and the per-layer and per-stage compute of one configuration built from it.

#include <cstdint>

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

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
  Seconds elementwise;      ///< LayerNorms, residual adds, dropouts, the MLP activation (memory bound)
  Seconds total;            ///< attention_gemms + mlp + attention_core + elementwise
};

/// Compute of the most loaded pipeline stage for one micro-batch on one GPU, s.
struct StageCompute {
  LayerForward layer_forward;  ///< one layer's forward pass
  Seconds layer_recompute;     ///< what recompute adds to one layer: its forward (full), its attention core
                               ///< (selective), or nothing
  Seconds layer;               ///< one layer forward + backward (2 x forward) + recompute
  Seconds logits;              ///< the output layer and the loss (vocabulary-parallel)
  Seconds stage;               ///< layers_per_stage · layer + logits
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
/// Memory-bound element-wise traffic of one layer, forward (Korthikanti et al. 2022 §4.1 tensors).
[[nodiscard]] Seconds elementwise_time(const StepInputs& in) noexcept;
/// One layer's forward pass by part.
[[nodiscard]] LayerForward layer_forward_time(const StepInputs& in) noexcept;
/// What recompute adds to one layer given its forward pass (Korthikanti et al. 2022 §5).
[[nodiscard]] Seconds layer_recompute_time(const StepInputs& in, const LayerForward& forward) noexcept;
/// The output layer and the loss of one micro-batch, forward and backward (vocabulary-parallel).
[[nodiscard]] Seconds logits_time(const StepInputs& in) noexcept;
/// The stage's compute for one micro-batch: forward, backward and recompute of its layers, plus the logits.
[[nodiscard]] StageCompute stage_compute(const StepInputs& in) noexcept;

}  // namespace costmodel
