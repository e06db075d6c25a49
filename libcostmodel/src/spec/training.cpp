// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/training.hpp"

#include <array>
#include <charconv>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/estimate/inputs.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/spec/names.hpp"
#include "costmodel/units.hpp"
#include "text.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

std::string quoted(std::string_view text) {
  return std::string("'").append(text).append("'");
}

std::string suggestion(std::string_view text, const std::vector<std::string>& known) {
  const std::string closest = closest_name(std::string(text), known);
  return closest.empty() ? std::string() : "did you mean '" + closest + "'?";
}

/// An integer >= `minimum` (0 or 1) that fits in int.
int integer(std::string_view text, int minimum) {
  const std::string expected = minimum > 0 ? "a positive integer" : "a non-negative integer";
  long long parsed = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const auto [end, error] = std::from_chars(first, last, parsed);
  if (text.empty() || error == std::errc::invalid_argument || end != last) {
    throw Error("expected " + expected + ", got " + quoted(text));
  }
  if (error == std::errc::result_out_of_range || parsed > std::numeric_limits<int>::max()) {
    throw Error(quoted(text) + " is too large (at most " + std::to_string(std::numeric_limits<int>::max()) +
                ")");
  }
  if (parsed < minimum) throw Error("expected " + expected + ", got " + quoted(text));
  return static_cast<int>(parsed);
}

bool on_off(std::string_view text) {
  if (text == "on" || text == "true") return true;
  if (text == "off" || text == "false") return false;
  throw Error("expected on or off, got " + quoted(text), ErrorKind::kInput);
}

/// Error with a suggestion among `known` (the message says what is expected).
[[noreturn]] void fail_choice(const std::string& message, std::string_view text,
                              const std::vector<std::string>& known) {
  throw Error(ErrorLocation{}, "", message, suggestion(text, known));
}

/// One spelling of a knob's value and what it stands for.
template <typename T>
struct Choice {
  std::string_view name;
  T value;
};

/// The names of `choices`, in order.
template <typename T>
std::vector<std::string> names_of_choices(std::span<const Choice<T>> choices) {
  std::vector<std::string> names;
  for (const Choice<T>& c : choices) names.emplace_back(c.name);
  return names;
}

/// The value `text` names among `choices`, or the error "expected a, b or c, got 'text'" with a suggestion.
template <typename T>
T choose(std::string_view text, std::span<const Choice<T>> choices) {
  for (const Choice<T>& c : choices) {
    if (text == c.name) return c.value;
  }
  const std::vector<std::string> names = names_of_choices(choices);
  fail_choice("expected " + alternatives(names) + ", got " + quoted(text), text, names);
}

/// The name `choices` gives `value`: the first, so that aliases follow the name printed.
template <typename T>
std::string_view name_of(std::span<const Choice<T>> choices, T value) {
  for (const Choice<T>& c : choices) {
    if (c.value == value) return c.name;
  }
  return choices.front().name;
}

/// The choices of an enum knob: each of `values` by its to_string (the one spelling), then `aliases`.
template <typename T, std::size_t N>
std::vector<Choice<T>> choices_of(const std::array<T, N>& values,
                                  std::initializer_list<Choice<T>> aliases = {}) {
  std::vector<Choice<T>> choices;
  for (const T value : values) choices.push_back({to_string(value), value});
  choices.insert(choices.end(), aliases.begin(), aliases.end());
  return choices;
}

/// The enum value `text` names among `values` (spelt by to_string), then `aliases`, or the choice error.
template <typename T, std::size_t N>
T choose(std::string_view text, const std::array<T, N>& values,
         std::initializer_list<Choice<T>> aliases = {}) {
  return choose<T>(text, std::span<const Choice<T>>(choices_of(values, aliases)));
}

