// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "costmodel/error.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::string_view to_string(CudaGraphs graphs) {
  switch (graphs) {
    case CudaGraphs::kOff:
      return "off";
    case CudaGraphs::kLayer:
      return "layer";
    case CudaGraphs::kFull:
      return "full";
  }
  return "off";
}

std::string_view to_string(MoeDispatcher dispatcher) {
  switch (dispatcher) {
    case MoeDispatcher::kAllToAll:
      return "alltoall";
    case MoeDispatcher::kDeepEp:
      return "deepep";
    case MoeDispatcher::kHybridEp:
      return "hybridep";
  }
  return "alltoall";
}

std::string to_string(const Compression& c) {
  switch (c.kind) {
    case CompressionKind::kNone:
      return "none";
    case CompressionKind::kFp16:
      return "fp16";
    case CompressionKind::kInt8:
      return "int8";
    case CompressionKind::kTopK: {
      char buffer[48];
      std::snprintf(buffer, sizeof buffer, "topk:%g", c.topk_fraction);
      return buffer;
    }
  }
  return "none";
}

Compression parse_compression(std::string_view text) {
  if (text == "none") return {};
  if (text == "fp16") return {CompressionKind::kFp16, 0.0};
  if (text == "int8") return {CompressionKind::kInt8, 0.0};
  if (text.substr(0, 5) == "topk:") {
    double fraction = 0.0;
    try {
      fraction = parse_number(text.substr(5));
    } catch (const Error&) {
      fraction = -1.0;
    }
    if (fraction > 0.0 && fraction <= 1.0) return {CompressionKind::kTopK, fraction};
    throw Error("top-k fraction must be a number in (0, 1], got '" + std::string(text.substr(5)) + "'");
  }
  throw Error("unknown compression '" + std::string(text) + "'; expected none, fp16, int8 or topk:FRACTION");
}

int default_global_batch(const ModelSpec& model, int gpus) {
  constexpr double kTokensPerBatch = 4194304.0;  // 2^22
  const double sequences = kTokensPerBatch / static_cast<double>(std::max<std::int64_t>(1, model.seq_len));
  return std::max(static_cast<int>(std::max(1.0, std::floor(sequences))), gpus / 8);
}

int StageLayers::most() const {
  return std::max({first, middle, last});
}

StageLayers stage_layers(const Strategy& st, int layers) noexcept {
  StageLayers s;
  if (st.pp <= 1) {
    s.first = s.last = layers;
    return s;
  }
  const int f = std::max(0, st.first_stage_layers), l = std::max(0, st.last_stage_layers);
  const int shared = st.pp - (f > 0 ? 1 : 0) - (l > 0 ? 1 : 0);
  const int per_stage = shared > 0 ? (layers - f - l) / shared : 0;
  s.first = f > 0 ? f : per_stage;
  s.last = l > 0 ? l : per_stage;
  s.middle_stages = st.pp - 2;
  s.middle = s.middle_stages > 0 ? per_stage : 0;
  return s;
}

int recomputed_layers(const Strategy& st, int stage_layers) noexcept {
  if (st.recompute != Recompute::kFull) return 0;
  if (st.recompute_layers <= 0) return stage_layers;
  return std::min(stage_layers, st.recompute_layers * std::max(1, st.vpp));
}

