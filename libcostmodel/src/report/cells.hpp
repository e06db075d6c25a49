// SPDX-License-Identifier: Apache-2.0
#pragma once
// Cells that every table writes the same way: an optional duration in days, an optional amount in USD (null
// where the run has none, e.g. no token budget), a fabric with its taper.

#include <optional>
#include <string>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"

#include "costmodel/report/json.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

[[nodiscard]] inline Json days_cell(const std::optional<Seconds>& time) {
  return time ? Json(time->value / kSecondsPerDay) : Json();
}

[[nodiscard]] inline Json usd_cell(const std::optional<Usd>& value) {
  return value ? Json(value->value) : Json();
}

/// The fabric an estimate ran on, with its leaves' taper where it has one: "fat-tree 2:1", "rail-only".
[[nodiscard]] inline std::string fabric_label(const StepEstimate& e) {
  std::string text(to_string(e.topology));
  if (e.oversubscription != 1.0) text.append(" ").append(format_number(e.oversubscription, 3)).append(":1");
  return text;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
