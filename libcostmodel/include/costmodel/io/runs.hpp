// SPDX-License-Identifier: Apache-2.0
#pragma once
// Published training runs (data/published-runs.yaml): what was run and what was measured, for
// `costmodel validate` and calibration.

#include <string>
#include <vector>

#include "costmodel/analysis/validate.hpp"
#include "costmodel/spec/catalog.hpp"

namespace costmodel {

/// Loads a runs file (`runs:` list); errors name FILE:LINE:COL and the field.
[[nodiscard]] std::vector<PublishedRun> load_published_runs(const std::string& path, const Catalog& catalog);

}  // namespace costmodel
