// SPDX-License-Identifier: Apache-2.0
#pragma once
// Memory per GPU of one parallel configuration: weights, gradients, optimizer states, activations
// (Estimator::memory(), defined in memory.cpp).

#include <string_view>

#include "costmodel/spec/hardware.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// The terms of MemoryBreakdown that can overflow the GPU's memory.
enum class MemoryTerm { kNone, kWeights, kGradients, kOptimizer, kActivations, kLogits, kErrorFeedback };
/// "none", "weights", "gradients", "optimizer", "activations", "logits", "error_feedback".
[[nodiscard]] std::string_view to_string(MemoryTerm term);

/// Bytes held on the most loaded GPU (the first pipeline stage), by term.
struct MemoryBreakdown {
  Bytes weights;    ///< half-precision weights of the local shard (fp8: still bf16 master copies)
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
  double dense_parameters = 0;  ///< parameters of the most loaded stage held by one GPU, before ZeRO sharding
  double expert_parameters = 0;  ///< of which MoE experts (replicated over dp·cp/ep ranks, not dp·cp)

  /// The bytes of `term` (0 for kNone).
  [[nodiscard]] Bytes of(MemoryTerm term) const;
};

/// Bytes per parameter of mixed-precision Adam's states: fp32 master weights, momentum and variance
/// (Rajbhandari et al. 2020, ZeRO §3.1).
inline constexpr double kOptimizerStateBytes = 12.0;

/// Gradient bytes per parameter, in memory and on the wire before compression: 4 (fp32 main gradients) with
/// bf16 and fp8, 2 with fp16.
[[nodiscard]] constexpr double gradient_bytes(Dtype dtype) {
  // Megatron-LM keeps fp32 main gradients with bf16 (it forces accumulate_allreduce_grads_in_fp32), fp16
  // gradients with fp16 (ZeRO's 2 + 2 + 12 bytes).
  return dtype == Dtype::kFp16 ? 2.0 : 4.0;
}

}  // namespace costmodel
