// SPDX-License-Identifier: Apache-2.0
#include "costmodel/search/planner.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "costmodel/error.hpp"

#include "estimate/evaluation_memo.hpp"

namespace costmodel::inline COSTMODEL_ABI {

namespace {

constexpr int kMaxSkippedListed = 20;

/// One (GPU count, fabric) pair: its estimator (fabric sized once) and its candidates.
struct Target {
  std::shared_ptr<const Estimator> estimator;  // shared by the targets of one fabric and GPU count
  std::shared_ptr<const CandidateSpace> space;
  int count = 0;  // index of its GPU count among those searched
};

struct Ranked {
  Score score;
  StepEstimate estimate;
};

/// A rejected candidate remembered in case nothing is feasible. Category 0: missed the deadline (ratio =
/// days / deadline), 1: out of memory (ratio = total / capacity), 2: invalid (ratio = number of reasons).
struct Near {
  int category = 0;
  double ratio = 0;
  Strategy strategy;
  TopologyKind kind = TopologyKind::kFatTree;
  double oversubscription = 1.0;
  int target = 0;
};

bool near_before(const Near& a, const Near& b) {
  if (a.category != b.category) return a.category < b.category;
  if (a.ratio != b.ratio) return a.ratio < b.ratio;
  return compare_configurations(a.strategy, a.kind, a.oversubscription, b.strategy, b.kind,
                                b.oversubscription) < 0;
}

/// A deadline search's record of one GPU count.
struct CountRecord {
  std::int64_t feasible = 0;
  std::int64_t valid = 0;           // candidates checked for memory
  std::int64_t over_power_cap = 0;  // fit in memory, above the power cap
  std::optional<Ranked> best;       // by the objective, meeting the deadline
  std::optional<Ranked> fastest;    // least wall-clock time, fitting in memory
};

/// What one worker found; merged in a fixed way so the result does not depend on the thread count.
struct Partial {
  std::vector<Ranked> top;          // best first, at most top_k
  std::vector<Ranked> front;        // non-dominated, one per distinct score
  std::vector<Near> near;           // best first, at most `closest`
  std::vector<CountRecord> counts;  // per GPU count, with a deadline
  std::int64_t evaluated = 0;
  std::int64_t feasible = 0;
  std::array<std::int64_t, kRejectionReasonCount> rejected{};
};

class Search {
 public:
  Search(const PlanRequest& request, const std::vector<Target>& targets, size_t counts)
      : request_(request),
        targets_(targets),
        counts_(counts),
        features_(request.stack ? request.stack->features : StackFeatures{}) {
    // The pessimistic factor of each interval class (1 without intervals or unasked).
    if (request.pessimistic && request.options.intervals) {
      for (std::size_t c = 0; c < kClasses.size(); ++c) {
        if (const IntervalClass* k = request.options.intervals->find(kClasses[c]))
          high_factor_[c] = std::exp(k->high);
      }
    }
    for (size_t t = 0; t < targets_.size(); ++t) {
      for (size_t s = 0; s < targets_[t].space->splits().size(); ++s) {
        items_.emplace_back(static_cast<int>(t), static_cast<int>(s));
      }
    }
  }

  [[nodiscard]] size_t items() const { return items_.size(); }
  [[nodiscard]] double fraction_done() const {
    return items_.empty() ? 1.0 : static_cast<double>(done_.load()) / static_cast<double>(items_.size());
  }

