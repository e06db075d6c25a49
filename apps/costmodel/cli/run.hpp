// SPDX-License-Identifier: Apache-2.0
#pragma once
// The whole CLI as one call: what `costmodel ARGS...` does, with its data written to `out` and its
// diagnostics to `err`. main.cpp passes the process's streams; the Python module (python/src/module.cpp)
// passes string streams, so that its functions give exactly the CLI's answers and error lines.

#include <ostream>
#include <string>
#include <vector>

namespace costmodel::cli {

/// Runs `costmodel args...` (args[0] is the command); returns the exit code of DESIGN.md §3 (0 success,
/// 1 internal error, 2 bad input or usage, 3 nothing feasible). Never throws.
[[nodiscard]] int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace costmodel::cli
