// SPDX-License-Identifier: Apache-2.0
#pragma once
// ModelSpec: a transformer architecture (models/*.yaml), its exact parameter count, FLOPs per token and
// activation memory per layer.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// gelu: any 2-matrix MLP (GELU, ReLU, squared ReLU); swiglu: any gated 3-matrix MLP (SwiGLU, GeGLU).
enum class FfnKind { kGelu, kSwiglu };
/// Every FfnKind, in the order messages list them (and every enum below likewise).
inline constexpr std::array kFfnKinds{FfnKind::kGelu, FfnKind::kSwiglu};
/// "gelu", "swiglu".
[[nodiscard]] std::string_view to_string(FfnKind kind);

/// How positions enter the model; only `kLearned` adds parameters (seq_len x hidden).
enum class PositionEmbedding { kLearned, kRope, kAlibi };
inline constexpr std::array kPositionEmbeddings{PositionEmbedding::kLearned, PositionEmbedding::kRope,
                                                PositionEmbedding::kAlibi};
/// "learned", "rope", "alibi".
[[nodiscard]] std::string_view to_string(PositionEmbedding kind);

/// LayerNorm has a scale and a bias (2h parameters); RMSNorm a scale only (h).
enum class NormKind { kLayerNorm, kRmsNorm };
inline constexpr std::array kNormKinds{NormKind::kLayerNorm, NormKind::kRmsNorm};
/// "layernorm", "rmsnorm".
[[nodiscard]] std::string_view to_string(NormKind kind);

/// Mixture-of-experts layers: `experts` routed experts of which `top_k` see each token, every `every`-th
/// layer after the first `first_dense_layers` (DeepSeekMoE, Dai et al. 2024 §4.1: the first layers keep a
/// dense MLP of the model's ffn_hidden; HF `first_k_dense_replace`). `shared_experts` see every token.
struct MoeSpec {
  int experts = 0;
  int top_k = 0;
  int every = 1;
  std::int64_t expert_ffn_hidden = 0;
  int shared_experts = 0;
  int first_dense_layers = 0;
};

/// Multi-head latent attention (DeepSeek-AI 2024, DeepSeek-V2 §2.1; keys as DeepSeek-V3's config.json).
/// Queries come from a q_lora_rank latent (0: a plain h x heads·qk projection), keys and values from one
/// kv_lora_rank latent, plus one decoupled RoPE key of qk_rope_head_dim shared by all heads. Per head the
/// query/key width is qk_nope_head_dim + qk_rope_head_dim and the value width v_head_dim.
struct MlaSpec {
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  /// Query/key width of one head.
  [[nodiscard]] std::int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

/// A decoder-only transformer. Defaults follow the architecture family: with `ffn: gelu` a GPT-style model
/// (biases, LayerNorm, learned positions); with `ffn: swiglu` a Llama-style one (no biases, RMSNorm, RoPE).
struct ModelSpec {
  std::string name;             ///< e.g. "gpt3-175b"
  std::string source;           ///< where the architecture comes from
  int layers = 0;               ///< transformer layers
  std::int64_t hidden = 0;      ///< model width h (elements)
  int heads = 0;                ///< attention (query) heads
  int kv_heads = 0;             ///< GQA groups; equals heads for multi-head attention
  std::int64_t head_size = 0;   ///< per-head dimension; 0 means hidden / heads
  std::int64_t ffn_hidden = 0;  ///< dense MLP width (4*hidden by default)
  FfnKind ffn = FfnKind::kGelu;
  std::int64_t vocab = 0;        ///< vocabulary size (tokens)
  std::int64_t seq_len = 0;      ///< training sequence length (tokens)
  bool tied_embeddings = false;  ///< output layer shares the input embedding
  bool bias = true;              ///< linear layers have biases
  /// The query, key and value projections have biases where the other linear layers have none (Qwen2 and
  /// Qwen2.5: transformers' Qwen2Attention builds q_proj, k_proj and v_proj with bias=True, o_proj and the
  /// MLP without); q_dim + 2 kv_dim parameters per layer. Megatron-LM's --add-qkv-bias.
  bool qkv_bias = false;
  NormKind norm = NormKind::kLayerNorm;
  PositionEmbedding position = PositionEmbedding::kLearned;
  /// Hidden and attention dropout probability in training: Megatron-LM's GPT default is 0.1
  /// (--hidden-dropout, --attention-dropout); Llama-style models train without (0). With 0 PyTorch's dropout
  /// returns its input (aten/src/ATen/native/Dropout.cpp, _dropout_impl): no mask is kept and no pass runs.
  double dropout = 0.1;
  std::optional<MoeSpec> moe;  ///< mixture-of-experts layers, if any
  std::optional<MlaSpec> mla;  ///< multi-head latent attention instead of MHA/GQA, if set
  /// Multi-token prediction modules (DeepSeek-AI 2024, DeepSeek-V3 §2.2): each one more transformer layer
  /// (shaped like the model's last), a 2h x h projection and three norms, sharing the embedding and the
  /// output head. Not counted in ParameterCount::total (see ParameterCount::mtp).
  int mtp_layers = 0;

