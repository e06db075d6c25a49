#pragma once
// What the estimator's terms read: its options, the model's numbers prepared once and the split's
// communicator paths.

#include <optional>

#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel {

/// Choices of the model that are not part of the parallel strategy.
struct EstimateOptions {
  std::optional<double> tokens;               ///< training tokens (a count), for days and cost
  Algorithm dp_algorithm = Algorithm::kAuto;  ///< the DP gradient exchange's algorithm
  Algorithm tp_algorithm = Algorithm::kAuto;  ///< the tensor-parallel collectives' algorithm
  /// Fused (flash) attention: never materialises the s x s scores and, with a causal mask, skips the masked
  /// half (Dao et al. 2022). Standard attention writes scores, softmax and dropout to HBM and computes all of
  /// it.
  bool flash_attention = true;
};

/// The paths of one split's communicators (they depend on tp, pp, dp, cp and ep only), computed once per
/// split so that every inner knob (micro-batch, recompute, ZeRO, ...) is evaluated from plain numbers.
struct SplitPaths {
  LinkPath tp;         ///< tp ranks, stride 1
  LinkPath cp;         ///< cp ranks, stride tp
  LinkPath ep;         ///< ep ranks, stride tp·cp
  LinkPath pp;         ///< neighbouring stages: 2 ranks, stride tp·cp·dp
  LinkPath dp;         ///< the gradient group: dp·cp ranks (CP ranks hold the same weights), stride tp
  LinkPath expert_dp;  ///< MoE experts' gradient group: dp·cp/ep ranks, stride tp·ep
};

/// Per-model numbers prepared once (Estimator's constructor): sizes as doubles, parameter counts of
/// count_parameters(), FLOPs of flops_per_token().
struct ModelTerms {
  double hidden = 0;                   ///< h
  double q_dim = 0;                    ///< heads · head_dim
  double kv_dim = 0;                   ///< kv_heads · head_dim
  double ffn_hidden = 0;               ///< f
  double vocab = 0;                    ///< V
  double seq_len = 0;                  ///< s, the whole sequence
  double moe_share = 0;                ///< fraction of layers that are MoE layers (0 for a dense model)
  double params_total = 0;             ///< every parameter, embeddings included
  double params_per_layer = 0;         ///< attention + norms + dense MLP (or MoE experts' share) per layer
  double expert_params_per_layer = 0;  ///< of which MoE experts, averaged over the layers
  double params_embedding = 0;         ///< input embedding (+ learned positions)
  double params_output = 0;  ///< untied output layer (a tied one: Megatron-LM's copy on the last stage)
  double model_flops_per_token = 0;      ///< forward + backward, full attention (MFU convention)
  double recompute_flops_full = 0;       ///< recomputed FLOPs per token under full recompute
  double recompute_flops_selective = 0;  ///< recomputed FLOPs per token under selective recompute
};

/// The ModelTerms of `model`.
[[nodiscard]] ModelTerms model_terms(const ModelSpec& model);

}  // namespace costmodel
