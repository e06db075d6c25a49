// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/hf_config.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "costmodel/error.hpp"
#include "text.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

constexpr std::int64_t kMaxDimension = std::int64_t{1} << 32;

/// The fields of one config.json mapping, read loosely: unknown fields are ignored (a config carries many
/// that do not change the cost of training), missing required ones are errors naming them.
class HfFields {
 public:
  HfFields(std::string file, const YAML::Node& root) : file_(std::move(file)), root_(root) {}

  [[nodiscard]] bool has(const char* key) const { return root_[key] && !root_[key].IsNull(); }
  [[nodiscard]] std::int64_t integer(const char* key) const {
    if (!has(key)) {
      throw Error(yaml::location_of(file_, root_), key, "missing required field '" + std::string(key) + "'");
    }
    return yaml::as_integer(file_, root_[key], key, 1, kMaxDimension);
  }
  [[nodiscard]] std::optional<std::int64_t> optional_integer(const char* key, std::int64_t min = 1) const {
    if (!has(key)) return std::nullopt;
    return yaml::as_integer(file_, root_[key], key, min, kMaxDimension);
  }
  [[nodiscard]] bool boolean(const char* key, bool fallback) const {
    return has(key) ? yaml::as_bool(file_, root_[key], key) : fallback;
  }
  [[nodiscard]] double number(const char* key, double fallback) const {
    return has(key) ? yaml::as_number(file_, root_[key], key, 0.0, 1.0) : fallback;
  }
  /// The largest of the dropout probabilities `keys` name (each `fallback` when absent).
  [[nodiscard]] double dropout(std::initializer_list<const char*> keys, double fallback) const {
    double p = 0.0;
    for (const char* key : keys) p = std::max(p, number(key, fallback));
    return p;
  }
  [[nodiscard]] std::string string(const char* key, const std::string& fallback = {}) const {
    return has(key) && root_[key].IsScalar() ? root_[key].Scalar() : fallback;
  }
  [[nodiscard]] Error error(const char* key, const std::string& message, const std::string& hint = {}) const {
    return Error(yaml::location_of(file_, has(key) ? root_[key] : root_), key, message, hint);
  }

 private:
  std::string file_;
  YAML::Node root_;
};

/// What every decoder-only family shares: layers, width, heads, vocabulary, sequence length, tying.
ModelSpec common(const HfFields& f, bool tied_default) {
  ModelSpec m;
  m.layers = static_cast<int>(f.integer("num_hidden_layers"));
  m.hidden = f.integer("hidden_size");
  m.heads = static_cast<int>(f.integer("num_attention_heads"));
  m.kv_heads = static_cast<int>(f.optional_integer("num_key_value_heads").value_or(m.heads));
  m.head_size = f.optional_integer("head_dim").value_or(0);
  m.vocab = f.integer("vocab_size");
  m.seq_len = f.integer("max_position_embeddings");
  m.tied_embeddings = f.boolean("tie_word_embeddings", tied_default);
  return m;
}

/// Llama-style: gated MLP (SwiGLU), RMSNorm, RoPE, no biases (but Qwen2's on Q, K and V: qkv_bias).
ModelSpec llama_style(const HfFields& f) {
  ModelSpec m = common(f, false);
  m.ffn = FfnKind::kSwiglu;
  m.ffn_hidden = f.integer("intermediate_size");
  m.bias = false;
  m.norm = NormKind::kRmsNorm;
  m.position = PositionEmbedding::kRope;
  m.dropout = f.dropout({"attention_dropout", "hidden_dropout"}, 0.0);  // LlamaConfig: attention_dropout 0
  return m;
}

/// Each token goes to num_experts_per_tok distinct experts of the layer's routed ones (top-k routing:
/// Shazeer et al. 2017), so k cannot exceed them.
void check_top_k(const HfFields& f, const MoeSpec& moe) {
  if (moe.top_k > moe.experts) {
    throw f.error("num_experts_per_tok", "routes each token to " + std::to_string(moe.top_k) + " of " +
                                             std::to_string(moe.experts) +
                                             " experts; top-k is at most the "
                                             "routed experts");
  }
}

