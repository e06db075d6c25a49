// SPDX-License-Identifier: Apache-2.0
#pragma once
// costmodel::Error: the one exception type the library throws. The CLI maps its kind to an exit code.

#include <exception>
#include <string>
#include <vector>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// What went wrong, which decides the CLI's exit code (DESIGN.md §3).
enum class ErrorKind {
  kInput,       ///< bad input or usage: exit 2
  kInfeasible,  ///< nothing feasible: exit 3
  kInternal,    ///< a bug of ours: exit 1
};

/// Where in an input file an error was found; line and column are 1-based, 0 when unknown.
struct ErrorLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// An error with its location and field: formats as `FILE:LINE:COL: error: FIELD: MESSAGE; HINT`.
class Error : public std::exception {
 public:
  /// A bad-input error with no location yet (a loader adds it with `at`).
  explicit Error(std::string message, ErrorKind kind = ErrorKind::kInput);
  /// A bad-input error at a place in a file.
  Error(ErrorLocation location, std::string field, std::string message, std::string hint = {});

  /// A copy of this error placed at `location` / `field`, keeping what it already knows.
  [[nodiscard]] Error at(const ErrorLocation& location, const std::string& field) const;

  /// What went wrong (decides the CLI's exit code).
  [[nodiscard]] ErrorKind kind() const { return kind_; }
  /// File, line and column; file empty when unknown.
  [[nodiscard]] const ErrorLocation& location() const { return location_; }
  /// The YAML field path or flag at fault ("scale_out.link", "--gpus"), or "".
  [[nodiscard]] const std::string& field() const { return field_; }
  /// The message alone, without location, field or hint.
  [[nodiscard]] const std::string& message() const { return message_; }
  /// A suggestion such as "did you mean 'bandwidth'?", or "".
  [[nodiscard]] const std::string& hint() const { return hint_; }
  /// The one-line diagnostic.
  [[nodiscard]] const char* what() const noexcept override { return formatted_.c_str(); }

 private:
  void format();

  ErrorKind kind_ = ErrorKind::kInput;
  ErrorLocation location_;
  std::string field_;
  std::string message_;
  std::string hint_;
  std::string formatted_;
};

/// The known name closest to `name` by edit distance, or "" when none is close enough to suggest.
[[nodiscard]] std::string closest_name(const std::string& name, const std::vector<std::string>& known);

/// Edit distance (optimal string alignment: Levenshtein plus neighbour transpositions, case-insensitive).
[[nodiscard]] int edit_distance(const std::string& a, const std::string& b);

}  // namespace costmodel::inline COSTMODEL_ABI
