// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/json.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <sstream>

#include "costmodel/error.hpp"

namespace costmodel::inline COSTMODEL_ABI {

namespace {

/// Shortest text that reads back as the same double (std::to_chars' round-trip guarantee).
std::string shortest_repr(double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
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

}  // namespace

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

}  // namespace costmodel::inline COSTMODEL_ABI
