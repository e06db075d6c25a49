// SPDX-License-Identifier: Apache-2.0
// `costmodel validate [RUNS.yaml]`: predicted vs published training runs, with error statistics.

#include <string>
#include <vector>

#include "cli/parser.hpp"
#include "cli/sink.hpp"
#include "costmodel/analysis/validate.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/runs.hpp"
#include "costmodel/report/validation.hpp"

namespace costmodel::cli {

int run_validate(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(context, "costmodel validate [RUNS.yaml] [--threads N] [--format ...] [-o FILE]",
                       "Each published run's stated knobs pinned, the others chosen by the planner, and the "
                       "predicted TFLOP/s per GPU compared with the measured one in the source's FLOP "
                       "convention (hardware: with recomputed FLOPs; model: without).");
  parser.add_positional("runs", po::value<std::string>(), 1);
  parser.options().add_options()("threads", po::value<std::string>(), "worker threads [every core]");
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  OutputSink output(read_output_options(values, context), context);
  const int threads = positive_int(values, "threads", context).value_or(0);
  const Catalog catalog = load_catalog();
  const auto given = string_option(values, "runs");
  const std::string path = given.value_or(catalog.root + "/data/published-runs.yaml");

  const ValidationSummary summary = validate_runs(load_published_runs(path, catalog), threads);
  if (output.format() == Format::kJson) {
    emit(output, validation_json(summary));
  } else {
    emit(output, validation_table(summary, given.value_or("data/published-runs.yaml")));
  }
  return 0;
}

}  // namespace costmodel::cli
