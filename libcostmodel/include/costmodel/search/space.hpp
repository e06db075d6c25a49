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
// - the layers' layout over the stages and vpp (StageLayout): for pp > 1 and every vpp v >= 1 (up to max_vpp
//   when set), the even split when pp·v divides the layers, and the uneven layouts Megatron-LM accepts that
//   keep the stages balanced: the account-for-embedding-and-loss layout (first and last stage one layer
//   short, (layers + 2) / pp per stage), the account-for-loss and account-for-embedding ones, and the
//   balanced split (ceil(layers / pp) rounded up to v on the middle stages, the rest halved between the ends,
//   the last stage, which also runs the logits, never the larger); each kept when check_layers() accepts it,
//   duplicates once. vpp > 1 also needs the micro-batches per pipeline to divide by pp (Megatron-LM's
//   interleaved schedule). Pinned first/last stage layers replace the list;
// - micro_batch: every divisor of global_batch / dp;
// - sequence_parallel only changes anything when tp > 1: with tp == 1 only the first listed value is used;
// - ZeRO stages and DP overlap only change anything when dp·cp > 1: otherwise only the first listed value.

#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Settings of the training run that the planner does not search.
struct TrainingSettings {
  int global_batch = 1024;  ///< sequences per step
  Dtype dtype = Dtype::kBf16;
  bool bf16_gradients = false;     ///< Strategy::bf16_gradients
  bool bf16_optimizer = false;     ///< Strategy::bf16_optimizer
  bool fp8_params = true;          ///< Strategy::fp8_params
  unsigned recompute_modules = 0;  ///< Strategy::recompute_modules
  Compression compression;
};

/// Which values each knob may take: an empty list searches every valid value, one value pins the knob.
struct SearchSpace {
  std::vector<int> tp;
  std::vector<int> pp;
  std::vector<int> dp;
  std::vector<int> cp;
  std::vector<int> ep;
  /// Expert tensor-parallel degrees: values 1 and tp (Strategy::etp); empty: both (only tp when tp is 1).
  std::vector<int> etp;
  std::vector<int> vpp;
  std::vector<int> first_stage_layers;  ///< empty: the layouts above (0 = as the other stages)
  std::vector<int> last_stage_layers;   ///< empty: the layouts above
  std::vector<int> micro_batch;
  std::vector<Recompute> recompute;  ///< empty: none, selective, full
  /// Strategy::recompute_layers of the full-recompute candidates; 0 with `recompute` empty: the fewest
  /// layers that fit (Estimator::fewest_recomputed_layers, the planner's choice), 0 otherwise: every layer.
  int recompute_layers = 0;
  std::vector<int> zero;                ///< empty: 0, 1, 2, 3
  std::vector<bool> sequence_parallel;  ///< empty: true, false
  std::vector<bool> overlap;            ///< empty: true, false
  bool tp_beyond_node = false;          ///< let tp exceed the scale-up domain
  int max_vpp = 0;                      ///< largest interleaving degree searched; 0: every one valid
};

/// How the layers sit on the pipeline: vpp and the first and last stage's layers (0 = as the others).
struct StageLayout {
  int vpp = 1;
  int first = 0;
  int last = 0;
};

/// `space` with every set pin as its knob's only value.
[[nodiscard]] SearchSpace pinned(SearchSpace space, const Pins& pins);

/// One factorization of the GPUs: tp·pp·cp·dp = GPUs, and the experts' etp·ep dividing tp·cp·dp.
struct ParallelSplit {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;
  int etp = 0;  ///< Strategy::etp: 0 (tp) or 1
  std::uint32_t invalid =
      kValid;  ///< InvalidReason flags found at the split level (heads, layers, batch, ...)
};

/// The candidates of one model on one GPU count: splits precomputed, inner knobs enumerated on demand.
class CandidateSpace {
 public:
  /// Throws Error (kInput) for a non-positive GPU count or global batch, a negative max_vpp, or a ZeRO stage
  /// outside 0..3.
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
  /// The layouts searched for `pp` stages (check_layers() valid ones, or the pinned one when none is).
  [[nodiscard]] const std::vector<StageLayout>& layouts(int pp) const;

  /// Whether full-recompute candidates recompute only the fewest layers that fit (SearchSpace::
  /// recompute_layers): the planner sets Strategy::recompute_layers per candidate.
  [[nodiscard]] bool fewest_recompute() const { return fewest_recompute_; }

  /// Calls visit(const Strategy&) for every candidate of `split`, in a fixed order; allocates nothing. Only
  /// the layout, micro-batch, recompute, ZeRO stage, sequence parallelism and DP overlap vary (the planner's
  /// EvaluationMemo keys on them).
  template <typename Visit>
  void for_each_candidate(const ParallelSplit& split, Visit&& visit) const;  // defined below

 private:
  static constexpr int kMaxChoices = 4;

  int gpus_ = 0;
  TrainingSettings training_;
  std::vector<ParallelSplit> splits_;
  std::vector<std::pair<int, std::vector<StageLayout>>> layouts_;  // per distinct pp, ascending pp
  std::vector<int> micro_batches_;  // divisors of global_batch allowed by the pins, ascending
  std::array<Recompute, kMaxChoices> recompute_{};
  int recompute_count_ = 0;
  int recompute_layers_ = 0;
  bool fewest_recompute_ = false;
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
  s.etp = split.etp;
  s.global_batch = training_.global_batch;
  s.dtype = training_.dtype;
  s.bf16_gradients = training_.bf16_gradients;
  s.bf16_optimizer = training_.bf16_optimizer;
  s.fp8_params = training_.fp8_params;
  s.recompute_modules = training_.recompute_modules;
  s.compression = training_.compression;
  const int per_replica = training_.global_batch / split.dp;
  const int sp_count = split.tp > 1 ? sequence_parallel_count_ : 1;
  const bool replicated = split.dp * split.cp > 1;
  const int zero_count = replicated ? zero_count_ : 1;
  const int overlap_count = replicated ? overlap_count_ : 1;
  for (const StageLayout& layout : layouts(split.pp)) {
    s.vpp = layout.vpp;
    s.first_stage_layers = layout.first;
    s.last_stage_layers = layout.last;
    for (const int mb : micro_batches_) {
      if (mb > per_replica) break;
      if (per_replica % mb != 0) continue;
      if (layout.vpp > 1 && (per_replica / mb) % split.pp != 0) continue;
      s.micro_batch = mb;
      for (int r = 0; r < recompute_count_; ++r) {
        s.recompute = recompute_[r];
        s.recompute_layers = s.recompute == Recompute::kFull ? recompute_layers_ : 0;
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
  }
}

}  // namespace costmodel::inline COSTMODEL_ABI
