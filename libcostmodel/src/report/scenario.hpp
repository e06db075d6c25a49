// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel scenario` prints: one row per case (and per rank when top > 1) with the swept values, the
// chosen columns and the changes against the baseline; the JSON document; the sweep as a chart.

#include "costmodel/analysis/scenario.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/version.hpp"
#include "report/svg.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One row per case (and per rank when top > 1): the dimensions, the chosen columns, the deltas.
/// For table/markdown, values in readable units (ms, GiB, M$, kW); for csv/json, SI under unit-suffixed keys.
[[nodiscard]] Table scenario_table(const Scenario& scenario, const ScenarioResult& result);
/// {"scenario", "dimensions", "rows": [{dimensions..., "rank", "configuration": {...}, deltas...}],
/// "elapsed_s"}.
[[nodiscard]] Json scenario_json(const Scenario& scenario, const ScenarioResult& result);
/// The sweep as lines: report.plot.y against report.plot.x, one line per combination of the other dimensions.
[[nodiscard]] LineChart scenario_chart(const Scenario& scenario, const ScenarioResult& result);

}  // namespace costmodel::inline COSTMODEL_ABI
