#include "training.hpp"

#include <cmath>

#include "costmodel/io/load.hpp"
#include "costmodel/units.hpp"

namespace costmodel::cli {
namespace {

std::optional<bool> on_off(const po::variables_map& values, const std::string& name, const Context& context) {
  const auto text = string_option(values, name);
  if (!text) return std::nullopt;
  if (*text == "on") return true;
  if (*text == "off") return false;
  throw usage_error(context, "--" + name, "expected on or off, got '" + *text + "'",
                    did_you_mean(*text, {"on", "off"}));
}

Algorithm algorithm_option(const po::variables_map& values, const std::string& name, const Context& context) {
  const auto text = string_option(values, name);
  if (!text) return Algorithm::kAuto;
  const auto algorithm = parse_algorithm(*text);
  if (!algorithm) {
    throw usage_error(context, "--" + name, "unknown algorithm '" + *text + "'",
                      did_you_mean(*text, {"ring", "tree", "halving-doubling", "hierarchical", "direct",
                                           "in-network", "torus-bucket", "auto"}));
  }
  return *algorithm;
}

}  // namespace

void add_training_options(po::options_description& options, bool pins) {
  options.add_options()("model", po::value<std::string>(),
                        "model: catalog name (costmodel catalog models) or FILE.yaml [gpt3-175b]")(
      "global-batch", po::value<std::string>(), "sequences per step [about 4M tokens]")(
      "seq-len", po::value<std::string>(), "sequence length [the model's]")(
      "micro-batch", po::value<std::string>(), "sequences per micro-batch")(
      "recompute", po::value<std::string>(), "activation recompute: none|selective|full")(
      "zero", po::value<std::string>(), "ZeRO stage 0|1|2|3 (1 = distributed optimizer)")(
      "dtype", po::value<std::string>(), "compute dtype: bf16|fp16|fp8 [bf16]")(
      "tokens", po::value<std::string>(), "training tokens, for days and cost (300e9, 300B, 1.5T)")(
      "compression", po::value<std::string>(),
      "DP gradient compression: none|fp16|int8|topk:FRACTION [none]")(
      "overlap", po::value<std::string>(), "overlap DP communication with backward: on|off")(
      "sequence-parallel", po::value<std::string>(), "TP as reduce-scatter/all-gather: on|off")(
      "attention", po::value<std::string>(), "attention kernel: flash|standard [flash]")(
      "dp-algo", po::value<std::string>(),
      "DP collective algorithm: ring|tree|halving-doubling|hierarchical|in-network|auto [auto]")(
      "tp-algo", po::value<std::string>(), "TP collective algorithm [auto]");
  if (pins) {
    options.add_options()("tp", po::value<std::string>(), "tensor-parallel degree")(
        "pp", po::value<std::string>(), "pipeline-parallel degree")(
        "dp", po::value<std::string>(), "data-parallel degree")("cp", po::value<std::string>(),
                                                                "context-parallel degree")(
        "ep", po::value<std::string>(), "expert-parallel degree (carved out of dp)")(
        "vpp", po::value<std::string>(), "virtual pipeline stages per rank (interleaved 1F1B)");
  }
}

TrainingArgs read_training_args(const po::variables_map& values, const Context& context) {
  TrainingArgs a;
  if (auto model = string_option(values, "model")) a.model = *model;
  a.seq_len = positive_int(values, "seq-len", context);
  a.global_batch = positive_int(values, "global-batch", context);
  a.pins.micro_batch = positive_int(values, "micro-batch", context);
  if (auto text = string_option(values, "recompute")) {
    a.pins.recompute = parse_recompute(*text);
    if (!a.pins.recompute) {
      throw usage_error(context, "--recompute", "expected none, selective or full, got '" + *text + "'",
                        did_you_mean(*text, {"none", "selective", "full"}));
    }
  }
  a.pins.zero = nonnegative_int(values, "zero", context);
  if (a.pins.zero && *a.pins.zero > 3)
    throw usage_error(context, "--zero", "expected 0, 1, 2 or 3, got " + std::to_string(*a.pins.zero));
  if (auto text = string_option(values, "dtype")) {
    const auto dtype = parse_dtype(*text);
    if (!dtype || (*dtype != Dtype::kBf16 && *dtype != Dtype::kFp16 && *dtype != Dtype::kFp8)) {
      throw usage_error(context, "--dtype", "expected bf16, fp16 or fp8, got '" + *text + "'",
                        did_you_mean(*text, {"bf16", "fp16", "fp8"}));
    }
    a.dtype = *dtype;
  }
  if (auto text = string_option(values, "tokens")) {
    try {
      a.tokens = parse_token_count(*text);
    } catch (const Error& e) {
      throw usage_error(context, "--tokens", e.message());
    }
  }
  if (auto text = string_option(values, "compression")) {
    try {
      a.compression = parse_compression(*text);
    } catch (const Error& e) {
      throw usage_error(context, "--compression", e.message());
    }
  }
  a.pins.overlap = on_off(values, "overlap", context);
  a.pins.sequence_parallel = on_off(values, "sequence-parallel", context);
  if (auto text = string_option(values, "attention")) {
    if (*text != "flash" && *text != "standard") {
      throw usage_error(context, "--attention", "expected flash or standard, got '" + *text + "'",
                        did_you_mean(*text, {"flash", "standard"}));
    }
    a.options.flash_attention = *text == "flash";
  }
  a.options.dp_algorithm = algorithm_option(values, "dp-algo", context);
  a.options.tp_algorithm = algorithm_option(values, "tp-algo", context);
  a.options.tokens = a.tokens;
  a.pins.tp = positive_int(values, "tp", context);
  a.pins.pp = positive_int(values, "pp", context);
  a.pins.dp = positive_int(values, "dp", context);
  a.pins.cp = positive_int(values, "cp", context);
  a.pins.ep = positive_int(values, "ep", context);
  a.pins.vpp = positive_int(values, "vpp", context);
  return a;
}

ModelSpec make_model(const TrainingArgs& args, const Catalog& catalog) {
  ModelSpec model = resolve_model(args.model, catalog);
  if (args.seq_len) model.seq_len = *args.seq_len;
  return model;
}

}  // namespace costmodel::cli
