// costmodel validate [RUNS.yaml]: predicted vs published training runs, with error statistics.

#include <string>
#include <vector>

#include "cli.hpp"
#include "costmodel/io/validate.hpp"

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
  const OutputOptions output = read_output_options(values, context);
  const int threads = positive_int(values, "threads", context).value_or(0);
  const Catalog catalog = load_catalog();
  const auto given = string_option(values, "runs");
  const std::string path = given.value_or(catalog.root + "/data/published-runs.yaml");
  const ValidationSummary summary = validate_runs(load_published_runs(path, catalog), threads);

  Table table;
  table.title = "predicted vs published: " + given.value_or("data/published-runs.yaml");
  table.columns = {{"id", "run", "", 4},
                   {"gpu", "gpu", "", 4},
                   {"gpus", "GPUs", "", 6},
                   {"convention", "FLOPs", "", 4},
                   {"measured_tflops_per_gpu", "measured", "TFLOP/s", 4},
                   {"predicted_tflops_per_gpu", "predicted", "TFLOP/s", 4},
                   {"error_pct", "error", "%", 3},
                   {"split", "best split tp-pp-dp (vpp, mb)", "", 4},
                   {"recompute", "recompute", "", 4},
                   {"zero", "zero", "", 2},
                   {"measured_days", "measured days", "", 3},
                   {"predicted_days", "predicted days", "", 3}};
  for (const auto& r : summary.rows) {
    const auto& s = r.best.strategy;
    const std::string split = r.feasible ? std::to_string(s.tp) + "-" + std::to_string(s.pp) + "-" +
                                               std::to_string(s.dp) + " (" + std::to_string(s.vpp) + ", " +
                                               std::to_string(s.micro_batch) + ")"
                                         : "nothing feasible";
    table.rows.push_back(
        {Json(r.id), Json(r.gpu), Json(r.gpus), Json(r.hardware_convention ? "hardware" : "model"),
         r.measured_tflops > 0 ? Json(r.measured_tflops) : Json(),
         r.feasible ? Json(r.predicted_tflops) : Json(),
         r.feasible && r.measured_tflops > 0 ? Json(100.0 * r.error) : Json(), Json(split),
         r.feasible ? Json(std::string(to_string(s.recompute))) : Json(), r.feasible ? Json(s.zero) : Json(),
         r.measured_days ? Json(*r.measured_days) : Json(),
         r.predicted_days ? Json(*r.predicted_days) : Json()});
  }
  table.notes.push_back("|error|: median " + format_number(100 * summary.median_abs_error, 3) + "%, mean " +
                        format_number(100 * summary.mean_abs_error, 3) + "%, max " +
                        format_number(100 * summary.max_abs_error, 3) + "% over " +
                        std::to_string(summary.rows.size()) + " runs");
  if (output.format == Format::kJson) {
    Json rows = Json::array();
    for (size_t i = 0; i < summary.rows.size(); ++i) {
      Json row = Json::object();
      for (size_t c = 0; c < table.columns.size(); ++c) row.set(table.columns[c].key, table.rows[i][c]);
      rows.push_back(std::move(row));
    }
    Json document = Json::object();
    document.set("runs", std::move(rows))
        .set("median_abs_error", summary.median_abs_error)
        .set("mean_abs_error", summary.mean_abs_error)
        .set("max_abs_error", summary.max_abs_error);
    emit(output, context, document);
  } else {
    emit(output, context, table);
  }
  return 0;
}

}  // namespace costmodel::cli