namespace {

std::string str(long long v) {
  return std::to_string(v);
}

// Every rule once: `fail(flag, describe)` is called for each broken rule; `describe` builds its words only
// when called, so check() and check_split() allocate nothing and validate() says everything.

// The degrees and stages: positive degrees, ZeRO 0..3, a top-k fraction in (0, 1]. True when every degree is
// positive (the other rules divide by them).
template <class Fail>
bool walk_degree_rules(const Strategy& st, Fail&& fail) {
  bool degrees_ok = true;
  const auto positive = [&](int value, const char* name) {
    if (value > 0) return;
    degrees_ok = false;
    fail(kBadDegree, [=] { return std::string(name) + " must be positive, got " + str(value); });
  };
  positive(st.tp, "tp");
  positive(st.pp, "pp");
  positive(st.dp, "dp");
  positive(st.cp, "cp");
  positive(st.ep, "ep");
  positive(st.vpp, "vpp");
  positive(st.micro_batch, "micro_batch");
  positive(st.global_batch, "global_batch");
  if (st.etp < 0) fail(kBadDegree, [&] { return "etp must not be negative, got " + str(st.etp); });
  if (st.first_stage_layers < 0 || st.last_stage_layers < 0) {
    fail(kBadDegree,
         [] { return std::string("first_stage_layers and last_stage_layers must not be negative"); });
  }
  if (st.zero < 0 || st.zero > 3) {
    fail(kBadDegree, [&] { return "zero must be 0, 1, 2 or 3, got " + str(st.zero); });
  }
  if (st.compression.kind == CompressionKind::kTopK &&
      !(st.compression.topk_fraction > 0.0 && st.compression.topk_fraction <= 1.0)) {
    fail(kBadDegree, [] { return std::string("top-k compression fraction must be in (0, 1]"); });
  }
  return degrees_ok;
}

// Megatron-LM's account-for-embedding/loss layout (transformer_layer.py get_transformer_layer_offset with
// --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split): every stage holds
// `units` layers, the embedding (loss) counting as one on the first (last) stage, and vpp divides the units.
// With no middle stage the units are the larger end or one more. Returns the units, 0 when no layout holds.
int account_units(int first, int last, int shared, int rest, int vpp) {
  const auto fits = [&](int units) {
    const int f = first > 0 ? first : units;
    const int l = last > 0 ? last : units;
    return units > 0 && units % vpp == 0 && (f == units || f == units - 1) && (l == units || l == units - 1);
  };
  if (shared > 0) return fits(rest / shared) ? rest / shared : 0;
  const int larger = std::max(first, last);
  if (fits(larger)) return larger;
  return fits(larger + 1) ? larger + 1 : 0;
}

// Megatron-LM's own uneven rule: vpp divides the layers of every stage (f or l 0: unset).
bool megatron_uneven(int first, int last, int shared, int rest, int vpp) {
  return first % vpp == 0 && last % vpp == 0 && (shared == 0 || (rest / shared) % vpp == 0);
}

// How the layers spread over the stages: evenly over pp·vpp chunks, or with first_stage_layers and
// last_stage_layers as Megatron-LM checks them (megatron/core/transformer/transformer_config.py,
// TransformerConfig.__post_init__, uneven pipeline branch, commit 002526d8): the rest divides over the other
// stages, and vpp divides the layers of every stage, or the account-for layout holds.
template <class Fail>
void walk_layer_rules(const Strategy& st, int layers, Fail&& fail) {
  const int f = st.first_stage_layers, l = st.last_stage_layers, v = st.vpp;
  if (v > 1 && st.pp == 1) fail(kLayersIndivisible, [] { return std::string("vpp > 1 needs pp > 1"); });
  if (f == 0 && l == 0) {
    if (layers % (st.pp * v) != 0) {
      fail(kLayersIndivisible, [&] {
        return "layers (" + str(layers) + ") not divisible by pp*vpp (" +
               str(static_cast<long long>(st.pp) * v) +
               "); first_stage_layers and last_stage_layers split them unevenly";
      });
    }
    return;
  }
  if (st.pp == 1) {
    fail(kLayersIndivisible,
         [] { return std::string("first_stage_layers and last_stage_layers need pp > 1"); });
    return;
  }
  const int shared = st.pp - (f > 0 ? 1 : 0) - (l > 0 ? 1 : 0);
  const int rest = layers - f - l;
  if (shared == 0 ? rest != 0 : rest < shared || rest % shared != 0) {
    fail(kLayersIndivisible, [&] {
      return "the " + str(rest) + " layers left by first_stage_layers (" + str(f) +
             ") and last_stage_layers (" + str(l) + ") do not divide over the other " + str(shared) +
             " stages";
    });
    return;
  }
  if (v <= 1) return;
  if (!megatron_uneven(f, l, shared, rest, v) && account_units(f, l, shared, rest, v) == 0) {
    fail(kLayersIndivisible, [&] {
      return "vpp (" + str(v) +
             ") divides neither every stage's layers nor, with the embedding and loss counted as layers, "
             "their "
             "units (first " +
             str(f) + ", last " + str(l) + ", " + str(shared > 0 ? rest / shared : 0) + " on the others)";
    });
  }
}

// How the model and the batch divide over the degrees (positive): heads and kv_heads over tp, layers over
// the stages (split_only: at least one per stage), the batch over dp·micro_batch, seq_len over cp, experts
// and dp over ep. With vpp = micro_batch = 1 and split_only these are the split-level rules (check_split()).
template <class Fail>
void walk_division_rules(const Strategy& st, const ModelSpec& model, bool split_only, Fail&& fail) {
  if (model.heads % st.tp != 0) {
    fail(kHeadsIndivisible,
         [&] { return "heads (" + str(model.heads) + ") not divisible by tp (" + str(st.tp) + ")"; });
  }
  // GQA: tp either splits the K/V heads or replicates them (Megatron-LM).
  if (model.kv_heads % st.tp != 0 && st.tp % model.kv_heads != 0) {
    fail(kHeadsIndivisible, [&] {
      return "kv_heads (" + str(model.kv_heads) + ") and tp (" + str(st.tp) + ") do not divide one another";
    });
  }
  if (split_only) {
    // Any pp up to the layer count has a layout (uneven when pp does not divide them).
    if (st.pp > model.layers) {
      fail(kLayersIndivisible, [&] {
        return "pp (" + str(st.pp) + ") exceeds the layers (" + str(model.layers) +
               "): a stage needs a layer";
      });
    }
  } else {
    walk_layer_rules(st, model.layers, fail);
  }
  const long long replicas_batch = static_cast<long long>(st.dp) * st.micro_batch;
  if (st.global_batch % replicas_batch != 0) {
    fail(kBatchIndivisible, [&] {
      return "global_batch (" + str(st.global_batch) + ") not divisible by dp*micro_batch (" +
             str(replicas_batch) + ")";
    });
  } else if (st.vpp > 1 && st.micro_batches() % st.pp != 0) {
    // Megatron-LM's interleaved schedule needs the micro-batch count to be a multiple of pp.
    fail(kBatchIndivisible, [&] {
      return "interleaved schedule needs micro-batches (" + str(st.micro_batches()) + ") divisible by pp (" +
             str(st.pp) + ")";
    });
  }
  if (model.seq_len % st.cp != 0) {
    fail(kSeqIndivisible,
         [&] { return "seq_len (" + str(model.seq_len) + ") not divisible by cp (" + str(st.cp) + ")"; });
  }
  if (st.ep > 1) {
    if (!model.is_moe()) {
      fail(kExpertsIndivisible, [] { return std::string("ep > 1 needs a mixture-of-experts model"); });
    } else if (model.moe->experts % st.ep != 0) {
      fail(kExpertsIndivisible, [&] {
        return "experts (" + str(model.moe->experts) + ") not divisible by ep (" + str(st.ep) + ")";
      });
    }
  }
  if (const char* problem = recompute_modules_problem(st.recompute_modules, model))
    fail(kBadDegree, [=] { return std::string(problem); });
  if (st.recompute_modules != 0 && st.recompute == Recompute::kFull) {
    fail(kBadDegree, [] { return std::string("recompute modules need selective recompute, not full"); });
  }
  // Megatron-Core folds the experts over the stage's tp·cp·dp ranks: etp·ep must divide them
  // (megatron/core/parallel_state.py, initialize_model_parallel: world_size % (etp·ep·pp)). This model takes
  // etp = tp (Megatron-Core's default) or 1.
  if (st.etp != 0 && st.etp != 1 && st.etp != st.tp) {
    fail(kExpertsIndivisible,
         [&] { return "etp (" + str(st.etp) + ") must be 1 or tp (" + str(st.tp) + ")"; });
  } else if (st.ep > 1 || st.etp != 0) {
    const long long ranks = static_cast<long long>(st.tp) * st.cp * st.dp;
    const long long expert_ranks = static_cast<long long>(st.expert_tp()) * st.ep;
    if (ranks % expert_ranks != 0) {
      fail(kExpertsIndivisible, [&] {
        return "etp*ep (" + str(st.expert_tp()) + "*" + str(st.ep) + ") does not divide tp*cp*dp (" +
               str(ranks) + ")" + (st.expert_tp() > 1 ? "; etp 1 keeps each expert whole" : "");
      });
    }
  }
}

template <class Fail>
void walk_rules(const Strategy& st, const ModelSpec& model, const ClusterSpec& cluster, Fail&& fail) {
  if (!walk_degree_rules(st, fail)) return;
  const long long product = static_cast<long long>(st.tp) * st.pp * st.dp * st.cp;
  if (product != cluster.gpus) {
    fail(kBadProduct, [&] {
      return "tp*pp*dp*cp = " + str(st.tp) + "*" + str(st.pp) + "*" + str(st.dp) + "*" + str(st.cp) + " = " +
             str(product) + " is not the cluster's " + str(cluster.gpus) + " GPUs";
    });
  }
  walk_division_rules(st, model, false, fail);
  if (!cluster.gpu.supports(st.dtype)) {
    fail(kDtypeUnsupported, [&] {
      return std::string(cluster.gpu.name) + " has no " + std::string(to_string(st.dtype)) + " tensor cores";
    });
  }
}

}  // namespace

