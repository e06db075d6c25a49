// SPDX-License-Identifier: Apache-2.0
#pragma once
// A named value (an enum knob's "off", "layer", "full") is spelt once, by its to_string; the readers of the
// CLI, the YAML files and the catalogs derive from it with these, and say what they expected with
// alternatives() and list them in help lines with listed().

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The value among `values` that to_string spells `name`, or nullopt.
template <typename T, std::size_t N>
[[nodiscard]] std::optional<T> parse_named(std::string_view name, const std::array<T, N>& values) {
  for (const T value : values) {
    if (to_string(value) == name) return value;
  }
  return std::nullopt;
}

/// The to_string names of `values`, in order.
template <typename T, std::size_t N>
[[nodiscard]] std::vector<std::string> names_of(const std::array<T, N>& values) {
  std::vector<std::string> names;
  names.reserve(N);
  for (const T value : values) names.emplace_back(to_string(value));
  return names;
}

/// The to_string names of an enum's values 0 .. count - 1: every value of one counted by a constant
/// (kCollectiveCount, kAlgorithmCount).
template <typename Enum>
[[nodiscard]] std::vector<std::string> names_of(int count) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) names.emplace_back(to_string(static_cast<Enum>(k)));
  return names;
}

/// "a, b or c": `names` for an "expected ..." message.
[[nodiscard]] inline std::string alternatives(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

/// "a|b|c": the to_string names of `values` in a help line.
template <typename T, std::size_t N>
[[nodiscard]] std::string listed(const std::array<T, N>& values) {
  std::string text;
  for (const T value : values) text.append(text.empty() ? "" : "|").append(to_string(value));
  return text;
}

}  // namespace costmodel::inline COSTMODEL_ABI
