// SPDX-License-Identifier: Apache-2.0
#pragma once
// Scenario files (DESIGN.md §4): a YAML file with `base:` (cluster, model, training, planner) and any of
// `sweep:` (dotted field paths -> lists of values, cartesian product), `compare:` (named variants, each a
// mapping of dotted overrides) and `report:` (columns, rank_by, top, baseline, plot), read into the cases of
// an analysis/scenario.hpp Scenario.
//
// Errors name FILE:LINE:COL like every other input: an unknown path in `sweep:` or `compare:` at its key
// (with "did you mean"), a value of the wrong kind at the value itself.

#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/analysis/scenario.hpp"
#include "costmodel/spec/catalog.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Reads a scenario file; catalog names resolve against `catalog`. Throws Error at FILE:LINE:COL. A case
/// whose training and cluster name no software stack runs under `default_stack` (empty: kDefaultStack).
[[nodiscard]] Scenario load_scenario_file(const std::string& path, const Catalog& catalog,
                                          std::string_view default_stack = {});
[[nodiscard]] Scenario load_scenario_text(const std::string& yaml, const std::string& filename,
                                          const Catalog& catalog, std::string_view default_stack = {});

/// The dotted paths `sweep:` and `compare:` accept (cluster.gpus, cluster.scale_out.link, model, training.*,
/// planner.*, ...).
[[nodiscard]] const std::vector<std::string>& scenario_paths();

}  // namespace costmodel::inline COSTMODEL_ABI
