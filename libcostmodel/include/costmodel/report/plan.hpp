// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel plan` prints: the ranked configurations, the Pareto front, a deadline search's GPU counts
// and the search summary, in every format; the same functions serve API users (examples/api reproduces
// `plan --format json`).

#include <ostream>
#include <string>
#include "costmodel/version.hpp"

#include "costmodel/report/json.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/search/planner.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// `{"configs": [...], "pareto": [...], "gpu_counts": [...], "evaluated", "feasible", "elapsed_s",
/// "rejected": {reason: count}, "skipped_topologies": [...]}` (DESIGN.md §3); configurations as
/// configuration_json(); gpu_counts (a deadline search, else empty) one object per GPU count searched:
/// gpus, feasible, its best configuration's topology, oversubscription, switches, capex_usd, training_days
/// and cost_usd (null when none meets the deadline), and fastest_days (the least wall-clock days of any
/// configuration that fits, null when none does).
[[nodiscard]] Json plan_json(const PlanResult& result);

/// "bad_product 3, out_of_memory 157740", or "none": the rejections by reason.
[[nodiscard]] std::string rejected_summary(const PlanResult& result);

/// "cost = owned TCO: capex over 4 years + energy at 0.08 USD/kWh x PUE 1.3" or "cost = GPU rental at
/// 2.5 USD/h per GPU": what the cost column means, for the header of every table that shows it.
[[nodiscard]] std::string cost_basis_note(const EconomicsSpec& economics, const GpuSpec& gpu);

/// A deadline search's GPU counts for people: the chosen count, its neighbours and the range's ends, each
/// with its best configuration's fabric, switches, capex, days and cost, and why it lost (notes below say
/// why the smaller and the larger clusters lost, in a sentence each). Empty without a deadline.
[[nodiscard]] Table gpu_counts_table(const PlanResult& result, const PlanRequest& request);

/// The plan in `format`: JSON as plan_json(); CSV the ranked configurations (the Pareto front with
/// `pareto`); megatron / nemo their launch arguments (report/launch.hpp); table/markdown the ranked
/// configurations titled "top K by OBJECTIVE" with what cost means, with `pareto` the front after them, a
/// deadline search's GPU counts, and the search summary (candidates, feasible, time, rejections, skipped
/// fabrics) below.
void write_plan(std::ostream& out, const PlanResult& result, const PlanRequest& request, Format format,
                bool pareto);

}  // namespace costmodel::inline COSTMODEL_ABI
