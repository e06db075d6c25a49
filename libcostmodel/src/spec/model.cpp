// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/model.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/spec/names.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::string_view to_string(FfnKind kind) {
  return kind == FfnKind::kGelu ? "gelu" : "swiglu";
}

std::string_view to_string(PositionEmbedding kind) {
  switch (kind) {
    case PositionEmbedding::kLearned:
      return "learned";
    case PositionEmbedding::kRope:
      return "rope";
    case PositionEmbedding::kAlibi:
      return "alibi";
  }
  return "learned";
}

std::string_view to_string(NormKind kind) {
  return kind == NormKind::kLayerNorm ? "layernorm" : "rmsnorm";
}

std::string_view to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "none";
}

std::optional<Recompute> parse_recompute(std::string_view name) {
  return parse_named(name, kRecomputes);
}

namespace {

// Megatron-Core's names of the recompute modules (transformer_config.py recompute_modules) costmodel models.
constexpr std::pair<std::string_view, unsigned> kRecomputeModules[] = {
    {"mlp", kRecomputeMlp},
    {"moe", kRecomputeMoe},
    {"moe_act", kRecomputeMoeAct},
    {"layernorm", kRecomputeLayernorm},
    {"mla_up_proj", kRecomputeMlaUpProj},
    {"shared_experts", kRecomputeSharedExperts},
};

}  // namespace

std::string recompute_modules_text(unsigned modules, bool core_attention) {
  std::string text = core_attention ? "core_attn" : "";
  for (const auto& [name, bit] : kRecomputeModules) {
    if ((modules & bit) == 0) continue;
    if (!text.empty()) text += ',';
    text += name;
  }
  return text;
}

