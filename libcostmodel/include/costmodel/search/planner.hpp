// SPDX-License-Identifier: Apache-2.0
#pragma once
// The planner: enumerate every candidate of the search space on every candidate fabric (and GPU count),
// reject invalid splits, prune by the memory pre-check, estimate the rest, and keep the top K by an
// objective and the Pareto front over three objectives (default: time, cost, switches). A deadline search
// also keeps, per GPU count, its best configuration and its fastest, so that it can say why the GPU counts it
// did not choose lost. Results are identical for any thread count.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/search/objective.hpp"
#include "costmodel/search/space.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/stack.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One candidate fabric: a scale-out topology kind and, optionally, its leaf oversubscription.
struct TopologyChoice {
  TopologyKind kind = TopologyKind::kFatTree;
  std::optional<double> oversubscription;  ///< nullopt: the base cluster's
};

/// `--topology auto`: every fabric at the oversubscriptions its traits name (TopologyTraits::
/// auto_oversubscriptions: fat-tree at 1:1, 2:1 and 4:1, rail-optimized, rail-only, Dragonfly+ and a 3D
/// torus at 1:1); fabrics that cannot be built for the GPU count are skipped by plan().
[[nodiscard]] std::vector<TopologyChoice> auto_topologies();

/// The inverse question: the cheapest GPU count that trains EstimateOptions::tokens within `time`.
struct DeadlineSearch {
  Seconds time;      ///< wall-clock time allowed for training (after goodput)
  int min_gpus = 0;  ///< GPU counts searched: multiples of GPUs per node in [min_gpus, max_gpus]
  int max_gpus = 0;
};

/// Global batches the planner may choose from (--global-batch-range, --tokens-per-step-range), in sequences.
/// For each GPU count it tries, per data-parallel degree of its splits, the largest multiple of that degree
/// in [min, max] (the fewest steps and pipeline bubbles that degree allows), and TrainingSettings::
/// global_batch when it lies in the range.
struct BatchRange {
  int min = 0;
  int max = 0;
};

/// Everything plan() needs. The model's seq_len is the training sequence length.
struct PlanRequest {
  ModelSpec model;
  ClusterSpec cluster;                     ///< the base cluster; topologies and GPU counts vary from it
  std::vector<TopologyChoice> topologies;  ///< empty: the base cluster's fabric only
  TrainingSettings training;
  SearchSpace space;
  Objective objective = Objective::kTime;
  ParetoAxes pareto = kDefaultParetoAxes;  ///< the three quantities of the Pareto front
  int top_k = 10;                          ///< configurations kept
  int threads = 0;                         ///< worker threads; 0: std::thread::hardware_concurrency()
  int closest = 3;                         ///< closest rejected candidates reported when nothing is feasible
  EstimateOptions options;
  std::optional<DeadlineSearch> deadline;  ///< requires options.tokens
  /// The software stack: only what its features run is proposed (the rest counted under zero_unsupported
  /// and stack_unsupported); null: every feature.
  std::shared_ptr<const StackSpec> stack;
  /// Rank by the pessimistic end of the prediction interval (--rank-by time:high): time, cost and TCO of
  /// each candidate times e^high of its class (options.intervals, spec/intervals.hpp); without intervals,
  /// by the estimate.
  bool pessimistic = false;
  /// The most rated IT power (GPUs at TDP, servers, fabric: StepEstimate::power) a cluster may draw;
  /// larger ones are rejected (over_power_cap). nullopt: no cap.
  std::optional<Watts> power_cap;
  /// The global batches the search may choose from; nullopt: TrainingSettings::global_batch only.
  std::optional<BatchRange> batch_range;
};

/// Why candidates were rejected: the InvalidReason bits, then out of memory, a missed deadline and the power
/// cap.
inline constexpr int kRejectionReasonCount = kInvalidReasonBits + 3;
inline constexpr int kRejectedOutOfMemory =
    kInvalidReasonBits;  ///< index of PlanResult::rejected: did not fit in HBM
inline constexpr int kRejectedDeadline =
    kInvalidReasonBits + 1;  ///< index of PlanResult::rejected: trains too slowly
