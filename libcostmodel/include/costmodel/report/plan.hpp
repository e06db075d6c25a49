// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel plan` prints: the ranked configurations, the Pareto front and the search summary, in every
// format; the same functions serve API users (examples/api reproduces `plan --format json`).

#include <ostream>
#include <string>

#include "costmodel/report/json.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/search/planner.hpp"

namespace costmodel {

/// `{"configs": [...], "pareto": [...], "evaluated", "feasible", "elapsed_s", "rejected": {reason: count},
/// "skipped_topologies": [...]}` (DESIGN.md §3); configurations as configuration_json().
[[nodiscard]] Json plan_json(const PlanResult& result);

/// "bad_product 3, out_of_memory 157740", or "none": the rejections by reason.
[[nodiscard]] std::string rejected_summary(const PlanResult& result);

/// The plan in `format`: JSON as plan_json(); CSV the ranked configurations (the Pareto front with
/// `pareto`); megatron / nemo their launch arguments (report/launch.hpp); table/markdown the ranked
/// configurations titled "top K by OBJECTIVE", with `pareto` the front after them, and the search summary
/// (candidates, feasible, time, rejections, skipped fabrics) below.
void write_plan(std::ostream& out, const PlanResult& result, Objective objective, Format format, bool pareto);

}  // namespace costmodel
