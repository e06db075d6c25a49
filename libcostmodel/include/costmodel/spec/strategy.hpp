// SPDX-License-Identifier: Apache-2.0
#pragma once
// Strategy: one parallel execution of a model on a cluster (Calculon's "execution").

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/model.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// How the data-parallel gradient exchange is compressed on the wire.
enum class CompressionKind { kNone, kFp16, kInt8, kTopK };

/// The DP gradient compression of a strategy.
struct Compression {
  CompressionKind kind = CompressionKind::kNone;
  double topk_fraction = 0.0;  ///< for kTopK: fraction of gradient elements sent, in (0, 1]
  friend bool operator==(const Compression&, const Compression&) = default;
};
/// "none", "fp16", "int8", "topk:0.01".
[[nodiscard]] std::string to_string(const Compression& compression);
/// Parses "none|fp16|int8|topk:FRACTION"; throws Error on anything else.
[[nodiscard]] Compression parse_compression(std::string_view text);

/// Which of a step's GPU work is replayed from CUDA graphs instead of launched op by op from the host
/// (Megatron-Core --cuda-graph-impl; estimate/host_terms.hpp). kOff: eager. kLayer: Transformer Engine's
/// per-layer graphs (--cuda-graph-impl transformer_engine): dense layers whole, a dropless MoE layer's
/// attention, router and dispatch preprocessing (its experts, all-to-alls and host synchronisation stay
/// eager: a dropless MoE block has dynamic shapes). kFull: the whole iteration (--cuda-graph-impl
/// full_iteration), which needs a synchronisation-free MoE dispatcher (HybridEP with a per-rank capacity).
enum class CudaGraphs : std::uint8_t { kOff, kLayer, kFull };
/// Every CudaGraphs, in the order messages list them.
inline constexpr std::array kCudaGraphsModes{CudaGraphs::kOff, CudaGraphs::kLayer, CudaGraphs::kFull};
/// "off", "layer", "full".
[[nodiscard]] std::string_view to_string(CudaGraphs graphs);

/// How the MoE layers move tokens to their experts across the expert-parallel group (Megatron-Core
/// --moe-token-dispatcher-type; estimate/expert.cpp). kAllToAll: the alltoall dispatcher, one copy of a token
/// per routed expert. kDeepEp, kHybridEp: the flex dispatcher (--moe-flex-dispatcher-backend deepep or
/// hybridep), one copy per node (across nodes) or per GPU (inside one) that holds any of its experts,
/// forwarded on NVLink from there.
enum class MoeDispatcher : std::uint8_t { kAllToAll, kDeepEp, kHybridEp };
/// Every MoeDispatcher, in the order messages list them.
inline constexpr std::array kMoeDispatchers{MoeDispatcher::kAllToAll, MoeDispatcher::kDeepEp,
                                            MoeDispatcher::kHybridEp};
/// "alltoall", "deepep", "hybridep".
[[nodiscard]] std::string_view to_string(MoeDispatcher dispatcher);

