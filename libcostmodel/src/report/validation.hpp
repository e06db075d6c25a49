// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel validate` prints: each run's measured and predicted TFLOP/s per GPU (in the source's FLOP
// convention), the error, the split the planner chose, and the error statistics.

#include <string>
#include "costmodel/version.hpp"

#include "costmodel/analysis/validate.hpp"
#include "costmodel/report/table.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One row per run, titled "predicted vs published: SOURCE", the |error| statistics below.
[[nodiscard]] Table validation_table(const ValidationSummary& summary, const std::string& source);

/// {"runs": [rows as validation_table()'s], "median_abs_error", "mean_abs_error", "max_abs_error"}.
[[nodiscard]] Json validation_json(const ValidationSummary& summary);

}  // namespace costmodel::inline COSTMODEL_ABI