std::uint32_t check(const Strategy& st, const ModelSpec& model, const ClusterSpec& cluster) noexcept {
  std::uint32_t flags = kValid;
  walk_rules(st, model, cluster, [&](std::uint32_t flag, auto&&) { flags |= flag; });
  return flags;
}

UnevenLayout uneven_layout(const Strategy& st, int layers) noexcept {
  UnevenLayout out;
  const int f = std::max(0, st.first_stage_layers), l = std::max(0, st.last_stage_layers), v = st.vpp;
  out.uneven = f > 0 || l > 0;
  if (!out.uneven || v <= 1 || st.pp <= 1) return out;
  const int shared = st.pp - (f > 0 ? 1 : 0) - (l > 0 ? 1 : 0);
  const int rest = layers - f - l;
  if (megatron_uneven(f, l, shared, rest, v)) return out;
  const int units = account_units(f, l, shared, rest, v);
  if (units == 0) return out;
  const StageLayers s = stage_layers(st, layers);
  out.account_for_embedding = s.first == units - 1;
  out.account_for_loss = s.last == units - 1;
  return out;
}

std::uint32_t check_layers(const Strategy& st, int layers) noexcept {
  std::uint32_t flags = kValid;
  if (st.pp < 1 || st.vpp < 1 || st.first_stage_layers < 0 || st.last_stage_layers < 0) return kBadDegree;
  walk_layer_rules(st, layers, [&](std::uint32_t flag, auto&&) { flags |= flag; });
  return flags;
}

