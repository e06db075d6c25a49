// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to estimate/: the compute terms of compute.hpp, inline. compute.cpp defines the public functions
// from them, and step.cpp evaluates stage() in place: a call there costs about 5% of evaluate_checked (the
// planner's inner loop), and the build has no link-time optimisation.

#include <algorithm>

#include "costmodel/estimate/compute.hpp"

namespace costmodel::detail {

// Tile and wave quantisation make small GEMMs under-fill the GPU (NVIDIA, "Matrix Multiplication Background
// User's Guide", §2-3); a saturating curve in the smallest dimension captures the trend.
inline double efficiency_of(const GpuSpec& gpu, double m, double n, double k) {
  const double d = std::min({m, n, k});
  if (!(d > 0.0)) return gpu.efficiency.gemm;
  return gpu.efficiency.gemm * d / (d + gpu.efficiency.gemm_half_size);
}

// Roofline (Williams, Waterman & Patterson 2009): the slower of arithmetic and memory traffic.
inline double gemm_seconds(const GpuSpec& gpu, Dtype dtype, double m, double n, double k) {
  const double flops = 2.0 * m * n * k;
  const double peak = gpu.peak(dtype).value;
  const double arithmetic = peak > 0.0 ? flops / (peak * efficiency_of(gpu, m, n, k)) : 0.0;
  const double bytes = (m * k + k * n + m * n) * bytes_per_element(dtype);
  const double memory = bytes / (gpu.hbm_bandwidth.value * gpu.efficiency.hbm);
  return std::max(arithmetic, memory);
}

inline double memory_bound_seconds(const GpuSpec& gpu, double bytes) {
  return bytes / (gpu.hbm_bandwidth.value * gpu.efficiency.hbm);
}

// Bytes per element of replicated element-wise traffic per token and layer, forward (Korthikanti et al. 2022
// §4.1 tensors): two LayerNorms read and write 2h each (8h), two residual adds read 4h and write 2h (12h),
// two dropouts read 2h, write 2h and a 1-byte mask (10h): 30h bytes. The MLP activation reads and writes
// its intermediate: 4f bytes (GELU) or 6f (gated: gate, up, product).
inline constexpr double kElementwiseBytesPerHidden = 30.0;

// Width multiple of the MLP's up-projection: 1 for a 2-matrix MLP (GELU), 2 for a gated one (gate and up).
inline double gated(const ModelSpec& model) {
  return model.ffn == FfnKind::kGelu ? 1.0 : 2.0;
}

// Megatron-LM tensor-parallel GEMM shapes (Shoeybi et al. 2019 §3): QKV and projection.
inline double attention_gemms(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const Dtype dt = in.strategy.dtype;
  const double T = in.tokens, h = in.hidden, q = in.q_dim, kv = in.kv_dim, t = in.tp;
  return gemm_seconds(gpu, dt, T, (q + 2 * kv) / t, h) + gemm_seconds(gpu, dt, T, h, q / t);
}

// Megatron-LM tensor-parallel GEMM shapes (Shoeybi et al. 2019 §3): MLP up and down.
inline double dense_mlp(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const Dtype dt = in.strategy.dtype;
  const double T = in.tokens, h = in.hidden, f = in.ffn_hidden, t = in.tp;
  return gemm_seconds(gpu, dt, T, gated(in.model) * f / t, h) + gemm_seconds(gpu, dt, T, h, f / t);
}

// A MoE layer's MLP: its local routed experts, its shared experts and its router.
inline double moe_mlp(const StepInputs& in) {
  const ModelSpec& model = in.model;
  if (!model.is_moe()) return 0.0;
  const GpuSpec& gpu = in.gpu;
  const Strategy& st = in.strategy;
  const Dtype dt = st.dtype;
  const double T = in.tokens, h = in.hidden, t = in.tp, g = gated(model);
  const double fe = static_cast<double>(model.moe->expert_ffn_hidden);
  const double experts_local = static_cast<double>(model.moe->experts) / st.ep;
  // Balanced routing: each local expert sees ep·T·top_k / E tokens (Lepikhin et al. 2020, GShard §2).
  const double tokens_per_expert = st.ep * T * model.moe->top_k / model.moe->experts;
  return experts_local * (gemm_seconds(gpu, dt, tokens_per_expert, g * fe / t, h) +
                          gemm_seconds(gpu, dt, tokens_per_expert, h, fe / t)) +
         model.moe->shared_experts *
             (gemm_seconds(gpu, dt, T, g * fe / t, h) + gemm_seconds(gpu, dt, T, h, fe / t)) +
         gemm_seconds(gpu, dt, T, static_cast<double>(model.moe->experts), h);  // router
}

inline double attention_core(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const Strategy& st = in.strategy;
  const Dtype dt = st.dtype;
  const double T = in.tokens, s = in.seq_len, q = in.q_dim, t = in.tp;
  // Attention core: 4·T·s·q/t FLOPs (QK^T and scores·V). Flash attention skips the causally masked half
  // (Dao et al. 2022 §3); standard attention computes it all as batched GEMMs of inner size head_dim and
  // moves the T x s scores per head through HBM: QK^T write (2 B), softmax read and write (4 B), dropout
  // mask, read and write (5 B), read by scores·V (2 B): 13 bytes per score (Korthikanti et al. 2022 §4.1).
  if (in.options.flash_attention)
    return 2.0 * T * s * q / t / (gpu.peak(dt).value * gpu.efficiency.attention);
  const double heads = in.model.heads / t;
  const double hd = static_cast<double>(in.model.head_dim());
  return heads * st.micro_batch *
             (gemm_seconds(gpu, dt, s / st.cp, s, hd) + gemm_seconds(gpu, dt, s / st.cp, hd, s)) +
         memory_bound_seconds(gpu, 13.0 * heads * T * s);
}

inline double elementwise(const StepInputs& in) {
  const double T = in.tokens, h = in.hidden, f = in.ffn_hidden, t = in.tp;
  // Element-wise traffic: replicated across tp without sequence parallelism, split with it.
  const double intermediate = (in.model.ffn == FfnKind::kGelu ? 4.0 : 6.0) * f / t;
  const double elementwise_bytes =
      T * (kElementwiseBytesPerHidden * h / (in.sequence_parallel ? t : 1.0) + intermediate);
  return memory_bound_seconds(in.gpu, elementwise_bytes);
}

inline LayerForward layer_forward(const StepInputs& in) {
  const double attention = attention_gemms(in);
  const double moe_share = in.moe_share;
  const double mlp = (1.0 - moe_share) * dense_mlp(in) + moe_share * moe_mlp(in);
  const double core = attention_core(in);
  const double memory_bound = elementwise(in);
  return {Seconds(attention), Seconds(mlp), Seconds(core), Seconds(memory_bound),
          Seconds(attention + mlp + core + memory_bound)};
}

// Recompute adds a forward pass (full) or the attention core (selective, Korthikanti et al. 2022 §5).
inline double layer_recompute(const StepInputs& in, const LayerForward& forward) {
  const Recompute r = in.strategy.recompute;
  return r == Recompute::kFull        ? forward.total.value
         : r == Recompute::kSelective ? forward.attention_core.value
                                      : 0.0;
}

// The last stage also runs the output layer and the loss (vocabulary-parallel, 3 GEMM passes).
inline double logits(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const double T = in.tokens, h = in.hidden, V = in.vocab, t = in.tp;
  return 3.0 * gemm_seconds(gpu, in.strategy.dtype, T, V / t, h) +
         memory_bound_seconds(gpu, T * V / t * 12.0);
}

// Backward costs twice the forward (Narayanan et al. 2021 §5.1).
inline StageCompute stage(const StepInputs& in) {
  StageCompute c;
  c.layer_forward = layer_forward(in);
  c.layer_recompute = Seconds(layer_recompute(in, c.layer_forward));
  c.layer = Seconds(3.0 * c.layer_forward.total.value + c.layer_recompute.value);
  c.logits = Seconds(logits(in));
  c.stage = Seconds(in.layers_per_stage * c.layer.value + c.logits.value);
  return c;
}

}  // namespace costmodel::detail
