// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/table.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "costmodel/error.hpp"
#include "costmodel/report/html.hpp"

namespace costmodel::inline COSTMODEL_ABI {

namespace {

constexpr std::array<std::pair<Format, std::string_view>, 8> kFormatNames{{
    {Format::kTable, "table"},
    {Format::kCsv, "csv"},
    {Format::kJson, "json"},
    {Format::kMarkdown, "markdown"},
    {Format::kMegatron, "megatron"},
    {Format::kNemo, "nemo"},
    {Format::kHtml, "html"},
    {Format::kTorchtitan, "torchtitan"},
}};

// ---------------------------------------------------------------------------------------------------
// Numbers

bool is_number(const Json& cell) {
  return std::holds_alternative<std::int64_t>(cell.value()) || std::holds_alternative<double>(cell.value());
}

// ---------------------------------------------------------------------------------------------------
// Cells as text

/// A cell for humans (table, markdown): numbers with the column's significant digits, null as "-",
/// arrays of scalars joined with ", ".
std::string human_cell(const Json& cell, int precision) {
  const auto& value = cell.value();
  if (std::holds_alternative<std::monostate>(value)) return "-";
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "yes" : "no";
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return format_number(*d, precision);
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* array = std::get_if<Json::Array>(&value)) {
    std::string joined;
    for (const auto& item : *array) {
      if (!joined.empty()) joined += ", ";
      joined += (item.is_array() || item.is_object()) ? item.dump(0) : human_cell(item, precision);
    }
    return joined;
  }
  return cell.dump(0);
}

/// A cell for machines (CSV): full-precision numbers, null and non-finite as empty.
std::string machine_cell(const Json& cell) {
  const auto& value = cell.value();
  if (std::holds_alternative<std::monostate>(value)) return "";
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return std::isfinite(*d) ? Json(*d).dump(0) : "";
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* array = std::get_if<Json::Array>(&value)) {
    std::string joined;
    for (size_t k = 0; k < array->size(); ++k) {
      if (k > 0) joined += ';';
      const auto& item = (*array)[k];
      joined += (item.is_array() || item.is_object()) ? item.dump(0) : machine_cell(item);
    }
    return joined;
  }
  return cell.dump(0);
}

/// Code points in a UTF-8 string: what a terminal shows, for column alignment.
size_t display_width(std::string_view text) {
  return static_cast<size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string header_text(const Column& column) {
  const std::string& name = column.header.empty() ? column.key : column.header;
  return column.unit.empty() ? name : name + " (" + column.unit + ")";
}

/// A column is numeric (right-aligned header) when every non-null cell is a number.
std::vector<bool> numeric_columns(const Table& table) {
  std::vector<bool> numeric(table.columns.size(), false);
  for (size_t c = 0; c < table.columns.size(); ++c) {
    bool any_number = false, all_numbers = true;
    for (const auto& row : table.rows) {
      if (c >= row.size() || row[c].is_null()) continue;
      if (is_number(row[c])) {
        any_number = true;
      } else {
        all_numbers = false;
      }
    }
    numeric[c] = any_number && all_numbers;
  }
  return numeric;
}

const Json& cell_at(const std::vector<Json>& row, size_t column) {
  static const Json kNull;
  return column < row.size() ? row[column] : kNull;
}

void pad(std::ostream& out, const std::string& text, size_t width, bool right) {
  const size_t fill = width > display_width(text) ? width - display_width(text) : 0;
  if (right) out << std::string(fill, ' ');
  out << text;
  if (!right) out << std::string(fill, ' ');
}

std::string trim_right(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

void write_text_table(std::ostream& out, const Table& table) {
  const size_t n = table.columns.size();
  const auto numeric = numeric_columns(table);
  std::vector<std::string> headers(n);
  std::vector<size_t> widths(n);
  for (size_t c = 0; c < n; ++c) {
    headers[c] = header_text(table.columns[c]);
    widths[c] = display_width(headers[c]);
  }
  std::vector<std::vector<std::string>> cells;
  cells.reserve(table.rows.size());
  for (const auto& row : table.rows) {
    auto& texts = cells.emplace_back(n);
    for (size_t c = 0; c < n; ++c) {
      texts[c] = human_cell(cell_at(row, c), table.columns[c].precision);
      // A cell holding a newline would break the grid.
      std::replace(texts[c].begin(), texts[c].end(), '\n', ' ');
      widths[c] = std::max(widths[c], display_width(texts[c]));
    }
  }
  const auto write_line = [&](const auto& text_of, const auto& right_of) {
    std::ostringstream line;
    for (size_t c = 0; c < n; ++c) {
      if (c > 0) line << "  ";
      pad(line, text_of(c), widths[c], right_of(c));
    }
    out << trim_right(line.str()) << '\n';
  };

  for (const auto& line : table.preamble) out << line << '\n';
  if (!table.title.empty()) out << table.title << '\n';
  write_line([&](size_t c) { return headers[c]; }, [&](size_t c) { return static_cast<bool>(numeric[c]); });
  write_line([&](size_t c) { return std::string(widths[c], '-'); }, [](size_t) { return false; });
  for (size_t r = 0; r < cells.size(); ++r) {
    write_line([&](size_t c) { return cells[r][c]; },
               [&](size_t c) {
                 const Json& cell = cell_at(table.rows[r], c);
                 return is_number(cell) || (cell.is_null() && numeric[c]);
               });
  }
  if (!table.notes.empty()) {
    out << '\n';
    for (const auto& note : table.notes) out << note << '\n';
  }
}

/// RFC 4180 §2: a field holding a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

void write_csv(std::ostream& out, const Table& table) {
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (c > 0) out << ',';
    out << csv_field(table.columns[c].key);
  }
  out << '\n';
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (c > 0) out << ',';
      out << csv_field(machine_cell(cell_at(row, c)));
    }
    out << '\n';
  }
}

