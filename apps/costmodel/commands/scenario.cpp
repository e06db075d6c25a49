// SPDX-License-Identifier: Apache-2.0
// `costmodel scenario FILE.yaml [--format ...] [-o FILE] [--plot FILE.svg]`: what-if sweeps and comparisons,
// one row per case with its best configuration and the change against the baseline case.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cli/flags.hpp"
#include "cli/parser.hpp"
#include "cli/progress.hpp"
#include "cli/sink.hpp"
#include "costmodel/analysis/scenario.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/scenario.hpp"
#include "costmodel/report/html.hpp"
#include "report/scenario.hpp"

namespace costmodel::cli {

int run_scenario(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context, "costmodel scenario FILE.yaml [--stack NAME] [--format F] [-o FILE] [--plot FILE.svg]",
      "What-if scenarios: base: (cluster, model, training, planner), sweep: (dotted paths ->\n"
      "lists, cartesian product), compare: (named variants of overrides), report: (columns,\n"
      "rank_by, top, baseline, plot). One row per case: its best configuration and the change\n"
      "against the baseline (speed-up, cost, switches). See examples/*.yaml and docs/examples.md.");
  parser.add_positional("file", po::value<std::string>()->value_name("FILE.yaml"), 1);
  add_output_options(parser.options(), false, true);
  add_runs_stack_option(parser.options(), "the cases");
  add_prices_option(parser.options());
  parser.options().add_options()("plot", po::value<std::string>()->value_name("FILE.svg"),
                                 "also draw the sweep as an SVG chart (report.plot: chooses x and y)")(
      "threads", po::value<std::string>()->value_name("N"),
      "worker threads of each case's planner (default: every core)");
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  const auto file = string_option(values, "file");
  if (!file)
    throw usage_error(context, "", "expected a scenario file", "usage: costmodel scenario FILE.yaml");
  // Output files are opened before any work, so that a bad path fails at once.
  OutputSink output(read_output_options(values, context, false, true), context);
  const auto plot_path = string_option(values, "plot");
  if (plot_path && plot_path->empty()) throw usage_error(context, "--plot", "expected a file name");
  std::optional<OutputSink> plot_sink;
  if (plot_path) plot_sink.emplace(OutputOptions{Format::kTable, *plot_path}, context, "--plot");

  const Catalog catalog = load_priced_catalog(values, context);
  Scenario scenario = load_scenario_file(*file, catalog, runs_stack_option(values, catalog, context));
  if (const auto threads = positive_int(values, "threads", context)) {
    for (ScenarioCase& c : scenario.cases) c.request.threads = *threads;
  }
  ScenarioResult result;
  {
    ProgressBar bar("scenario", *context.err);
    result = costmodel::run_scenario(scenario, [&bar](double fraction) { bar.update(fraction); });
  }
  const bool any =
      std::any_of(result.rows.begin(), result.rows.end(), [](const auto& r) { return !r.best.empty(); });
  if (plot_sink) {
    plot_sink->stream() << render_svg(scenario_chart(scenario, result));
    plot_sink->commit();
  }
  if (output.format() == Format::kHtml) {
    write_scenario_html(output.stream(), scenario, result);
    output.commit();
  } else if (output.format() == Format::kJson) {
    emit(output, scenario_json(scenario, result));
  } else {
    emit(output, scenario_table(scenario, result));
  }
  if (!any)
    throw Error("nothing feasible in any case of " + *file + " (see the notes)", ErrorKind::kInfeasible);
  return 0;
}

}  // namespace costmodel::cli
