// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where a command's data goes: --format and -o (DESIGN.md §3).

#include <fstream>
#include <ostream>
#include <string>

#include "cli/parser.hpp"
#include "costmodel/report/table.hpp"

namespace costmodel::cli {

struct OutputOptions {
  Format format = Format::kTable;
  std::string path;  ///< -o FILE; empty for stdout
};

/// Adds `--format table|csv|json|markdown` (with `launch`, also megatron|nemo: plan and estimate; with
/// `html`, also html: plan, estimate and scenario) and `-o/--output FILE`.
void add_output_options(po::options_description& options, bool launch = false, bool html = false);
[[nodiscard]] OutputOptions read_output_options(const po::variables_map& values, const Context& context,
                                                bool launch = false, bool html = false);

/// Where a command's data goes: stdout, or for -o FILE a temporary file in FILE's folder renamed to FILE
/// by commit(), so an error never leaves a partial file. Failing to write is a usage error (exit 2) naming
/// `flag` (-o, --plot, --emit-cluster). Commands create their sinks before any work, so that a missing
/// directory, a directory given as a file or an unwritable file is reported at once.
class OutputSink {
 public:
  OutputSink(const OutputOptions& options, Context context, std::string flag = "-o");
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;
  ~OutputSink();  ///< removes the temporary file unless committed

  [[nodiscard]] std::ostream& stream();
  [[nodiscard]] Format format() const { return format_; }
  /// Flushes; with -o, moves the temporary file onto FILE.
  void commit();

 private:
  Format format_;
  Context context_;
  std::string flag_;
  std::string path_;
  std::string temp_path_;
  std::ofstream file_;
  bool committed_ = false;
};

/// Writes `table` / `document` in the sink's format, and commits.
void emit(OutputSink& sink, const Table& table);
void emit(OutputSink& sink, const Json& document);

}  // namespace costmodel::cli
