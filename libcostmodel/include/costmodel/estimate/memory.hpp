// SPDX-License-Identifier: Apache-2.0
#pragma once
// Memory per GPU of one parallel configuration: weights, gradients, optimizer states, activations
// (Estimator::memory(), defined in memory.cpp).

#include <string_view>
#include "costmodel/version.hpp"

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The terms of MemoryBreakdown that can overflow the GPU's memory.
enum class MemoryTerm { kNone, kWeights, kGradients, kOptimizer, kActivations, kLogits, kErrorFeedback };
/// "none", "weights", "gradients", "optimizer", "activations", "logits", "error_feedback".
[[nodiscard]] std::string_view to_string(MemoryTerm term);

/// Bytes held on the GPU of the fullest pipeline stage, by term.
struct MemoryBreakdown {
  Bytes
      weights;  ///< half-precision weights of the local shard, FP8 copies under fp8, ZeRO-3's gathered layers
  Bytes gradients;  ///< half-precision gradients (divided by dp from ZeRO-2)
  Bytes
      optimizer;  ///< fp32 master weights + Adam m and v: 12 bytes per parameter (divided by dp from ZeRO-1)
  Bytes activations;     ///< stored activations of the micro-batches in flight (Korthikanti et al. 2022)
  Bytes logits;          ///< output-layer activations on the last stage (fp32 logits for the loss)
  Bytes error_feedback;  ///< full-precision residual of compressed gradients
  Bytes reserve;         ///< CUDA context, NCCL buffers and fragmentation (the GPU entry's memory_reserve)
  Bytes total;           ///< the largest stage's sum of the above
  Bytes capacity;        ///< the GPU's HBM
  /// The term that overflows capacity: the largest one when total > capacity, else kNone.
  MemoryTerm overflow = MemoryTerm::kNone;
  double dense_parameters = 0;   ///< the most parameters a stage's GPU holds, before ZeRO sharding
  double expert_parameters = 0;  ///< of which MoE experts (replicated over dp·cp/ep ranks, not dp·cp)
  int fullest_stage = 0;         ///< the pipeline stage (0 .. pp-1) whose memory the terms above describe

  /// The bytes of `term` (0 for kNone).
  [[nodiscard]] Bytes of(MemoryTerm term) const;
};

/// Bytes per parameter of mixed-precision Adam's states: fp32 master weights, momentum and variance
/// (Rajbhandari et al. 2020, ZeRO §3.1).
inline constexpr double kOptimizerStateBytes = 12.0;

/// Gradient bytes per parameter, in memory and on the wire before compression: 4 (fp32 main gradients) with
/// bf16 and fp8, 2 with fp16.
[[nodiscard]] constexpr double gradient_bytes(Dtype dtype) {
  // Megatron-LM keeps fp32 main gradients with bf16 (it forces accumulate_allreduce_grads_in_fp32 unless
  // --grad-reduce-in-bf16: megatron/training/arguments.py, validate_args), fp16 gradients with fp16 (ZeRO's
  // 2 + 2 + 12 bytes).
  return dtype == Dtype::kFp16 ? 2.0 : 4.0;
}

/// Optimizer-state bytes per parameter of `strategy`: kOptimizerStateBytes, or 6 with
/// Strategy::bf16_optimizer (bf16 master weights, momentum and variance).
[[nodiscard]] constexpr double optimizer_state_bytes(const Strategy& strategy) {
  return strategy.bf16_optimizer ? kOptimizerStateBytes / 2.0 : kOptimizerStateBytes;
}

/// Gradient bytes per parameter of `strategy`: gradient_bytes(dtype), 2 with Strategy::bf16_gradients.
[[nodiscard]] constexpr double gradient_bytes(const Strategy& strategy) {
  return strategy.bf16_gradients ? 2.0 : gradient_bytes(strategy.dtype);
}

/// True when the weights are held in FP8 only: Strategy::fp8_params under dtype fp8, with the distributed
/// optimizer or ZeRO-3/FSDP that Megatron-LM requires for it (megatron/training/arguments.py, validate_args:
/// "--fp8-param-gather only supported with distributed optimizer ...").
[[nodiscard]] constexpr bool fp8_weights(const Strategy& strategy) {
  return strategy.dtype == Dtype::kFp8 && strategy.fp8_params && strategy.zero >= 1;
}

/// Bytes per weight element a GPU holds for compute: bf16/fp16 (2), plus under dtype fp8 Transformer
/// Engine's FP8 copy and its transpose for the backward (1 + 1, cached over a step's micro-batches); FP8
/// weights alone (fp8_weights()) are those 1 + 1.
[[nodiscard]] constexpr double weight_bytes(const Strategy& strategy) {
  if (fp8_weights(strategy)) return 2.0;
  return strategy.dtype == Dtype::kFp8 ? 4.0 : 2.0;
}

/// Bytes per weight element all-gathered by ZeRO/FSDP: bf16/fp16, 1 with FP8 weights (the distributed
/// optimizer gathers the FP8 parameter buffer: Megatron-LM --fp8-param-gather). MXFP8's gather in bf16
/// into the gradient buffer (Megatron-Bridge's reuse_grad_buf_for_mxfp8_param_ag) is not distinguished.
[[nodiscard]] constexpr double gathered_weight_bytes(const Strategy& strategy) {
  return fp8_weights(strategy) ? 1.0 : 2.0;
}

/// True when `compression` keeps an error-feedback residual (int8 and top-k; a plain fp16 cast loses
/// nothing worth feeding back).
[[nodiscard]] constexpr bool has_error_feedback(const Compression& compression) {
  return compression.kind == CompressionKind::kInt8 || compression.kind == CompressionKind::kTopK;
}

/// Parameters one GPU holds on a pipeline stage before ZeRO sharding (elements): dense weights split over
/// tp, experts over etp·ep.
struct StageParameters {
  double dense = 0;
  double experts = 0;
};

/// The ranks of a stage holding the same parameters, over which ZeRO shards them (Rajbhandari et al. 2020
/// §5): dense weights over their dp·cp replicas, experts over Strategy::expert_replicas(). 1 and 1: none.
struct ParameterReplicas {
  double dense = 1;
  double experts = 1;
};

/// The ParameterReplicas of `strategy`.
[[nodiscard]] inline ParameterReplicas parameter_replicas(const Strategy& strategy) {
  return {static_cast<double>(strategy.dp) * strategy.cp, static_cast<double>(strategy.expert_replicas())};
}

/// The elements of `p` one GPU keeps when they are sharded over `replicas`.
[[nodiscard]] inline double sharded_parameters(const StageParameters& p, const ParameterReplicas& replicas) {
  return p.dense / replicas.dense + p.experts / replicas.experts;
}

/// The parameters of a stage of `layers` layers; `first` adds the input embedding, `last` the output layer
/// (untied, or Megatron-LM's copy of a tied one when the first and last stage differ).
[[nodiscard]] StageParameters stage_parameters(const ModelSpec& model, const ModelTerms& terms,
                                               const Strategy& strategy, double layers, bool first,
                                               bool last) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
