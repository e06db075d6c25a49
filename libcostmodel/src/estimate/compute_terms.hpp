// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to estimate/: the compute terms of compute.hpp, inline. compute.cpp defines the public functions
// from them, and step.cpp evaluates stage() in place: a call there costs about 5% of evaluate_checked (the
// planner's inner loop), and the build has no link-time optimisation.

#include <algorithm>
#include "costmodel/version.hpp"

#include "estimate/compute.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

// Tile and wave quantisation make small GEMMs under-fill the GPU (NVIDIA, "Matrix Multiplication Background
// User's Guide", §2-3); a saturating curve in the smallest dimension captures the trend.
inline double efficiency_of(const GpuSpec& gpu, double m, double n, double k) {
  const double d = std::min(std::min(m, n), k);
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
// two dropouts read 2h, write 2h and a 1-byte mask (10h): 30h bytes, 20h without dropout (ModelSpec::dropout:
// PyTorch returns the input untouched). The MLP activation reads and writes
// its intermediate: 4f bytes (GELU) or 6f (gated: gate, up, product).
inline constexpr double kElementwiseBytesPerHidden = 30.0;
inline constexpr double kDropoutBytesPerHidden = 10.0;

// Width multiple of the MLP's up-projection: 1 for a 2-matrix MLP (GELU), 2 for a gated one (gate and up).
inline double gated(const ModelSpec& model) {
  return model.ffn == FfnKind::kGelu ? 1.0 : 2.0;
}

// MLA's up projections (DeepSeek-V2 §2.1), split by heads: Q from its latent (none without a Q latent: Q is
// then projected from the hidden state directly), K's no-RoPE part and V from the KV latent.
inline double mla_up_projections(const StepInputs& in) {
  if (!in.model.mla) return 0.0;
  const MlaSpec& a = *in.model.mla;
  const double T = in.tokens, t = in.tp;
  const double q_lora = static_cast<double>(a.q_lora_rank), kv_lora = static_cast<double>(a.kv_lora_rank);
  const double kv_up = in.model.heads / t * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim);
  const Dtype dt = in.strategy.dtype;
  return (q_lora > 0.0 ? gemm_seconds(in.gpu, dt, T, in.q_dim / t, q_lora) : 0.0) +
         gemm_seconds(in.gpu, dt, T, kv_up, kv_lora);
}

// Megatron-LM tensor-parallel GEMM shapes (Shoeybi et al. 2019 §3): QKV and projection. K and V are at least
// one head per rank (replicated when tp > kv_heads).
inline double attention_gemms(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const Dtype dt = in.strategy.dtype;
  const double T = in.tokens, h = in.hidden, q = in.q_dim, t = in.tp;
  if (in.model.mla) {
    // MLA (DeepSeek-V2 §2.1): the down projections whole on every rank, the up projections and the output
    // projection split by heads (Megatron-Core multi_latent_attention.py: duplicated TELinear, then column-
    // and row-parallel linears).
    const MlaSpec& a = *in.model.mla;
    const double q_lora = static_cast<double>(a.q_lora_rank), kv_lora = static_cast<double>(a.kv_lora_rank);
    const double down = (q_lora > 0.0 ? gemm_seconds(gpu, dt, T, q_lora, h) : 0.0) +
                        gemm_seconds(gpu, dt, T, kv_lora + static_cast<double>(a.qk_rope_head_dim), h);
    const double q_direct = q_lora > 0.0 ? 0.0 : gemm_seconds(gpu, dt, T, q / t, h);
    return down + q_direct + mla_up_projections(in) + gemm_seconds(gpu, dt, T, h, in.terms.out_dim / t);
  }
  return gemm_seconds(gpu, dt, T, q / t + 2.0 * in.kv_per_rank, h) + gemm_seconds(gpu, dt, T, h, q / t);
}

// Megatron-LM tensor-parallel GEMM shapes (Shoeybi et al. 2019 §3): MLP up and down.
inline double dense_mlp(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const Dtype dt = in.strategy.dtype;
  const double T = in.tokens, h = in.hidden, f = in.ffn_hidden, t = in.tp;
  return gemm_seconds(gpu, dt, T, gated(in.model) * f / t, h) + gemm_seconds(gpu, dt, T, h, f / t);
}