/// The attention kernels of --attention.
constexpr std::array<Choice<bool>, 2> kAttentionKernels{{{"flash", true}, {"standard", false}}};
/// The dtypes of --dtype, of --attention-dtype and of a kept state (--grad-reduce-dtype, --optimizer-dtype).
constexpr std::array kComputeDtypes{Dtype::kBf16, Dtype::kFp16, Dtype::kFp8};
constexpr std::array kAttentionDtypes{Dtype::kBf16, Dtype::kFp8};
constexpr std::array kKeptDtypes{Dtype::kFp32, Dtype::kBf16};

// "fp32" -> false, "bf16" -> true: the precision of a kept state (gradients, optimizer states).
bool bf16_not_fp32(std::string_view text) {
  return choose(text, kKeptDtypes) == Dtype::kBf16;
}

/// A positive finite plain number; `expected` says what it stands for.
double positive(std::string_view text, const std::string& expected) {
  double value = 0.0;
  try {
    value = parse_number(text);
  } catch (const Error&) {
    throw Error("expected " + expected + ", got " + quoted(text));
  }
  if (!(value > 0.0)) throw Error("expected " + expected + ", got " + quoted(text));
  return value;
}

/// A positive time with its unit ("600s", "10min", "50000h").
Seconds positive_time(std::string_view text) {
  const Seconds time = parse_seconds(text);
  if (!(time.value > 0.0)) throw Error("expected a positive time such as 10min, got " + quoted(text));
  return time;
}

/// An electricity price: "0.08USD/kWh", or a bare number in USD/kWh.
UsdPerJoule energy_price(std::string_view text) {
  std::optional<double> bare;
  try {
    bare = parse_number(text);
  } catch (const Error&) {
    bare.reset();
  }
  const UsdPerJoule price = bare ? UsdPerJoule(*bare / kJoulesPerKwh) : parse_energy_price(text);
  if (!(price.value > 0.0)) throw Error("expected a positive price such as 0.08USD/kWh, got " + quoted(text));
  return price;
}

/// A layer count's column: null where 0 means "not set" (the default rule applies).
KnobValue positive_or_null(int count) {
  return count > 0 ? KnobValue(std::int64_t{count}) : KnobValue();
}

Algorithm algorithm(std::string_view text) {
  if (const auto parsed = parse_algorithm(text)) return *parsed;
  const std::vector<std::string> known = names_of<Algorithm>(kAlgorithmCount);
  fail_choice("unknown algorithm " + quoted(text), text, known);
}

}  // namespace