std::uint32_t check_split(const ModelSpec& model, int tp, int pp, int dp, int cp, int ep, int global_batch,
                          int etp) noexcept {
  Strategy st;
  st.tp = tp;
  st.pp = pp;
  st.dp = dp;
  st.cp = cp;
  st.ep = ep;
  st.etp = etp;
  st.global_batch = global_batch;
  std::uint32_t flags = kValid;
  const auto collect = [&](std::uint32_t flag, auto&&) { flags |= flag; };
  if (walk_degree_rules(st, collect)) walk_division_rules(st, model, true, collect);
  return flags;
}

// Megatron-Core's recompute modules name parts of a model that it must have (transformer_config.py:
// mla_up_proj needs multi-latent attention; moe, moe_act and shared_experts a MoE layer, shared experts).
const char* recompute_modules_problem(unsigned modules, const ModelSpec& model) noexcept {
  if ((modules & kRecomputeMlaUpProj) != 0 && !model.mla)
    return "recompute module mla_up_proj needs a model with MLA attention";
  if ((modules & (kRecomputeMoe | kRecomputeMoeAct | kRecomputeSharedExperts)) != 0 &&
      model.moe_layers() == 0)
    return "recompute modules moe, moe_act and shared_experts need MoE layers";
  if ((modules & kRecomputeSharedExperts) != 0 && model.is_moe() && model.moe->shared_experts == 0)
    return "recompute module shared_experts needs shared experts";
  return nullptr;
}

std::vector<std::string> validate(const Strategy& st, const ModelSpec& model, const ClusterSpec& cluster) {
  std::vector<std::string> reasons;
  walk_rules(st, model, cluster, [&](std::uint32_t, auto&& describe) { reasons.push_back(describe()); });
  return reasons;
}

}  // namespace costmodel::inline COSTMODEL_ABI
