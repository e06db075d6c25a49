// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to estimate/: one transformer layer's parameter tensors as DeepSpeed ZeRO-3 sees them, module by
// module (data.cpp's per-tensor collectives, memory.cpp's gathered working set).

#include <array>
#include <cstddef>
#include "costmodel/version.hpp"

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/spec/model.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

// DeepSpeed's defaults (deepspeed/runtime/zero/config.py, stage3_param_persistence_threshold and
// stage3_max_reuse_distance): a parameter of at most 1e5 elements is never partitioned for the forward
// (ds_persist: never gathered, its gradient still reduce-scattered); a module used again within 1e9 elements
// of other modules' parameters keeps its gathered parameters (stage3.py _keep_for_later with
// PrefetchCoordinator.get_reuse_distance_in_numel).
inline constexpr double kPersistenceThreshold = 1e5;
inline constexpr double kMaxReuseDistance = 1e9;

// A Megatron-LM layer's four linear modules in execution order: fused QKV and projection (column- and
// row-parallel), fc1 (gate and up fused when gated) and fc2, each a weight and, with biases, a bias (split
// over tp on column-parallel modules only), elements per GPU; and its norms' tensors (LayerNorm: weight and
// bias, twice), each of h elements, which are never gathered. DeepSpeed gathers per submodule (stage3.py
// fetch_sub_module). Experts are not counted.
struct LayerModules {
  std::array<double, 4> weights{};
  std::array<double, 4> biases{};
  double norm_tensors = 0;

  // True when a tensor of `elements` is partitioned, hence gathered before each use.
  [[nodiscard]] static bool gathered(double elements) { return elements > kPersistenceThreshold; }
  // The elements module k gathers.
  [[nodiscard]] double gathered_elements(std::size_t k) const {
    return (gathered(weights.at(k)) ? weights.at(k) : 0.0) + (gathered(biases.at(k)) ? biases.at(k) : 0.0);
  }
};

inline LayerModules layer_modules(const ModelSpec& model, const ModelTerms& terms, double tp) {
  const double h = terms.hidden, t = tp, qkv = terms.q_dim + 2.0 * terms.kv_dim;
  const double fc1 = (model.ffn == FfnKind::kGelu ? 1.0 : 2.0) * terms.ffn_hidden;
  LayerModules m;
  m.weights = {h * qkv / t, h * terms.q_dim / t, h * fc1 / t, h * terms.ffn_hidden / t};
  if (model.mla) {
    // MLA: the down and up projections as the first module (the down ones whole on every rank), the output
    // projection heads·v_head_dim x h.
    const double out = h * terms.out_dim, replicated = terms.params_replicated_per_layer;
    m.weights[0] = (terms.params_attention - out - replicated) / t + replicated;
    m.weights[1] = out / t;
  } else if (model.bias) {
    m.biases = {qkv / t, h, fc1 / t, h};
  } else if (model.qkv_bias) {
    m.biases = {qkv / t, 0.0, 0.0, 0.0};
  }
  m.norm_tensors = 2.0 * (model.norm == NormKind::kLayerNorm ? 2.0 : 1.0);
  return m;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