  /// Takes work items until none are left.
  void work(Partial& p) {
    p.top.reserve(static_cast<size_t>(request_.top_k) + 1);
    p.near.reserve(static_cast<size_t>(request_.closest) + 1);
    if (request_.deadline) p.counts.resize(counts_);
    // What the candidates of a split share (EvaluationMemo): one per worker, reset for each split.
    EvaluationMemo evaluations;
    for (size_t i = next_.fetch_add(1); i < items_.size(); i = next_.fetch_add(1)) {
      run_item(items_[i].first, items_[i].second, p, evaluations);
      done_.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  // The last candidate's memory outcome: the recompute layers chosen (0: the candidate's own) and its memory.
  // matches() is false until remember() is first called.
  struct MemoryMemo {
    Strategy key;
    bool valid = false;
    int recompute_layers = 0;
    MemoryBreakdown memory;
    // Whether `s` equals the key but for its DP overlap.
    [[nodiscard]] bool matches(const Strategy& s) const {
      if (!valid) return false;
      Strategy other = s;
      other.overlap = key.overlap;
      return other == key;
    }
    void remember(const Strategy& s, int layers, const MemoryBreakdown& m) {
      key = s;
      valid = true;
      recompute_layers = layers;
      memory = m;
    }
  };

  // A split's prepared communicators, built in place where they are stored (a conversion's prvalue
  // initializes the object itself: no copy of the seven collective tables).
  struct Prepare {
    const Estimator& estimator;
    Strategy representative;
    operator SplitPaths() const { return estimator.paths(representative); }
  };

  void run_item(int target_index, int split_index, Partial& p, EvaluationMemo& evaluations) const {
    const Target& target = targets_[static_cast<size_t>(target_index)];
    const Estimator& estimator = *target.estimator;
    const ClusterSpec& cluster = estimator.cluster();
    const ParallelSplit& split = target.space->splits()[static_cast<size_t>(split_index)];
    const auto remember = [&](int category, double ratio, const Strategy& s) {
      if (request_.closest <= 0) return;
      Near n{category, ratio, s, cluster.topology, cluster.oversubscription, target_index};
      if (static_cast<int>(p.near.size()) == request_.closest && !near_before(n, p.near.back())) return;
      p.near.insert(std::upper_bound(p.near.begin(), p.near.end(), n, near_before), n);
      if (static_cast<int>(p.near.size()) > request_.closest) p.near.pop_back();
    };
    const auto count_invalid = [&](std::uint32_t flags, const Strategy& s) {
      for (int bit = 0; bit < kInvalidReasonBits; ++bit) {
        if ((flags >> bit) & 1u) ++p.rejected[static_cast<size_t>(bit)];
      }
      remember(2, std::popcount(flags), s);
    };
    if (split.invalid != kValid) {
      ++p.evaluated;
      count_invalid(split.invalid, target.space->representative(split));
      return;
    }
    // The split's communicators, prepared when its first candidate fits in memory: a split whose candidates
    // all fail the checks needs none, and its seven collective tables cost more than checking them.
    std::optional<SplitPaths> paths;
    // A candidate's memory and recompute choice do not depend on its DP overlap (estimate/memory.cpp; the
    // planner test checks it), the knob for_each_candidate varies innermost: a candidate equal to the last
    // one measured but for that reuses its outcome.
    MemoryMemo memo;
    evaluations.reset();  // another split, or another estimator's
    const bool fewest = target.space->fewest_recompute();
    target.space->for_each_candidate(split, [&](const Strategy& s) {
      ++p.evaluated;
      if (const std::uint32_t flags = estimator.check(s); flags != kValid) {
        count_invalid(flags, s);
        return;
      }
      // Only what the software stack runs (spec/stack.hpp).
      if (const StackRefusal refusal = refuses(features_, s); refusal != StackRefusal::kNone) {
        const auto bit = refusal == StackRefusal::kZero ? kZeroUnsupported : kStackUnsupported;
        ++p.rejected[static_cast<size_t>(std::countr_zero(static_cast<unsigned>(bit)))];
        return;
      }
      if (request_.deadline) ++p.counts[static_cast<size_t>(target.count)].valid;
      // Full recompute of only as many layers per chunk as memory needs (Megatron-LM's block method), unless
      // the recompute is pinned.
      if (!memo.matches(s)) {
        int layers = fewest && s.recompute == Recompute::kFull ? estimator.fewest_recomputed_layers(s) : 0;
        MemoryBreakdown measured;
        if (layers > 0) {
          Strategy block = s;
          block.recompute_layers = layers;
          measured = estimator.memory(block);
          if (measured.total > measured.capacity) layers = 0;  // then the candidate's own recompute
        }
        if (layers == 0) measured = estimator.memory(s);
        memo.remember(s, layers, measured);
      }
      const MemoryBreakdown& memory = memo.memory;
      Strategy block;
      const Strategy* chosen = &s;
      if (memo.recompute_layers > 0) {
        block = s;
        block.recompute_layers = memo.recompute_layers;
        chosen = &block;
      }
      if (memory.total > memory.capacity) {
        ++p.rejected[kRejectedOutOfMemory];
        remember(1, memory.total.value / memory.capacity.value, s);
        return;
      }
      if (!paths) paths.emplace(Prepare{estimator, target.space->representative(split)});
      Ranked r{{}, evaluations.evaluate(estimator, *chosen, *paths, memory)};
      if (!r.estimate.valid()) {
        count_invalid(r.estimate.invalid, s);
        return;
      }
      if (!r.estimate.fits_memory) {
        ++p.rejected[kRejectedOutOfMemory];
        remember(1, r.estimate.memory.total.value / r.estimate.memory.capacity.value, s);
        return;
      }
      if (request_.power_cap && r.estimate.power > *request_.power_cap) {
        ++p.rejected[kRejectedPowerCap];
        if (request_.deadline) ++p.counts[static_cast<size_t>(target.count)].over_power_cap;
        return;
      }
      r.score = score(r.estimate);
      if (request_.pessimistic) {
        const std::string_view name = interval_class(estimator.model(), r.estimate.strategy);
        const double f = high_factor_[name == kClasses[0] ? 0 : name == kClasses[1] ? 1 : 2];
        r.score.time = Seconds(r.score.time.value * f);
        r.score.cost = Usd(r.score.cost.value * f);
        r.score.tco = Usd(r.score.tco.value * f);
      }
      if (request_.deadline) {
        CountRecord& record = p.counts[static_cast<size_t>(target.count)];
        if (!record.fastest || faster(r, *record.fastest)) record.fastest = r;
        // Wall-clock days, after goodput.
        const Seconds time = r.estimate.training_time.value_or(Seconds(0.0));
        if (time > request_.deadline->time) {
          ++p.rejected[kRejectedDeadline];
          remember(0, time / request_.deadline->time, s);
          return;
        }
        ++record.feasible;
        if (!record.best || before(r, *record.best)) record.best = r;
      }
      ++p.feasible;
      offer_front(p.front, r);
      offer_top(p.top, r);
    });
  }

  [[nodiscard]] bool before(const Ranked& a, const Ranked& b) const {
    return ranks_before(a.score, a.estimate, b.score, b.estimate, request_.objective);
  }

  static bool faster(const Ranked& a, const Ranked& b) {
    if (a.score.time != b.score.time) return a.score.time < b.score.time;
    return compare_configurations(a.estimate, b.estimate) < 0;
  }

  void offer_top(std::vector<Ranked>& top, const Ranked& r) const {
    const auto ranked = [this](const Ranked& a, const Ranked& b) { return before(a, b); };
    if (static_cast<int>(top.size()) == request_.top_k && !before(r, top.back())) return;
    top.insert(std::upper_bound(top.begin(), top.end(), r, ranked), r);
    if (static_cast<int>(top.size()) > request_.top_k) top.pop_back();
  }

  void offer_front(std::vector<Ranked>& front, const Ranked& r) const {
    const ParetoAxes& axes = request_.pareto;
    for (auto& f : front) {
      if (dominates(f.score, r.score, axes)) return;
      if (same_on(f.score, r.score, axes)) {
        if (compare_configurations(r.estimate, f.estimate) < 0) f = r;
        return;
      }
    }
    std::erase_if(front, [&](const Ranked& f) { return dominates(r.score, f.score, axes); });
    front.push_back(r);
  }

  const PlanRequest& request_;
  const std::vector<Target>& targets_;
  size_t counts_ = 0;
  StackFeatures features_;  // what the software stack runs
  static constexpr std::array<std::string_view, 3> kClasses{"dense", "zero3", "moe"};
  std::array<double, 3> high_factor_{1.0, 1.0, 1.0};  // e^high of each class (PlanRequest::pessimistic)
  std::vector<std::pair<int, int>> items_;            // (target, split)
  std::atomic<size_t> next_{0};
  std::atomic<size_t> done_{0};
};

void check_request(const PlanRequest& request) {
  if (request.top_k < 1) throw Error("top_k must be at least 1, not " + std::to_string(request.top_k));
  if (request.threads < 0) throw Error("threads must not be negative");
  if (request.deadline) {
    const DeadlineSearch& d = *request.deadline;
    if (!request.options.tokens) throw Error("a deadline search needs a token budget (--tokens)");
    if (!(d.time.value > 0.0)) throw Error("the deadline must be a positive number of days");
    if (d.min_gpus < 1 || d.max_gpus < d.min_gpus) {
      throw Error("the GPU range must be A:B with 1 <= A <= B, not " + std::to_string(d.min_gpus) + ":" +
                  std::to_string(d.max_gpus));
    }
  }
}

std::string choice_name(const TopologyChoice& choice, const ClusterSpec& cluster) {
  std::ostringstream name;
  name << to_string(choice.kind);
  const double over = choice.oversubscription.value_or(cluster.oversubscription);
  if (over != 1.0) name << ':' << over;
  return name.str();
}

/// One global batch searched at a GPU count, and the data-parallel degrees tried at it (empty: every one).
struct BatchChoice {
  int batch = 0;
  std::vector<int> dp;
};

/// The global batches searched at `gpus` GPUs: the request's; with a batch range, for each data-parallel
/// degree of the splits there the largest multiple of it in the range, and of it times the split's pipeline
/// degree (only that degree tried at them: a smaller batch of the same degree takes more steps and bubbles
/// for the same tokens), and the request's batch, with every degree, if it lies in the range.
std::vector<BatchChoice> batches_for(const PlanRequest& request, int gpus, int scale_up_domain) {
  if (!request.batch_range) return {{request.training.global_batch, request.space.dp}};
  const BatchRange& range = *request.batch_range;
  const int base = request.training.global_batch;
  const bool base_in_range = base >= range.min && base <= range.max;
  std::vector<BatchChoice> choices;
  if (base_in_range) choices.push_back({base, request.space.dp});
  // Every degree divides the GPU count, so a batch of `gpus` sequences rejects no split for divisibility.
  TrainingSettings probe = request.training;
  probe.global_batch = gpus;
  const CandidateSpace any(request.space, request.model, gpus, scale_up_domain, probe);
  const auto add = [&](int batch, int dp) {
    if (batch < range.min || batch == base) return;
    auto at =
        std::find_if(choices.begin(), choices.end(), [&](const BatchChoice& c) { return c.batch == batch; });
    if (at == choices.end()) at = choices.insert(choices.end(), {batch, {}});
    if (std::find(at->dp.begin(), at->dp.end(), dp) == at->dp.end()) at->dp.push_back(dp);
  };
  for (const ParallelSplit& split : any.splits()) {
    if (split.invalid != kValid) continue;
    add(range.max / split.dp * split.dp, split.dp);
    // The interleaved schedule needs whole rounds of pipeline stages: micro-batches a multiple of pp
    // (Megatron-Core's schedules.py), which the largest batch of the degree may not give.
    const int rounds = split.dp * split.pp;
    if (split.pp > 1) add(range.max / rounds * rounds, split.dp);
  }
  std::sort(choices.begin(), choices.end(), [](const auto& a, const auto& b) { return a.batch < b.batch; });
  return choices;
}

/// Builds one estimator per (GPU count, fabric), and one target per batch searched with it; fabrics that
/// cannot be built are listed in `skipped`. The GPU counts searched are written to `gpu_counts`.
std::vector<Target> make_targets(const PlanRequest& request, std::vector<std::string>& skipped,
                                 std::vector<int>& gpu_counts) {
  if (request.deadline) {
    const int step = std::max(1, request.cluster.gpus_per_node);
    for (int g = (request.deadline->min_gpus + step - 1) / step * step; g <= request.deadline->max_gpus;
         g += step) {
      gpu_counts.push_back(g);
    }
    if (gpu_counts.empty()) throw Error("no multiple of the GPUs per node lies in the GPU range");
  } else {
    gpu_counts.push_back(request.cluster.gpus);
  }
  std::vector<TopologyChoice> choices = request.topologies;
  if (choices.empty()) choices.push_back({request.cluster.topology, request.cluster.oversubscription});

  std::vector<Target> targets;
  int skipped_total = 0;
  for (size_t count = 0; count < gpu_counts.size(); ++count) {
    const int gpus = gpu_counts[count];
    ClusterSpec base = request.cluster;
    base.gpus = gpus;
    if (request.deadline) base.torus_dims.clear();
    std::vector<std::shared_ptr<const CandidateSpace>> spaces;
    for (const BatchChoice& choice : batches_for(request, gpus, base.scale_up_domain())) {
      TrainingSettings training = request.training;
      training.global_batch = choice.batch;
      SearchSpace searched = request.space;
      searched.dp = choice.dp;
      auto space = std::make_shared<const CandidateSpace>(searched, request.model, gpus,
                                                          base.scale_up_domain(), training);
      if (!space->splits().empty()) spaces.push_back(std::move(space));
    }
    if (spaces.empty()) continue;
    for (const auto& choice : choices) {
      ClusterSpec cluster = base;
      if (choice.kind != cluster.topology) cluster.torus_dims.clear();
      cluster.topology = choice.kind;
      cluster.oversubscription = choice.oversubscription.value_or(base.oversubscription);
      try {
        auto estimator = std::make_shared<const Estimator>(request.model, cluster, request.options);
        for (const auto& space : spaces) targets.push_back({estimator, space, static_cast<int>(count)});
      } catch (const Error& error) {
        if (++skipped_total <= kMaxSkippedListed) {
          std::string what = choice_name(choice, base);
          if (request.deadline) what += " on " + std::to_string(gpus) + " GPUs";
          skipped.push_back(what + ": " + error.message());
        }
      }
    }
  }
  if (skipped_total > kMaxSkippedListed) {
    skipped.push_back("... and " + std::to_string(skipped_total - kMaxSkippedListed) + " more");
  }
  if (targets.empty() && !skipped.empty()) {
    throw Error("no candidate fabric can be built: " + skipped.front());
  }
  return targets;
}

std::vector<Partial> run_workers(Search& search, int threads, const PlanProgress& progress) {
  std::vector<Partial> partials(static_cast<size_t>(threads));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  std::mutex mutex;
  std::condition_variable finished;
  int running = threads;
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        search.work(partials[static_cast<size_t>(t)]);
      } catch (...) {
        errors[static_cast<size_t>(t)] = std::current_exception();
      }
      const std::lock_guard lock(mutex);
      --running;
      finished.notify_all();
    });
  }
  if (progress) {
    std::unique_lock lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; })) {
      lock.unlock();
      progress(search.fraction_done());
      lock.lock();
    }
    lock.unlock();
    progress(1.0);
  }
  for (auto& worker : workers) worker.join();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return partials;
}

