// SPDX-License-Identifier: Apache-2.0
#pragma once
// A JSON value with ordered object keys, and its writer. Non-finite numbers are written as null, so no output
// ever holds NaN; strings are written as valid UTF-8 (invalid bytes become U+FFFD).

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

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

}  // namespace costmodel::inline COSTMODEL_ABI
