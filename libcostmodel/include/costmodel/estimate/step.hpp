// SPDX-License-Identifier: Apache-2.0
#pragma once
// The step-time model: one parallel configuration of a model on a cluster -> step time with its breakdown,
// memory per GPU, MFU, tokens/s and, given a token budget, wall-clock days and dollars to train.
// Orchestration only: each term has its own header (compute, tensor, context, expert, pipeline, data, memory,
// goodput, economics).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/estimate/economics.hpp"
#include "costmodel/estimate/goodput.hpp"
#include "costmodel/estimate/inputs.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"
#include "costmodel/spec/training.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The estimator's options that a TrainingSpec sets: tokens, the DP and TP algorithms, flash attention, the
/// attention precision under fp8, the MoE capacity factor.
[[nodiscard]] EstimateOptions estimate_options(const TrainingSpec& training);

/// The communicators of a split (SplitPaths): tensor, context, expert, pipeline neighbours, data (gradient),
/// the experts' data-parallel group, and the tied embeddings' first and last stage.
enum class CommGroup : std::uint8_t { kTp, kCp, kEp, kPp, kDp, kExpertDp, kEmbedding };
inline constexpr int kCommGroupCount = 7;
/// "tp", "cp", "ep", "pp", "dp", "expert_dp", "embedding".
[[nodiscard]] std::string_view to_string(CommGroup group);

/// The largest collective one communicator runs in a step, and what carries it out: the algorithm and
/// protocol the collective library's tuner chooses at its size (collective_cost). algorithm kAuto: none.
struct CollectiveChoice {
  Collective collective = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
  bool tuned = false;  ///< chosen by the cluster's NCCL tuner plug-in (CommCost::tuned)
  [[nodiscard]] bool used() const { return algorithm != Algorithm::kAuto; }
};
/// One CollectiveChoice per CommGroup.
using CollectiveChoices = std::array<CollectiveChoice, kCommGroupCount>;

/// Seconds per training step by where they go, on the pipeline stage that sets the pace (the slowest one).
/// Exposed terms add up to the step time.
struct StepBreakdown {
  Seconds compute;    ///< forward + backward (+ recompute) GEMMs and memory-bound ops, all micro-batches
  Seconds tp_comm;    ///< tensor-parallel collectives (exposed)
  Seconds cp_comm;    ///< context-parallel K/V exchange left exposed after overlap with attention
  Seconds ep_comm;    ///< expert-parallel all-to-alls (exposed)
  Seconds pp_comm;    ///< pipeline send/recv of activations (exposed)
  Seconds pp_bubble;  ///< pipeline fill and drain
  Seconds dp_comm;    ///< data-parallel gradient (and ZeRO-3 parameter) exchange, total
  Seconds dp_comm_exposed;  ///< the part of dp_comm not hidden behind compute
  Seconds optimizer;  ///< optimizer step (memory bound) + gradient compression passes + FP8 weight casts
  /// Host (CPU) time the GPU waits for: framework ops and kernel launches beyond the GPU's work between two
  /// host synchronisations, and the synchronisations of a dropless MoE dispatcher (host_terms.hpp).
  Seconds host;
  /// The slowest host's lag: a job's step waits for its slowest host (NodeSpec::slow_host_share).
  Seconds stragglers;
  /// Not part of the step time: the communication hidden behind the pacing stage's compute (data-parallel
  /// streams and the context-parallel ring), at most `compute` (overlap.hpp).
  Seconds hidden_comm;
};