std::vector<StepEstimate> merge_top(const std::vector<Partial>& partials, const PlanRequest& request) {
  std::vector<Ranked> all;
  for (const auto& p : partials) all.insert(all.end(), p.top.begin(), p.top.end());
  const auto before = [&](const Ranked& a, const Ranked& b) {
    return ranks_before(a.score, a.estimate, b.score, b.estimate, request.objective);
  };
  std::sort(all.begin(), all.end(), before);
  std::vector<StepEstimate> top;
  for (size_t i = 0; i < all.size() && static_cast<int>(i) < request.top_k; ++i)
    top.push_back(all[i].estimate);
  return top;
}

std::vector<GpuCountResult> merge_counts(const std::vector<Partial>& partials, const PlanRequest& request,
                                         const std::vector<int>& gpu_counts) {
  std::vector<GpuCountResult> counts;
  if (!request.deadline) return counts;
  const auto before = [&](const Ranked& a, const Ranked& b) {
    return ranks_before(a.score, a.estimate, b.score, b.estimate, request.objective);
  };
  const auto faster = [](const Ranked& a, const Ranked& b) {
    if (a.score.time != b.score.time) return a.score.time < b.score.time;
    return compare_configurations(a.estimate, b.estimate) < 0;
  };
  for (size_t k = 0; k < gpu_counts.size(); ++k) {
    GpuCountResult c;
    c.gpus = gpu_counts[k];
    std::optional<Ranked> best;
    std::optional<Ranked> fastest;
    for (const auto& p : partials) {
      if (k >= p.counts.size()) continue;
      const CountRecord& record = p.counts[k];
      c.feasible += record.feasible;
      c.valid += record.valid;
      c.over_power_cap += record.over_power_cap;
      if (record.best && (!best || before(*record.best, *best))) best = record.best;
      if (record.fastest && (!fastest || faster(*record.fastest, *fastest))) fastest = record.fastest;
    }
    if (best) c.best = best->estimate;
    if (fastest) c.fastest = fastest->estimate;
    counts.push_back(c);
  }
  return counts;
}