// A MoE layer's MLP: its local routed experts, its shared experts and its router. The experts are split
// over tp as the dense MLP is (Megatron-LM's expert tensor parallelism defaults to tp).
inline double moe_mlp(const StepInputs& in) {
  const ModelSpec& model = in.model;
  if (!model.is_moe()) return 0.0;
  const GpuSpec& gpu = in.gpu;
  const Strategy& st = in.strategy;
  const Dtype dt = st.dtype;
  const double T = in.tokens, h = in.hidden, t = in.tp, g = gated(model);
  const double et = st.expert_tp();
  const double fe = static_cast<double>(model.moe->expert_ffn_hidden);
  const double experts_local = static_cast<double>(model.moe->experts) / st.ep;
  // Balanced routing: each local expert sees ep·T·top_k / E tokens (Lepikhin et al. 2020, GShard §2), the
  // busiest capacity_factor times that, with T the tokens of its etp ranks (each TP rank holds T/t under
  // sequence parallelism), split over etp in width.
  const double tokens_per_expert =
      in.capacity_factor * st.ep * T * (et / t) * model.moe->top_k / model.moe->experts;
  return experts_local * (gemm_seconds(gpu, dt, tokens_per_expert, g * fe / et, h) +
                          gemm_seconds(gpu, dt, tokens_per_expert, h, fe / et)) +
         model.moe->shared_experts *
             (gemm_seconds(gpu, dt, T, g * fe / t, h) + gemm_seconds(gpu, dt, T, h, fe / t)) +
         gemm_seconds(gpu, Dtype::kBf16, T, static_cast<double>(model.moe->experts), h);  // router, bf16
}

inline double attention_core(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const Strategy& st = in.strategy;
  const Dtype dt = in.attention_dtype;
  const double T = in.tokens, s = in.seq_len, q = in.q_dim, t = in.tp;
  // Attention core: 4·T·s·q/t FLOPs (QK^T and scores·V). Flash attention skips the causally masked half
  // (Dao et al. 2022 §3); standard attention computes it all as batched GEMMs of inner size head_dim and
  // moves the T x s scores per head through HBM: QK^T write (2 B), softmax read and write (4 B), dropout
  // mask, read and write (5 B), read by scores·V (2 B): 13 bytes per score (Korthikanti et al. 2022 §4.1),
  // 8 without attention dropout.
  // MLA: QK^T at head width nope + rope, scores·V at v_head_dim (out_dim = heads · v_head_dim).
  const double out = in.terms.out_dim;
  if (in.options.flash_attention) {
    if (in.model.mla) return T * s * (q + out) / t / (gpu.peak(dt).value * gpu.efficiency.attention);
    return 2.0 * T * s * q / t / (gpu.peak(dt).value * gpu.efficiency.attention);
  }
  const double heads = in.model.heads / t;
  const double hd = in.head_dim;
  const double value_hd = out / in.model.heads;
  return heads * st.micro_batch *
             (gemm_seconds(gpu, dt, s / st.cp, s, hd) + gemm_seconds(gpu, dt, s / st.cp, value_hd, s)) +
         memory_bound_seconds(gpu, (in.model.has_dropout() ? 13.0 : 8.0) * heads * T * s);
}

// FlashAttention's backward recomputes the scores and runs 5 matmuls against the forward's 2 (Dao 2023,
// FlashAttention-2 §3.1.2); standard attention's backward is twice its forward (Narayanan et al. 2021 §5.1).
inline double attention_core_backward(const StepInputs& in, double forward) {
  return (in.options.flash_attention ? 2.5 : 2.0) * forward;
}

// Per token of one layer, the MLP's intermediate width that element-wise work touches on one GPU: the dense
// MLP's f/t, a MoE layer's routed experts (top_k x capacity) and shared experts at f_e/t.
inline double mlp_intermediate(const StepInputs& in) {
  const double dense = in.ffn_hidden / in.tp;
  if (in.moe_share <= 0.0) return dense;
  const MoeSpec& moe = *in.model.moe;
  const double experts = (moe.top_k * in.capacity_factor + moe.shared_experts) *
                         static_cast<double>(moe.expert_ffn_hidden) / in.tp;
  return (1.0 - in.moe_share) * dense + in.moe_share * experts;
}

