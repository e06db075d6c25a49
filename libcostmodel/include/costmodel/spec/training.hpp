// SPDX-License-Identifier: Apache-2.0
#pragma once
// TrainingSpec: what a training run sets beside the model and the cluster (batch, precision, token budget,
// compression, kernels, collective algorithms, what owning the cluster costs and how often the run is
// interrupted) and the knobs a user or a source pins (the planner chooses the rest). One type for the CLI's
// [training] flags, runs files, scenarios and the API, and one declaration per knob (TrainingField, with its
// own reader; set_training_field() by key), so that every input accepts the same values with the same words.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/collective.hpp"
#include "costmodel/spec/economics.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/intervals.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/stack.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel::inline COSTMODEL_ABI {

struct EstimateOptions;  // estimate/inputs.hpp

/// The settings of one training run; unset optionals take the defaults noted.
struct TrainingSpec {
  std::optional<std::int64_t> seq_len;  ///< tokens per sequence; default the model's
  std::optional<int> global_batch;      ///< sequences per step; default default_global_batch()
  Dtype dtype = Dtype::kBf16;           ///< GEMM precision: bf16, fp16 or fp8
  bool bf16_gradients = false;  ///< gradients reduced (and kept) in bf16, not fp32: Strategy::bf16_gradients
  bool bf16_optimizer = false;  ///< Adam's states (and master weights) in bf16: Strategy::bf16_optimizer
  bool fp8_params = true;       ///< FP8 primary weights under dtype fp8: Strategy::fp8_params
  /// Megatron-Core's recompute modules other than the attention core: Strategy::recompute_modules. Set,
  /// they also pin the recompute (selective with core_attn among them, else none).
  unsigned recompute_modules = 0;
  /// Whether recompute_modules was given, and with core_attn among them.
  std::optional<bool> recompute_modules_core;
  std::optional<double> tokens;  ///< training tokens (a count), for days and cost
  Compression compression;       ///< of the data-parallel gradient exchange
  bool flash_attention = true;   ///< fused attention (Dao et al. 2022) vs standard kernels
  /// Precision of the attention core (QK^T, softmax, scores·V) when dtype is fp8: bf16, Megatron-LM's and
  /// Transformer Engine's default (only the linear layers run in FP8), or fp8 (TE's fp8_dpa).
  Dtype attention_dtype = Dtype::kBf16;
  /// Tokens the busiest expert processes relative to balanced routing (>= 0): 1 is dropless and balanced
  /// (NeMo's benchmarks force-balance routing); Megatron-LM's --moe-expert-capacity-factor with
  /// --moe-pad-expert-input-to-capacity, or a measured imbalance.
  double moe_capacity_factor = 1.0;
  Algorithm dp_algorithm = Algorithm::kAuto;  ///< the DP gradient exchange's algorithm
  /// ZeRO-3's per-parameter collectives: flat (DeepSpeed since 2022, FSDP) or list (DeepSpeed's ZeRO-3 of
  /// 2021): spec/collective.hpp Zero3Gather.
  Zero3Gather zero3_gather = Zero3Gather::kFlat;
  /// Tensor-parallel communication overlapped with the GEMMs it feeds (Megatron-LM --tp-comm-overlap);
  /// EstimateOptions::tp_comm_overlap.
  bool tp_comm_overlap = true;
  /// Weight gradients accumulated into the main gradients inside the weight-gradient GEMM (Megatron-LM
  /// --gradient-accumulation-fusion, its default); off, a separate pass per micro-batch:
  /// EstimateOptions::grad_accumulation_fusion.
  bool grad_accumulation_fusion = true;
  /// Expert all-to-alls overlapped with another micro-batch's compute (Megatron-Core
  /// --overlap-moe-expert-parallel-comm): EstimateOptions::ep_comm_overlap.
  bool ep_comm_overlap = false;
  /// Pipeline send/recv overlapped with compute under the interleaved schedule (Megatron-LM
  /// --overlap-p2p-communication, its default): EstimateOptions::pp_comm_overlap.
  bool pp_comm_overlap = true;
  /// CUDA graphs (Megatron-Core --cuda-graph-impl): EstimateOptions::cuda_graphs.
  CudaGraphs cuda_graphs = CudaGraphs::kOff;
  /// The MoE token dispatcher (Megatron-Core --moe-token-dispatcher-type): EstimateOptions::moe_dispatcher.
  MoeDispatcher moe_dispatcher = MoeDispatcher::kAllToAll;
  Algorithm tp_algorithm = Algorithm::kAuto;  ///< the tensor-parallel collectives' algorithm
  Pins pins;                                  ///< knobs fixed by the user or the source
  EconomicsSpec economics;                    ///< cost basis, amortisation, electricity, PUE
  ReliabilitySpec reliability;                ///< interruptions, checkpoints and restarts (goodput)
  /// The software stack's name (data/stacks.yaml); empty: the cluster file's `stack:`, else kDefaultStack.
  std::string stack;
  /// The stack resolve_stack() applied (its defaults set, its features bounding the planner); null: none,
  /// every feature allowed (a TrainingSpec built in code without a catalog).
  std::shared_ptr<const StackSpec> stack_spec;
  /// The catalog's prediction intervals, attached by resolve_stack() (EstimateOptions::intervals); null:
  /// none.
  std::shared_ptr<const IntervalModel> intervals;
  /// Bit i: training_fields()[i] was set by the user or the source (assign_training_field()), so that a
  /// stack's defaults do not override it.
  std::uint64_t given = 0;
};