/// One parallel configuration. Rank placement: TP innermost, then CP, DP, PP outermost (tp*pp*dp*cp = GPUs).
/// The experts fold the same tp·cp·dp ranks of a stage as Megatron-Core does
/// (megatron/core/parallel_state.py, initialize_model_parallel, expert rank generator): expert tensor
/// parallelism (etp) innermost, then ep, then the expert data-parallel replicas, so etp·ep divides tp·cp·dp.
struct Strategy {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;
  /// Expert tensor-parallel degree (Megatron-Core --expert-tensor-parallel-size): 0 is tp, Megatron-Core's
  /// default (the experts split over the TP group); 1 keeps each expert whole, ep then free to span TP ranks
  /// (MoE parallel folding). expert_tp() resolves it.
  int etp = 0;
  int vpp = 1;  ///< virtual stages per pipeline rank (interleaved 1F1B when > 1)
  /// Transformer layers on the first and on the last pipeline stage; 0 leaves that stage like the others
  /// (Megatron-LM's --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers). Both 0: the
  /// layers are spread evenly. See stage_layers() for the rules.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  int micro_batch = 1;
  int global_batch = 1;  ///< sequences per step
  Recompute recompute = Recompute::kNone;
  /// With full recompute, the layers of each model chunk that are recomputed, the others keeping their
  /// activations (Megatron-LM --recompute-method block --recompute-num-layers N: megatron/core/transformer/
  /// transformer_block.py, TransformerBlock._checkpointed_forward); 0: every layer (--recompute-method
  /// uniform --recompute-num-layers 1). See recomputed_layers().
  int recompute_layers = 0;
  /// Modules recomputed besides, or instead of, the attention core under Megatron-Core's selective
  /// recompute (RecomputeModule bits, spec/model.hpp; --recompute-modules): only with recompute none or
  /// selective, the attention core itself being Recompute::kSelective.
  unsigned recompute_modules = 0;
  int zero = 0;  ///< ZeRO stage 0..3 (1 = distributed optimizer)
  Dtype dtype = Dtype::kBf16;
  /// Main gradients kept and reduced in bf16 (Megatron-LM --grad-reduce-in-bf16; NeMo's performance recipes
  /// set grad_reduce_in_fp32 = False) instead of fp32, Megatron-LM's default with bf16 and fp8. fp16
  /// training keeps fp16 gradients either way.
  bool bf16_gradients = false;
  /// Adam's master weights, momentum and variance kept in bf16 (6 bytes per parameter) instead of fp32 (12):
  /// NeMo's distributed_fused_adam with dtype bf16 (Apex DistributedFusedAdam: the optimizer state and its
  /// parameter copy in `dtype`), Megatron-Core --use-precision-aware-optimizer with --main-params-dtype,
  /// --exp-avg-dtype and --exp-avg-sq-dtype bf16.
  bool bf16_optimizer = false;
  /// With dtype fp8, the weights the GPU computes with are kept in FP8 only (with the transpose the
  /// backward needs) and the distributed optimizer all-gathers them in FP8 (Megatron-LM --fp8-param-gather,
  /// Transformer Engine fp8_model_init). NVIDIA's FP8 recipes set it (NeMo 2 recipes/precision/
  /// mixed_precision.py bf16_with_fp8_mixed; Megatron-Bridge training/mixed_precision.py @05097809, the
  /// delayed, tensorwise and MXFP8 recipes); off keeps bf16 weights and casts FP8 copies of them each step.
  bool fp8_params = true;
  bool overlap = true;            ///< DP communication overlapped with the backward pass
  bool sequence_parallel = true;  ///< TP as reduce-scatter/all-gather (Korthikanti et al. 2022) vs AllReduce
  Compression compression;

  /// Every knob equal (member by member).
  friend bool operator==(const Strategy&, const Strategy&) = default;

  /// Micro-batches per pipeline per step: global_batch / (dp * micro_batch).
  [[nodiscard]] int micro_batches() const { return global_batch / (dp * micro_batch); }
  /// The expert tensor-parallel degree: etp, or tp when 0.
  [[nodiscard]] int expert_tp() const { return etp > 0 ? etp : tp; }
  /// Ranks of a stage holding the same experts (Megatron-Core's expert data parallelism): tp·cp·dp over
  /// etp·ep.
  [[nodiscard]] int expert_replicas() const {
    const int experts = expert_tp() * ep;
    return experts > 0 && tp * cp * dp >= experts ? tp * cp * dp / experts : 1;
  }
};

/// Transformer layers per pipeline stage (Megatron-LM, megatron/core/transformer/transformer_layer.py,
/// get_transformer_layer_offset): the first and the last stage hold Strategy::first_stage_layers and
/// last_stage_layers when set, the stages between share the rest evenly. With pp == 1 all three are the
/// model's layers and there is no middle stage.
struct StageLayers {
  int first = 0;          ///< on the first stage (which also holds the embedding)
  int middle = 0;         ///< on each stage between the first and the last (0 when there is none)
  int last = 0;           ///< on the last stage (which also holds the output layer and the loss)
  int middle_stages = 0;  ///< stages between the first and the last: pp - 2, or 0
  /// The most layers any stage holds.
  [[nodiscard]] int most() const;
};
/// The layers per stage of `strategy` for a model of `layers` layers (the rest of an uneven split divided
/// by the middle stages, rounded down: check() refuses a split that does not divide).
[[nodiscard]] StageLayers stage_layers(const Strategy& strategy, int layers) noexcept;

/// The layers of a pipeline stage of `stage_layers` layers whose forward runs again in the backward pass
/// under `strategy`'s full recompute: every one, or recompute_layers of each of its vpp model chunks (block
/// method), counted as min(stage_layers, recompute_layers x vpp) (exact when every chunk holds at least
/// recompute_layers). 0 without full recompute.
[[nodiscard]] int recomputed_layers(const Strategy& strategy, int stage_layers) noexcept;

/// Knob values fixed by a user or a source (command line, published run); unset ones are left to the planner.
struct Pins {
  std::optional<int> tp, pp, dp, cp, ep, etp, vpp, micro_batch, zero;
  std::optional<int> first_stage_layers, last_stage_layers;
  std::optional<Recompute> recompute;
  std::optional<int> recompute_layers;  ///< Strategy::recompute_layers (implies full recompute)
  std::optional<bool> overlap, sequence_parallel;
};

