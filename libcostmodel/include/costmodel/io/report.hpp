#pragma once
// Report writers shared by the CLI and the examples: a JSON value and a table, each written as
// table | csv | json | markdown.

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace costmodel {

/// Output formats of every command (DESIGN.md §3).
enum class Format { kTable, kCsv, kJson, kMarkdown };
/// "table", "csv", "json", "markdown".
[[nodiscard]] std::string_view to_string(Format format);
/// The format named `name`, or nullopt.
[[nodiscard]] std::optional<Format> parse_format(std::string_view name);

/// A JSON document: null, bool, integer, number, string, array or object (keys keep insertion order).
/// Non-finite numbers are written as null, so no output ever holds NaN.
class Json {
 public:
  using Array = std::vector<Json>;                           ///< a JSON array
  using Object = std::vector<std::pair<std::string, Json>>;  ///< a JSON object, in insertion order

  Json() = default;  ///< null
  Json(std::nullptr_t) {}
  Json(bool b) : value_(b) {}
  Json(int i) : value_(static_cast<std::int64_t>(i)) {}
  Json(std::int64_t i) : value_(i) {}
  Json(double d) : value_(d) {}
  Json(const char* s) : value_(std::string(s)) {}
  Json(std::string s) : value_(std::move(s)) {}
  Json(Array a) : value_(std::move(a)) {}
  Json(Object o) : value_(std::move(o)) {}

  /// An empty array.
  [[nodiscard]] static Json array() { return Json(Array{}); }
  /// An empty object.
  [[nodiscard]] static Json object() { return Json(Object{}); }

  /// Adds or replaces `key` in an object; returns *this.
  Json& set(const std::string& key, Json value);
  /// Appends to an array; returns *this.
  Json& push_back(Json value);
  /// The member `key` of an object, or nullptr.
  [[nodiscard]] const Json* find(std::string_view key) const;

  /// Which kind of value this is.
  [[nodiscard]] bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  [[nodiscard]] bool is_object() const { return std::holds_alternative<Object>(value_); }
  [[nodiscard]] bool is_array() const { return std::holds_alternative<Array>(value_); }
  /// The object's members; throws std::bad_variant_access if this is not an object.
  [[nodiscard]] const Object& as_object() const { return std::get<Object>(value_); }
  /// The array's elements; throws std::bad_variant_access if this is not an array.
  [[nodiscard]] const Array& as_array() const { return std::get<Array>(value_); }
  /// The value itself, for std::get_if / std::visit (null is std::monostate).
  [[nodiscard]] const std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object>&
  value() const {
    return value_;
  }

  /// Writes the document; indent 0 gives one line.
  void write(std::ostream& out, int indent = 2) const;
  /// The document as text (write() into a string).
  [[nodiscard]] std::string dump(int indent = 2) const;

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> value_;
};

/// One column of a Table: `key` names it in JSON/CSV, `header` in the table and markdown (with `unit`).
struct Column {
  std::string key;
  std::string header;
  std::string unit;   ///< printed in the header as "header (unit)"; empty for none
  int precision = 4;  ///< significant digits for numbers in table/markdown (CSV/JSON keep full precision)
};

/// A table of cells; a cell is a Json scalar (null prints as "-").
struct Table {
  std::string title;  ///< printed above the table (table/markdown only)
  std::vector<Column> columns;
  std::vector<std::vector<Json>> rows;
  std::vector<std::string> notes;  ///< printed below the table (table/markdown only)
};

/// Writes `table` as an aligned text table, CSV (RFC 4180), a JSON array of objects, or a markdown table.
void write_table(std::ostream& out, const Table& table, Format format);

/// Writes `document` in `format`: JSON as is; for table/csv/markdown, an object's scalar members as a
/// two-column key/value table and each array of objects as its own table.
void write_document(std::ostream& out, const Json& document, Format format);

/// A number as text with `significant` digits, never "nan"/"inf" (those print as "-").
[[nodiscard]] std::string format_number(double value, int significant = 4);

}  // namespace costmodel
