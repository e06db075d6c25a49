// SPDX-License-Identifier: Apache-2.0
#pragma once
// One column model for every report: a Table holds SI values; each Column says how machines (json, csv) name
// it and how people (table, markdown) read it. write_table() applies the column's audience and scale, so a
// machine format can never carry a scaled value (the unit convention of DESIGN.md §3).

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/report/json.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Output formats (DESIGN.md §3): every command has table, csv, json and markdown; plan and estimate also
/// write launch arguments: megatron (Megatron-LM / Megatron-Core flags) and nemo (NeMo 2 recipe overrides);
/// plan, estimate and scenario also write html (a self-contained page, report/html.hpp).
enum class Format { kTable, kCsv, kJson, kMarkdown, kMegatron, kNemo, kHtml, kTorchtitan };
/// "table", "csv", "json", "markdown", "megatron", "nemo", "html", "torchtitan".
[[nodiscard]] std::string_view to_string(Format format);
/// The format named `name`, or nullopt.
[[nodiscard]] std::optional<Format> parse_format(std::string_view name);
/// Table and markdown are read by people; json and csv by machines.
[[nodiscard]] constexpr bool is_human(Format format) {
  return format == Format::kTable || format == Format::kMarkdown;
}
/// Megatron-LM arguments or NeMo overrides of a configuration (plan and estimate only).
[[nodiscard]] constexpr bool is_launch(Format format) {
  return format == Format::kMegatron || format == Format::kNemo || format == Format::kTorchtitan;
}

/// The version of the machine formats' keys (json, csv): every JSON document and CSV table carries it as
/// `schema_version`; it changes when a key is renamed or removed or changes unit (adding keys does not).
/// 2: CSV in SI units and fractions (mfu, comm_share, memory_per_gpu_bytes, cost_usd), schema_version added.
inline constexpr int kSchemaVersion = 2;

/// Who a column is for: every format, machines only (json, csv: e.g. long sources) or people only.
enum class Audience { kEveryone, kMachines, kPeople };

/// One column: `key` and the SI value for machines, `header (unit)` and value / `scale` for people.
struct Column {
  std::string key;     ///< json/csv name; SI unit, or the unit in the key ("memory_per_gpu_bytes")
  std::string header;  ///< table/markdown name; empty: the key
  std::string unit;    ///< table/markdown unit, printed as "header (unit)"; empty for none
  double scale = 1.0;  ///< table/markdown show value / scale (1e9 for GB/s); json/csv the value itself
  int precision = 4;   ///< significant digits of numbers in table/markdown (json/csv keep full precision)
  Audience audience = Audience::kEveryone;
};

/// A table of cells in SI units; a cell is a Json scalar (null prints as "-" for people, empty in CSV).
struct Table {
  std::vector<std::string> preamble;  ///< lines printed first, e.g. the cluster a result used (people only)
  std::string title;                  ///< printed above the table (table/markdown only)
  std::vector<Column> columns;
  std::vector<std::vector<Json>> rows;
  std::vector<std::string> notes;  ///< printed below the table (table/markdown only)
};

/// Writes `table` as an aligned text table, CSV (RFC 4180), a JSON array of objects, or a markdown table,
/// with the columns meant for that format's audience; CSV and JSON rows end with `schema_version`.
void write_table(std::ostream& out, const Table& table, Format format);

/// Writes `document` in `format`: JSON as is (an object gains `schema_version` when it has none); for
/// table/csv/markdown, an object's scalar members as a two-column key/value table and each array of objects
/// as its own table.
void write_document(std::ostream& out, const Json& document, Format format);

/// The rows of `table` meant for machines as JSON objects (key -> SI value).
[[nodiscard]] Json table_json(const Table& table);

/// A count held in a double (parameters, FLOPs) as a JSON integer when it is one exactly.
[[nodiscard]] inline Json exact_count(double value) {
  constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  if (std::isfinite(value) && std::fabs(value) < kExactLimit && value == std::floor(value)) {
    return Json(static_cast<std::int64_t>(value));
  }
  return Json(value);
}

/// A column and how to read its cell from one item of type T (the fields of Column, then the getter).
template <typename T>
struct ColumnOf {
  std::string key;                    ///< Column::key
  std::string header;                 ///< Column::header
  std::string unit;                   ///< Column::unit
  double scale = 1.0;                 ///< Column::scale
  std::function<Json(const T&)> get;  ///< the cell of one item, in SI units
  int precision = 4;                  ///< Column::precision
  Audience audience = Audience::kEveryone;

  [[nodiscard]] Column column() const { return Column{key, header, unit, scale, precision, audience}; }
};

/// One row per item, one column per field, SI values.
template <typename T>
[[nodiscard]] Table make_table(const std::vector<ColumnOf<T>>& fields, const std::vector<T>& items) {
  Table table;
  for (const auto& field : fields) table.columns.push_back(field.column());
  for (const auto& item : items) {
    auto& row = table.rows.emplace_back();
    for (const auto& field : fields) row.push_back(field.get(item));
  }
  return table;
}

}  // namespace costmodel::inline COSTMODEL_ABI