/// Mixtral (num_local_experts), Qwen2-MoE and Qwen3-MoE (num_experts, moe_intermediate_size, shared expert,
/// decoder_sparse_step).
void add_experts(const HfFields& f, ModelSpec& m) {
  MoeSpec moe;
  if (f.has("num_local_experts")) {
    moe.experts = static_cast<int>(f.integer("num_local_experts"));
    moe.expert_ffn_hidden = m.ffn_hidden;
  } else {
    moe.experts = static_cast<int>(f.integer("num_experts"));
    moe.expert_ffn_hidden = f.integer("moe_intermediate_size");
  }
  moe.top_k = static_cast<int>(f.integer("num_experts_per_tok"));
  check_top_k(f, moe);
  moe.every = static_cast<int>(f.optional_integer("decoder_sparse_step").value_or(1));
  if (const auto shared = f.optional_integer("shared_expert_intermediate_size")) {
    if (*shared % moe.expert_ffn_hidden != 0) {
      throw f.error(
          "shared_expert_intermediate_size",
          "the shared expert's width is not a multiple of moe_intermediate_size; describe the model "
          "in a model YAML");
    }
    moe.shared_experts = static_cast<int>(*shared / moe.expert_ffn_hidden);
  }
  m.moe = moe;
}

/// DeepSeek-V2/V3 (HF modeling_deepseek.py, DeepseekV3Config): a Llama-style body with multi-head latent
/// attention, DeepSeekMoE layers after the first first_k_dense_replace dense ones (every moe_layer_freq-th),
/// and num_nextn_predict_layers MTP modules (DeepSeek-V3 README_WEIGHTS.md).
ModelSpec deepseek(const HfFields& f) {
  ModelSpec m = llama_style(f);
  MlaSpec mla;
  mla.q_lora_rank = f.optional_integer("q_lora_rank", 0).value_or(0);  // null in DeepSeek-V2-Lite
  mla.kv_lora_rank = f.integer("kv_lora_rank");
  mla.qk_rope_head_dim = f.integer("qk_rope_head_dim");
  mla.qk_nope_head_dim = f.optional_integer("qk_nope_head_dim", 0).value_or(0);
  mla.v_head_dim = f.integer("v_head_dim");
  m.mla = mla;
  m.head_size = 0;
  m.kv_heads = m.heads;  // one key and value head per query head (DeepSeek-V2 §2.1.2)
  if (f.optional_integer("n_routed_experts").value_or(0) > 0) {
    MoeSpec moe;
    moe.experts = static_cast<int>(f.integer("n_routed_experts"));
    moe.top_k = static_cast<int>(f.integer("num_experts_per_tok"));
    check_top_k(f, moe);
    moe.expert_ffn_hidden = f.integer("moe_intermediate_size");
    moe.shared_experts = static_cast<int>(f.optional_integer("n_shared_experts", 0).value_or(0));
    moe.first_dense_layers = static_cast<int>(f.optional_integer("first_k_dense_replace", 0).value_or(0));
    moe.every = static_cast<int>(f.optional_integer("moe_layer_freq").value_or(1));
    if (m.layers - moe.first_dense_layers < moe.every) {
      throw f.error("first_k_dense_replace", "leaves no MoE layer among num_hidden_layers");
    }
    m.moe = moe;
  }
  m.mtp_layers = static_cast<int>(f.optional_integer("num_nextn_predict_layers", 0).value_or(0));
  return m;
}

