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

std::vector<std::string> validate(const Strategy& st, const ModelSpec& model, const ClusterSpec& cluster) {
  std::vector<std::string> reasons;
  auto positive = [&](int value, const char* name) {
    if (value <= 0) reasons.push_back(std::string(name) + " must be positive, got " + std::to_string(value));
    return value > 0;
  };
  // Every degree is checked (no short-circuit), so that all bad ones are reported.
  const bool checks[] = {positive(st.tp, "tp"),
                         positive(st.pp, "pp"),
                         positive(st.dp, "dp"),
                         positive(st.cp, "cp"),
                         positive(st.ep, "ep"),
                         positive(st.vpp, "vpp"),
                         positive(st.micro_batch, "micro_batch"),
                         positive(st.global_batch, "global_batch")};
  const bool ok = std::all_of(std::begin(checks), std::end(checks), [](bool b) { return b; });
  if (st.zero < 0 || st.zero > 3)
    reasons.push_back("zero must be 0, 1, 2 or 3, got " + std::to_string(st.zero));
  if (!ok) return reasons;

  const long long product = static_cast<long long>(st.tp) * st.pp * st.dp * st.cp;
  if (product != cluster.gpus) {
    reasons.push_back("tp*pp*dp*cp = " + std::to_string(st.tp) + "*" + std::to_string(st.pp) + "*" +
                      std::to_string(st.dp) + "*" + std::to_string(st.cp) + " = " + std::to_string(product) +
                      " is not the cluster's " + std::to_string(cluster.gpus) + " GPUs");
  }
  if (model.heads % st.tp != 0) {
    reasons.push_back("heads (" + std::to_string(model.heads) + ") not divisible by tp (" +
                      std::to_string(st.tp) + ")");
  }
  if (model.kv_heads % st.tp != 0 && st.tp % model.kv_heads != 0) {
    reasons.push_back("kv_heads (" + std::to_string(model.kv_heads) + ") and tp (" + std::to_string(st.tp) +
                      ") do not divide one another");
  }
  if (model.layers % (st.pp * st.vpp) != 0) {
    reasons.push_back("layers (" + std::to_string(model.layers) + ") not divisible by pp*vpp (" +
                      std::to_string(st.pp * st.vpp) + ")");
  }
  if (st.vpp > 1 && st.pp == 1) reasons.push_back("vpp > 1 needs pp > 1");
  const long long replicas_batch = static_cast<long long>(st.dp) * st.micro_batch;
  if (st.global_batch % replicas_batch != 0) {
    reasons.push_back("global_batch (" + std::to_string(st.global_batch) +
                      ") not divisible by dp*micro_batch (" + std::to_string(replicas_batch) + ")");
  } else if (st.vpp > 1 && st.micro_batches() % st.pp != 0) {
    // Megatron-LM's interleaved schedule needs the micro-batch count to be a multiple of pp.
    reasons.push_back("interleaved schedule needs micro-batches (" + std::to_string(st.micro_batches()) +
                      ") divisible by pp (" + std::to_string(st.pp) + ")");
  }
  if (model.seq_len % st.cp != 0) {
    reasons.push_back("seq_len (" + std::to_string(model.seq_len) + ") not divisible by cp (" +
                      std::to_string(st.cp) + ")");
  }
  if (st.ep > 1) {
    if (!model.is_moe()) {
      reasons.push_back("ep > 1 needs a mixture-of-experts model");
    } else if (model.moe->experts % st.ep != 0) {
      reasons.push_back("experts (" + std::to_string(model.moe->experts) + ") not divisible by ep (" +
                        std::to_string(st.ep) + ")");
    }
    if (st.dp % st.ep != 0) {
      reasons.push_back("ep (" + std::to_string(st.ep) + ") does not divide dp (" + std::to_string(st.dp) +
                        ")");
    }
  }
  if (!cluster.gpu.supports(st.dtype)) {
    reasons.push_back(std::string(cluster.gpu.name) + " has no " + std::string(to_string(st.dtype)) +
                      " tensor cores");
  }
  if (st.compression.kind == CompressionKind::kTopK &&
      !(st.compression.topk_fraction > 0.0 && st.compression.topk_fraction <= 1.0)) {
    reasons.push_back("top-k compression fraction must be in (0, 1]");
  }
  return reasons;
}

}  // namespace costmodel
