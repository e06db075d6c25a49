#include "costmodel/error.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace costmodel {

Error::Error(std::string message, ErrorKind kind) : kind_(kind), message_(std::move(message)) { format(); }

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
  if (!field_.empty()) formatted_ += field_ + ": ";
  formatted_ += message_;
  if (!hint_.empty()) formatted_ += "; " + hint_;
}

int edit_distance(const std::string& a, const std::string& b) {
  // Levenshtein distance by the two-row dynamic programme (Wagner & Fischer 1974).
  std::vector<int> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string closest_name(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  int best_distance = 0;
  // A name that is a prefix of a known one (or the reverse), 4 characters or more, is a clear match.
  for (const auto& candidate : known) {
    const size_t shorter = std::min(candidate.size(), name.size());
    if (shorter >= 4 && candidate.compare(0, shorter, name, 0, shorter) == 0 && candidate != name) return candidate;
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

}  // namespace costmodel
