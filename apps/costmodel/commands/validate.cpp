// SPDX-License-Identifier: Apache-2.0
// `costmodel validate [RUNS.yaml]`: predicted vs published training runs, with error statistics.

#include <string>
#include <utility>
#include <vector>

#include "cli/flags.hpp"
#include "cli/parser.hpp"
#include "cli/sink.hpp"
#include "costmodel/analysis/validate.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/runs.hpp"
#include "report/validation.hpp"

namespace costmodel::cli {

int run_validate(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context,
      "costmodel validate [RUNS.yaml...] [--stack NAME] [--threads N] [--emit-intervals FILE] [--format ...] "
      "[-o FILE]",
      "Each published run's stated knobs pinned, the others chosen by the planner, and the "
      "predicted TFLOP/s per GPU compared with the measured one in the source's FLOP "
      "convention (hardware: with recomputed FLOPs; model: without).");
  parser.add_positional("runs", po::value<std::vector<std::string>>()->value_name("RUNS.yaml"), -1);
  parser.options().add_options()("threads", po::value<std::string>(), "worker threads [every core]")(
      "emit-intervals", po::value<std::string>()->value_name("FILE.yaml"),
      "write the prediction intervals these runs give (data/intervals.yaml's form: per class, the 10% and "
      "90% quantiles of log(measured / predicted step))");
  add_runs_stack_option(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  OutputSink output(read_output_options(values, context), context);
  const int threads = positive_int(values, "threads", context).value_or(0);
  const Catalog catalog = load_catalog();
  const std::string stack = runs_stack_option(values, catalog, context);
  std::vector<std::string> paths;
  if (values.count("runs")) paths = values["runs"].as<std::vector<std::string>>();
  const std::vector<std::string> given = paths;
  if (paths.empty()) paths.push_back(catalog.root + "/data/published-runs.yaml");
  std::vector<PublishedRun> runs;
  for (const std::string& path : paths) {
    for (PublishedRun& run : load_published_runs(path, catalog, stack)) runs.push_back(std::move(run));
  }
  const ValidationSummary summary = validate_runs(runs, threads);
  if (const auto emit_path = string_option(values, "emit-intervals")) {
    IntervalModel intervals = build_intervals(runs, summary);
    intervals.source = "costmodel validate";
    for (const std::string& path :
         given.empty() ? std::vector<std::string>{"data/published-runs.yaml"} : given)
      intervals.source += " " + path;
    intervals.source += " --emit-intervals " + *emit_path;
    OutputSink sink(OutputOptions{Format::kTable, *emit_path}, context, "--emit-intervals");
    write_intervals(sink.stream(), intervals);
    sink.commit();
  }
  if (output.format() == Format::kJson) {
    emit(output, validation_json(summary));
  } else {
    std::string source;
    for (const std::string& path : given) source += (source.empty() ? "" : ", ") + path;
    emit(output, validation_table(summary, source.empty() ? "data/published-runs.yaml" : source));
  }
  return 0;
}

}  // namespace costmodel::cli
