// SPDX-License-Identifier: Apache-2.0
#include "yaml_reader.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace costmodel::inline COSTMODEL_ABI::yaml {
namespace {

constexpr std::uintmax_t kMaxFileBytes = 64u << 20;  // no input of ours is anywhere near 64 MiB

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// Position (1-based line and column) of the first byte that breaks UTF-8 (RFC 3629 §4), or line 0.
ErrorLocation first_bad_utf8(const std::string& text, const std::string& file) {
  int line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    if (c == 0) return {file, line, column};
    if (c < 0x80)
      length = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      length = 2;
    else if (c >= 0xE0 && c <= 0xEF)
      length = 3;
    else if (c >= 0xF0 && c <= 0xF4)
      length = 4;
    else
      return {file, line, column};
    if (i + length > text.size()) return {file, line, column};
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return {file, line, column};
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
  return {file, 0, 0};
}

}  // namespace

Document parse_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw Error(ErrorLocation{path, 0, 0}, "", "no such file");
  if (fs::is_directory(status))
    throw Error(ErrorLocation{path, 0, 0}, "", "is a directory, expected a YAML file");
  if (!fs::is_regular_file(status)) throw Error(ErrorLocation{path, 0, 0}, "", "not a regular file");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes) {
    throw Error(ErrorLocation{path, 0, 0}, "", "file is larger than 64 MiB, not an input of ours");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorLocation{path, 0, 0}, "", "cannot open file for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_text(buffer.str(), path);
}

Document parse_text(const std::string& text, const std::string& file) {
  const ErrorLocation bad = first_bad_utf8(text, file);
  if (bad.line > 0) throw Error(bad, "", "not UTF-8 text (binary data or a bad encoding)");
  Document document{file, {}};
  try {
    document.root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    throw Error(ErrorLocation{file, e.mark.line + 1, e.mark.column + 1}, "",
                "nested more than " + std::to_string(e.depth()) + " levels deep; not an input of ours");
  } catch (const YAML::Exception& e) {
    // yaml-cpp marks are 0-based.
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    const int column = e.mark.is_null() ? 0 : e.mark.column + 1;
    throw Error(ErrorLocation{file, line, column}, "", "invalid YAML: " + e.msg);
  }
  if (!document.root.IsDefined() || document.root.IsNull()) {
    throw Error(ErrorLocation{file, 1, 1}, "", "empty document; expected a mapping");
  }
  return document;
}

ErrorLocation location_of(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined()) return {file, 0, 0};
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "'" + node.Scalar() + "'";
}

namespace {

std::string scalar(const std::string& file, const YAML::Node& node, const std::string& field,
                   const std::string& expected) {
  if (!node.IsDefined() || node.IsNull() || !node.IsScalar()) {
    throw Error(location_of(file, node), field, "expected " + expected + ", got " + describe(node));
  }
  return node.Scalar();
}

}  // namespace

std::string as_string(const std::string& file, const YAML::Node& node, const std::string& field) {
  std::string value = scalar(file, node, field, "a string");
  if (value.empty()) throw Error(location_of(file, node), field, "expected a non-empty string");
  return value;
}

