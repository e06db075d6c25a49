// SPDX-License-Identifier: Apache-2.0
#pragma once
// Published training runs (data/published-runs.yaml): what was run and what was measured, for
// `costmodel validate` and calibration.

#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/analysis/validate.hpp"
#include "costmodel/spec/catalog.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Loads a runs file (`runs:` list); errors name FILE:LINE:COL and the field. A run that names no software
/// stack (nor its cluster) runs under `default_stack`, a catalog stack name (empty: kDefaultStack).
[[nodiscard]] std::vector<PublishedRun> load_published_runs(const std::string& path, const Catalog& catalog,
                                                            std::string_view default_stack = {});

}  // namespace costmodel::inline COSTMODEL_ABI
