// SPDX-License-Identifier: Apache-2.0
#pragma once
// A software stack as a named profile (data/stacks.yaml): the features a framework version can run, the
// collective library it calls, and the knobs its standard launch sets. The planner proposes only what the
// stack runs (planner.cpp counts the rest under rejected: zero_unsupported and stack_unsupported); a knob or
// degree a user pins that the stack lacks is an input error naming the stack.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/collective.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel::inline COSTMODEL_ABI {

struct TrainingSpec;

/// What a stack can run. Every feature defaults to present (a TrainingSpec without a stack bounds nothing).
struct StackFeatures {
  std::vector<int> zero{0, 1, 2, 3};                ///< ZeRO stages it runs (1: distributed optimizer)
  std::vector<int> zero_with_pipeline{0, 1, 2, 3};  ///< the stages it runs together with pp > 1
  bool pipeline = true;                             ///< pp > 1
  bool interleaved_pipeline = true;                 ///< vpp > 1
  bool uneven_stages = true;                        ///< first/last stage layer counts of their own
  bool sequence_parallel = true;                    ///< Korthikanti et al. 2022
  bool context_parallel = true;                     ///< cp > 1
  bool expert_parallel = true;                      ///< ep > 1
  bool expert_tensor_parallel = true;               ///< an expert TP degree other than tp (etp 1)
  bool flash_attention = true;                      ///< fused attention kernels
  bool fp8 = true;                                  ///< FP8 GEMMs (Transformer Engine or equivalent)
  bool selective_recompute = true;                  ///< recompute of the attention core only
  bool recompute_modules = true;                    ///< Megatron-Core's --recompute-modules
  bool dp_overlap = true;                           ///< DP reduce/gather overlapped with the passes
  bool dp_overlap_with_pipeline = true;             ///< that overlap also with pp > 1
  bool tp_comm_overlap = true;                      ///< TP collectives overlapped with their GEMMs
  bool pp_comm_overlap = true;                      ///< pipeline send/recv overlapped (interleaved)
  bool ep_comm_overlap = true;                      ///< expert all-to-alls overlapped with compute
  bool flex_dispatcher = true;                      ///< DeepEP or HybridEP as the MoE token dispatcher
  bool bf16_optimizer = true;                       ///< Adam states in bf16
  std::vector<CudaGraphs> cuda_graphs{CudaGraphs::kOff, CudaGraphs::kLayer, CudaGraphs::kFull};
  std::vector<Zero3Gather> zero3_gather{Zero3Gather::kFlat, Zero3Gather::kList};
};

/// One yes/no feature of StackFeatures: its data/stacks.yaml key and its member.
struct StackFeatureFlag {
  const char* key;              ///< "context_parallel"
  bool StackFeatures::*member;  ///< &StackFeatures::context_parallel
};
/// Every yes/no feature, in data/stacks.yaml's order: the one list the catalog reader and `catalog stacks`
/// read.
[[nodiscard]] const std::vector<StackFeatureFlag>& stack_feature_flags();

/// The data-parallel gradient buckets a stack's DDP launches: max(params, params_per_rank x the DP group's
/// ranks) parameters each (Megatron-Core distributed_data_parallel.py: max(40M, 1M x dp) since commit
/// 0fda386c, 2024-04). Gradients are reduced bucket by bucket as the backward produces them; the last
/// bucket (the first layers and the embedding) only after the backward, and the first bucket's parameter
/// gather before the next forward can start: neither overlaps compute. 0 (the default): not modelled, the
/// whole exchange overlaps as one stream.
struct DataParallelBucket {
  double params = 0;           ///< parameters per bucket, at least
  double params_per_rank = 0;  ///< more per rank of the DP group
  /// Parameters per bucket for a DP group of `ranks` (0: not modelled).
  [[nodiscard]] double size(int ranks) const noexcept {
    const double scaled = params_per_rank * ranks;
    return params > scaled ? params : scaled;
  }
};

/// One named software stack (data/stacks.yaml entry).
struct StackSpec {
  std::string name;         ///< catalog name, e.g. "megatron-core"
  std::string description;  ///< which code, which era
  std::string library;      ///< the collective library its programs call, e.g. "NCCL"
  std::string source;       ///< where the features and defaults come from
  StackFeatures features;
  DataParallelBucket dp_bucket;  ///< its DDP's gradient buckets (data/stacks.yaml dp_bucket)
  /// Knobs its standard launch sets, as training field keys and values ("tp_comm_overlap", "off"), applied
  /// where the user or the source did not set them (apply_stack()).
  std::vector<std::pair<std::string, std::string>> defaults;
};

/// The stack every command assumes when none is named.
inline constexpr const char* kDefaultStack = "megatron-core";

/// Why a stack does not run a strategy: not at all (kNone), its ZeRO stage (alone or with pp > 1), or
/// another feature.
enum class StackRefusal : std::uint8_t { kNone, kZero, kFeature };

/// Whether `features` run `strategy`'s parallel layout (ZeRO stage, degrees, layouts, sequence parallelism,
/// recompute, DP overlap). The planner's inner loop calls it: no allocation.
[[nodiscard]] StackRefusal refuses(const StackFeatures& features, const Strategy& strategy) noexcept;

/// Each feature of `strategy` that `stack` lacks, in words ("context parallelism (cp 2)"); empty when it
/// runs.
[[nodiscard]] std::vector<std::string> stack_refusals(const StackSpec& stack, const Strategy& strategy);

/// Training field keys a stack's `defaults:` may set: the software knobs, not the degrees, batch or money.
[[nodiscard]] const std::vector<std::string>& stack_default_keys();

/// Applies `stack` to `training`: each default the user or the source did not set (TrainingSpec::given),
/// then checks that what was set runs on it. Throws Error (kInput, no location) naming the field and the
/// stack for a pinned knob or degree the stack lacks.
void apply_stack(TrainingSpec& training, const StackSpec& stack);

}  // namespace costmodel::inline COSTMODEL_ABI