/// The estimate of one configuration. All numbers SI; never NaN.
struct StepEstimate {
  Strategy strategy;                               ///< the configuration estimated
  TopologyKind topology = TopologyKind::kFatTree;  ///< the fabric it was estimated on
  double oversubscription = 1.0;          ///< of the fabric's leaves (downlink : uplink), dimensionless
  std::uint32_t invalid = kValid;         ///< InvalidReason flags; the numbers below are 0 unless valid
  Seconds step_time;                      ///< one optimizer step (global batch), s
  double tokens_per_s = 0;                ///< training throughput, tokens/s
  FlopsPerSecond model_flops_per_gpu;     ///< model FLOPs only, per GPU (MFU convention)
  FlopsPerSecond hardware_flops_per_gpu;  ///< with recomputed FLOPs (Megatron-LM eq. 3 convention), per GPU
  double mfu = 0;                         ///< model_flops_per_gpu / dense peak for the dtype
  /// model_flops_per_gpu / the dense BF16 peak, whatever the dtype (under fp8, `mfu` divides by the FP8
  /// peak, twice the BF16 one on H100 and B200, so the two differ). FP16's peak on a GPU without BF16.
  double mfu_bf16_peak = 0;
  double hfu = 0;            ///< hardware_flops_per_gpu / dense peak
  MemoryBreakdown memory;    ///< bytes per GPU on the fullest stage
  bool fits_memory = false;  ///< memory.total <= the GPU's HBM
  StepBreakdown breakdown;   ///< where step_time goes, s
  /// What each communicator runs; empty until Estimator::describe_collectives() (plan rows, estimate).
  CollectiveChoices collectives{};
  /// The prediction interval of step_time (EstimateOptions::intervals, spec/intervals.hpp): the measured step
  /// falls in [step_time_low, step_time_high] for interval_coverage of the validated runs of its class; 0
  /// until Estimator::describe_collectives() (plan rows, estimate), or without intervals.
  Seconds step_time_low;
  Seconds step_time_high;
  double interval_coverage = 0.0;
  /// The features it uses that no validation run exercised (unvalidated_features()); filled with the
  /// interval.
  std::vector<std::string> unvalidated;
  /// Wall-clock time to train EstimateOptions::tokens, when given: ideal_time / goodput.fraction.
  std::optional<Seconds> training_time;
  /// GPU-hours (wall-clock) x the GPU's rental price (USD), with EstimateOptions::tokens; the rental price is
  /// all-in (cloud GPU-hours include power and the building), so energy is reported beside it, not added.
  std::optional<Usd> rental_cost;
  /// Drawn from the grid over training_time: nodes at their load power, the fabric, all times PUE.
  std::optional<Joules> energy;
  int switches = 0;   ///< of the scale-out fabric
  Usd network_capex;  ///< scale-out fabric: switches, NICs, optics (Inventory::capex)
  Watts power;        ///< rated IT power: GPUs at TDP, their servers, the fabric

  // Owning the cluster and the run's interruptions (estimate/economics.hpp, estimate/goodput.hpp).
  int gpus = 0;          ///< GPUs of the cluster
  Usd gpu_capex;         ///< GPUs with their share of the servers
  Usd scale_up_capex;    ///< the scale-up fabric's switches (in capex unless the GPU's own fabric)
  Watts scale_up_power;  ///< their power (in power on the same condition)
  Usd capex;             ///< gpu_capex + network_capex (+ scale_up_capex for a swapped-in fabric)
  Goodput goodput;       ///< interruption rate, checkpoint time and interval, goodput
  std::optional<Seconds> ideal_time;            ///< failure-free time to train the tokens
  std::optional<double> interruptions;          ///< unplanned ones expected over training_time
  std::optional<double> planned_interruptions;  ///< planned ones (maintenance) expected over training_time
  std::optional<Usd> energy_cost;               ///< energy x the electricity price
  std::optional<Usd> tco;                       ///< capex amortised over training_time, plus energy_cost
  /// The run's slice of the lifetime TCO: lifetime.total() x training_time / the life (its energy the
  /// run's, since the life's is counted at the same load).
  std::optional<Usd> run_cost;
  LifetimeCost lifetime;  ///< the cluster's lifetime TCO by kind (spec/economics.hpp)
  Watts power_at_load;    ///< drawn while training: nodes at NodeSpec::load_power, the fabric, no PUE
  CostBasis cost_basis = CostBasis::kOwned;  ///< which of tco and rental_cost is the cost
  UsdPerSecond owned_rate;   ///< owning the cluster per wall-clock second: amortised capex + energy
  UsdPerSecond rental_rate;  ///< renting its GPUs per wall-clock second

  /// The cost of training the tokens under cost_basis: tco (owned) or rental_cost (rental).
  [[nodiscard]] std::optional<Usd> cost() const {
    return cost_basis == CostBasis::kRental ? rental_cost : tco;
  }

  /// True when the configuration can run (no InvalidReason flag set); it may still not fit in memory.
  [[nodiscard]] bool valid() const { return invalid == kValid; }
};

class EvaluationMemo;  // the planner's: estimate/evaluation_memo.hpp
struct DataParallelStreams;
namespace detail {
struct LayerPart;
}  // namespace detail

/// The model and cluster prepared once (parameter counts, FLOPs, fabric sizing) so that each
/// configuration is evaluated from plain numbers, without allocation. Safe to share across threads.
class Estimator {
 public:
  /// Throws Error (kInput) if the cluster's fabric cannot be built.
  Estimator(const ModelSpec& model, const ClusterSpec& cluster, const EstimateOptions& options = {});

