// SPDX-License-Identifier: Apache-2.0
#pragma once
// Strict YAML access for every loader (private): each mapping is read through a YamlMap that knows its
// file and dotted field path, turns every problem into costmodel::Error at FILE:LINE:COL, and at finish()
// rejects every key nobody asked for, with a "did you mean" suggestion.

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>
#include "costmodel/version.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI::yaml {

/// A parsed YAML document and the name of the file it came from.
struct Document {
  std::string file;
  YAML::Node root;
};

/// Reads and parses a file; a missing file, a directory, unreadable or oversized input, invalid UTF-8 and
/// YAML syntax errors all throw Error naming the file (and line and column where known).
[[nodiscard]] Document parse_file(const std::string& path);
/// Parses YAML text; `file` names it in errors.
[[nodiscard]] Document parse_text(const std::string& text, const std::string& file);

/// The 1-based location of `node` in `file`.
[[nodiscard]] ErrorLocation location_of(const std::string& file, const YAML::Node& node);

/// Which kind of value a node holds, for error messages: "a mapping", "a list", "a number", ...
[[nodiscard]] std::string describe(const YAML::Node& node);

/// Scalar conversions of a value node; each throws Error at the node naming `field`.
[[nodiscard]] std::string as_string(const std::string& file, const YAML::Node& node,
                                    const std::string& field);
[[nodiscard]] std::int64_t as_integer(const std::string& file, const YAML::Node& node,
                                      const std::string& field, std::int64_t min, std::int64_t max);
[[nodiscard]] double as_number(const std::string& file, const YAML::Node& node, const std::string& field,
                               double min, double max);
[[nodiscard]] bool as_bool(const std::string& file, const YAML::Node& node, const std::string& field);
[[nodiscard]] double as_quantity(const std::string& file, const YAML::Node& node, const std::string& field,
                                 Dimension dimension, bool allow_zero);

/// A strict view of one mapping.
class Map {
 public:
  /// Throws Error if `node` is not a mapping or has a duplicate key. `path` is the dotted field prefix.
  Map(std::string file, const YAML::Node& node, std::string path);

  [[nodiscard]] bool has(const std::string& key) const;
  /// The value node of `key` (marks it as used); throws "missing required key" at this mapping.
  [[nodiscard]] YAML::Node required(const std::string& key);
  /// The value node of `key` (marks it as used), or an undefined node.
  [[nodiscard]] YAML::Node optional(const std::string& key);

  [[nodiscard]] std::string string(const std::string& key);
  [[nodiscard]] std::optional<std::string> optional_string(const std::string& key);
  [[nodiscard]] std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max);
  [[nodiscard]] std::optional<std::int64_t> optional_integer(const std::string& key, std::int64_t min,
                                                             std::int64_t max);
  [[nodiscard]] double number(const std::string& key, double min, double max);
  [[nodiscard]] std::optional<double> optional_number(const std::string& key, double min, double max);
  [[nodiscard]] bool boolean(const std::string& key);
  [[nodiscard]] std::optional<bool> optional_boolean(const std::string& key);
  /// A value with a unit, e.g. "400Gbps"; zero is rejected unless `allow_zero`.
  [[nodiscard]] double quantity(const std::string& key, Dimension dimension, bool allow_zero = false);
  [[nodiscard]] std::optional<double> optional_quantity(const std::string& key, Dimension dimension,
                                                        bool allow_zero = false);
  /// One of `choices`; anything else is an error listing them (with a suggestion).
  [[nodiscard]] std::string choice(const std::string& key, const std::vector<std::string>& choices);
  [[nodiscard]] std::optional<std::string> optional_choice(const std::string& key,
                                                           const std::vector<std::string>& choices);
  /// The nested mapping at `key`.
  [[nodiscard]] Map map(const std::string& key);

  /// Throws for the first key that no accessor asked for.
  void finish() const;

  /// "scale_out.link" for key "link" of the mapping at "scale_out".
  [[nodiscard]] std::string field(const std::string& key) const;
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const YAML::Node& node() const { return node_; }
  [[nodiscard]] ErrorLocation location() const { return location_of(file_, node_); }
  /// An Error at the value of `key` (or at this mapping when the key is absent).
  [[nodiscard]] Error error_at(const std::string& key, const std::string& message,
                               const std::string& hint = {}) const;

 private:
  std::string file_;
  YAML::Node node_;
  std::string path_;
  std::vector<std::string> keys_;  // in file order
  std::vector<bool> used_;
  mutable std::vector<std::string> known_;  // every key a loader asked about: the schema, for suggestions
};

/// Throws Error at `node` with `message`; the chosen value is one of `choices` else.
[[nodiscard]] std::string choose(const std::string& file, const YAML::Node& node, const std::string& field,
                                 const std::vector<std::string>& choices);

}  // namespace costmodel::inline COSTMODEL_ABI::yaml