inline double elementwise(const StepInputs& in) {
  const double T = in.tokens, h = in.hidden, t = in.tp;
  // Element-wise traffic: replicated across tp without sequence parallelism, split with it. The MLP
  // activation reads and writes its intermediate: 4 bytes per element (GELU) or 6 (gated: gate, up, product).
  const double sp = in.sequence_parallel ? t : 1.0;
  const double per_hidden =
      kElementwiseBytesPerHidden - (in.model.has_dropout() ? 0.0 : kDropoutBytesPerHidden);
  double bytes =
      T * (per_hidden * h / sp + (in.model.ffn == FfnKind::kGelu ? 4.0 : 6.0) * mlp_intermediate(in));
  if (in.moe_share > 0.0) {
    // Token permutation (Megatron-LM moe_utils.permute / unpermute): dispatch reads each local token (2h B)
    // and writes its top_k copies, combine reads them back and writes the weighted sum.
    const double k = in.model.moe->top_k * in.capacity_factor;
    bytes += in.moe_share * T / sp * 2.0 * (2.0 * h + 2.0 * k * h);
  }
  return memory_bound_seconds(in.gpu, bytes);
}

// FP8 casts (Transformer Engine, Micikevicius et al. 2022 §4): every FP8 GEMM operand that a bf16 kernel
// produced is read (2 B) and written as FP8 with its transpose for the other pass's GEMM (1 + 1 B), amax
// taken on the way (delayed scaling): 4 bytes per element. Forward: the inputs of QKV, projection, FC1 and
// FC2; backward: their output gradients. The weights' casts happen once per step (optimizer_time()).
inline double fp8_casts(const StepInputs& in, bool backward) {
  if (in.strategy.dtype != Dtype::kFp8) return 0.0;
  const double T = in.tokens, h = in.hidden, t = in.tp;
  const double intermediate = mlp_intermediate(in);
  const double gate = in.model.ffn == FfnKind::kGelu ? 1.0 : 2.0;
  const double elements = backward ? (in.q_dim / t + 2.0 * in.kv_per_rank) + h + gate * intermediate + h
                                   : h + in.q_dim / t + h + intermediate;
  return memory_bound_seconds(in.gpu, 4.0 * T * elements);
}

inline LayerForward layer_forward(const StepInputs& in) {
  const double attention = attention_gemms(in);
  const double moe_share = in.moe_share;
  const double mlp = (1.0 - moe_share) * dense_mlp(in) + moe_share * moe_mlp(in);
  const double core = attention_core(in);
  const double memory_bound = elementwise(in);
  const double casts = fp8_casts(in, false);
  return {Seconds(attention),    Seconds(mlp),   Seconds(core),
          Seconds(memory_bound), Seconds(casts), Seconds(attention + mlp + core + memory_bound + casts)};
}

// Backward: gradients with respect to inputs and to weights, 2 x the forward's GEMMs (Narayanan et al. 2021
// §5.1) and, taken alike, its element-wise work; the attention core as attention_core_backward().
inline LayerBackward layer_backward(const StepInputs& in, const LayerForward& f) {
  const double core = attention_core_backward(in, f.attention_core.value);
  const double rest = 2.0 * (f.attention_gemms.value + f.mlp.value + f.elementwise.value);
  return {Seconds(core), Seconds(rest + core + fp8_casts(in, true))};
}