inline constexpr int kRejectedPowerCap =
    kInvalidReasonBits + 2;  ///< index of PlanResult::rejected: draws more than PlanRequest::power_cap
/// The stable key of reason `index` (0..kRejectionReasonCount-1): "heads_indivisible", "out_of_memory", ...;
/// index k < kInvalidReasonBits is InvalidReason bit 1<<k.
[[nodiscard]] std::string_view rejection_reason_name(int index);

/// A candidate that did not make it, with every reason in words (explain()).
struct RejectedCandidate {
  StepEstimate estimate;
  std::vector<std::string> reasons;
};

/// One GPU count of a deadline search.
struct GpuCountResult {
  int gpus = 0;
  std::int64_t feasible = 0;  ///< configurations that fit and meet the deadline
  /// Candidates whose split divides the model, the batch and the GPUs and that the stack runs (those
  /// checked for memory); 0: no split exists at this count.
  std::int64_t valid = 0;
  std::int64_t over_power_cap = 0;  ///< of those that fit in memory, the ones above PlanRequest::power_cap
  /// The best configuration by the objective among the feasible ones (over every fabric); nullopt if none.
  std::optional<StepEstimate> best;
  /// The least wall-clock time of any configuration that fits in memory, deadline or not; nullopt if none.
  std::optional<StepEstimate> fastest;
};

/// What plan() found.
struct PlanResult {
  ModelSpec model;                ///< the request's model (its sequence length applied)
  ClusterSpec cluster;            ///< the request's base cluster; each estimate says its fabric and GPU count
  EstimateOptions options;        ///< the request's estimator options (the knobs' columns read them)
  std::vector<StepEstimate> top;  ///< best first, at most top_k
  std::vector<StepEstimate> pareto;  ///< non-dominated on PlanRequest::pareto, one per distinct score, ranked
  /// A deadline search: every GPU count searched, ascending (empty otherwise).
  std::vector<GpuCountResult> gpu_counts;
  /// Candidates examined. A split rejected before its inner knobs are expanded (e.g. heads % tp) counts once.
  std::int64_t evaluated = 0;
  std::int64_t feasible = 0;  ///< valid, fit in memory (and meet the deadline)
  double elapsed_s = 0;       ///< wall-clock seconds of the search
  int threads = 1;            ///< worker threads used
  /// Rejections per reason (index as rejection_reason_name); a candidate invalid for several reasons
  /// counts under each.
  std::array<std::int64_t, kRejectionReasonCount> rejected{};
  /// When nothing is feasible: the closest candidates (missed deadline, then least memory overflow,
  /// then invalid ones), with their reasons.
  std::vector<RejectedCandidate> closest;
  std::vector<std::string> skipped_topologies;  ///< fabrics that could not be built, with the reason
  /// When no candidate exists at all (evaluated == 0): why the pins exclude every split (why_no_splits()).
  std::vector<std::string> no_candidates;
};

/// Progress callback: the fraction of the work done, in [0, 1], called from the calling thread.
using PlanProgress = std::function<void(double fraction_done)>;

/// A request for `model` on `cluster` with `training`'s settings: its sequence length applied to the model,
/// its global batch (or the default), dtype, compression and estimator options, its pins in the space.
[[nodiscard]] PlanRequest plan_request(const ModelSpec& model, const ClusterSpec& cluster,
                                       const TrainingSpec& training);

/// `auto` (auto_topologies()) or a comma list of fabric kinds, each optionally KIND:OVERSUBSCRIPTION with
/// a ratio >= 1 ("fat-tree:2,rail-optimized"). Throws Error (kInput) naming the bad part, with a suggestion.
[[nodiscard]] std::vector<TopologyChoice> parse_topology_choices(std::string_view text);

/// Runs the search. Throws Error (kInput) for a bad request (top_k < 1, a deadline without tokens,
/// no fabric that can be built). An empty result is not an error: check `feasible`.
[[nodiscard]] PlanResult plan(const PlanRequest& request, const PlanProgress& progress = {});

}  // namespace costmodel::inline COSTMODEL_ABI
