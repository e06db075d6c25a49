// SPDX-License-Identifier: Apache-2.0
#include "costmodel/error.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace costmodel::inline COSTMODEL_ABI {

Error::Error(std::string message, ErrorKind kind) : kind_(kind), message_(std::move(message)) {
  format();
}

Error::Error(ErrorLocation location, std::string field, std::string message, std::string hint)
    : location_(std::move(location)),
      field_(std::move(field)),
      message_(std::move(message)),
      hint_(std::move(hint)) {
  format();
}

Error Error::at(const ErrorLocation& location, const std::string& field) const {
  Error copy = *this;
  if (copy.location_.file.empty()) copy.location_ = location;
  if (copy.field_.empty()) copy.field_ = field;
  copy.format();
  return copy;
}

namespace {

// Diagnostics are one line: control characters quoted from the input (a newline inside a YAML string, a tab
// in a unit) are written as escapes.
std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void Error::format() {
  formatted_.clear();
  if (!location_.file.empty()) {
    formatted_ += location_.file;
    if (location_.line > 0) {
      formatted_ += ':' + std::to_string(location_.line);
      if (location_.column > 0) formatted_ += ':' + std::to_string(location_.column);
    }
    formatted_ += ": ";
  }
  formatted_ += "error: ";
  if (!field_.empty()) formatted_ += one_line(field_) + ": ";
  formatted_ += one_line(message_);
  if (!hint_.empty()) formatted_ += "; " + one_line(hint_);
}

int edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment distance (Damerau 1964; Wagner & Fischer 1974): insertions, deletions,
  // substitutions and transpositions of neighbours each cost 1, so "bf61" is one edit from "bf16".
  const auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string closest_name(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  int best_distance = 0;
  // A name of 4 characters or more that a known one starts with was cut short: a clear match.
  for (const auto& candidate : known) {
    if (name.size() >= 4 && candidate.size() > name.size() && candidate.compare(0, name.size(), name) == 0) {
      return candidate;
    }
  }
  for (const auto& candidate : known) {
    const int d = edit_distance(name, candidate);
    if (best.empty() || d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  // Suggest only when at most a third of the name (and at least 1, at most 4 edits) differs.
  const int limit = std::clamp(static_cast<int>(name.size()) / 3, 1, 4);
  return (!best.empty() && best_distance <= limit) ? best : std::string{};
}

}  // namespace costmodel::inline COSTMODEL_ABI
