// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every step-time term reads: the model's numbers prepared once, the split's communicator paths, and one
// configuration's plain numbers (StepInputs), so that each term is a pure function of plain data.

#include <memory>
#include <optional>
#include <string>
#include "costmodel/version.hpp"

#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/spec/economics.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/intervals.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/stack.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Choices of the model that are not part of the parallel strategy.
struct EstimateOptions {
  std::optional<double> tokens;               ///< training tokens (a count), for days and cost
  Algorithm dp_algorithm = Algorithm::kAuto;  ///< the DP gradient exchange's algorithm
  Algorithm tp_algorithm = Algorithm::kAuto;  ///< the tensor-parallel collectives' algorithm
  /// Fused (flash) attention: never materialises the s x s scores and, with a causal mask, skips the masked
  /// half (Dao et al. 2022). Standard attention writes scores, softmax and dropout to HBM and computes all of
  /// it.
  bool flash_attention = true;
  EconomicsSpec economics;      ///< cost basis, amortisation, electricity, PUE (estimate/economics.hpp)
  ReliabilitySpec reliability;  ///< interruptions, checkpoints, restarts (estimate/goodput.hpp)
  /// The attention core's precision when Strategy::dtype is fp8 (bf16: Megatron-LM's default, only the
  /// linear layers' GEMMs run in FP8; fp8: Transformer Engine's fp8_dpa). Ignored for bf16 and fp16.
  Dtype attention_dtype = Dtype::kBf16;
  /// Tokens of the busiest expert relative to balanced routing (dimensionless, > 0): scales the experts'
  /// GEMMs and element-wise traffic and the dispatch volume (1: dropless and balanced).
  double moe_capacity_factor = 1.0;
  /// ZeRO-3's per-parameter collectives (spec/collective.hpp): kList adds PyTorch's per-shard copies
  /// (data_parallel_streams(), DataParallelStreams::layer_copies).
  Zero3Gather zero3_gather = Zero3Gather::kFlat;
  /// Megatron-LM --tp-comm-overlap (Transformer Engine userbuffers; needs sequence parallelism): each
  /// tensor-parallel all-gather and reduce-scatter is pipelined with its GEMM (tensor_parallel_layer()).
  /// On by default, as NVIDIA runs Megatron-LM for its published throughput (README "Training Speed and
  /// Scalability": --tp-comm-overlap) and NeMo's performance configurations; Megatron-LM's flag is off
  /// unless given.
  bool tp_comm_overlap = true;
  /// Megatron-LM --gradient-accumulation-fusion (on by default there): the weight-gradient GEMM adds into
  /// the main gradients. Off (Megatron-LM without it, DeepSpeed, PyTorch autograd), every micro-batch's
  /// backward also runs main_grad += grad over the rank's gradients (grad_accumulation_time()).
  bool grad_accumulation_fusion = true;
  /// Megatron-Core --overlap-moe-expert-parallel-comm (the combined 1F1B schedule, one stage or interleaved
  /// stages): the expert dispatch and combine hide behind the paired micro-batch's compute (step.cpp). Off
  /// by default, as in Megatron-Core.
  bool ep_comm_overlap = false;
  /// Megatron-LM's interleaved schedule overlaps the pipeline send/recv with compute (--overlap-p2p-
  /// communication, on unless --no-overlap-p2p-communication; validate_args turns it off for the
  /// non-interleaved 1F1B): pipeline_send_recv_overlapped(), step.cpp.
  bool pp_comm_overlap = true;
  /// Megatron-Core --cuda-graph-impl: which host launches CUDA graphs replace (host_terms.hpp). Off by
  /// default, as in Megatron-Core.
  CudaGraphs cuda_graphs = CudaGraphs::kOff;
  /// Megatron-Core --moe-token-dispatcher-type (alltoall, or flex with DeepEP or HybridEP): what the expert
  /// all-to-alls carry (expert_parallel_layer_time()). The alltoall dispatcher by default, as Megatron-Core.
  MoeDispatcher moe_dispatcher = MoeDispatcher::kAllToAll;
  /// The gradient buckets of the stack's DDP (StackSpec::dp_bucket): the last one's reduction and the first
  /// one's gather stay exposed (data_parallel_streams()). Default: none modelled.
  DataParallelBucket dp_bucket;
  /// The software stack's name (TrainingSpec::stack), for the unvalidated flags; empty: none named.
  std::string stack;
  /// The catalog's prediction intervals (data/intervals.yaml): Estimator::describe_collectives() gives the
  /// rows a user sees their interval and unvalidated flags; null: none.
  std::shared_ptr<const IntervalModel> intervals;
};

/// The paths of one split's communicators (they depend on tp, pp, dp, cp and ep only) with their collectives'
/// size-independent costs, computed once per split so that every inner knob (micro-batch, recompute, ZeRO,
/// ...) is evaluated from plain numbers.
struct SplitPaths {
  CollectivePath tp;  ///< tp ranks, stride 1
  CollectivePath cp;  ///< cp ranks, stride tp
  CollectivePath ep;  ///< ep ranks, stride tp·cp
  CollectivePath pp;  ///< neighbouring stages: 2 ranks, stride tp·cp·dp
  CollectivePath dp;  ///< the gradient group: dp·cp ranks (CP ranks hold the same weights), stride tp
  CollectivePath
      expert_dp;  ///< MoE experts' gradient group: dp·cp/ep ranks, stride tp·ep (= dp when ep == 1)
  CollectivePath embedding;  ///< first and last stage (tied embeddings' gradient all-reduce): 2 ranks
};