/// Sequences per step when none is given: about 4M tokens (2^22 / seq_len), the batch of recent dense LLMs
/// (Llama 2: 4M tokens, Touvron et al. 2023 §2.2; GPT-3 175B: 3.2M, Brown et al. 2020), and at least one
/// sequence per 8 GPUs so that large clusters keep data parallelism.
[[nodiscard]] int default_global_batch(const ModelSpec& model, int gpus);

/// Bit flags of why a configuration cannot run (validate() gives them in words).
enum InvalidReason : std::uint32_t {
  kValid = 0,
  kBadProduct = 1u << 0,          ///< tp·pp·dp·cp != GPUs
  kHeadsIndivisible = 1u << 1,    ///< heads or kv_heads vs tp
  kLayersIndivisible = 1u << 2,   ///< layers % (pp·vpp)
  kBatchIndivisible = 1u << 3,    ///< global batch % (dp·micro_batch), or interleaving's micro-batches % pp
  kSeqIndivisible = 1u << 4,      ///< seq_len % cp
  kExpertsIndivisible = 1u << 5,  ///< ep vs experts and dp, or ep on a dense model
  kDtypeUnsupported = 1u << 6,
  kBadDegree = 1u << 7,  ///< a degree < 1, zero stage outside 0..3
  /// A ZeRO stage the software stack does not run, alone or with pipeline parallelism (spec/stack.hpp; e.g.
  /// ZeRO-2 with pp > 1: Megatron-LM has no ZeRO-2 and DeepSpeed's PipelineEngine refuses it, FSDP2 runs
  /// it). check() never sets it; the planner counts it.
  kZeroUnsupported = 1u << 8,
  /// Another feature the software stack lacks (context or expert parallelism, interleaving, sequence
  /// parallelism, selective recompute, DP overlap: spec/stack.hpp). check() never sets it.
  kStackUnsupported = 1u << 9,
};
/// InvalidReason bits (kValid excluded).
inline constexpr int kInvalidReasonBits = 10;

/// How Megatron-LM is told an uneven split that check_layers() accepts: the first/last stage's layer counts
/// (--decoder-first/last-pipeline-num-layers) when vpp divides every stage's layers, else the embedding
/// and/or the loss counted as one layer of its stage (--account-for-embedding/loss-in-pipeline-split).
struct UnevenLayout {
  bool uneven = false;  ///< first_stage_layers or last_stage_layers set
  bool account_for_embedding = false;
  bool account_for_loss = false;
};
[[nodiscard]] UnevenLayout uneven_layout(const Strategy& strategy, int layers) noexcept;

/// kLayersIndivisible when the layers do not spread over `strategy`'s stages and vpp as check() requires
/// (even over pp·vpp, or Megatron-LM's uneven rules with first/last_stage_layers), else kValid.
[[nodiscard]] std::uint32_t check_layers(const Strategy& strategy, int layers) noexcept;

/// InvalidReason flags of `strategy` on `model` and `cluster` (kValid when it can run); allocates nothing.
[[nodiscard]] std::uint32_t check(const Strategy& strategy, const ModelSpec& model,
                                  const ClusterSpec& cluster) noexcept;

/// InvalidReason flags of a split alone, with vpp = micro_batch = 1 and the layers spread as the planner may
/// spread them (kValid when none): a degree below 1, heads and kv_heads vs tp, at least one layer per stage,
/// global_batch vs dp, seq_len vs cp, ep vs experts and etp·ep vs tp·cp·dp. The same rules as check(), which
/// refines layers to the stages' layout and vpp and the batch to dp·micro_batch and adds the GPU count, dtype
/// and ZeRO stage: a split that fails here fails for every value of the inner knobs. Allocates nothing.
[[nodiscard]] std::uint32_t check_split(const ModelSpec& model, int tp, int pp, int dp, int cp, int ep,
                                        int global_batch, int etp = 0) noexcept;

/// Why Megatron-Core's recompute `modules` (RecomputeModule bits) cannot run on `model`, whatever the split:
/// a module names a part the model lacks (mla_up_proj without MLA; moe, moe_act or shared_experts without MoE
/// layers; shared_experts without shared experts); nullptr when they can. Allocates nothing (the planner's
/// check() walks it).
[[nodiscard]] const char* recompute_modules_problem(unsigned modules, const ModelSpec& model) noexcept;

/// Every reason `strategy` cannot run `model` on `cluster` (empty when it can): product of the degrees vs
/// GPUs, heads divisible by tp, the layers' split over the stages and vpp, global batch by dp*micro_batch,
/// ep dividing the experts and etp·ep dividing tp·cp·dp, ...
[[nodiscard]] std::vector<std::string> validate(const Strategy& strategy, const ModelSpec& model,
                                                const ClusterSpec& cluster);

}  // namespace costmodel::inline COSTMODEL_ABI
