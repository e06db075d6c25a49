// SPDX-License-Identifier: Apache-2.0
#pragma once
// The planner's search space as plain data, and the enumeration of every candidate Strategy in it.
//
// A candidate is a ParallelSplit (tp·pp·cp·dp = GPUs, ep carved out of dp as in Megatron-LM) times the inner
// knobs: vpp, micro-batch, recompute, ZeRO stage, sequence parallelism, DP overlap. Splits are few (hundreds)
// and precomputed; the inner knobs are iterated with nested loops over precomputed divisor lists, so
// for_each_candidate() allocates nothing.
//
// Bounds and de-duplication (documented so that counts can be derived by hand):
// - tp <= the scale-up domain unless SearchSpace::tp_beyond_node or tp is pinned;
// - ep only for MoE models (ep divides dp), else 1; cp any divisor of the GPU count (seq_len % cp checked);
// - vpp: 1, and when pp > 1 every divisor v of layers/pp with 2 <= v <= max_vpp for which the micro-batches
//   per pipeline divide by pp (Megatron-LM's interleaved schedule);
// - micro_batch: every divisor of global_batch / dp;
// - sequence_parallel only changes anything when tp > 1: with tp == 1 only the first listed value is used;
// - ZeRO stages and DP overlap only change anything when dp·cp > 1: otherwise only the first listed value.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/estimate/step.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel {

/// Settings of the training run that the planner does not search.
struct TrainingSettings {
  int global_batch = 1024;  ///< sequences per step
  Dtype dtype = Dtype::kBf16;
  Compression compression;
};

/// Which values each knob may take: an empty list searches every valid value, one value pins the knob.
struct SearchSpace {
  std::vector<int> tp;
  std::vector<int> pp;
  std::vector<int> dp;
  std::vector<int> cp;
  std::vector<int> ep;
  std::vector<int> vpp;
  std::vector<int> micro_batch;
  std::vector<Recompute> recompute;     ///< empty: none, selective, full
  std::vector<int> zero;                ///< empty: 0, 1, 2, 3
  std::vector<bool> sequence_parallel;  ///< empty: true, false
  std::vector<bool> overlap;            ///< empty: true, false
  bool tp_beyond_node = false;          ///< let tp exceed the scale-up domain
  int max_vpp = 8;                      ///< largest interleaving degree searched
};

/// `space` with every set pin as its knob's only value.
[[nodiscard]] SearchSpace pinned(SearchSpace space, const Pins& pins);

/// One factorization of the GPUs: tp·pp·cp·dp = GPUs and ep divides dp.
struct ParallelSplit {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;
  std::uint32_t invalid =
      kValid;  ///< InvalidReason flags found at the split level (heads, layers, batch, ...)
};

/// The candidates of one model on one GPU count: splits precomputed, inner knobs enumerated on demand.
class CandidateSpace {
 public:
  /// Throws Error (kInput) for a non-positive GPU count, global batch or max_vpp, or a ZeRO stage outside
  /// 0..3.
  CandidateSpace(const SearchSpace& space, const ModelSpec& model, int gpus, int scale_up_domain,
                 const TrainingSettings& training);

  /// Every split of the GPUs allowed by the pins, valid or not (invalid ones yield no candidates).
  [[nodiscard]] const std::vector<ParallelSplit>& splits() const { return splits_; }
  /// Number of candidates `split` yields (0 for an invalid split).
  [[nodiscard]] std::int64_t count(const ParallelSplit& split) const;
  /// Number of candidates over all splits.
  [[nodiscard]] std::int64_t count() const;
  /// The GPU count the splits factorize.
  [[nodiscard]] int gpus() const { return gpus_; }

  /// A Strategy for `split` with the first value of every inner knob (used to report invalid splits).
  [[nodiscard]] Strategy representative(const ParallelSplit& split) const;

  /// Calls visit(const Strategy&) for every candidate of `split`, in a fixed order; allocates nothing.
  template <typename Visit>
  void for_each_candidate(const ParallelSplit& split, Visit&& visit) const;  // defined below

 private:
  static constexpr int kMaxChoices = 4;

  int gpus_ = 0;
  int layers_ = 1;
  TrainingSettings training_;
  std::vector<ParallelSplit> splits_;
  std::vector<int> vpp_choices_;  // candidate interleaving degrees (>= 2), ascending; 1 handled apart
  bool vpp_one_allowed_ = true;
  std::vector<int> micro_batches_;  // divisors of global_batch allowed by the pins, ascending
  std::array<Recompute, kMaxChoices> recompute_{};
  int recompute_count_ = 0;
  std::array<int, kMaxChoices> zero_{};
  int zero_count_ = 0;
  std::array<bool, 2> sequence_parallel_{};
  int sequence_parallel_count_ = 0;
  std::array<bool, 2> overlap_{};
  int overlap_count_ = 0;
};

/// Why `space` holds no split of `gpus` GPUs at all (the pins exclude every one): one reason per pin that
/// cannot hold (tp 3 does not divide 1024 GPUs; the pinned degrees multiply to more than the GPUs; ...).
/// Empty when some split exists.
[[nodiscard]] std::vector<std::string> why_no_splits(const SearchSpace& space, const ModelSpec& model,
                                                     int gpus, int scale_up_domain);

/// Every positive divisor of `n`, ascending (empty for n < 1).
[[nodiscard]] std::vector<int> divisors(std::int64_t n);

// ---------------------------------------------------------------------------------------------------

template <typename Visit>
void CandidateSpace::for_each_candidate(const ParallelSplit& split, Visit&& visit) const {
  if (split.invalid != kValid) return;
  Strategy s;
  s.tp = split.tp;
  s.pp = split.pp;
  s.dp = split.dp;
  s.cp = split.cp;
  s.ep = split.ep;
  s.global_batch = training_.global_batch;
  s.dtype = training_.dtype;
  s.compression = training_.compression;
  const int per_replica = training_.global_batch / split.dp;
  const int sp_count = split.tp > 1 ? sequence_parallel_count_ : 1;
  const bool replicated = split.dp * split.cp > 1;
  const int zero_count = replicated ? zero_count_ : 1;
  const int overlap_count = replicated ? overlap_count_ : 1;
  const int layers_per_stage = layers_ / split.pp;
  const auto inner = [&](int vpp) {
    s.vpp = vpp;
    for (const int mb : micro_batches_) {
      if (mb > per_replica) break;
      if (per_replica % mb != 0) continue;
      if (vpp > 1 && (per_replica / mb) % split.pp != 0) continue;
      s.micro_batch = mb;
      for (int r = 0; r < recompute_count_; ++r) {
        s.recompute = recompute_[r];
        for (int z = 0; z < zero_count; ++z) {
          s.zero = zero_[z];
          for (int q = 0; q < sp_count; ++q) {
            s.sequence_parallel = sequence_parallel_[q];
            for (int o = 0; o < overlap_count; ++o) {
              s.overlap = overlap_[o];
              visit(static_cast<const Strategy&>(s));
            }
          }
        }
      }
    }
  };
  if (vpp_one_allowed_) inner(1);
  if (split.pp > 1) {
    for (const int vpp : vpp_choices_) {
      if (vpp > layers_per_stage) break;
      if (layers_per_stage % vpp == 0) inner(vpp);
    }
  }
}

}  // namespace costmodel