std::vector<StepEstimate> merge_front(const std::vector<Partial>& partials, const PlanRequest& request) {
  std::vector<Ranked> all;
  for (const auto& p : partials) all.insert(all.end(), p.front.begin(), p.front.end());
  const auto before = [&](const Ranked& a, const Ranked& b) {
    return ranks_before(a.score, a.estimate, b.score, b.estimate, request.objective);
  };
  // Best first: a point equal in score to an earlier one (a smaller configuration) is a duplicate.
  std::sort(all.begin(), all.end(), before);
  std::vector<StepEstimate> front;
  for (size_t i = 0; i < all.size(); ++i) {
    bool keep = true;
    for (size_t j = 0; j < all.size() && keep; ++j) {
      if (j == i) continue;
      const Score& a = all[j].score;
      const Score& b = all[i].score;
      if (dominates(a, b, request.pareto) || (same_on(a, b, request.pareto) && j < i)) keep = false;
    }
    if (keep) front.push_back(all[i].estimate);
  }
  return front;
}

std::vector<RejectedCandidate> merge_closest(const std::vector<Partial>& partials, const PlanRequest& request,
                                             const std::vector<Target>& targets) {
  std::vector<Near> all;
  for (const auto& p : partials) all.insert(all.end(), p.near.begin(), p.near.end());
  std::sort(all.begin(), all.end(), near_before);
  if (static_cast<int>(all.size()) > request.closest)
    all.resize(static_cast<size_t>(std::max(0, request.closest)));
  std::vector<RejectedCandidate> closest;
  for (const auto& n : all) {
    const Estimator& estimator = *targets[static_cast<size_t>(n.target)].estimator;
    RejectedCandidate c{estimator.evaluate(n.strategy), {}};
    c.reasons = explain(c.estimate, estimator.model(), estimator.cluster());
    if (n.category == 0 && request.deadline) {
      std::ostringstream text;
      text << "needs " << c.estimate.training_time.value_or(Seconds(0.0)).value / kSecondsPerDay
           << " days, over the deadline of " << request.deadline->time.value / kSecondsPerDay << " days";
      c.reasons.push_back(text.str());
    }
    closest.push_back(std::move(c));
  }
  return closest;
}

}  // namespace