const std::vector<TrainingField>& training_fields() {
  // The help lines that list a knob's values, from the names its reader accepts (kept alive with kFields).
  static const std::string kRecomputeHelp = "activation recompute: " + listed(kRecomputes);
  static const std::string kDtypeHelp = "compute dtype: " + listed(kComputeDtypes) + " [bf16]";
  static const std::string kGradReduceHelp = "main gradients and their reduction: " + listed(kKeptDtypes) +
                                             " [fp32, Megatron-LM's default; fp16 training: fp16]";
  static const std::string kOptimizerDtypeHelp =
      "Adam's master weights and states: " + listed(kKeptDtypes) +
      " [fp32; bf16: NeMo's distributed_fused_adam dtype bf16, Megatron-Core's precision-aware optimizer]";
  static const std::string kAttentionHelp =
      "attention kernel: " + join(names_of_choices<bool>(kAttentionKernels), "|") + " [flash]";
  static const std::string kAttentionDtypeHelp =
      "attention core precision under --dtype fp8: " + listed(kAttentionDtypes) +
      " [bf16, as Megatron-LM and Transformer Engine]";
  static const std::string kAlgorithms = alternatives(names_of<Algorithm>(kAlgorithmCount));
  static const std::string kDpAlgorithmHelp = "DP collective algorithm: " + kAlgorithms + " [auto]";
  static const std::string kTpAlgorithmHelp = "TP collective algorithm: " + kAlgorithms + " [auto]";
  static const std::vector<TrainingField> kFields = {
      {"stack", "stack",
       "software stack (costmodel catalog stacks): its features bound the plan, its launch sets the knobs "
       "left unset: megatron-lm-2021|megatron-lm-2023|megatron-core|nemo|deepspeed|torchtitan|maxtext "
       "[megatron-core]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         if (text.empty()) throw Error("expected a stack name (costmodel catalog stacks), got ''");
         spec.stack = std::string(text);
       }},
      {"global_batch", "global-batch", "sequences per step [about 4M tokens]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.global_batch = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.global_batch}; }},
      {"seq_len", "seq-len", "sequence length [the model's]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.seq_len = integer(text, 1); }},
      {"micro_batch", "micro-batch", "sequences per micro-batch", false,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.micro_batch = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.micro_batch}; }},
      {"recompute", "recompute", kRecomputeHelp, false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.pins.recompute = choose(text, kRecomputes);
         if (spec.pins.recompute_layers && *spec.pins.recompute != Recompute::kFull)
           throw Error("recompute " + quoted(text) + " does not go with recompute_layers, which needs full");
         if (spec.recompute_modules_core) {
           // Megatron-Core's selective granularity with a module list: the list says what is recomputed.
           if (*spec.pins.recompute == Recompute::kFull)
             throw Error("recompute full does not go with recompute_modules, which needs selective");
           spec.pins.recompute = *spec.recompute_modules_core ? Recompute::kSelective : Recompute::kNone;
         }
       },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         return std::string(to_string(s.recompute));
       }},
      {"recompute_modules", "recompute-modules",
       "Megatron-Core's selective recompute modules, comma-separated: core_attn (= recompute selective), "
       "mlp, moe, moe_act, layernorm, mla_up_proj, shared_experts, or none [core_attn under selective]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         bool core = false;
         spec.recompute_modules = parse_recompute_modules(text, core);
         if (spec.pins.recompute == Recompute::kFull || spec.pins.recompute_layers)
           throw Error("recompute_modules needs selective recompute, but recompute is full");
         spec.recompute_modules_core = core;
         spec.pins.recompute = core ? Recompute::kSelective : Recompute::kNone;
       },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         if (s.recompute_modules == 0) return {};
         return recompute_modules_text(s.recompute_modules, s.recompute == Recompute::kSelective);
       }},
      {"recompute_layers", "recompute-layers",
       "with full recompute, the layers of each model chunk recomputed, the rest keeping their activations "
       "(Megatron-LM --recompute-method block --recompute-num-layers) [every layer; plan: the fewest that "
       "fit]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.pins.recompute_layers = integer(text, 1);
         if (spec.recompute_modules_core)
           throw Error("recompute_layers needs full recompute, which does not go with recompute_modules");
         if (spec.pins.recompute && *spec.pins.recompute != Recompute::kFull)
           throw Error("recompute_layers needs full recompute, but recompute is " +
                       std::string(to_string(*spec.pins.recompute)));
       },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         return positive_or_null(s.recompute_layers);
       }},
      {"zero", "zero", "ZeRO stage 0|1|2|3 (1 = distributed optimizer)", false,
       [](TrainingSpec& spec, std::string_view text) {
         const int zero = integer(text, 0);
         if (zero > 3) throw Error("expected 0, 1, 2 or 3, got " + std::to_string(zero));
         spec.pins.zero = zero;
       },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.zero}; }},
      {"dtype", "dtype", kDtypeHelp, false,
       [](TrainingSpec& spec, std::string_view text) { spec.dtype = choose(text, kComputeDtypes); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         return std::string(to_string(s.dtype));
       }},
      {"grad_reduce_dtype", "grad-reduce-dtype", kGradReduceHelp, false,
       [](TrainingSpec& spec, std::string_view text) { spec.bf16_gradients = bf16_not_fp32(text); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         return std::string(
             to_string(s.bf16_gradients ? Dtype::kBf16 : s.dtype == Dtype::kFp16 ? Dtype::kFp16 : Dtype::kFp32));
       }},
      {"optimizer_dtype", "optimizer-dtype", kOptimizerDtypeHelp, false,
       [](TrainingSpec& spec, std::string_view text) { spec.bf16_optimizer = bf16_not_fp32(text); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         return std::string(to_string(s.bf16_optimizer ? Dtype::kBf16 : Dtype::kFp32));
       }},
      {"fp8_params", "fp8-params",
       "under --dtype fp8, keep the weights in FP8 only and all-gather them in FP8 (Megatron-LM "
       "--fp8-param-gather, NeMo/Megatron-Bridge fp8_param_gather); off: bf16 weights plus their FP8 copies: "
       "on|off [on, as NVIDIA's FP8 recipes]",
       false, [](TrainingSpec& spec, std::string_view text) { spec.fp8_params = on_off(text); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return fp8_weights(s); }},
      {"tokens", "tokens", "training tokens, for days and cost (300e9, 300B, 1.5T)", false,
       [](TrainingSpec& spec, std::string_view text) { spec.tokens = parse_token_count(text); }},
      {"compression", "compression", "DP gradient compression: none|fp16|int8|topk:FRACTION [none]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.compression = parse_compression(text); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return to_string(s.compression); }},
      {"overlap", "overlap", "overlap DP communication with backward: on|off", false,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.overlap = on_off(text); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return s.overlap; }},
      {"sequence_parallel", "sequence-parallel", "TP as reduce-scatter/all-gather: on|off", false,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.sequence_parallel = on_off(text); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return s.sequence_parallel; }},
      {"attention", "attention", kAttentionHelp, false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.flash_attention = choose<bool>(text, kAttentionKernels);
       },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue {
         return std::string(name_of<bool>(kAttentionKernels, o.flash_attention));
       }},
      {"attention_dtype", "attention-dtype", kAttentionDtypeHelp, false,
       [](TrainingSpec& spec, std::string_view text) { spec.attention_dtype = choose(text, kAttentionDtypes); },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue {
         return std::string(to_string(o.attention_dtype));
       }},
      {"moe_capacity_factor", "moe-capacity-factor",
       "tokens of the busiest expert relative to balanced routing (Megatron-LM's capacity factor) [1]", false,
       [](TrainingSpec& spec, std::string_view text) {
         double factor = -1.0;
         try {
           factor = parse_number(text);
         } catch (const Error&) {
           factor = -1.0;
         }
         if (!(factor > 0.0) || factor > 64.0) {
           throw Error("expected a positive number (at most 64), got " + quoted(text));
         }
         spec.moe_capacity_factor = factor;
       },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue { return o.moe_capacity_factor; }},
      {"tp_comm_overlap", "tp-comm-overlap",
       "overlap the sequence-parallel all-gathers and reduce-scatters with their GEMMs (Megatron-LM "
       "--tp-comm-overlap, NeMo ub_tp_comm_overlap; TP inside one scale-up domain): on|off [on, as NVIDIA's "
       "published Megatron-LM and NeMo runs]",
       false, [](TrainingSpec& spec, std::string_view text) { spec.tp_comm_overlap = on_off(text); },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue { return o.tp_comm_overlap; }},
      {"grad_accumulation_fusion", "grad-accumulation-fusion",
       "accumulate weight gradients into the main gradients inside the weight-gradient GEMM (Megatron-LM "
       "--gradient-accumulation-fusion); off: a separate main_grad += grad pass per micro-batch, as "
       "Megatron-LM before it and DeepSpeed: on|off [on]",
       false,
       [](TrainingSpec& spec, std::string_view text) { spec.grad_accumulation_fusion = on_off(text); },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue { return o.grad_accumulation_fusion; }},
      {"ep_comm_overlap", "ep-comm-overlap",
       "overlap the expert dispatch and combine all-to-alls with another micro-batch's compute "
       "(Megatron-Core "
       "--overlap-moe-expert-parallel-comm; one stage or interleaved stages): on|off [off]",
       false, [](TrainingSpec& spec, std::string_view text) { spec.ep_comm_overlap = on_off(text); },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue { return o.ep_comm_overlap; }},
      {"pp_comm_overlap", "pp-comm-overlap",
       "with interleaved stages (vpp > 1), overlap the pipeline send/recv with compute (Megatron-LM "
       "--overlap-p2p-communication); off: blocking, as 1F1B always is: on|off [on]",
       false, [](TrainingSpec& spec, std::string_view text) { spec.pp_comm_overlap = on_off(text); },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue { return o.pp_comm_overlap; }},
      {"cuda_graphs", "cuda-graphs",
       "CUDA graphs (Megatron-Core --cuda-graph-impl): off (eager), on or layer (Transformer Engine's "
       "per-layer graphs; a dropless MoE layer's experts stay eager) or full (the whole iteration, with a "
       "synchronisation-free MoE dispatcher) [off]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.cuda_graphs = choose(text, kCudaGraphsModes, {{"on", CudaGraphs::kLayer}});
       },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue {
         return std::string(to_string(o.cuda_graphs));
       }},
      {"moe_dispatcher", "moe-dispatcher",
       "MoE token dispatcher (Megatron-Core --moe-token-dispatcher-type): alltoall (a copy of a token per "
       "routed expert) or deepep or hybridep (flex: a copy per node across nodes, per GPU inside one, "
       "forwarded on NVLink) [alltoall]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.moe_dispatcher = choose(text, kMoeDispatchers);
       },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue {
         return std::string(to_string(o.moe_dispatcher));
       }},
      {"zero3_gather", "zero3-gather",
       "ZeRO-3's per-parameter collectives: flat (one tensor: DeepSpeed since 2022, FSDP) or list "
       "(world_size shard tensors, each copied by PyTorch: DeepSpeed's ZeRO-3 of 2021) [flat]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.zero3_gather = choose(text, kZero3Gathers);
       },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue {
         return std::string(to_string(o.zero3_gather));
       }},
      {"dp_algorithm", "dp-algo", kDpAlgorithmHelp, false,
       [](TrainingSpec& spec, std::string_view text) { spec.dp_algorithm = algorithm(text); },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue {
         return std::string(to_string(o.dp_algorithm));
       }},
      {"tp_algorithm", "tp-algo", kTpAlgorithmHelp, false,
       [](TrainingSpec& spec, std::string_view text) { spec.tp_algorithm = algorithm(text); },
       [](const Strategy&, const EstimateOptions& o) -> KnobValue {
         return std::string(to_string(o.tp_algorithm));
       }},
      {"cost_basis", "cost-basis", "what cost means in tables and --rank-by cost: owned (TCO)|rental [owned]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.economics.cost_basis = choose(text, kCostBases);
       }},
      {"amortization_years", "amortization-years", "years over which capex is amortised, for TCO [4]", false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.economics.amortization_years = positive(text, "a positive number of years, e.g. 4");
       }},
      {"electricity", "electricity",
       "electricity price, for TCO (0.08USD/kWh; a bare number is USD/kWh) [0.08]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.economics.electricity = energy_price(text); }},
      {"facility", "facility",
       "the building per kW of rated IT power and month, for lifetime TCO (colocation; a build's cost over "
       "its months) [data/prices.yaml]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.economics.facility = parse_capacity_price(text);
       }},
      {"support", "support",
       "hardware support per year, a share of capex, for lifetime TCO [data/prices.yaml]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.economics.support_share = parse_share(text); }},
      {"storage", "storage", "training storage, a share of capex, for lifetime TCO [data/prices.yaml]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.economics.storage_share = parse_share(text); }},
      {"spares", "spares", "spare nodes and parts, a share of capex, for lifetime TCO [data/prices.yaml]",
       false,
       [](TrainingSpec& spec, std::string_view text) { spec.economics.spares_share = parse_share(text); }},
      {"cables", "cables",
       "cables (unpriced in the bill), a share of capex, for lifetime TCO [data/prices.yaml]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.economics.cables_share = parse_share(text); }},
      {"pue", "pue", "data-centre power usage effectiveness, >= 1 [1.3]", false,
       [](TrainingSpec& spec, std::string_view text) {
         const double pue = positive(text, "a ratio >= 1, e.g. 1.3");
         if (pue < 1.0) throw Error("expected a ratio >= 1 (facility power / IT power), got " + quoted(text));
         spec.economics.pue = pue;
       }},
      {"gpu_mtbf", "gpu-mtbf",
       "mean time between interruptions per GPU (e.g. 50000h), or off [Llama 3: 2112d]", false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.reliability.gpu_mtbf = text == "off" || text == "none"
                                         ? Seconds(std::numeric_limits<double>::infinity())
                                         : positive_time(text);
       }},
      {"planned_mtbf", "planned-mtbf",
       "mean time between planned interruptions (maintenance) per GPU, or off [Llama 3: 18824d]", false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.reliability.planned_gpu_mtbf = text == "off" || text == "none"
                                                 ? Seconds(std::numeric_limits<double>::infinity())
                                                 : positive_time(text);
       }},
      {"checkpoint_bandwidth", "checkpoint-bandwidth",
       "checkpoint write bandwidth per node, e.g. 1GB/s [Llama 3: 0.98GB/s]", false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.reliability.checkpoint_bandwidth = parse_bandwidth(text);
         if (!(spec.reliability.checkpoint_bandwidth.value > 0.0))
           throw Error("expected a positive bandwidth, got " + quoted(text));
       }},
      {"restart_time", "restart-time", "time lost per interruption besides the lost work [10min]", false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.reliability.restart_time = parse_seconds(text);
       }},
      {"checkpoint_interval", "checkpoint-interval",
       "training time between checkpoints, or auto (Young/Daly sqrt(2 C M)) [auto]", false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.reliability.checkpoint_interval =
             text == "auto" ? std::nullopt : std::optional<Seconds>(positive_time(text));
       }},
      {"checkpoint_floor", "checkpoint-floor",
       "the least time between checkpoints an operator allows (storage retention, policy), e.g. 30min; the "
       "interval is also at least one step and, asynchronous, one write [none]",
       false,
       [](TrainingSpec& spec, std::string_view text) {
         spec.reliability.checkpoint_floor =
             text == "none" ? std::nullopt : std::optional<Seconds>(positive_time(text));
       }},
      {"async_checkpoint", "async-checkpoint",
       "asynchronous checkpoints (only the GPU->host copy blocks): on|off [off]", false,
       [](TrainingSpec& spec, std::string_view text) { spec.reliability.async_checkpoint = on_off(text); }},
      {"tp", "tp", "tensor-parallel degree", true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.tp = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.tp}; }},
      {"pp", "pp", "pipeline-parallel degree", true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.pp = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.pp}; }},
      {"dp", "dp", "data-parallel degree", true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.dp = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.dp}; }},
      {"cp", "cp", "context-parallel degree", true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.cp = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.cp}; }},
      {"ep", "ep", "expert-parallel degree (etp·ep divides tp·cp·dp)", true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.ep = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.ep}; }},
      {"etp", "etp",
       "expert tensor-parallel degree: 1 (each expert whole, ep may span TP ranks) or tp (Megatron-Core "
       "--expert-tensor-parallel-size) [tp; plan: both]",
       true, [](TrainingSpec& spec, std::string_view text) { spec.pins.etp = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.expert_tp()}; }},
      {"vpp", "vpp", "virtual pipeline stages per rank (interleaved 1F1B)", true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.vpp = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue { return std::int64_t{s.vpp}; }},
      {"first_stage_layers", "first-stage-layers",
       "layers on the first pipeline stage, the rest spread evenly (Megatron-LM "
       "--decoder-first-pipeline-num-layers) [even]",
       true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.first_stage_layers = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         return positive_or_null(s.first_stage_layers);
       }},
      {"last_stage_layers", "last-stage-layers",
       "layers on the last pipeline stage (Megatron-LM --decoder-last-pipeline-num-layers) [even]", true,
       [](TrainingSpec& spec, std::string_view text) { spec.pins.last_stage_layers = integer(text, 1); },
       [](const Strategy& s, const EstimateOptions&) -> KnobValue {
         return positive_or_null(s.last_stage_layers);
       }},
  };
  return kFields;
}

