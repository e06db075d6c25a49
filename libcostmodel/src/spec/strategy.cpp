// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "costmodel/error.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

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
  if (st.zero < 0 || st.zero > 3) {
    fail(kBadDegree, [&] { return "zero must be 0, 1, 2 or 3, got " + str(st.zero); });
  }
  if (st.compression.kind == CompressionKind::kTopK &&
      !(st.compression.topk_fraction > 0.0 && st.compression.topk_fraction <= 1.0)) {
    fail(kBadDegree, [] { return std::string("top-k compression fraction must be in (0, 1]"); });
  }
  return degrees_ok;
}

// How the model and the batch divide over the degrees (positive): heads and kv_heads over tp, layers over
// pp·vpp, the batch over dp·micro_batch, seq_len over cp, experts and dp over ep. With vpp = micro_batch = 1
// these are the split-level rules (check_split()).
template <class Fail>
void walk_division_rules(const Strategy& st, const ModelSpec& model, Fail&& fail) {
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
  if (model.layers % (st.pp * st.vpp) != 0) {
    fail(kLayersIndivisible, [&] {
      return "layers (" + str(model.layers) + ") not divisible by pp*vpp (" +
             str(static_cast<long long>(st.pp) * st.vpp) + ")";
    });
  }
  if (st.vpp > 1 && st.pp == 1) fail(kLayersIndivisible, [] { return std::string("vpp > 1 needs pp > 1"); });
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
    if (st.dp % st.ep != 0) {
      fail(kExpertsIndivisible,
           [&] { return "ep (" + str(st.ep) + ") does not divide dp (" + str(st.dp) + ")"; });
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
  walk_division_rules(st, model, fail);
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

std::uint32_t check_split(const ModelSpec& model, int tp, int pp, int dp, int cp, int ep,
                          int global_batch) noexcept {
  Strategy st;
  st.tp = tp;
  st.pp = pp;
  st.dp = dp;
  st.cp = cp;
  st.ep = ep;
  st.global_batch = global_batch;
  std::uint32_t flags = kValid;
  const auto collect = [&](std::uint32_t flag, auto&&) { flags |= flag; };
  if (walk_degree_rules(st, collect)) walk_division_rules(st, model, collect);
  return flags;
}

std::vector<std::string> validate(const Strategy& st, const ModelSpec& model, const ClusterSpec& cluster) {
  std::vector<std::string> reasons;
  walk_rules(st, model, cluster, [&](std::uint32_t, auto&& describe) { reasons.push_back(describe()); });
  return reasons;
}

}  // namespace costmodel