std::vector<TopologyChoice> auto_topologies() {
  std::vector<TopologyChoice> choices;
  for (const TopologyKind kind : topology_kinds()) {
    for (const double oversubscription : traits(kind).auto_oversubscriptions) {
      if (oversubscription > 0.0) choices.push_back({kind, oversubscription});
    }
  }
  return choices;
}

std::string_view rejection_reason_name(int index) {
  static constexpr std::array<std::string_view, kRejectionReasonCount> kNames = {
      "bad_product",      "heads_indivisible",   "layers_indivisible", "batch_indivisible",
      "seq_indivisible",  "experts_indivisible", "dtype_unsupported",  "bad_degree",
      "zero_unsupported", "stack_unsupported",   "out_of_memory",      "deadline_missed",
      "over_power_cap"};
  if (index < 0 || index >= kRejectionReasonCount) return "unknown";
  return kNames[static_cast<size_t>(index)];
}

PlanRequest plan_request(const ModelSpec& model, const ClusterSpec& cluster, const TrainingSpec& training) {
  PlanRequest request;
  request.model = with_sequence_length(model, training);
  request.cluster = cluster;
  request.training.global_batch = global_batch_of(training, request.model, cluster.gpus);
  request.training.dtype = training.dtype;
  request.training.bf16_gradients = training.bf16_gradients;
  request.training.bf16_optimizer = training.bf16_optimizer;
  request.training.fp8_params = training.fp8_params;
  request.training.recompute_modules = training.recompute_modules;
  request.training.compression = training.compression;
  request.space = pinned(SearchSpace{}, training.pins);
  request.options = estimate_options(training);
  request.stack = training.stack_spec;
  if (!training.stack.empty()) request.cluster.stack = training.stack;  // the stack rows name
  return request;
}