unsigned parse_recompute_modules(std::string_view text, bool& core_attention) {
  core_attention = false;
  if (text == "none") return 0;
  unsigned modules = 0;
  std::vector<std::string> known{"core_attn"};
  for (const auto& entry : kRecomputeModules) known.emplace_back(entry.first);
  while (true) {
    const std::size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    bool found = name == "core_attn";
    core_attention = core_attention || found;
    for (const auto& [module, bit] : kRecomputeModules) {
      if (name == module) {
        modules |= bit;
        found = true;
      }
    }
    if (!found) {
      const std::string closest = closest_name(std::string(name), known);
      throw Error(ErrorLocation{}, "",
                  "unknown recompute module '" + std::string(name) +
                      "' (expected a comma-separated list of core_attn, mlp, moe, moe_act, layernorm, "
                      "mla_up_proj, shared_experts, or none)",
                  closest.empty() ? std::string() : "did you mean '" + closest + "'?");
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return modules;
}

int ModelSpec::moe_layers() const {
  if (!is_moe()) return 0;
  // Every `every`-th layer is a MoE layer (GShard/Switch convention: layers every, 2*every, ...), counted
  // after the first_dense_layers dense ones (DeepSeek-V3 config.json first_k_dense_replace: layers 3..60).
  const int sparse_candidates = layers - moe->first_dense_layers;
  return moe->every > 0 && sparse_candidates > 0 ? sparse_candidates / moe->every : 0;
}

namespace {

double norm_of_width(NormKind kind, double width) {
  return kind == NormKind::kLayerNorm ? 2.0 * width : width;
}

// MLA's weight matrices, elements (DeepSeek-V2 §2.1.2-2.1.3, eqs. 9-14; HF modeling_deepseek.py
// DeepseekV3Attention): q_a_proj h x q_lora and q_b_proj q_lora x heads·qk (or one q_proj h x heads·qk),
// kv_a_proj_with_mqa h x (kv_lora + rope), kv_b_proj kv_lora x heads·(nope + v), o_proj heads·v x h.
struct MlaMatrices {
  double replicated = 0;  // the down projections (q_a_proj, kv_a_proj_with_mqa)
  double split = 0;       // q_b_proj (or q_proj), kv_b_proj and o_proj
};

MlaMatrices mla_matrices(const ModelSpec& m) {
  const MlaSpec& a = *m.mla;
  const double h = static_cast<double>(m.hidden), heads = m.heads;
  const double q_lora = static_cast<double>(a.q_lora_rank), kv_lora = static_cast<double>(a.kv_lora_rank);
  const double qk = static_cast<double>(a.qk_head_dim()), rope = static_cast<double>(a.qk_rope_head_dim);
  const double nope = static_cast<double>(a.qk_nope_head_dim), v = static_cast<double>(a.v_head_dim);
  MlaMatrices w;
  w.replicated = h * (kv_lora + rope) + (q_lora > 0.0 ? h * q_lora : 0.0);
  w.split = (q_lora > 0.0 ? q_lora : h) * heads * qk + kv_lora * heads * (nope + v) + heads * v * h;
  return w;
}

// MLA's norms on the compressed latents (HF modeling_deepseek.py DeepseekV3Attention: q_a_layernorm,
// kv_a_layernorm, RMSNorms), whole on every TP rank.
double mla_latent_norms(const ModelSpec& m) {
  const double q_lora = static_cast<double>(m.mla->q_lora_rank);
  return norm_of_width(m.norm, static_cast<double>(m.mla->kv_lora_rank)) +
         (q_lora > 0.0 ? norm_of_width(m.norm, q_lora) : 0.0);
}

// Elements of one layer's attention weight matrices (no biases, no norms): the multiply-adds per token.
double attention_matrices(const ModelSpec& m) {
  if (m.mla) {
    const MlaMatrices w = mla_matrices(m);
    return w.replicated + w.split;
  }
  const double h = static_cast<double>(m.hidden);
  // Q and output projection h x q_dim, K and V h x kv_dim (GQA, Ainslie et al. 2023).
  return 2.0 * h * static_cast<double>(m.q_dim()) + 2.0 * h * static_cast<double>(m.kv_dim());
}

}  // namespace

double ModelSpec::attention_parameters() const {
  // MLA's projections carry no biases (DeepSeek-V2/V3 config.json attention_bias false).
  if (mla) return attention_matrices(*this) + mla_latent_norms(*this);
  double params = attention_matrices(*this);
  if (bias) {
    params += static_cast<double>(q_dim() + hidden + 2 * kv_dim());
  } else if (qkv_bias) {
    params += static_cast<double>(q_dim() + 2 * kv_dim());
  }
  return params;
}

double ModelSpec::attention_replicated_parameters() const {
  // Megatron-Core's MLA builds linear_q_down_proj and linear_kv_down_proj as TELinear with parallel_mode
  // 'duplicated' (megatron/core/transformer/multi_latent_attention.py, MLASelfAttention.__init__, and
  // megatron/core/models/gpt/gpt_layer_specs.py, commit d98e8a64ddf3): whole on every TP rank.
  if (!mla) return 0.0;
  return mla_matrices(*this).replicated + mla_latent_norms(*this);
}

namespace {

// Weight matrices of one MLP of width `width`: 2 for a GELU MLP, 3 for a gated one (Shazeer 2020).
double mlp_matrices(FfnKind kind) {
  return kind == FfnKind::kGelu ? 2.0 : 3.0;
}

double mlp_parameters(const ModelSpec& m, double width) {
  const double h = static_cast<double>(m.hidden);
  double params = mlp_matrices(m.ffn) * h * width;
  if (m.bias) params += (m.ffn == FfnKind::kGelu ? width : 2.0 * width) + h;
  return params;
}

double norm_parameters(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden);
  return m.norm == NormKind::kLayerNorm ? 2.0 * h : h;
}

}  // namespace

ParameterCount count_parameters(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden);
  const double layers = m.layers;
  ParameterCount count;

  const double attention = m.attention_parameters();
  const double norms_per_layer = 2.0 * norm_parameters(m);
  const double dense_mlp = mlp_parameters(m, static_cast<double>(m.ffn_hidden));

  const double moe_layers = m.moe_layers();
  const double dense_layers = layers - moe_layers;
  double moe_total = 0.0;
  double moe_active = 0.0;
  if (m.is_moe()) {
    const double expert = mlp_parameters(m, static_cast<double>(m.moe->expert_ffn_hidden));
    const double router = h * m.moe->experts;  // Shazeer et al. 2017 gating: h x E, no bias
    moe_total = (m.moe->experts + m.moe->shared_experts) * expert + router;
    moe_active = (m.moe->top_k + m.moe->shared_experts) * expert + router;
  }

  count.attention = layers * attention;
  count.mlp = dense_layers * dense_mlp + moe_layers * moe_total;
  count.norms = layers * norms_per_layer + norm_parameters(m);  // + the final norm
  count.embedding = static_cast<double>(m.vocab) * h;
  if (m.position == PositionEmbedding::kLearned) count.embedding += static_cast<double>(m.seq_len) * h;
  if (!m.tied_embeddings) count.embedding += static_cast<double>(m.vocab) * h;
  count.per_layer_dense = attention + dense_mlp + norms_per_layer;

  count.total = count.attention + count.mlp + count.norms + count.embedding;
  count.active = count.total - moe_layers * (moe_total - moe_active);
  // An MTP module (DeepSeek-V3 §2.2; HF weights model.layers.61): one layer like the model's last (a MoE one
  // when the model has MoE layers), eh_proj 2h x h, enorm, hnorm and its head's norm; embedding and output
  // head shared with the main model.
  const double last_mlp = moe_layers > 0 ? moe_total : dense_mlp;
  count.mtp =
      m.mtp_layers * (attention + last_mlp + norms_per_layer + 2.0 * h * h + 3.0 * norm_parameters(m));
  return count;
}

