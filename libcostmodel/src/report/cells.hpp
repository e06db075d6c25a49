// SPDX-License-Identifier: Apache-2.0
#pragma once
// Cells that every table writes the same way: an optional duration in days, an optional amount in USD (null
// where the run has none, e.g. no token budget).

#include <optional>

#include "costmodel/report/json.hpp"
#include "costmodel/units.hpp"

namespace costmodel::detail {

[[nodiscard]] inline Json days_cell(const std::optional<Seconds>& time) {
  return time ? Json(time->value / kSecondsPerDay) : Json();
}

[[nodiscard]] inline Json usd_cell(const std::optional<Usd>& value) {
  return value ? Json(value->value) : Json();
}

}  // namespace costmodel::detail