  /// The estimate of `strategy`; an invalid one comes back with its `invalid` flags set and no numbers.
  [[nodiscard]] StepEstimate evaluate(const Strategy& strategy) const noexcept;
  /// The same with the split's communicator paths already computed by paths(): the planner's inner loop.
  [[nodiscard]] StepEstimate evaluate(const Strategy& strategy, const SplitPaths& paths) const noexcept;
  /// The planner's inner loop: `strategy` already passed check() and `memory` is memory(strategy), so neither
  /// is computed again. `valid` false returns the fabric fields only.
  [[nodiscard]] StepEstimate evaluate_checked(const Strategy& strategy, const SplitPaths& paths,
                                              const MemoryBreakdown& memory,
                                              bool valid = true) const noexcept;
  /// The communicator paths of `strategy`'s split (requires check(strategy) == kValid).
  [[nodiscard]] SplitPaths paths(const Strategy& strategy) const noexcept;
  /// Fills `estimate.collectives` (of a valid estimate from this estimator) by evaluating it once more and
  /// noting, per communicator, its largest collective and the algorithm and protocol chosen for it. Not for
  /// the inner loop: for the rows a user sees.
  void describe_collectives(StepEstimate& estimate) const noexcept;
  /// Memory per GPU only: the planner's cheap pre-check.
  [[nodiscard]] MemoryBreakdown memory(const Strategy& strategy) const noexcept;
  /// Under full recompute, the fewest layers per model chunk to recompute (Strategy::recompute_layers, block
  /// method) for `strategy` to fit in memory; 0 when every layer must be, or `strategy` is not full
  /// recompute. Closed form: memory() of the result is what decides.
  [[nodiscard]] int fewest_recomputed_layers(const Strategy& strategy) const noexcept;
  /// InvalidReason flags of `strategy` (kValid when it can run).
  [[nodiscard]] std::uint32_t check(const Strategy& strategy) const noexcept;

  /// The model, cluster, sized fabric and options this estimator was prepared for.
  [[nodiscard]] const ModelSpec& model() const { return model_; }
  /// The cluster (copied in; SI units throughout).
  [[nodiscard]] const ClusterSpec& cluster() const { return cluster_; }
  /// The scale-out fabric sized once for the cluster, with its Inventory.
  [[nodiscard]] const Topology& topology() const { return topology_; }
  /// The options every evaluate() uses.
  [[nodiscard]] const EstimateOptions& options() const { return options_; }
  /// The goodput every configuration on this cluster shares.
  [[nodiscard]] const Goodput& goodput() const { return goodput_; }
  /// Capex, power and cost rates of this cluster.
  [[nodiscard]] const Ownership& ownership() const { return ownership_; }

 private:
  friend class EvaluationMemo;
  // evaluate_checked() of a valid candidate; with `memo`, the terms it holds are reused.
  [[nodiscard]] StepEstimate evaluate_valid(const Strategy& strategy, const SplitPaths& paths,
                                            const MemoryBreakdown& memory,
                                            EvaluationMemo* memo) const noexcept;
  // Its numbers from the candidate's layer terms and data-parallel streams (step.cpp).
  [[nodiscard]] StepEstimate evaluate_parts(const Strategy& strategy, const StepInputs& in,
                                            const detail::LayerPart& part, const DataParallelStreams& dp,
                                            const MemoryBreakdown& memory) const noexcept;

  ModelSpec model_;
  ClusterSpec cluster_;
  EstimateOptions options_;
  Topology topology_;
  ModelTerms terms_;        // per-model numbers, precomputed
  Goodput goodput_;         // interruptions on this cluster (estimate/goodput.hpp)
  Ownership ownership_;     // capex, power and cost rates of this cluster (estimate/economics.hpp)
  double straggler_share_;  // the step's expected lengthening by slow hosts (straggler_share())
};

/// The expected lengthening of a step, as a share of it, by persistent stragglers on `cluster`: its GPU
/// node's slow_host_slowdown times the chance that at least one of the cluster's hosts is one of the slow
/// share (1 - (1 - share)^hosts; MegaScale, Jiang et al. NSDI 2024 §5.1, §6.3). 0 when the node gives none.
[[nodiscard]] double straggler_share(const ClusterSpec& cluster) noexcept;

/// Convenience: Estimator(model, cluster, options).evaluate(strategy), its collectives described.
[[nodiscard]] StepEstimate estimate(const ModelSpec& model, const ClusterSpec& cluster,
                                    const Strategy& strategy, const EstimateOptions& options = {});

/// Every reason in words (validate() of spec/strategy.hpp) plus, for a valid split that does not fit,
/// which memory term overflows.
[[nodiscard]] std::vector<std::string> explain(const StepEstimate& estimate, const ModelSpec& model,
                                               const ClusterSpec& cluster);

}  // namespace costmodel::inline COSTMODEL_ABI
