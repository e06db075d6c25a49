// SPDX-License-Identifier: Apache-2.0
// The code of docs/api.md, compiled and run by the test suite (`api_walkthrough`), so that the guide cannot
// drift from the API: `make docs` pastes each section between its `// [name]` and `// [/name]` lines into
// docs/api.md. Run: walkthrough [ALL_REDUCE_PERF_LOG CLUSTER_OUT.yaml].

#include <costmodel/costmodel.hpp>

#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

// [units]
void units() {
  const costmodel::BytesPerSecond ndr = costmodel::parse_bandwidth("400Gbps");  // 50e9 B/s
  const costmodel::Seconds hop = costmodel::parse_seconds("1.5us");             // 1.5e-6 s
  const costmodel::Seconds transfer = costmodel::Bytes(1e9) / ndr;              // B / (B/s) = s
  std::cout << costmodel::format_quantity(ndr.value, costmodel::Dimension::kBytesPerSecond) << ", "
            << costmodel::format_quantity(hop.value, costmodel::Dimension::kSeconds) << ", 1 GB in "
            << costmodel::format_quantity(transfer.value, costmodel::Dimension::kSeconds) << '\n';
}
// [/units]

// [specs]
costmodel::ClusterSpec cluster_for(const costmodel::Catalog& catalog) {
  // 1,024 H100 in their typical nodes (data/gpus.yaml node: 8 x NDR 400G on QM9700), then the quotes.
  costmodel::ClusterSpec cluster = costmodel::default_cluster(catalog, "h100-sxm");
  cluster.gpu.price = costmodel::Usd(25000);  // the quote, not the catalog's estimate
  cluster.switch_spec.price = costmodel::Usd(25000);
  for (const std::string& reason : costmodel::validate(cluster)) std::cout << "unusable: " << reason << '\n';
  return cluster;
}
// [/specs]

// [estimate]
costmodel::StepEstimate one_configuration(const costmodel::Catalog& catalog,
                                          const costmodel::ModelSpec& model,
                                          const costmodel::ClusterSpec& cluster) {
  costmodel::TrainingSpec training;  // what the CLI's [training] flags set
  training.global_batch = 1024;      // sequences per step
  training.seq_len = 4096;           // tokens per sequence (the model's by default)
  training.tokens = 2e12;            // for training_time and rental_cost
  training.pins.recompute = costmodel::Recompute::kSelective;
  training.pins.tp = 8;  // tp·pp·dp·cp = GPUs
  training.pins.pp = 4;
  training.pins.dp = 32;
  // The stack's defaults (megatron-core), the catalog's prediction intervals, lifetime costs and prices.
  costmodel::resolve_stack(training, catalog);
  const costmodel::Strategy s = costmodel::pinned_strategy(training, model, cluster.gpus);
  const costmodel::ModelSpec trained = costmodel::with_sequence_length(model, training);
  costmodel::StepEstimate e = costmodel::estimate(trained, cluster, s, costmodel::estimate_options(training));
  if (!e.valid() || !e.fits_memory) {
    for (const auto& reason : costmodel::explain(e, trained, cluster)) std::cout << reason << '\n';
  }
  std::cout << "step " << e.step_time.value << " s, MFU " << e.mfu << ", "
            << e.training_time->value / costmodel::kSecondsPerDay << " days, "
            << e.memory.total.value / (1u << 30) << " GiB per GPU\n";
  return e;
}
// [/estimate]

// [plan]
costmodel::PlanResult fastest(const costmodel::ModelSpec& model, const costmodel::ClusterSpec& cluster) {
  costmodel::TrainingSpec training;
  training.tokens = 2e12;
  training.pins.zero = 1;  // a pin: the planner chooses every knob left unset
  costmodel::PlanRequest request = costmodel::plan_request(model, cluster, training);
  request.objective = costmodel::Objective::kTime;  // or kCost, kSwitches
  request.top_k = 3;
  costmodel::PlanResult result = costmodel::plan(request);
  std::cout << result.feasible << " of " << result.evaluated << " candidates feasible\n";
  return result;
}
// [/plan]

// [topology]
void inventory(const costmodel::ClusterSpec& cluster) {
  const costmodel::Topology topology = costmodel::build_topology(cluster);
  const costmodel::Inventory& inv = topology.inventory;
  // Also: inv.tier_names[t], inv.switches_per_tier[t], inv.nics, inv.cables, inv.optical_modules (pluggables;
  // optical_transceivers counts port ends), inv.power (W); topology.bisection (B/s), topology.switch_radix
  // (ports at the NIC's speed, after breakout).
  std::cout << inv.tiers << " tiers, " << inv.switches << " switches, " << inv.optical_transceivers
            << " transceivers, capex $" << inv.capex.value << ", diameter " << topology.diameter << '\n';
}
// [/topology]

// [collective]
void one_collective(const costmodel::ClusterSpec& cluster) {
  const costmodel::Bytes n(4.0 * (1ull << 30));
  const costmodel::CommCost c = costmodel::collective_cost(costmodel::Collective::kAllReduce,
                                                           costmodel::Algorithm::kAuto, n, /*ranks=*/64,
                                                           /*stride=*/8, cluster);
  const costmodel::BytesPerSecond bus = costmodel::busbw(costmodel::Collective::kAllReduce, n, 64, c.time);
  std::cout << costmodel::to_string(c.algorithm) << ": " << c.time.value * 1e3 << " ms, busbw "
            << bus.value / 1e9 << " GB/s\n";
}
// [/collective]

