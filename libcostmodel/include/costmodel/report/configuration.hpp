// SPDX-License-Identifier: Apache-2.0
#pragma once
// Rendering of step estimates (DESIGN.md §3 configuration objects) shared by `estimate`, `plan`, `validate`,
// scenarios and the API examples.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The configuration object of DESIGN.md §3: tp, pp, dp, cp, ep, vpp, micro_batch, global_batch, recompute,
/// zero, dtype, topology, step_time_s, tokens_per_s, model/hardware TFLOP/s per GPU, mfu, hfu,
/// memory_per_gpu_bytes, fits_memory, breakdown{...}, memory{...}, training_days (wall-clock, after goodput),
/// cost_usd (under cost_basis), energy_kwh, switches, network_cost_usd, power_w, cost_basis, rental_cost_usd,
/// capex_usd, gpu_capex_usd, network_capex_usd, tco_usd, energy_usd, goodput, ideal_days, interruptions
/// (unplanned), planned_interruptions, interruptions_per_day, cluster_mtbf_s, planned_mtbf_s,
/// checkpoint_time_s, checkpoint_interval_s (days, costs, energy and interruptions null
/// without tokens; times null where the event never happens). All SI; never NaN.
/// The configuration carries `gpus`, `parameters` and `active_parameters` of `model`, and `cluster`: the
/// resolved cluster it ran on (`base` with the estimate's fabric and GPU count), so that a result stands
/// alone.
/// Every knob with a column (spec/training.hpp TrainingField::column) is a key, read from the estimate's
/// strategy and the `options` it was estimated with (the estimator's: Estimator::options(),
/// PlanResult::options).
[[nodiscard]] Json configuration_json(const StepEstimate& estimate, const ModelSpec& model,
                                      const ClusterSpec& base, const EstimateOptions& options);

/// The cluster as the configuration object's `cluster` member: gpu, gpus, gpus_per_node, scale_up {...},
/// scale_out {topology, link, line_rate_Bps, nics_per_node, switch, oversubscription}, all SI.
[[nodiscard]] Json cluster_json(const ClusterSpec& cluster);

/// One line naming the cluster a result used, for people: "cluster: 1024 x a100-80gb, 8 per node,
/// 8 x ib-hdr-200g per node, fat-tree 1:1 of qm8700 switches, NVLink domain of 8, NCCL" (the scale-up
/// fabric, and the collective library the GPU's programs call).
[[nodiscard]] std::string describe_cluster(const ClusterSpec& cluster);

/// What carries each communicator's largest collective (StepEstimate::collectives), e.g. "tp allreduce
/// ring/ll128, dp reducescatter ring/simple"; a choice of the cluster's NCCL tuner plug-in says so with
/// `tuner` ("dp allreduce ring/ll128 (aws-ofi-nccl tuner)"); empty when not described.
[[nodiscard]] std::string describe_collectives(const StepEstimate& estimate,
                                               std::string_view tuner = "tuner plug-in");
/// "80% interval 15.2-18.9 s; unvalidated: cp 8 (validated up to 2)": the estimate's prediction interval and
/// its unvalidated features (StepEstimate::step_time_low, unvalidated); empty without an interval.
[[nodiscard]] std::string describe_interval(const StepEstimate& estimate);
/// "aws-ofi-nccl tuner": what describe_collectives() calls the cluster's NCCL tuner plug-in
/// (ClusterSpec::nccl_tuner); "tuner plug-in" when it has none.
[[nodiscard]] std::string tuner_label(const ClusterSpec& cluster);
/// "NVLink domain" for NVLink fabrics (named nvlink-* or unnamed), else "<fabric> domain" or "<fabric> full
/// mesh".
[[nodiscard]] std::string scale_up_label(const ClusterSpec& cluster);

/// `base` with the fabric and GPU count `estimate` was evaluated on.
[[nodiscard]] ClusterSpec cluster_of(const StepEstimate& estimate, const ClusterSpec& base);

/// One row per estimate with the columns people read first (split, step time, TFLOP/s, MFU, memory, days,
/// cost, capex, switches); `rank` adds a leading 1-based rank column, `gpus` a GPU-count column after it,
/// `stack` a last column naming the software stack and `seq_len` (> 0) columns of the global batch and the
/// sequence length (for machines), and then, for machines, every other knob with a column (spec/training.hpp
/// TrainingField::column), read from each estimate's strategy and `options` (the estimator's).
[[nodiscard]] Table configurations_table(const std::vector<StepEstimate>& estimates,
                                         const EstimateOptions& options, const std::string& title,
                                         bool rank = true, bool gpus = false, std::string_view stack = {},
                                         std::int64_t seq_len = 0);

/// "training: MODEL, global batch B x S tokens (T tokens per step)[, N tokens]": the run a table's rows
/// share, for its header (issue 30: batch and sequence length in every header).
[[nodiscard]] std::string describe_run(const ModelSpec& model, int global_batch,
                                       std::optional<double> tokens = std::nullopt);

/// One configuration in detail for people: the configuration object flattened into labelled rows (split,
/// step time and its breakdown, memory by term, days, cost, fabric), titled with the model and cluster.
[[nodiscard]] Table estimate_table(const StepEstimate& estimate, const ModelSpec& model,
                                   const ClusterSpec& cluster);

}  // namespace costmodel::inline COSTMODEL_ABI
