// SPDX-License-Identifier: Apache-2.0
#pragma once
// What-if scenarios (DESIGN.md §4): every combination of a variant and the swept values is one case; each
// case runs the planner (pinned knobs stay pinned) and keeps its best configurations, with the baseline case
// each is compared against. Reading scenario files is io/scenario.hpp's job, printing them
// report/scenario.hpp's.

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/search/planner.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The dimension name of `compare:` variants among Scenario::dimensions.
inline constexpr const char* kVariantDimension = "variant";

/// One combination: the value of each dimension and the planner request it makes.
struct ScenarioCase {
  std::vector<std::string> coordinates;  ///< one per Scenario::dimensions, as written (a name, a number)
  PlanRequest request;
  /// tp, pp and dp are all pinned: the split is reported even when it does not fit (the estimator's answer).
  bool pinned = false;
};

/// `report.plot:` what --plot draws for a sweep.
struct ScenarioPlot {
  std::string x;                  ///< a dimension: the x axis (default: the last swept path)
  std::string y = "step_time_s";  ///< a numeric column key
  std::string y2;                 ///< a second numeric column on a right-hand axis; empty for none
  bool log_y = false;
  std::optional<bool> bars;  ///< style: bars or lines; default bars when x is the variant
  std::string title;         ///< default: the scenario's title
  /// Only the cases whose dimension has this value (e.g. {"model", "llama3-70b"}).
  std::vector<std::pair<std::string, std::string>> where;
};

/// A loaded scenario: every case built and checked, nothing run yet.
struct Scenario {
  std::string file;
  std::string title;                    ///< `title:`, else the file's stem
  std::vector<std::string> dimensions;  ///< "variant" (with compare:), then the swept paths in file order
  std::vector<ScenarioCase> cases;      ///< variants in file order; the sweep's product, last path fastest
  std::vector<std::string> columns;     ///< report.columns (keys of scenario_column_keys()); empty: default
  /// Configurations reported per case: report.top for every case, else each case's planner.top (default 1).
  std::optional<int> top;
  /// The baseline of each case: the case equal to it except that these dimensions have these values.
  /// Empty: the first case.
  std::vector<std::pair<std::string, std::string>> baseline;
  ScenarioPlot plot;
};

/// The quantities a scenario can report (report.columns, report.plot.y), in their default order of
/// definition: split, tp, ..., step_time_s, mfu, ..., speedup, cost_delta, ...
[[nodiscard]] const std::vector<std::string>& scenario_column_keys();
/// The columns shown when report.columns is not given.
[[nodiscard]] const std::vector<std::string>& scenario_default_columns();
/// Whether a scenario column is a number (so it can be plotted).
[[nodiscard]] bool is_numeric_scenario_column(const std::string& key);

/// What one case gave.
struct ScenarioRow {
  std::vector<StepEstimate> best;  ///< best first, at most Scenario::top; empty when nothing was feasible
  std::int64_t evaluated = 0;
  std::int64_t feasible = 0;
  int diameter = 0;                ///< of the best configuration's fabric
  int transceivers = 0;            ///< optical transceivers of that fabric
  Watts network_power;             ///< switches, NICs and optics of that fabric
  std::optional<size_t> baseline;  ///< index of the baseline case, when it has a result
  std::string note;                ///< why nothing (or nothing that fits) was found, or a skipped fabric
};

/// Every case's result, in case order.
struct ScenarioResult {
  std::vector<ScenarioRow> rows;
  double elapsed_s = 0;
};

/// Progress: cases done (plus the running case's fraction) over all cases, in [0, 1].
using ScenarioProgress = std::function<void(double fraction_done)>;

/// Runs every case. A case with nothing feasible is a row with a note, not an error.
[[nodiscard]] ScenarioResult run_scenario(const Scenario& scenario, const ScenarioProgress& progress = {});

}  // namespace costmodel::inline COSTMODEL_ABI
