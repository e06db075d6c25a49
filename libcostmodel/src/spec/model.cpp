// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/model.hpp"

#include <algorithm>
#include <array>

namespace costmodel {

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
  if (name == "none") return Recompute::kNone;
  if (name == "selective") return Recompute::kSelective;
  if (name == "full") return Recompute::kFull;
  return std::nullopt;
}

int ModelSpec::moe_layers() const {
  if (!is_moe()) return 0;
  // Every `every`-th layer is a MoE layer (GShard/Switch convention: layers every, 2*every, ...).
  return moe->every > 0 ? layers / moe->every : 0;
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
  const double kv = static_cast<double>(m.kv_dim());
  const double layers = m.layers;
  ParameterCount count;

  const double q = static_cast<double>(m.q_dim());
  // Attention: Q and output projection h x q_dim, K and V h x kv_dim (GQA, Ainslie et al. 2023), biases.
  double attention = 2.0 * h * q + 2.0 * h * kv;
  if (m.bias) attention += q + h + 2.0 * kv;
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
  return count;
}

FlopsPerToken flops_per_token(const ModelSpec& m, std::int64_t seq_len, bool causal) {
  const double h = static_cast<double>(m.hidden);
  const double kv = static_cast<double>(m.kv_dim());
  const double s = static_cast<double>(seq_len);
  const double layers = m.layers;
  FlopsPerToken f;

  // 2 FLOPs per multiply-add (Kaplan et al. 2020 §2.1; Narayanan et al. 2021 §5.1).
  const double q = static_cast<double>(m.q_dim());
  const double attention_linear = 2.0 * (2.0 * h * q + 2.0 * h * kv);
  // QK^T and scores x V: 2·s·h each per token over the whole s x s matrix; causal masking halves it.
  const double scores = 4.0 * s * q * (causal ? 0.5 : 1.0);
  const double dense_mlp = 2.0 * mlp_matrices(m.ffn) * h * static_cast<double>(m.ffn_hidden);
  double moe_mlp = 0.0;
  if (m.is_moe()) {
    const double expert = 2.0 * mlp_matrices(m.ffn) * h * static_cast<double>(m.moe->expert_ffn_hidden);
    moe_mlp = (m.moe->top_k + m.moe->shared_experts) * expert + 2.0 * h * m.moe->experts;
  }
  const double moe_layers = m.moe_layers();

  f.attention_scores = layers * scores;
  f.logits = 2.0 * h * static_cast<double>(m.vocab);
  f.forward = layers * (attention_linear + scores) + (layers - moe_layers) * dense_mlp +
              moe_layers * moe_mlp + f.logits;
  f.backward = 2.0 * f.forward;  // gradients w.r.t. inputs and weights (Narayanan et al. 2021 §5.1)
  // Full recompute runs every layer's forward again, not the logits layer (Narayanan et al. 2021 eq. 3:
  // 4 passes over the transformer layers, 3 over the logits).
  f.recompute_full = f.forward - f.logits;
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
                                  bool sequence_parallel, Recompute recompute, bool fp8_inputs) {
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
  const double replicated = ((fp8_inputs ? 6.0 : 8.0) + masks) * sbh;
  // split by TP: Q 2sbh and K 2sb·kv (for QK^T), V 2sb·kv, projection input 2sbh (FP8: sbh) ...
  double split = (fp8_inputs ? 3.0 : 4.0) * s * b * q + 4.0 * s * b * kv;
  // ... and the MLP's intermediate activations: GELU input and output 2 x 2sbf (16sbh at f = 4h);
  // a gated MLP keeps gate, up and their product, 3 x 2sbf.
  // (FP8: the second matrix's input, one of them, in 1 byte.)
  const double per_width = (m.ffn == FfnKind::kGelu ? 4.0 : 6.0) - (fp8_inputs ? 1.0 : 0.0);
  if (m.is_moe() && m.moe_layers() == m.layers) {
    split += per_width * s * b * static_cast<double>(m.moe->expert_ffn_hidden) *
             (m.moe->top_k + m.moe->shared_experts);
    // The k copies of each token the dispatcher sends to its experts, kept twice for the backward: the
    // permuted tokens as the experts' fc1 input (2 bytes; FP8: 1) and the experts' output that unpermute
    // weighs by the routing probabilities (2 bytes): Megatron-Core moe_utils.permute / unpermute and
    // experts.py GroupedMLP (the autograd of fc1 and of the probability-weighted sum).
    split += (fp8_inputs ? 3.0 : 4.0) * sbh * m.moe->top_k;
  } else {
    split += per_width * s * b * static_cast<double>(m.ffn_hidden);
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

}  // namespace costmodel