const TrainingField& training_field(std::string_view key) {
  for (const TrainingField& field : training_fields()) {
    if (field.key == key) return field;
  }
  throw Error("unknown training field '" + std::string(key) + "'", ErrorKind::kInternal);
}

bool is_given(const TrainingSpec& training, std::string_view key) {
  const auto& fields = training_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].key == key) return (training.given >> i) & 1u;
  }
  return false;
}

void assign_training_field(TrainingSpec& spec, const TrainingField& field, std::string_view text) {
  field.set(spec, text);
  // A declaration of training_fields() marks its bit; one declared elsewhere (a test's) has none. Compared by
  // address: subtracting pointers into different arrays would be undefined.
  const auto& fields = training_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (&fields[i] == &field) spec.given |= std::uint64_t{1} << i;
  }
}

void set_training_field(TrainingSpec& spec, std::string_view key, std::string_view text) {
  assign_training_field(spec, training_field(key), text);
}

ModelSpec with_sequence_length(ModelSpec model, const TrainingSpec& spec) {
  if (spec.seq_len) model.seq_len = *spec.seq_len;
  return model;
}

int global_batch_of(const TrainingSpec& spec, const ModelSpec& model, int gpus) {
  return spec.global_batch.value_or(default_global_batch(model, gpus));
}