ModelSpec read_config(const HfFields& f, const std::string& type) {
  if (type == "deepseek_v2" || type == "deepseek_v3") return deepseek(f);
  if (f.has("kv_lora_rank")) {
    throw f.error("kv_lora_rank",
                  "multi-head latent attention is read from model_type deepseek_v2 and deepseek_v3 only; "
                  "describe the model in a model YAML (q_lora_rank, kv_lora_rank, ...)");
  }
  if (type == "llama" || type == "mistral" || type == "qwen2" || type == "qwen3") {
    ModelSpec m = llama_style(f);
    // Qwen2 (and Qwen2-MoE below) project Q, K and V with biases; its config.json has no key for it
    // (transformers' Qwen2Attention: q_proj, k_proj, v_proj bias=True). Qwen3 dropped them for QK-norm.
    m.qkv_bias = type == "qwen2";
    return m;
  }
  if (type == "mixtral" || type == "qwen2_moe" || type == "qwen3_moe") {
    ModelSpec m = llama_style(f);
    m.qkv_bias = type == "qwen2_moe";  // transformers' Qwen2MoeAttention, as Qwen2Attention
    add_experts(f, m);
    return m;
  }
  if (type == "gpt_neox") {
    ModelSpec m = common(f, false);
    m.ffn = FfnKind::kGelu;
    m.ffn_hidden = f.integer("intermediate_size");
    m.bias = true;
    m.norm = NormKind::kLayerNorm;
    m.position = PositionEmbedding::kRope;
    m.dropout = f.dropout({"attention_dropout", "hidden_dropout"}, 0.0);  // GPTNeoXConfig defaults 0
    return m;
  }
  if (type == "opt") {
    // OPT: ReLU 2-matrix MLP of ffn_dim, biases, LayerNorm, learned positions, tied embeddings.
    ModelSpec m = common(f, true);
    m.ffn = FfnKind::kGelu;
    m.ffn_hidden = f.integer("ffn_dim");
    m.bias = f.boolean("enable_bias", true);
    m.norm = NormKind::kLayerNorm;
    m.position = PositionEmbedding::kLearned;
    m.dropout = std::max(f.number("dropout", 0.1), f.number("attention_dropout", 0.0));  // OPTConfig defaults
    return m;
  }
  if (type == "falcon") {
    // Falcon: GELU MLP of 4h (ffn_hidden_size when given), no biases by default, LayerNorm, RoPE or ALiBi;
    // grouped K/V heads under the new decoder architecture, one K/V head with multi-query attention.
    ModelSpec m;
    m.layers = static_cast<int>(f.integer("num_hidden_layers"));
    m.hidden = f.integer("hidden_size");
    m.heads = static_cast<int>(f.integer("num_attention_heads"));
    const bool new_arch = f.boolean("new_decoder_architecture", false);
    m.kv_heads = new_arch ? static_cast<int>(f.optional_integer("num_kv_heads").value_or(m.heads))
                 : f.boolean("multi_query", true) ? 1
                                                  : m.heads;
    m.vocab = f.integer("vocab_size");
    m.seq_len = f.optional_integer("max_position_embeddings").value_or(2048);
    m.tied_embeddings = f.boolean("tie_word_embeddings", true);
    m.ffn = FfnKind::kGelu;
    m.ffn_hidden = f.optional_integer("ffn_hidden_size").value_or(4 * m.hidden);
    m.bias = f.boolean("bias", false);
    m.norm = NormKind::kLayerNorm;
    m.position = f.boolean("alibi", false) ? PositionEmbedding::kAlibi : PositionEmbedding::kRope;
    m.dropout = f.dropout({"attention_dropout", "hidden_dropout"}, 0.0);  // FalconConfig defaults 0
    return m;
  }
  throw f.error("model_type", "unsupported model_type '" + type + "'",
                "expected one of " + join(hf_model_types(), ", "));
}

}  // namespace

const std::vector<std::string>& hf_model_types() {
  static const std::vector<std::string> kTypes = {"llama",     "mistral", "mixtral",     "qwen2",
                                                  "qwen2_moe", "qwen3",   "qwen3_moe",   "gpt_neox",
                                                  "opt",       "falcon",  "deepseek_v2", "deepseek_v3"};
  return kTypes;
}

namespace {

ModelSpec from_document(const yaml::Document& document) {
  const std::string& filename = document.file;
  if (!document.root.IsMap()) {
    throw Error(yaml::location_of(filename, document.root), "", "expected a JSON object (a config.json)");
  }
  const HfFields fields(filename, document.root);
  if (!fields.has("model_type")) {
    throw Error(yaml::location_of(filename, document.root), "model_type",
                "missing required field 'model_type'", "expected one of " + join(hf_model_types(), ", "));
  }
  ModelSpec m = read_config(fields, fields.string("model_type"));
  const std::filesystem::path path(filename);
  const std::string folder = path.parent_path().filename().string();
  m.name = fields.string("_name_or_path", folder.empty() ? path.stem().string() : folder);
  m.source = "Hugging Face config.json: " + filename;
  if (m.head_size == 0 && !m.mla && m.hidden % m.heads != 0) {
    throw fields.error("num_attention_heads",
                       "hidden_size is not divisible by num_attention_heads and the "
                       "config gives no head_dim");
  }
  if (m.kv_heads < 1 || m.heads % m.kv_heads != 0) {
    throw fields.error("num_key_value_heads", "num_attention_heads is not a multiple of num_key_value_heads");
  }
  return m;
}

}  // namespace

ModelSpec load_hf_config_text(const std::string& json, const std::string& filename) {
  return from_document(yaml::parse_text(json, filename));
}

ModelSpec load_hf_config_file(const std::string& path) {
  return from_document(yaml::parse_file(path));
}

}  // namespace costmodel::inline COSTMODEL_ABI