std::vector<TopologyChoice> parse_topology_choices(std::string_view text) {
  if (text == "auto") return auto_topologies();
  const std::vector<std::string> names = topology_names();
  std::vector<TopologyChoice> choices;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string part(text.substr(start, comma - start));
    start = comma + 1;
    const auto colon = part.find(':');
    const std::string name = part.substr(0, colon);
    const auto kind = parse_topology_kind(name);
    if (!kind) {
      const std::string closest = closest_name(name, names);
      throw Error(ErrorLocation{}, "", "unknown topology '" + name + "'",
                  closest.empty() ? "expected auto or a comma list of fabric kinds: " +
                                        [&] {
                                          std::string all;
                                          for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
                                          return all;
                                        }()
                                  : "did you mean '" + closest + "'?");
    }
    TopologyChoice choice{*kind, std::nullopt};
    if (colon != std::string::npos) {
      double over = 0.0;
      try {
        over = parse_number(part.substr(colon + 1));
      } catch (const Error&) {
        over = 0.0;
      }
      if (!(over >= 1.0) || !std::isfinite(over)) {
        throw Error(ErrorLocation{}, "", "bad oversubscription in '" + part + "'",
                    "expected KIND:R with R >= 1, e.g. fat-tree:2");
      }
      choice.oversubscription = over;
    }
    choices.push_back(choice);
    if (comma == text.size()) break;
  }
  return choices;
}