/// Per-model numbers prepared once (Estimator's constructor): sizes as doubles, parameter counts of
/// count_parameters(), FLOPs of flops_per_token().
struct ModelTerms {
  double hidden = 0;                   ///< h
  double head_dim = 0;                 ///< per-head width
  double q_dim = 0;                    ///< heads · head_dim
  double kv_dim = 0;                   ///< kv_heads · head_dim
  double out_dim = 0;                  ///< heads · value width: the output projection's input (= q_dim)
  double ffn_hidden = 0;               ///< f
  double vocab = 0;                    ///< V
  double seq_len = 0;                  ///< s, the whole sequence
  double moe_share = 0;                ///< fraction of layers that are MoE layers (0 for a dense model)
  double params_total = 0;             ///< every parameter, embeddings included
  double params_per_layer = 0;         ///< attention + norms + dense MLP (or MoE experts' share) per layer
  double expert_params_per_layer = 0;  ///< of which MoE routed experts, averaged over the layers
  double params_embedding = 0;         ///< input embedding (+ learned positions)
  double params_output = 0;     ///< untied output layer (a tied one: Megatron-LM's copy on the last stage)
  double params_attention = 0;  ///< one layer's attention (ModelSpec::attention_parameters())
  double params_replicated_per_layer = 0;  ///< of which whole on every TP rank (MLA's down projections)
  double params_mtp = 0;                   ///< the multi-token prediction modules' (ParameterCount::mtp) ...
  double expert_params_mtp = 0;            ///< ... of which routed experts
  double mtp_layers = 0;                   ///< ModelSpec::mtp_layers
  double model_flops_per_token = 0;        ///< forward + backward, full attention (MFU convention)
  double recompute_flops_full = 0;         ///< recomputed FLOPs per token under full recompute
  double recompute_flops_selective = 0;    ///< recomputed FLOPs per token under selective recompute
};

/// The ModelTerms of `model`.
[[nodiscard]] ModelTerms model_terms(const ModelSpec& model);

/// Bytes per element of the activations exchanged between GPUs: bf16/fp16 (fp8 GEMMs still exchange bf16
/// activations).
inline constexpr double kActivationBytes = 2.0;

/// One configuration's numbers, read by every term: plain doubles (SI or counts) beside the specs they come
/// from. Holds references: it lives no longer than one evaluation.
struct StepInputs {
  const ModelSpec& model;          ///< the model estimated
  const GpuSpec& gpu;              ///< the cluster's GPU
  const EstimateOptions& options;  ///< the estimator's options
  const Strategy& strategy;        ///< the configuration, valid (check() == kValid)
  const SplitPaths& paths;         ///< its split's communicators
  const ModelTerms& terms;         ///< the model's numbers, model_terms(model)
  double hidden = 0;               ///< h
  double head_dim = 0;             ///< per-head width
  double q_dim = 0;                ///< heads · head_dim
  double kv_dim = 0;               ///< kv_heads · head_dim
  /// K (or V) width on one TP rank: kv_dim / t, at least one head (Megatron-LM replicates the K/V heads when
  /// tp > kv_heads: megatron/core/transformer/attention.py, SelfAttention, num_query_groups_per_partition).
  double kv_per_rank = 0;
  double ffn_hidden = 0;           ///< f
  double vocab = 0;                ///< V
  double seq_len = 0;              ///< s, the whole sequence
  double tp = 1;                   ///< t
  double pp = 1;                   ///< p
  double vpp = 1;                  ///< v
  double micro_batches = 1;        ///< m, per pipeline per step
  double tokens = 0;               ///< T: tokens of one micro-batch on one GPU, micro_batch · s / cp
  bool sequence_parallel = false;  ///< TP as reduce-scatter + all-gather (only when tp > 1)
  double layers_per_stage = 0;     ///< the most layers a stage holds (StageLayers::most())
  StageLayers stages{};            ///< layers on the first, each middle and the last stage
  /// Under full recompute, the share of a stage's layers whose forward runs again: recomputed_layers() of
  /// the fullest stage over its layers (1: every layer; the same share is applied to every stage). 0
  /// otherwise.
  double recomputed_share = 0;
  /// The share of a MoE layer's forward, dispatch and combine included, that runs again: recomputed_share,
  /// or 1 when the MoE layer is a recompute module (Strategy::recompute_modules, kRecomputeMoe).
  double moe_recomputed_share = 0;
  double moe_share = 0;                  ///< fraction of layers that are MoE layers (0 for a dense model)
  Dtype attention_dtype = Dtype::kBf16;  ///< the attention core's precision (bf16 under fp8 by default)
  double capacity_factor = 1.0;          ///< EstimateOptions::moe_capacity_factor
};

/// The share of a layer's attention core whose forward runs again in the backward: the recomputed layers'
/// under full recompute, all of it under selective (Korthikanti et al. 2022 §5), none without.
[[nodiscard]] inline double attention_recompute_share(const StepInputs& in) {
  const Recompute r = in.strategy.recompute;
  return r == Recompute::kFull ? in.recomputed_share : r == Recompute::kNone ? 0.0 : 1.0;
}

/// The StepInputs of `strategy` (already valid) on its split's `paths`; `terms` is model_terms(model).
[[nodiscard]] StepInputs step_inputs(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                                     const EstimateOptions& options, const Strategy& strategy,
                                     const SplitPaths& paths) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