std::string markdown_cell(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|') {
      escaped += "\\|";
    } else if (c == '\n') {
      escaped += "<br>";
    } else if (c != '\r') {
      escaped += c;
    }
  }
  return escaped;
}

void write_markdown(std::ostream& out, const Table& table) {
  const auto numeric = numeric_columns(table);
  for (const auto& line : table.preamble) out << markdown_cell(line) << "\n\n";
  if (!table.title.empty()) out << "**" << markdown_cell(table.title) << "**\n\n";
  out << '|';
  for (const auto& column : table.columns) out << ' ' << markdown_cell(header_text(column)) << " |";
  out << "\n|";
  for (size_t c = 0; c < table.columns.size(); ++c) out << (numeric[c] ? " ---: |" : " --- |");
  out << '\n';
  for (const auto& row : table.rows) {
    out << '|';
    for (size_t c = 0; c < table.columns.size(); ++c) {
      out << ' ' << markdown_cell(human_cell(cell_at(row, c), table.columns[c].precision)) << " |";
    }
    out << '\n';
  }
  for (const auto& note : table.notes) out << '\n' << markdown_cell(note) << '\n';
}

/// The columns of `table` meant for `format`'s audience; for people, numbers divided by the column's scale.
Table for_audience(const Table& table, Format format) {
  const bool human = is_human(format);
  const Audience excluded = human ? Audience::kMachines : Audience::kPeople;
  Table view;
  view.preamble = table.preamble;
  view.title = table.title;
  view.notes = table.notes;
  std::vector<size_t> kept;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c].audience == excluded) continue;
    kept.push_back(c);
    view.columns.push_back(table.columns[c]);
  }
  view.rows.reserve(table.rows.size());
  for (const auto& row : table.rows) {
    auto& cells = view.rows.emplace_back();
    cells.reserve(kept.size());
    for (const size_t c : kept) {
      Json cell = cell_at(row, c);
      const double scale = table.columns[c].scale;
      if (human && scale != 1.0) {
        if (const auto* i = std::get_if<std::int64_t>(&cell.value())) {
          cell = Json(static_cast<double>(*i) / scale);
        } else if (const auto* d = std::get_if<double>(&cell.value())) {
          cell = Json(*d / scale);
        }
      }
      cells.push_back(std::move(cell));
    }
  }
  return view;
}

// ---------------------------------------------------------------------------------------------------
// Documents as tables

bool is_array_of_objects(const Json& json) {
  return json.is_array() && !json.as_array().empty() &&
         std::all_of(json.as_array().begin(), json.as_array().end(),
                     [](const Json& item) { return item.is_object(); });
}

/// Nested objects become dotted keys: {"breakdown": {"compute_s": 1}} -> "breakdown.compute_s".
void flatten(const Json::Object& object, const std::string& prefix, Json::Object& flat) {
  for (const auto& [key, value] : object) {
    if (value.is_object() && !value.as_object().empty()) {
      flatten(value.as_object(), prefix + key + ".", flat);
    } else {
      flat.emplace_back(prefix + key, value);
    }
  }
}

