#include "costmodel/io/report.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "costmodel/error.hpp"

namespace costmodel {

namespace {

constexpr std::array<std::pair<Format, std::string_view>, 4> kFormatNames{{
    {Format::kTable, "table"},
    {Format::kCsv, "csv"},
    {Format::kJson, "json"},
    {Format::kMarkdown, "markdown"},
}};

// ---------------------------------------------------------------------------------------------------
// Numbers

/// Shortest text that reads back as the same double (std::to_chars' round-trip guarantee).
std::string shortest_repr(double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

bool is_number(const Json& cell) {
  return std::holds_alternative<std::int64_t>(cell.value()) || std::holds_alternative<double>(cell.value());
}

// ---------------------------------------------------------------------------------------------------
// JSON strings: RFC 8259 §7; invalid UTF-8 becomes U+FFFD so the output is always valid UTF-8.

/// Length of the well-formed UTF-8 sequence starting at `text[i]` (Unicode 15 Table 3-7), or 0.
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

void write_json_string(std::ostream& out, std::string_view text) {
  out << '"';
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out << "\\\"";
          break;
        case '\\':
          out << "\\\\";
          break;
        case '\b':
          out << "\\b";
          break;
        case '\f':
          out << "\\f";
          break;
        case '\n':
          out << "\\n";
          break;
        case '\r':
          out << "\\r";
          break;
        case '\t':
          out << "\\t";
          break;
        default:
          if (c < 0x20) {
            std::array<char, 8> escape{};
            std::snprintf(escape.data(), escape.size(), "\\u%04x", static_cast<unsigned>(c));
            out << escape.data();
          } else {
            out << static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out << "\\ufffd";
      ++i;
    } else {
      out << text.substr(i, length);
      i += length;
    }
  }
  out << '"';
}

void write_newline(std::ostream& out, int indent, int depth) {
  if (indent <= 0) return;
  out << '\n' << std::string(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

void write_json(std::ostream& out, const Json& json, int indent, int depth) {
  const auto& value = json.value();
  if (std::holds_alternative<std::monostate>(value)) {
    out << "null";
  } else if (const auto* b = std::get_if<bool>(&value)) {
    out << (*b ? "true" : "false");
  } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
    out << *i;
  } else if (const auto* d = std::get_if<double>(&value)) {
    if (std::isfinite(*d)) {
      out << shortest_repr(*d);
    } else {
      out << "null";
    }
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    write_json_string(out, *s);
  } else if (const auto* array = std::get_if<Json::Array>(&value)) {
    if (array->empty()) {
      out << "[]";
      return;
    }
    out << '[';
    for (size_t k = 0; k < array->size(); ++k) {
      if (k > 0) out << ',';
      write_newline(out, indent, depth + 1);
      write_json(out, (*array)[k], indent, depth + 1);
    }
    write_newline(out, indent, depth);
    out << ']';
  } else if (const auto* object = std::get_if<Json::Object>(&value)) {
    if (object->empty()) {
      out << "{}";
      return;
    }
    out << '{';
    for (size_t k = 0; k < object->size(); ++k) {
      if (k > 0) out << ',';
      write_newline(out, indent, depth + 1);
      write_json_string(out, (*object)[k].first);
      out << (indent > 0 ? ": " : ":");
      write_json(out, (*object)[k].second, indent, depth + 1);
    }
    write_newline(out, indent, depth);
    out << '}';
  }
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
  if (const auto* d = std::get_if<double>(&value)) return std::isfinite(*d) ? shortest_repr(*d) : "";
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
      if (!known) table.columns.push_back(Column{key, key, "", 4});
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

Json& Json::set(const std::string& key, Json value) {
  if (is_null()) value_ = Object{};
  auto* object = std::get_if<Object>(&value_);
  if (object == nullptr) throw Error("Json::set on a value that is not an object", ErrorKind::kInternal);
  for (auto& [existing, member] : *object) {
    if (existing == key) {
      member = std::move(value);
      return *this;
    }
  }
  object->emplace_back(key, std::move(value));
  return *this;
}

Json& Json::push_back(Json value) {
  if (is_null()) value_ = Array{};
  auto* array = std::get_if<Array>(&value_);
  if (array == nullptr) throw Error("Json::push_back on a value that is not an array", ErrorKind::kInternal);
  array->push_back(std::move(value));
  return *this;
}

const Json* Json::find(std::string_view key) const {
  const auto* object = std::get_if<Object>(&value_);
  if (object == nullptr) return nullptr;
  for (const auto& [existing, member] : *object) {
    if (existing == key) return &member;
  }
  return nullptr;
}

void Json::write(std::ostream& out, int indent) const {
  write_json(out, *this, indent, 0);
}

std::string Json::dump(int indent) const {
  std::ostringstream out;
  write(out, indent);
  return out.str();
}

std::string format_number(double value, int significant) {
  if (!std::isfinite(value)) return "-";
  if (value == 0.0) return "0";
  significant = std::clamp(significant, 1, 17);
  // Round to `significant` digits first: the exponent may change (9.9996 -> 10.00).
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*e", significant - 1, value);
  const double rounded = std::strtod(buffer.data(), nullptr);
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
  if (exponent < -4 || exponent >= 15) {
    // Scientific, with trailing zeros of the mantissa dropped: 1.5e-07, 2e+18.
    std::string text(buffer.data());
    const size_t e = text.find('e');
    std::string mantissa = text.substr(0, e);
    if (mantissa.find('.') != std::string::npos) {
      while (mantissa.back() == '0') mantissa.pop_back();
      if (mantissa.back() == '.') mantissa.pop_back();
    }
    return mantissa + text.substr(e);
  }
  const int decimals = std::max(0, significant - 1 - exponent);
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, rounded);
  std::string text(buffer.data());
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

void write_table(std::ostream& out, const Table& table, Format format) {
  switch (format) {
    case Format::kTable:
      write_text_table(out, table);
      return;
    case Format::kCsv:
      write_csv(out, table);
      return;
    case Format::kMarkdown:
      write_markdown(out, table);
      return;
    case Format::kJson: {
      Json rows = Json::array();
      for (const auto& row : table.rows) {
        Json object = Json::object();
        for (size_t c = 0; c < table.columns.size(); ++c) object.set(table.columns[c].key, cell_at(row, c));
        rows.push_back(std::move(object));
      }
      rows.write(out, 2);
      out << '\n';
      return;
    }
  }
}

void write_document(std::ostream& out, const Json& document, Format format) {
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
    scalars.columns = {Column{"key", "key", "", 4}, Column{"value", "value", "", 4}};
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
    single.columns = {Column{"value", "value", "", 4}};
    single.rows.push_back({document});
    tables.push_back(std::move(single));
  }
  // Sections are separated by one blank line (CSV readers see one table per section).
  for (size_t k = 0; k < tables.size(); ++k) {
    if (k > 0) out << '\n';
    write_table(out, tables[k], format);
  }
}

}  // namespace costmodel