FlopsPerToken flops_per_token(const ModelSpec& m, std::int64_t seq_len, bool causal) {
  const double h = static_cast<double>(m.hidden);
  const double s = static_cast<double>(seq_len);
  const double layers = m.layers;
  FlopsPerToken f;

  // 2 FLOPs per multiply-add (Kaplan et al. 2020 §2.1; Narayanan et al. 2021 §5.1).
  const double attention_linear = 2.0 * attention_matrices(m);
  // QK^T and scores x V: 2·s·q_dim and 2·s·(heads x value width) per token over the whole s x s matrix
  // (4·s·h for MHA); causal masking halves it. MLA: q_dim = heads·(nope + rope), values heads·v_head_dim.
  const double scores = 2.0 * s * static_cast<double>(m.q_dim() + m.out_dim()) * (causal ? 0.5 : 1.0);
  const double dense_mlp = 2.0 * mlp_matrices(m.ffn) * h * static_cast<double>(m.ffn_hidden);
  double moe_mlp = 0.0;
  if (m.is_moe()) {
    const double expert = 2.0 * mlp_matrices(m.ffn) * h * static_cast<double>(m.moe->expert_ffn_hidden);
    moe_mlp = (m.moe->top_k + m.moe->shared_experts) * expert + 2.0 * h * m.moe->experts;
  }
  const double moe_layers = m.moe_layers();

  f.logits = 2.0 * h * static_cast<double>(m.vocab);
  // Each MTP module runs one more layer (a MoE one when the model has them), its 2h x h projection and the
  // shared output head once more per token (DeepSeek-V3 §2.2, Figure 3).
  const double mtp_layer = attention_linear + scores + (moe_layers > 0 ? moe_mlp : dense_mlp);
  f.mtp = m.mtp_layers * (mtp_layer + 2.0 * 2.0 * h * h + f.logits);
  f.attention_scores = (layers + m.mtp_layers) * scores;
  f.forward = layers * (attention_linear + scores) + (layers - moe_layers) * dense_mlp +
              moe_layers * moe_mlp + f.logits + f.mtp;
  f.backward = 2.0 * f.forward;  // gradients w.r.t. inputs and weights (Narayanan et al. 2021 §5.1)
  // Full recompute runs every layer's forward again, not the logits layer (Narayanan et al. 2021 eq. 3:
  // 4 passes over the transformer layers, 3 over the logits), nor an MTP module's logits.
  f.recompute_full = f.forward - f.logits * (1.0 + m.mtp_layers);
  f.recompute_selective = f.attention_scores;  // Korthikanti et al. 2022 §5: only the attention core
  return f;
}

