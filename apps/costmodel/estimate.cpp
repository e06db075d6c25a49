// costmodel estimate: one parallel configuration -> step time, breakdown, memory, MFU, days and cost.

#include <string>
#include <vector>

#include "cli.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/io/results.hpp"
#include "training.hpp"

namespace costmodel::cli {
namespace {

// Key/value rows for people: the configuration object flattened, with units in the labels.
Table estimate_table(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& cluster) {
  const auto& st = e.strategy;
  const auto& b = e.breakdown;
  const auto& m = e.memory;
  Table t;
  t.title = model.name + " on " + std::to_string(cluster.gpus) + " x " + cluster.gpu.name + ", " +
            std::string(to_string(cluster.topology)) + " of " + cluster.link.name;
  t.columns = {{"field", "field", "", 4}, {"value", "value", "", 4}};
  const auto row = [&](const std::string& label, Json value) {
    t.rows.push_back({Json(label), std::move(value)});
  };
  constexpr double kGiB = 1073741824.0;
  row("split tp x pp x dp x cp (ep, vpp)", std::to_string(st.tp) + " x " + std::to_string(st.pp) + " x " +
                                               std::to_string(st.dp) + " x " + std::to_string(st.cp) + " (" +
                                               std::to_string(st.ep) + ", " + std::to_string(st.vpp) + ")");
  row("micro-batch / global batch (sequences)",
      std::to_string(st.micro_batch) + " / " + std::to_string(st.global_batch));
  row("recompute, zero, dtype", std::string(to_string(st.recompute)) + ", " + std::to_string(st.zero) + ", " +
                                    std::string(to_string(st.dtype)));
  row("step time (s)", e.step_time.value);
  row("tokens/s", e.tokens_per_s);
  row("model TFLOP/s per GPU", e.model_tflops_per_gpu);
  row("hardware TFLOP/s per GPU", e.hardware_tflops_per_gpu);
  row("MFU (%)", 100.0 * e.mfu);
  row("HFU (%)", 100.0 * e.hfu);
  row("  compute (s)", b.compute.value);
  row("  TP communication (s)", b.tp_comm.value);
  row("  CP communication, exposed (s)", b.cp_comm.value);
  row("  EP communication (s)", b.ep_comm.value);
  row("  PP send/recv (s)", b.pp_comm.value);
  row("  PP bubble (s)", b.pp_bubble.value);
  row("  DP communication, total (s)", b.dp_comm.value);
  row("  DP communication, exposed (s)", b.dp_comm_exposed.value);
  row("  optimizer (s)", b.optimizer.value);
  row("memory per GPU (GiB)", m.total.value / kGiB);
  row("  weights (GiB)", m.weights.value / kGiB);
  row("  gradients (GiB)", m.gradients.value / kGiB);
  row("  optimizer states (GiB)", m.optimizer.value / kGiB);
  row("  activations (GiB)", m.activations.value / kGiB);
  row("  logits (GiB)", m.logits.value / kGiB);
  row("  error feedback (GiB)", m.error_feedback.value / kGiB);
  row("  reserve (GiB)", m.reserve.value / kGiB);
  row("HBM (GiB)", m.capacity.value / kGiB);
  row("fits in memory", e.fits_memory ? Json("yes") : Json("no, largest term: " + std::string(m.overflow)));
  if (e.training_days) row("days to train", *e.training_days);
  if (e.cost) row("GPU cost (USD)", e.cost->value);
  if (e.energy_kwh) row("energy, GPUs at TDP + fabric (MWh)", *e.energy_kwh / 1000.0);
  row("switches", e.switches);
  row("network capex (USD)", e.network_cost.value);
  row("power, GPUs at TDP + fabric (kW)", e.power.value / 1000.0);
  return t;
}

}  // namespace

int run_estimate(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context, "costmodel estimate [cluster] [model] [training] --tp N --pp N --dp N",
      "Step time, breakdown, memory per GPU, MFU, tokens/s and (with --tokens) days and cost of "
      "one parallel configuration.");
  add_cluster_options(parser.options());
  add_training_options(parser.options(), true);
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  const ClusterArgs cluster_args = read_cluster_args(values, context);
  const TrainingArgs training = read_training_args(values, context);
  const OutputOptions output = read_output_options(values, context);
  for (const char* required : {"tp", "pp", "dp"}) {
    if (!values.count(required)) {
      throw usage_error(context, std::string("--") + required,
                        "required: estimate evaluates one split (use "
                        "`costmodel plan` to search)");
    }
  }
  const Catalog catalog = load_catalog();
  const ClusterSpec cluster = make_cluster(cluster_args, catalog);
  const ModelSpec model = make_model(training, catalog);

  Strategy st;
  st.tp = *training.pins.tp;
  st.pp = *training.pins.pp;
  st.dp = *training.pins.dp;
  st.cp = training.pins.cp.value_or(1);
  st.ep = training.pins.ep.value_or(1);
  st.vpp = training.pins.vpp.value_or(1);
  st.micro_batch = training.pins.micro_batch.value_or(1);
  st.global_batch = training.global_batch.value_or(default_global_batch(model, cluster.gpus));
  st.recompute = training.pins.recompute.value_or(Recompute::kNone);
  st.zero = training.pins.zero.value_or(0);
  st.dtype = training.dtype;
  st.overlap = training.pins.overlap.value_or(true);
  st.sequence_parallel = training.pins.sequence_parallel.value_or(true);
  st.compression = training.compression;

  const std::vector<std::string> reasons = validate(st, model, cluster);
  if (!reasons.empty()) {
    std::string all;
    for (const auto& r : reasons) all += (all.empty() ? "" : "; ") + r;
    throw usage_error(context, "split", "invalid: " + all);
  }
  const StepEstimate e = estimate(model, cluster, st, training.options);
  if (output.format == Format::kJson || output.format == Format::kCsv) {
    emit(output, context, configuration_json(e));
  } else {
    emit(output, context, estimate_table(e, model, cluster));
  }
  return 0;
}

}  // namespace costmodel::cli