// The forward of Megatron-Core's recompute modules again (Strategy::recompute_modules; transformer_config.py
// recompute_modules): the GEMMs of the dense MLP, of the MoE layer or of its shared experts, and of MLA's up
// projections; the memory-bound passes of the experts' activation (read gate and up, write their product:
// 6 B per element of the routed width) and of the unfused norms (read and write 2h B: MLA's input norm, a
// MoE layer's norm). Their TP collectives are not counted again; the MoE layer's all-to-alls are
// (StepInputs::moe_recomputed_share).
inline double module_recompute(const StepInputs& in) {
  const unsigned modules = in.strategy.recompute_modules;
  if (modules == 0) return 0.0;
  const auto recomputed = [&](unsigned module) { return (modules & module) != 0; };
  const double T = in.tokens, h = in.hidden, t = in.tp, moe = in.moe_share;
  double seconds = 0.0;
  if (recomputed(kRecomputeMlp)) seconds += (1.0 - moe) * dense_mlp(in);
  if (recomputed(kRecomputeMlaUpProj)) seconds += mla_up_projections(in);
  if (moe > 0.0) {
    const MoeSpec& spec = *in.model.moe;
    const double fe = static_cast<double>(spec.expert_ffn_hidden);
    if (recomputed(kRecomputeMoe)) {
      seconds += moe * moe_mlp(in);
    } else {
      if (recomputed(kRecomputeSharedExperts)) {
        const Dtype dt = in.strategy.dtype;
        seconds += moe * spec.shared_experts *
                   (gemm_seconds(in.gpu, dt, T, gated(in.model) * fe / t, h) +
                    gemm_seconds(in.gpu, dt, T, h, fe / t));
      }
      if (recomputed(kRecomputeMoeAct)) {
        const double routed_width = spec.top_k * in.capacity_factor * fe / in.strategy.expert_tp();
        seconds += moe * memory_bound_seconds(in.gpu, 6.0 * T * routed_width);
      }
    }
  }
  if (recomputed(kRecomputeLayernorm)) {
    const double norms = moe + (in.model.mla ? 1.0 : 0.0);
    seconds += norms * memory_bound_seconds(in.gpu, 4.0 * h * T / (in.sequence_parallel ? t : 1.0));
  }
  return seconds;
}

// Recompute adds a forward pass (full; of the recomputed share of the layers under the block method) or the
// attention core (selective, Korthikanti et al. 2022 §5), and the recompute modules (module_recompute()).
inline double layer_recompute(const StepInputs& in, const LayerForward& forward) {
  const Recompute r = in.strategy.recompute;
  return r == Recompute::kFull        ? in.recomputed_share * forward.total.value
         : r == Recompute::kSelective ? forward.attention_core.value + module_recompute(in)
                                      : module_recompute(in);
}

// The last stage also runs the output layer and the loss (vocabulary-parallel, 3 GEMM passes), in bf16:
// Megatron-LM's output layer is a ColumnParallelLinear outside Transformer Engine's fp8_autocast
// (megatron/core/models/gpt/gpt_model.py, GPTModel.__init__).
inline double logits(const StepInputs& in) {
  const GpuSpec& gpu = in.gpu;
  const double T = in.tokens, h = in.hidden, V = in.vocab, t = in.tp;
  const Dtype dt = in.strategy.dtype == Dtype::kFp16 ? Dtype::kFp16 : Dtype::kBf16;
  return 3.0 * gemm_seconds(gpu, dt, T, V / t, h) + memory_bound_seconds(gpu, T * V / t * 12.0);
}

// The MTP modules on the last stage (Megatron-Core multi_token_prediction.py): each one more layer (taken as
// the mean layer), its eh_proj (2h -> h, column-parallel) in 3 GEMM passes, and the output head once more
// (DeepSeek-V3 §2.2).
inline double mtp_modules(const StepInputs& in, double layer, double logits_time) {
  if (in.model.mtp_layers <= 0) return 0.0;
  const double T = in.tokens, h = in.hidden;
  const double projection = 3.0 * gemm_seconds(in.gpu, in.strategy.dtype, T, h / in.tp, 2.0 * h);
  return in.model.mtp_layers * (layer + projection + logits_time);
}

// One layer forward + backward + recompute, and the most loaded stage (the layers of the StageLayers, the
// logits on the last stage; with one stage both).
inline StageCompute stage(const StepInputs& in) {
  StageCompute c;
  c.layer_forward = layer_forward(in);
  c.layer_backward = layer_backward(in, c.layer_forward);
  c.layer_recompute = Seconds(layer_recompute(in, c.layer_forward));
  c.layer = Seconds(c.layer_forward.total.value + c.layer_backward.total.value + c.layer_recompute.value);
  c.logits = Seconds(logits(in));
  c.mtp = Seconds(mtp_modules(in, c.layer.value, c.logits.value));
  const StageLayers& s = in.stages;
  const double layer = c.layer.value;
  c.stage =
      Seconds(std::max({s.first * layer, s.middle * layer, s.last * layer + c.logits.value + c.mtp.value}));
  return c;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