std::int64_t as_integer(const std::string& file, const YAML::Node& node, const std::string& field,
                        std::int64_t min, std::int64_t max) {
  const std::string text = scalar(file, node, field, "an integer");
  double value = 0.0;
  try {
    value = parse_number(text);
  } catch (const Error&) {
    throw Error(location_of(file, node), field, "expected an integer, got '" + text + "'");
  }
  if (value != std::floor(value)) {
    throw Error(location_of(file, node), field, "expected an integer, got '" + text + "'");
  }
  if (value < static_cast<double>(min) || value > static_cast<double>(max)) {
    throw Error(location_of(file, node), field,
                "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text);
  }
  return static_cast<std::int64_t>(value);
}

double as_number(const std::string& file, const YAML::Node& node, const std::string& field, double min,
                 double max) {
  const std::string text = scalar(file, node, field, "a number");
  double value = 0.0;
  try {
    value = parse_number(text);
  } catch (const Error& e) {
    throw e.at(location_of(file, node), field);
  }
  if (value < min || value > max) {
    std::ostringstream range;
    range << "must be between " << min << " and " << max << ", got " << text;
    throw Error(location_of(file, node), field, range.str());
  }
  return value;
}

bool as_bool(const std::string& file, const YAML::Node& node, const std::string& field) {
  const std::string text = scalar(file, node, field, "true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  throw Error(location_of(file, node), field, "expected true or false, got '" + text + "'");
}

double as_quantity(const std::string& file, const YAML::Node& node, const std::string& field,
                   Dimension dimension, bool allow_zero) {
  const std::string text = scalar(file, node, field, std::string(dimension_example(dimension)));
  double value = 0.0;
  try {
    value = parse_quantity(text, dimension);
  } catch (const Error& e) {
    throw e.at(location_of(file, node), field);
  }
  if (!allow_zero && value == 0.0) {
    throw Error(
        location_of(file, node), field,
        "must be positive; expected " + std::string(dimension_example(dimension)) + ", got '" + text + "'");
  }
  return value;
}

std::string choose(const std::string& file, const YAML::Node& node, const std::string& field,
                   const std::vector<std::string>& choices) {
  std::string text = scalar(file, node, field, "one of " + join(choices));
  for (const auto& c : choices) {
    if (c == text) return text;
  }
  const std::string suggestion = closest_name(text, choices);
  throw Error(location_of(file, node), field,
              "unknown value '" + text + "', expected one of " + join(choices),
              suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
}

Map::Map(std::string file, const YAML::Node& node, std::string path)
    : file_(std::move(file)), node_(node), path_(std::move(path)) {
  if (!node_.IsDefined() || !node_.IsMap()) {
    throw Error(location_of(file_, node_), path_, "expected a mapping, got " + describe(node_));
  }
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (!it->first.IsScalar()) {
      throw Error(location_of(file_, it->first), path_, "keys must be plain names");
    }
    const std::string key = it->first.Scalar();
    for (const auto& seen : keys_) {
      if (seen == key) throw Error(location_of(file_, it->first), field(key), "duplicate key '" + key + "'");
    }
    keys_.push_back(key);
  }
  used_.assign(keys_.size(), false);
}

std::string Map::field(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool Map::has(const std::string& key) const {
  bool known = false;
  for (const auto& k : known_) known = known || k == key;
  if (!known) known_.push_back(key);
  for (const auto& k : keys_) {
    if (k == key) return true;
  }
  return false;
}

YAML::Node Map::optional(const std::string& key) {
  (void)has(key);
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) {
      used_[i] = true;
      size_t index = 0;
      for (auto it = node_.begin(); it != node_.end(); ++it, ++index) {
        if (index == i) return it->second;
      }
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node Map::required(const std::string& key) {
  if (!has(key)) {
    // A present key that is a misspelling of the missing one is the real mistake: report it instead.
    size_t index = 0;
    for (auto it = node_.begin(); it != node_.end(); ++it, ++index) {
      if (!used_[index] && !closest_name(keys_[index], {key}).empty()) {
        throw Error(location_of(file_, it->first), field(keys_[index]), "unknown key '" + keys_[index] + "'",
                    "did you mean '" + key + "'?");
      }
    }
    throw Error(location(), field(key), "missing required key '" + key + "'");
  }
  return optional(key);
}

Error Map::error_at(const std::string& key, const std::string& message, const std::string& hint) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) return Error(location_of(file_, it->second), field(key), message, hint);
  }
  return Error(location(), field(key), message, hint);
}

std::string Map::string(const std::string& key) {
  return as_string(file_, required(key), field(key));
}

std::optional<std::string> Map::optional_string(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return as_string(file_, optional(key), field(key));
}

std::int64_t Map::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  return as_integer(file_, required(key), field(key), min, max);
}

std::optional<std::int64_t> Map::optional_integer(const std::string& key, std::int64_t min,
                                                  std::int64_t max) {
  if (!has(key)) return std::nullopt;
  return as_integer(file_, optional(key), field(key), min, max);
}

double Map::number(const std::string& key, double min, double max) {
  return as_number(file_, required(key), field(key), min, max);
}

std::optional<double> Map::optional_number(const std::string& key, double min, double max) {
  if (!has(key)) return std::nullopt;
  return as_number(file_, optional(key), field(key), min, max);
}

bool Map::boolean(const std::string& key) {
  return as_bool(file_, required(key), field(key));
}

std::optional<bool> Map::optional_boolean(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return as_bool(file_, optional(key), field(key));
}

double Map::quantity(const std::string& key, Dimension dimension, bool allow_zero) {
  return as_quantity(file_, required(key), field(key), dimension, allow_zero);
}

std::optional<double> Map::optional_quantity(const std::string& key, Dimension dimension, bool allow_zero) {
  if (!has(key)) return std::nullopt;
  return as_quantity(file_, optional(key), field(key), dimension, allow_zero);
}

std::string Map::choice(const std::string& key, const std::vector<std::string>& choices) {
  return choose(file_, required(key), field(key), choices);
}

std::optional<std::string> Map::optional_choice(const std::string& key,
                                                const std::vector<std::string>& choices) {
  if (!has(key)) return std::nullopt;
  return choose(file_, optional(key), field(key), choices);
}

Map Map::map(const std::string& key) {
  return Map(file_, required(key), field(key));
}

void Map::finish() const {
  size_t index = 0;
  for (auto it = node_.begin(); it != node_.end(); ++it, ++index) {
    if (used_[index]) continue;
    const std::string suggestion = closest_name(keys_[index], known_);
    throw Error(location_of(file_, it->first), field(keys_[index]), "unknown key '" + keys_[index] + "'",
                suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
  }
}

}  // namespace costmodel::inline COSTMODEL_ABI::yaml