Strategy pinned_strategy(const TrainingSpec& spec, const ModelSpec& model, int gpus) {
  const Pins& p = spec.pins;
  for (const auto& [value, name] : {std::pair{p.tp, "tp"}, std::pair{p.pp, "pp"}, std::pair{p.dp, "dp"}}) {
    if (!value) throw Error(ErrorLocation{}, name, "required: one split needs tp, pp and dp");
  }
  Strategy st;
  st.tp = *p.tp;
  st.pp = *p.pp;
  st.dp = *p.dp;
  st.cp = p.cp.value_or(1);
  st.ep = p.ep.value_or(1);
  st.etp = p.etp.value_or(0);
  st.vpp = p.vpp.value_or(1);
  st.first_stage_layers = p.first_stage_layers.value_or(0);
  st.last_stage_layers = p.last_stage_layers.value_or(0);
  st.micro_batch = p.micro_batch.value_or(1);
  st.global_batch = global_batch_of(spec, model, gpus);
  st.recompute = p.recompute.value_or(p.recompute_layers ? Recompute::kFull : Recompute::kNone);
  st.recompute_layers = st.recompute == Recompute::kFull ? p.recompute_layers.value_or(0) : 0;
  st.zero = p.zero.value_or(0);
  st.dtype = spec.dtype;
  st.bf16_gradients = spec.bf16_gradients;
  st.bf16_optimizer = spec.bf16_optimizer;
  st.fp8_params = spec.fp8_params;
  st.recompute_modules = spec.recompute_modules;
  // Unpinned, as the stack runs them (every feature without one).
  const StackFeatures every;
  const StackFeatures& f = spec.stack_spec ? spec.stack_spec->features : every;
  const bool stack_overlap = f.dp_overlap && (*p.pp == 1 || f.dp_overlap_with_pipeline);
  const bool stack_sp = f.sequence_parallel;
  st.overlap = p.overlap.value_or(stack_overlap);
  st.sequence_parallel = p.sequence_parallel.value_or(stack_sp);
  st.compression = spec.compression;
  return st;
}

}  // namespace costmodel::inline COSTMODEL_ABI