  /// Per-head query/key dimension (elements); with MLA, qk_nope_head_dim + qk_rope_head_dim.
  [[nodiscard]] std::int64_t head_dim() const {
    if (mla) return mla->qk_head_dim();
    return head_size > 0 ? head_size : hidden / heads;
  }
  /// Per-head value dimension: head_dim() unless MLA's v_head_dim says otherwise.
  [[nodiscard]] std::int64_t value_head_dim() const { return mla ? mla->v_head_dim : head_dim(); }
  /// Width of the concatenated query heads (= hidden unless head_size says otherwise).
  [[nodiscard]] std::int64_t q_dim() const { return head_dim() * heads; }
  /// Width of the concatenated key heads, elements.
  [[nodiscard]] std::int64_t kv_dim() const { return head_dim() * kv_heads; }
  /// Width of the concatenated value heads, elements.
  [[nodiscard]] std::int64_t v_dim() const { return value_head_dim() * kv_heads; }
  /// Input width of the output projection: heads x value_head_dim (= q_dim() without MLA).
  [[nodiscard]] std::int64_t out_dim() const { return value_head_dim() * heads; }
  /// True when training applies dropout (masks kept for the backward, passes run).
  [[nodiscard]] bool has_dropout() const { return dropout > 0.0; }
  /// True for a mixture-of-experts model.
  [[nodiscard]] bool is_moe() const { return moe.has_value() && moe->experts > 0; }
  /// Layers whose MLP is a mixture of experts.
  [[nodiscard]] int moe_layers() const;
  /// Attention parameters of one layer (projections, biases, MLA's latent norms).
  [[nodiscard]] double attention_parameters() const;
  /// Of attention_parameters(), those Megatron-Core keeps whole on every TP rank: MLA's down projections and
  /// latent norms (0 without MLA).
  [[nodiscard]] double attention_replicated_parameters() const;
};

/// Parameter counts (elements, not bytes) of a model, split by where they live.
struct ParameterCount {
  double total = 0;            ///< every parameter
  double active = 0;           ///< used by one token (MoE: top_k routed + shared experts)
  double embedding = 0;        ///< input embedding + learned positions + untied output layer
  double attention = 0;        ///< all layers' QKV, projection and their biases
  double mlp = 0;              ///< dense MLPs, all experts, and routers
  double norms = 0;            ///< all layer norms including the final one
  double per_layer_dense = 0;  ///< one dense layer (attention + MLP + norms)
  /// Multi-token prediction modules, not in `total` or `active`: their layer, projection and norms, without
  /// the embedding and output head they share (DeepSeek-V3 README_WEIGHTS.md: 671B main model + 14B MTP
  /// weights as stored, 11.5B of them unique).
  double mtp = 0;
};

/// Exact parameter count. GPT-3 175B: 174.6B (Narayanan et al. 2021, Table 1 convention). `total` and
/// `active` are the main model's: multi-token prediction modules are reported apart, in `mtp`.
[[nodiscard]] ParameterCount count_parameters(const ModelSpec& model);

/// FLOPs for one token (matmul FLOPs, 2 per multiply-add), per pass. Attention scores count the full
/// s x s matrix (Megatron-LM's convention) unless `causal` halves them (what flash attention executes).
struct FlopsPerToken {
  double forward = 0;              ///< whole forward pass, all layers and logits
  double attention_scores = 0;     ///< the QK^T and score x V part of `forward`
  double logits = 0;               ///< the output layer part of `forward`
  double backward = 0;             ///< 2 x forward (Narayanan et al. 2021 §5.1)
  double recompute_full = 0;       ///< forward again, less the logits layer (not checkpointed in Megatron)
  double recompute_selective = 0;  ///< the attention core again (Korthikanti et al. 2022 §5)
  double mtp =
      0;  ///< the multi-token prediction modules' part of `forward` (their layer, projection, logits)
};
/// FLOPs per token of `model` at sequence length `seq_len` (a count of FLOP, per pass).
[[nodiscard]] FlopsPerToken flops_per_token(const ModelSpec& model, std::int64_t seq_len,
                                            bool causal = false);

/// Megatron-LM's FLOPs per iteration for GPT models (Narayanan et al. 2021, eq. 3):
/// 72·B·s·l·h²·(1 + s/6h + V/(12·l·h)), or 96·B·s·l·h²·(1 + s/6h + V/(16·l·h)) with full
/// recompute (the logits layer is not recomputed).
[[nodiscard]] double megatron_flops_per_iteration(const ModelSpec& model, std::int64_t global_batch,
                                                  std::int64_t seq_len, bool full_recompute);

/// Activation recomputation: none, selective (attention core; Korthikanti et al. 2022), full (whole layers).
enum class Recompute { kNone, kSelective, kFull };
/// Every Recompute, in the order messages list them.
inline constexpr std::array kRecomputes{Recompute::kNone, Recompute::kSelective, Recompute::kFull};
/// "none", "selective", "full".
[[nodiscard]] std::string_view to_string(Recompute recompute);
/// The mode named `name`, or nullopt.
[[nodiscard]] std::optional<Recompute> parse_recompute(std::string_view name);

/// Modules Megatron-Core's selective recompute rebuilds besides, or instead of, the attention core
/// (--recompute-granularity selective --recompute-modules; megatron/core/transformer/transformer_config.py
/// recompute_modules, commit d98e8a64): bit flags. The attention core ("core_attn") is Recompute::kSelective.
enum RecomputeModule : unsigned {
  kRecomputeMlp = 1u << 0,            ///< "mlp": the dense MLP of a dense layer
  kRecomputeMoe = 1u << 1,            ///< "moe": the whole MoE layer, dispatch and combine included
  kRecomputeMoeAct = 1u << 2,         ///< "moe_act": the routed experts' activation function
  kRecomputeLayernorm = 1u << 3,      ///< "layernorm": the norms not fused into the next linear layer
  kRecomputeMlaUpProj = 1u << 4,      ///< "mla_up_proj": MLA's up projections and RoPE
  kRecomputeSharedExperts = 1u << 5,  ///< "shared_experts": the shared experts of a MoE layer
};
/// The names of `modules` (RecomputeModule bits) in Megatron-Core's spelling, comma-separated, "core_attn"
/// first when `core_attention`; "" for none.
[[nodiscard]] std::string recompute_modules_text(unsigned modules, bool core_attention);
/// The modules of a comma-separated list of Megatron-Core names ("core_attn" sets `core_attention`; "none"
/// alone is the empty list). Throws Error naming the first unknown module, with a suggestion.
[[nodiscard]] unsigned parse_recompute_modules(std::string_view text, bool& core_attention);

/// Activation bytes of one transformer layer for one micro-batch (Korthikanti et al. 2022, Table 2):
/// sbh(34 + 5as/h) unparallelised; with tensor parallelism t, sbh(10 + 24/t + 5as/(ht)); with sequence
/// parallelism sbh/t(34 + 5as/h); selective recompute drops the 5as/h terms; full recompute keeps the 2sbh
/// input only (2sbh/t with sequence parallelism). Generalised to GQA (K/V at least one head per TP rank, as
/// Megatron-LM replicates them when tp > kv_heads), gated MLPs and ffn != 4h by term. `fp8_inputs`: the
/// linear layers keep their inputs for the backward pass in FP8 (Transformer Engine), 1 byte instead of 2.
/// `recompute_modules` (RecomputeModule bits, with recompute none or selective) drops what those modules
/// would keep: their outputs are discarded after use and rebuilt in the backward pass.
[[nodiscard]] double activation_bytes_per_layer(const ModelSpec& model, std::int64_t seq_len,
                                                std::int64_t micro_batch, int tp, bool sequence_parallel,
                                                Recompute recompute, bool fp8_inputs = false,
                                                unsigned recompute_modules = 0);

}  // namespace costmodel::inline COSTMODEL_ABI