PlanResult plan(const PlanRequest& request, const PlanProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  check_request(request);
  PlanResult result;
  result.model = request.model;
  result.cluster = request.cluster;
  result.options = request.options;
  std::vector<int> gpu_counts;
  const std::vector<Target> targets = make_targets(request, result.skipped_topologies, gpu_counts);

  Search search(request, targets, gpu_counts.size());
  int threads = request.threads > 0 ? request.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min<int>(threads, static_cast<int>(std::max<size_t>(1, search.items()))));
  result.threads = threads;
  const std::vector<Partial> partials = run_workers(search, threads, progress);

  for (const auto& p : partials) {
    result.evaluated += p.evaluated;
    result.feasible += p.feasible;
    for (size_t k = 0; k < p.rejected.size(); ++k) result.rejected[k] += p.rejected[k];
  }
  if (result.evaluated == 0) {
    result.no_candidates =
        why_no_splits(request.space, request.model, request.cluster.gpus, request.cluster.scale_up_domain());
  }
  result.top = merge_top(partials, request);
  result.pareto = merge_front(partials, request);
  result.gpu_counts = merge_counts(partials, request, gpu_counts);
  if (result.feasible == 0) result.closest = merge_closest(partials, request, targets);
  // The rows a user sees say what carries each communicator's collectives, from the estimator (fabric and
  // GPU count) that produced them.
  const auto describe = [&](StepEstimate& e) {
    for (const Target& t : targets) {
      const ClusterSpec& c = t.estimator->cluster();
      if (c.gpus == e.gpus && c.topology == e.topology && c.oversubscription == e.oversubscription) {
        t.estimator->describe_collectives(e);
        return;
      }
    }
  };
  for (auto& e : result.top) describe(e);
  for (auto& e : result.pareto) describe(e);
  for (auto& c : result.gpu_counts) {
    if (c.best) describe(*c.best);
    if (c.fastest) describe(*c.fastest);
  }
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace costmodel::inline COSTMODEL_ABI
