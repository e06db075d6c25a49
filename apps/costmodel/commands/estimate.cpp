// SPDX-License-Identifier: Apache-2.0
// `costmodel estimate`: one parallel configuration -> step time, breakdown, memory, MFU, days and cost.

#include <string>
#include <vector>

#include "cli/flags.hpp"
#include "cli/sink.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/report/configuration.hpp"
#include "costmodel/report/html.hpp"
#include "costmodel/report/launch.hpp"

namespace costmodel::cli {

int run_estimate(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context, "costmodel estimate [cluster] [model] [training] --tp N --pp N --dp N",
      "Step time, breakdown, memory per GPU, MFU, tokens/s and (with --tokens) days and cost of "
      "one parallel configuration.");
  add_cluster_options(parser.options());
  add_prices_option(parser.options());
  add_training_options(parser.options(), true);
  add_output_options(parser.options(), true, true);
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  const ClusterArgs cluster_args = read_cluster_args(values, context);
  TrainingArgs training = read_training_args(values, context);
  OutputSink output(read_output_options(values, context, true, true), context);
  for (const char* required : {"tp", "pp", "dp"}) {
    if (!values.count(required)) {
      throw usage_error(context, std::string("--") + required,
                        "required: estimate evaluates one split (use `costmodel plan` to search)");
    }
  }
  const Catalog catalog = load_priced_catalog(values, context);
  ClusterSpec cluster = make_cluster(cluster_args, catalog, context);
  resolve_training_stack(training, catalog, cluster, context);
  cluster.stack = training.training.stack;  // the stack the configuration names
  const ModelSpec model = make_model(training, catalog, context);
  const Strategy strategy = pinned_strategy(training.training, model, cluster.gpus);
  if (const auto reasons = validate(strategy, model, cluster); !reasons.empty()) {
    throw usage_error(context, "split", "invalid: " + join(reasons, "; "));
  }

  const EstimateOptions options = estimate_options(training.training);
  const StepEstimate e = estimate(model, cluster, strategy, options);
  warn_ineffective_knobs(e, model, cluster, training.training, context);
  if (output.format() == Format::kHtml) {
    const SimilarRuns evidence = similar_published_runs(model, cluster, 0);
    write_estimate_html(output.stream(), e, model, cluster, options, &evidence);
    output.commit();
  } else if (is_launch(output.format())) {
    write_launch(output.stream(), {e}, model, cluster, output.format(), options);
    output.commit();
  } else if (output.format() == Format::kJson || output.format() == Format::kCsv) {
    emit(output, configuration_json(e, model, cluster, options));
  } else {
    emit(output, estimate_table(e, model, cluster));
  }
  // A configuration that does not fit is printed (fits: no, and the term that overflows) and exits 3.
  if (!e.fits_memory)
    throw Error("does not fit: " + join(explain(e, model, cluster), "; "), ErrorKind::kInfeasible);
  return 0;
}

}  // namespace costmodel::cli