double megatron_flops_per_iteration(const ModelSpec& m, std::int64_t global_batch, std::int64_t seq_len,
                                    bool full_recompute) {
  const double B = static_cast<double>(global_batch);
  const double s = static_cast<double>(seq_len);
  const double l = m.layers;
  const double h = static_cast<double>(m.hidden);
  const double V = static_cast<double>(m.vocab);
  // Narayanan et al. 2021, eq. 3: 96·B·s·l·h²·(1 + s/6h + V/16lh) with full recompute (the logits layer is
  // not recomputed); without it, 3 passes: 72·B·s·l·h²·(1 + s/6h + V/12lh).
  if (full_recompute) return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
  return 72.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * l * h));
}

double activation_bytes_per_layer(const ModelSpec& m, std::int64_t seq_len, std::int64_t micro_batch, int tp,
                                  bool sequence_parallel, Recompute recompute, bool fp8_inputs,
                                  unsigned recompute_modules) {
  const double s = static_cast<double>(seq_len);
  const double b = static_cast<double>(micro_batch);
  const double h = static_cast<double>(m.hidden);
  // With tp > kv_heads every rank holds one whole K/V head (Megatron-LM replicates them): tp x head_dim.
  const double kv = std::max(static_cast<double>(m.kv_dim()), static_cast<double>(tp) * m.head_dim());
  const double q = static_cast<double>(m.q_dim());
  const double a = m.heads;
  const double t = tp;
  const double sbh = s * b * h;

  // Korthikanti et al. 2022 §4.1, 2-byte activations and 1-byte dropout masks, term by term:
  // replicated across TP ranks: LN inputs 4sbh, QKV input 2sbh, MLP input 2sbh, two dropout masks 2sbh
  // (none without dropout: ModelSpec::dropout). Under FP8 the QKV and MLP inputs are kept as FP8 (sbh each).
  const double masks = m.has_dropout() ? 2.0 : 0.0;
  double replicated = ((fp8_inputs ? 6.0 : 8.0) + masks) * sbh;
  // split by TP: Q 2sbh and K 2sb·kv (for QK^T), V 2sb·kv, projection input 2sbh (FP8: sbh) ...
  double split = (fp8_inputs ? 3.0 : 4.0) * s * b * q + 4.0 * s * b * kv;
  if (m.mla) {
    // MLA (DeepSeek-V2 §2.1) by the same accounting: Q and K at heads·(nope + rope), V at heads·v_head_dim
    // (at least one head per rank), the projection's input heads·v_head_dim (FP8: 1 byte); and, whole on
    // every TP rank like the layer input (Megatron-Core's duplicated down projections), each latent twice
    // (its RMSNorm's input and the up projection's input, q_lora and kv_lora wide) and the RoPE key.
    const MlaSpec& mla = *m.mla;
    const double v = std::max(static_cast<double>(m.v_dim()), t * static_cast<double>(mla.v_head_dim));
    const double out = static_cast<double>(m.out_dim());
    // Recompute of the up projections (mla_up_proj) discards Q, K and V after the attention core and
    // rebuilds them from the kept latents (Megatron-Core multi_latent_attention.py, qkv_up_checkpoint).
    const double up_projected = (recompute_modules & kRecomputeMlaUpProj) != 0 ? 0.0 : 2.0 * (q + kv + v);
    split = s * b * up_projected + (fp8_inputs ? 1.0 : 2.0) * s * b * out;
    replicated += s * b *
                  (4.0 * static_cast<double>(mla.q_lora_rank + mla.kv_lora_rank) +
                   2.0 * static_cast<double>(mla.qk_rope_head_dim));
    // MLA's input norm is not fused into a linear layer (gpt_layer_specs.py, MLA without down-projection
    // fusion): layernorm recompute discards its output, the down projections' input.
    if ((recompute_modules & kRecomputeLayernorm) != 0) replicated -= (fp8_inputs ? 1.0 : 2.0) * sbh;
  }
  // ... and the MLP's intermediate activations: GELU input and output 2 x 2sbf (16sbh at f = 4h);
  // a gated MLP keeps gate, up and their product, 3 x 2sbf.
  // (FP8: the second matrix's input, one of them, in 1 byte.)
  const double per_width = (m.ffn == FfnKind::kGelu ? 4.0 : 6.0) - (fp8_inputs ? 1.0 : 0.0);
  const double input_bytes = fp8_inputs ? 1.0 : 2.0;  // a linear layer's kept input, per element
  const auto recomputed = [&](unsigned module) { return (recompute_modules & module) != 0; };
  // Recompute of the dense MLP (mlp) keeps only the MLP's input, the residual that its fused norm reads
  // (kept as the norm's input): its intermediates and its fc1 input, the norm's output, go.
  const double dense_mlp =
      recomputed(kRecomputeMlp) ? 0.0 : per_width * s * b * static_cast<double>(m.ffn_hidden);
  const double dense_input_dropped = recomputed(kRecomputeMlp) ? input_bytes * sbh : 0.0;
  const double share = m.is_moe() ? static_cast<double>(m.moe_layers()) / m.layers : 0.0;
  if (share > 0.0) {
    const MoeSpec& moe = *m.moe;
    const double fe = static_cast<double>(moe.expert_ffn_hidden);
    // The routed experts' activation recompute (moe_act) discards the activation's output, fc2's input
    // (Megatron-Core experts.py, activation_checkpoint).
    const double act = recomputed(kRecomputeMoeAct) ? input_bytes : 0.0;
    const double routed = (per_width - act) * s * b * fe * moe.top_k;
    const double shared =
        recomputed(kRecomputeSharedExperts) ? 0.0 : per_width * s * b * fe * moe.shared_experts;
    // The k copies of each token the dispatcher sends to its experts, kept as the experts' fc1 input.
    // Megatron-Core applies the routing probabilities inside the experts' activation and unpermutes without
    // them since "Memory efficient token permutation" (commit 2659630721, 2025-04), so the experts' output
    // is not kept (experts.py bias_act_func with permuted_probs; token_dispatcher.py unpermute).
    const double dispatched = input_bytes * sbh * moe.top_k;
    // Recompute of the whole MoE layer (moe) keeps only its input, the norm's output.
    const double moe_layer = recomputed(kRecomputeMoe) ? 0.0 : routed + shared + dispatched;
    split += (1.0 - share) * dense_mlp + share * moe_layer;
    // A MoE layer's norm is not fused into a linear layer (the router reads its output; gpt_layer_specs.py
    // pre_mlp_layernorm): layernorm recompute discards that output, the MoE layer's input.
    const double moe_input_dropped = recomputed(kRecomputeLayernorm) ? input_bytes * sbh : 0.0;
    replicated -= (1.0 - share) * dense_input_dropped + share * moe_input_dropped;
  } else {
    split += dense_mlp;
    replicated -= dense_input_dropped;
  }
  // softmax output 2as²b, its dropout mask as²b and dropout output 2as²b: 5as²b (2as²b without dropout).
  const double scores = (m.has_dropout() ? 5.0 : 2.0) * a * s * s * b;

  switch (recompute) {
    case Recompute::kFull:
      // Only the layer input is kept (§4.3): 2sbh, split across TP ranks with sequence parallelism.
      return sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh;
    case Recompute::kSelective:
      return sequence_parallel ? (replicated + split) / t : replicated + split / t;
    case Recompute::kNone:
      break;
  }
  return sequence_parallel ? (replicated + split + scores) / t : replicated + (split + scores) / t;
}

}  // namespace costmodel::inline COSTMODEL_ABI
