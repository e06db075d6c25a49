// SPDX-License-Identifier: Apache-2.0
#pragma once
// The knobs' columns in the configuration outputs (estimate and plan JSON, plan CSV, scenario columns),
// read from each knob's one declaration (spec/training.hpp TrainingField::column). A writer places the
// columns the contract names where they have always been (DESIGN.md §3) and then adds every other declared
// knob with add_knob_columns() (JSON objects) or knob_columns() (tables): a knob declared once appears in
// every format.

#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/error.hpp"
#include "costmodel/estimate/inputs.hpp"
#include "costmodel/report/json.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

inline Json knob_json(const KnobValue& value) {
  return std::visit(
      [](const auto& v) -> Json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          return Json();
        } else {
          return Json(v);
        }
      },
      value);
}

/// The cell of the declared knob `field` for `strategy` estimated with `options`.
inline Json knob_cell(const TrainingField& field, const Strategy& strategy, const EstimateOptions& options) {
  return field.column ? knob_json(field.column(strategy, options)) : Json();
}

/// The declared knob `key`, which must have a column (an internal error otherwise).
inline const TrainingField& column_knob(std::string_view key) {
  const TrainingField& field = training_field(key);
  if (!field.column) throw Error("knob '" + std::string(key) + "' has no column", ErrorKind::kInternal);
  return field;
}

/// The cell of the declared knob `key` (column_knob()).
inline Json knob_cell(std::string_view key, const Strategy& strategy, const EstimateOptions& options) {
  return knob_cell(column_knob(key), strategy, options);
}

/// Adds to `object` every knob of `fields` with a column that it does not hold yet, in declaration order.
inline void add_knob_columns(Json& object, const Strategy& strategy, const EstimateOptions& options,
                             const std::vector<TrainingField>& fields = training_fields()) {
  for (const TrainingField& field : fields) {
    if (field.column && object.find(field.key) == nullptr)
      object.set(std::string(field.key), knob_cell(field, strategy, options));
  }
}

/// A column for every knob of `fields` with a column whose key no column of `placed` has, in declaration
/// order: header its flag, cells from the row's strategy and options (`strategy_of(row)`, `options_of(row)`).
/// `fields` must outlive the columns.
template <typename T, typename StrategyOf, typename OptionsOf>
std::vector<ColumnOf<T>> knob_columns(const std::vector<ColumnOf<T>>& placed, StrategyOf strategy_of,
                                      OptionsOf options_of, Audience audience,
                                      const std::vector<TrainingField>& fields = training_fields()) {
  std::vector<ColumnOf<T>> columns;
  for (const TrainingField& field : fields) {
    if (!field.column) continue;
    bool found = false;
    for (const auto& column : placed) found = found || column.key == field.key;
    if (found) continue;
    const TrainingField* declared = &field;
    columns.push_back({std::string(field.key), std::string(field.flag), "", 1,
                       [declared, strategy_of, options_of](const T& row) {
                         return knob_cell(*declared, strategy_of(row), options_of(row));
                       },
                       4, audience});
  }
  return columns;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