Table table_of_objects(const std::string& title, const Json::Array& items) {
  Table table;
  table.title = title;
  std::vector<Json::Object> flat_items;
  for (const auto& item : items) {
    Json::Object flat;
    flatten(item.as_object(), "", flat);
    for (const auto& member : flat) {
      const std::string& key = member.first;  // not a structured binding: clang 14 cannot capture one
      const bool known = std::any_of(table.columns.begin(), table.columns.end(),
                                     [&](const Column& column) { return column.key == key; });
      if (!known) table.columns.push_back(Column{key, key, ""});
    }
    flat_items.push_back(std::move(flat));
  }
  for (const auto& flat : flat_items) {
    std::vector<Json> row(table.columns.size());
    for (const auto& [key, value] : flat) {
      for (size_t c = 0; c < table.columns.size(); ++c) {
        if (table.columns[c].key == key) row[c] = value;
      }
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

/// `table` with a trailing schema_version column, for the machine formats.
Table with_schema_version(const Table& table) {
  Table versioned = table;
  versioned.columns.push_back({"schema_version", "schema version", "", 1.0, 4, Audience::kMachines});
  for (auto& row : versioned.rows) {
    row.resize(table.columns.size());
    row.emplace_back(kSchemaVersion);
  }
  return versioned;
}

/// `document` with schema_version appended when it is an object without one.
Json with_schema_version(const Json& document) {
  if (!document.is_object() || document.find("schema_version") != nullptr) return document;
  Json versioned = document;
  versioned.set("schema_version", kSchemaVersion);
  return versioned;
}

void write_table_as(std::ostream& out, const Table& table, Format format) {
  const Table view = for_audience(table, format);
  switch (format) {
    case Format::kTable:
      write_text_table(out, view);
      return;
    case Format::kCsv:
      write_csv(out, view);
      return;
    case Format::kMarkdown:
      write_markdown(out, view);
      return;
    case Format::kJson:
      table_json(table).write(out, 2);
      out << '\n';
      return;
    case Format::kHtml:
      write_html_table(out, table);  // a fragment: the pages of report/html.hpp hold it
      return;
    case Format::kMegatron:
    case Format::kNemo:
    case Format::kTorchtitan:
      return;  // refused by write_table()
  }
}

}  // namespace

std::string_view to_string(Format format) {
  for (const auto& [value, name] : kFormatNames) {
    if (value == format) return name;
  }
  return "table";
}

std::optional<Format> parse_format(std::string_view name) {
  for (const auto& [value, known] : kFormatNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

void write_table(std::ostream& out, const Table& table, Format format) {
  if (is_launch(format)) {
    throw Error("--format " + std::string(to_string(format)) +
                " writes launch arguments: plan and estimate only");
  }
  if (!is_human(format)) return write_table_as(out, with_schema_version(table), format);
  write_table_as(out, table, format);
}

Json table_json(const Table& table) {
  const Table view = for_audience(table, Format::kJson);
  Json rows = Json::array();
  for (const auto& row : view.rows) {
    Json object = Json::object();
    for (size_t c = 0; c < view.columns.size(); ++c) object.set(view.columns[c].key, cell_at(row, c));
    rows.push_back(std::move(object));
  }
  return rows;
}

void write_document(std::ostream& out, const Json& given, Format format) {
  if (is_launch(format)) {
    throw Error("--format " + std::string(to_string(format)) +
                " writes launch arguments: plan and estimate only");
  }
  const Json document = is_human(format) ? given : with_schema_version(given);
  if (format == Format::kJson) {
    document.write(out, 2);
    out << '\n';
    return;
  }
  std::vector<Table> tables;
  if (is_array_of_objects(document)) {
    tables.push_back(table_of_objects("", document.as_array()));
  } else if (document.is_object()) {
    Table scalars;
    scalars.columns = {Column{"key", "key", ""}, Column{"value", "value", ""}};
    std::vector<Table> nested;
    Json::Object flat;
    for (const auto& [key, value] : document.as_object()) {
      if (is_array_of_objects(value)) {
        nested.push_back(table_of_objects(key, value.as_array()));
      } else if (value.is_object() && !value.as_object().empty()) {
        flatten(value.as_object(), key + ".", flat);
      } else {
        flat.emplace_back(key, value);
      }
    }
    for (auto& [key, value] : flat) scalars.rows.push_back({Json(key), std::move(value)});
    if (!scalars.rows.empty()) tables.push_back(std::move(scalars));
    for (auto& table : nested) tables.push_back(std::move(table));
  } else {
    Table single;
    single.columns = {Column{"value", "value", ""}};
    single.rows.push_back({document});
    tables.push_back(std::move(single));
  }
  // Sections are separated by one blank line (CSV readers see one table per section); the document carries
  // schema_version itself.
  for (size_t k = 0; k < tables.size(); ++k) {
    if (k > 0) out << '\n';
    write_table_as(out, tables[k], format);
  }
}

}  // namespace costmodel::inline COSTMODEL_ABI