// [render]
void render(const costmodel::PlanResult& result) {
  const auto format = costmodel::parse_format("markdown").value();
  costmodel::write_table(std::cout, costmodel::configurations_table(result.top, result.options, "fastest"),
                         format);
  // plan_json() is what `costmodel plan --format json` prints (examples/api/plan_json.cpp).
  const costmodel::Json best =
      costmodel::configuration_json(result.top.front(), result.model, result.cluster, result.options);
  std::cout << best.find("step_time_s")->dump(0) << " s\n";
}
// [/render]

// [calibrate]
void calibrate(const std::string& log_path, const std::string& cluster_path,
               const costmodel::ClusterSpec& cluster) {
  const costmodel::NcclTestsLog log = costmodel::load_nccl_tests_log(log_path);
  const auto fits = costmodel::fit_collectives({log});
  const costmodel::ClusterCalibration cal = costmodel::calibrate_cluster(cluster, fits.front());
  const costmodel::ClusterSpec measured = costmodel::apply_calibration(cluster, cal);
  std::cout << "alpha " << fits.front().line.alpha.value * 1e6 << " us, busbw "
            << fits.front().busbw.value / 1e9 << " GB/s\n";
  std::ofstream(cluster_path) << costmodel::cluster_yaml(measured);  // what `--cluster` reads
}
// [/calibrate]

// [economics]
void money(const costmodel::StepEstimate& e) {
  // With training.tokens set: the run's wall-clock time after goodput, its cost and what owning the cluster
  // costs over its life (data/prices.yaml, or a buyer's price book through load_price_book/apply_price_book).
  const costmodel::LifetimeCost& life = e.lifetime;  // capex, facility, energy, support, other
  std::cout << "capex $" << e.capex.value / 1e6 << "M (network $" << e.network_capex.value / 1e6
            << "M), lifetime TCO $" << life.total().value / 1e6 << "M (facility $"
            << life.facility.value / 1e6 << "M, energy $" << life.energy.value / 1e6 << "M), this run $"
            << e.run_cost->value / 1e6 << "M\n";
}
// [/economics]

// [goodput]
void interruptions(const costmodel::StepEstimate& e) {
  // Failures and planned stops of this many GPUs, a checkpoint every Young/Daly interval, restarts.
  const costmodel::Goodput& g = e.goodput;
  std::cout << "goodput " << g.fraction << ": an interruption every " << g.cluster_mtbf.value / 3600
            << " h, a checkpoint every " << g.checkpoint_interval.value / 60 << " min stalling "
            << g.checkpoint_time.value << " s\n";
}
// [/goodput]

// [export]
void launch_line(const costmodel::StepEstimate& e, const costmodel::ModelSpec& model,
                 const costmodel::ClusterSpec& cluster) {
  // The configuration as Megatron-LM's pretrain_gpt.py arguments (Format::kNemo: NeMo 2 overrides,
  // kTorchtitan: a torchtitan Trainer.Config module); throws Error (kInput) for what the stack cannot run.
  std::ostringstream arguments;
  costmodel::write_launch(arguments, {e}, model, cluster, costmodel::Format::kMegatron);
  std::cout << arguments.str().substr(0, arguments.str().find('\n')) << " ...\n";
}
// [/export]

// [calibrate-runs]
void fit_to_runs(const std::string& runs_path, const costmodel::Catalog& catalog) {
  // Measured runs of your own (the published-runs format of `costmodel validate`): the GPU's efficiencies
  // that make the model reproduce them, with held-out runs predicted, not fitted.
  const std::vector<costmodel::PublishedRun> runs = costmodel::load_published_runs(runs_path, catalog);
  costmodel::GpuFitOptions options;
  options.gpu = "a100-80gb";
  options.parameters = {"gemm"};
  const costmodel::GpuCalibration fit = costmodel::calibrate_gpu(runs, options);
  std::cout << "gemm efficiency " << fit.parameters.front().before << " -> " << fit.parameters.front().value
            << ", rms error " << fit.rms_before << " -> " << fit.rms_after << '\n';
}
// [/calibrate-runs]

// [errors]
void errors(const costmodel::Catalog& catalog) {
  try {
    (void)catalog.gpu("h100-sxn");
  } catch (const costmodel::Error& error) {
    // kind() decides the CLI's exit code: kInput 2, kInfeasible 3, kInternal 1.
    std::cout << (error.kind() == costmodel::ErrorKind::kInput ? "input error: " : "other error: ")
              << error.message() << " (" << error.hint() << ")\n";
  }
}
// [/errors]

}  // namespace

int main(int argc, char** argv) {
  try {
    const costmodel::Catalog catalog = costmodel::load_catalog();
    const costmodel::ModelSpec model = costmodel::resolve_model("llama2-70b", catalog);
    const costmodel::ClusterSpec cluster = cluster_for(catalog);
    units();
    const costmodel::StepEstimate e = one_configuration(catalog, model, cluster);
    money(e);
    interruptions(e);
    launch_line(e, model, cluster);
    fit_to_runs(catalog.root + "/data/published-runs.yaml", catalog);
    const costmodel::PlanResult result = fastest(model, cluster);
    inventory(cluster);
    one_collective(cluster);
    render(result);
    if (argc > 2) calibrate(argv[1], argv[2], cluster);
    errors(catalog);
    return 0;
  } catch (const costmodel::Error& error) {
    std::cerr << "walkthrough: " << error.what() << '\n';
    return error.kind() == costmodel::ErrorKind::kInput ? 2 : 1;
  } catch (const std::exception& error) {
    std::cerr << "walkthrough: internal error: " << error.what() << '\n';
    return 1;
  }
}