/// A knob's value in one configuration, as its JSON key and CSV column carry it (monostate: null).
using KnobValue = std::variant<std::monostate, std::int64_t, double, bool, std::string>;

/// One knob of TrainingSpec, declared once: `key` in YAML (runs files, scenarios' training.*), `flag` on the
/// command line (without the leading --), its help, `set`, the one reader of its text (values, range and
/// errors), and `column`, its value in an estimated configuration. The CLI's flags and help, the runs and
/// scenario readers, the scenario's training.* paths, the configuration outputs' knob columns (JSON, CSV,
/// scenario columns) and the knobs catalog all read this declaration; adding a knob is its field in
/// TrainingSpec (or Pins), where the estimate reads it, and one entry here.
struct TrainingField {
  std::string_view key;   ///< "global_batch"
  std::string_view flag;  ///< "global-batch"
  std::string_view help;  ///< one line for --help: what it is, its values, its default
  bool pin = false;       ///< a parallel degree (tp, pp, dp, cp, ep, vpp): only commands that take a split
  /// Sets the knob of `spec` from its text; throws Error (kInput, no location) with the accepted values.
  void (*set)(TrainingSpec& spec, std::string_view text) = nullptr;
  /// Its column (JSON key and CSV column `key`) in plan, estimate and scenario outputs: its value in one
  /// estimated configuration, read from the configuration and the estimator's options. Null for the knobs
  /// that describe the run rather than a configuration (the stack, tokens, sequence length, economics,
  /// goodput), which those outputs print elsewhere or not at all.
  KnobValue (*column)(const Strategy& strategy, const EstimateOptions& options) = nullptr;
};

/// Every field, in the order --help lists them.
[[nodiscard]] const std::vector<TrainingField>& training_fields();

/// Whether the field `key` of `training` was set by the user or the source (TrainingSpec::given).
[[nodiscard]] bool is_given(const TrainingSpec& training, std::string_view key);

/// Sets `field` of `spec` from `text` (TrainingField::set) and marks it as given (TrainingSpec::given).
void assign_training_field(TrainingSpec& spec, const TrainingField& field, std::string_view text);

/// The field whose key is `key`; an unknown key is an internal error.
[[nodiscard]] const TrainingField& training_field(std::string_view key);

/// Sets `key` (a TrainingField::key) of `spec` from its text: integers, on|off (or true|false), names and
/// token counts ("300B", "1.5T", "300e9") as every input writes them. Throws Error (kInput, no location:
/// the caller adds the file and line, or the flag) with the accepted values and a suggestion for a near
/// miss; an unknown key is an internal error.
void set_training_field(TrainingSpec& spec, std::string_view key, std::string_view text);

/// The model with the run's sequence length applied.
[[nodiscard]] ModelSpec with_sequence_length(ModelSpec model, const TrainingSpec& spec);

/// The global batch in sequences: the spec's, else default_global_batch(model, gpus).
[[nodiscard]] int global_batch_of(const TrainingSpec& spec, const ModelSpec& model, int gpus);

/// The one Strategy the spec pins (tp, pp and dp must be pinned; the rest default to cp 1, ep 1, vpp 1,
/// micro-batch 1, no recompute, ZeRO 0, overlap and sequence parallelism on). Throws Error naming the first
/// of tp, pp, dp that is not pinned.
[[nodiscard]] Strategy pinned_strategy(const TrainingSpec& spec, const ModelSpec& model, int gpus);

}  // namespace costmodel::inline COSTMODEL_ABI
