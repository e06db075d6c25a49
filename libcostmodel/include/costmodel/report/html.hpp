// SPDX-License-Identifier: Apache-2.0
#pragma once
// The buyer's deliverable (issue 30, DESIGN.md §5 `costmodel report`, `--format html`): one self-contained
// HTML page. Every style and script is inline and every chart an inline SVG, so the page opens offline and
// prints to PDF as it shows. Its tables are the same Tables the other formats write (report/table.hpp):
// headers and cells for people, and on each header its key (`data-key`) and on each cell its SI value
// (`data-value`), so a machine reads the page as it reads the JSON.

#include <iosfwd>
#include "costmodel/version.hpp"

#include "costmodel/analysis/scenario.hpp"
#include "costmodel/analysis/validate.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/search/planner.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// `table` as an HTML fragment: its preamble and title, a sortable <table> (people's headers, units and
/// values; data-key and data-value for machines), and its notes.
void write_html_table(std::ostream& out, const Table& table);

/// A plan as one HTML page: the assumptions (model, cluster, stack, batch, sequence length, tokens, prices
/// and reliability with their sources), the top configurations, the Pareto front as a chart, a deadline
/// search's GPU counts, and the first configuration as write_estimate_html() shows it. `evidence`: the
/// model's accuracy on published runs like this one (analysis/validate.hpp validate_similar_runs(); report/
/// reads no files); nullptr: the page says none were validated.
void write_plan_html(std::ostream& out, const PlanResult& result, const PlanRequest& request,
                     const SimilarRuns* evidence = nullptr);

/// One configuration as one HTML page: assumptions, the configuration in detail, its step time by term, its
/// memory by term against the GPU's HBM, its fabric's bill of materials, capex, run cost and energy,
/// goodput, its Megatron-LM launch arguments (or why its stack has none), and the evidence.
void write_estimate_html(std::ostream& out, const StepEstimate& estimate, const ModelSpec& model,
                         const ClusterSpec& cluster, const EstimateOptions& options,
                         const SimilarRuns* evidence = nullptr);

/// A scenario as one HTML page: its cases in a sortable table, the sweep as a chart (report.plot), and the
/// first case's best configuration as write_estimate_html() shows it.
void write_scenario_html(std::ostream& out, const Scenario& scenario, const ScenarioResult& result);

}  // namespace costmodel::inline COSTMODEL_ABI
