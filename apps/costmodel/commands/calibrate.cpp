// SPDX-License-Identifier: Apache-2.0
// `costmodel calibrate LOG... [cluster] [--op NAME] [--line-rate BW] [--emit-cluster FILE.yaml]`: fit alpha
// (s) and beta (s/B) per collective to nccl-tests logs, with R², the worst point, the bandwidth they imply
// and the efficiency against the line rate; --emit-cluster writes the cluster with the measured constants,
// for `--cluster` of every later command.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/flags.hpp"
#include "cli/sink.hpp"
#include "costmodel/analysis/calibrate.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/cluster_writer.hpp"
#include "costmodel/io/nccl_tests.hpp"
#include "costmodel/io/runs.hpp"
#include "costmodel/spec/names.hpp"
#include "report/calibration.hpp"

namespace costmodel::cli {
namespace {

std::optional<Collective> op_option(const po::variables_map& values, const Context& context) {
  const auto name = string_option(values, "op");
  if (!name) return std::nullopt;
  if (const auto op = parse_collective(*name)) return op;
  const std::vector<std::string> known = names_of<Collective>(kCollectiveCount);
  const std::string hint = did_you_mean(*name, known);
  throw usage_error(context, "--op", "unknown collective '" + *name + "'",
                    hint.empty() ? "expected " + join(known, ", ") : hint);
}

std::optional<BytesPerSecond> line_rate_option(const po::variables_map& values, const Context& context) {
  const auto text = string_option(values, "line-rate");
  if (!text) return std::nullopt;
  BytesPerSecond rate;
  try {
    rate = parse_bandwidth(*text);
  } catch (const Error& e) {
    throw usage_error(context, "--line-rate", e.message());
  }
  if (!(rate.value > 0)) throw usage_error(context, "--line-rate", "must be positive");
  return rate;
}

std::vector<std::string> list_option(const po::variables_map& values, const std::string& name) {
  std::vector<std::string> items;
  const auto text = string_option(values, name);
  if (!text) return items;
  std::string item;
  for (const char c : *text + ",") {
    if (c == ',') {
      if (!item.empty()) items.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return items;
}

// The command line that reproduces a GPU fit: the flags that change its values, in a fixed order.
std::string gpu_fit_command(const po::variables_map& values, const GpuFitOptions& options) {
  std::string command = "costmodel calibrate --runs " + *string_option(values, "runs");
  if (options.gpu) command += " --gpu " + *options.gpu;
  command += std::string(" --objective ") + to_string(options.objective);
  if (!options.parameters.empty()) command += " --fit " + join(options.parameters, ",");
  if (!options.held_out.empty()) command += " --hold-out " + join(options.held_out, ",");
  return command;
}

// `calibrate --runs RUNS.yaml [--gpu NAME] [--objective lsq|minimax] [--emit-gpu GPU.yaml]`: the GPU's
// efficiencies fitted to the runs.
int run_gpu_fit(const po::variables_map& values, const Context& context, OutputSink& output) {
  const std::string path = *string_option(values, "runs");
  const auto emit_path = string_option(values, "emit-gpu");
  std::optional<OutputSink> emit_sink;
  if (emit_path) emit_sink.emplace(OutputOptions{Format::kTable, *emit_path}, context, "--emit-gpu");
  GpuFitOptions options;
  options.gpu = string_option(values, "gpu");
  options.held_out = list_option(values, "hold-out");
  options.parameters = list_option(values, "fit");
  options.threads = positive_int(values, "threads", context).value_or(0);
  if (const auto name = string_option(values, "objective")) {
    const auto objective = parse_fit_objective(*name);
    if (!objective) {
      const std::vector<std::string> names = names_of(kFitObjectives);
      const std::string hint = did_you_mean(*name, names);
      throw usage_error(context, "--objective", "unknown objective '" + *name + "'",
                        hint.empty() ? "expected " + alternatives(names) : hint);
    }
    options.objective = *objective;
  }
  const Catalog catalog = load_catalog();
  GpuCalibration fit =
      calibrate_gpu(load_published_runs(path, catalog, runs_stack_option(values, catalog, context)), options);
  fit.gpu.efficiency.fitted = gpu_fit_command(values, options) + ": " + fit.gpu.efficiency.fitted;
  if (emit_path) {
    emit_sink->stream() << gpu_efficiency_yaml(fit.gpu, {"Fitted by `costmodel calibrate --runs " + path +
                                                         "`: " + fit.gpu.name + "'s efficiencies"});
    emit_sink->commit();
  }
  if (output.format() == Format::kJson || output.format() == Format::kCsv) {
    emit(output, gpu_fit_json(fit));
    return 0;
  }
  Table runs = gpu_fit_runs_table(fit);
  if (emit_path) runs.notes.push_back("wrote " + *emit_path + " (use it as a cluster file's gpu: entry)");
  write_table(output.stream(), gpu_fit_parameters_table(fit), output.format());
  output.stream() << '\n';
  write_table(output.stream(), runs, output.format());
  output.commit();
  return 0;
}

}  // namespace

int run_calibrate(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context,
      "costmodel calibrate LOG... [cluster] [--emit-cluster FILE.yaml]\n"
      "       costmodel calibrate --runs RUNS.yaml [--gpu NAME] [--objective lsq|minimax] [--emit-gpu "
      "GPU.yaml]",
      "Fits t = alpha + beta x size to nccl-tests logs (all_reduce_perf, all_gather_perf, "
      "reduce_scatter_perf, alltoall_perf, sendrecv_perf, broadcast_perf), one fit per collective, "
      "algorithm and rank count, weighted by 1/t^2 so that small and large messages count alike. "
      "Prints alpha (s), beta (s/B), R^2, the worst point, algbw and busbw (1/beta, bus factor/beta) "
      "and the efficiency against the line rate. --emit-cluster writes the cluster (from [cluster], "
      "else the default cluster with the GPU the logs name) with the scale-up constants of "
      "single-node logs and the scale-out link constants of multi-node logs, under which the "
      "model's ring (direct for alltoall, sendrecv) reproduces the fit.");
  parser.add_positional("log", po::value<std::vector<std::string>>()->value_name("LOG"), -1);
  parser.options().add_options()  //
      ("op", po::value<std::string>()->value_name("NAME"),
       "the collective of logs that do not name their test: allreduce|reducescatter|allgather|alltoall|"
       "broadcast|reduce|sendrecv")  //
      ("line-rate", po::value<std::string>()->value_name("BW"),
       "busbw the efficiency is measured against, e.g. 400Gbps [the model's busbw at line rate]")  //
      ("emit-cluster", po::value<std::string>()->value_name("FILE.yaml"),
       "write the calibrated cluster file (replaced only once complete)")  //
      ("runs", po::value<std::string>()->value_name("RUNS.yaml"),
       "fit the GPU's efficiencies (gemm, gemm_half_size, attention, overlap) to measured runs "
       "(data/published-runs.yaml's schema) instead of reading logs")  //
      ("emit-gpu", po::value<std::string>()->value_name("GPU.yaml"),
       "with --runs: write the GPU entry with the fitted efficiencies")  //
      ("hold-out", po::value<std::string>()->value_name("ID,..."),
       "with --runs: runs predicted but not fitted (a check of the fit)")  //
      ("fit", po::value<std::string>()->value_name("NAME,..."),
       "with --runs: the parameters to fit [gemm,gemm_half_size,attention,overlap]")  //
      ("objective", po::value<std::string>()->value_name(listed(kFitObjectives)),
       "with --runs: minimise the sum of squared errors model/measured - 1 (lsq, as data/gpus.yaml's "
       "fits) or the largest |error| (minimax) [lsq]")  //
      ("threads", po::value<std::string>(), "with --runs: planner threads [every core]");
  add_runs_stack_option(parser.options());
  add_cluster_options(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  OutputSink output(read_output_options(values, context), context);
  if (values.count("runs")) {
    if (values.count("log"))
      throw usage_error(context, "--runs", "give either nccl-tests logs or --runs, not both");
    return run_gpu_fit(values, context, output);
  }
  for (const char* flag : {"emit-gpu", "hold-out", "fit", "objective", "stack"}) {
    if (values.count(flag)) throw usage_error(context, std::string("--") + flag, "needs --runs RUNS.yaml");
  }
  const ClusterArgs cluster_args = read_cluster_args(values, context);
  if (!values.count("log")) throw usage_error(context, "LOG", "expected at least one nccl-tests log");
  const auto paths = values["log"].as<std::vector<std::string>>();
  const std::optional<Collective> op = op_option(values, context);
  const std::optional<BytesPerSecond> line_rate = line_rate_option(values, context);
  const auto emit_path = string_option(values, "emit-cluster");
  std::optional<OutputSink> emit_sink;  // opened before any work, so that a bad path fails at once
  if (emit_path) emit_sink.emplace(OutputOptions{Format::kTable, *emit_path}, context, "--emit-cluster");

  std::vector<NcclTestsLog> logs;
  for (const auto& path : paths) {
    NcclTestsLog log = load_nccl_tests_log(path);
    if (op) log.collective = op;
    logs.push_back(std::move(log));
  }
  const Catalog catalog = load_catalog();
  ClusterArgs effective = cluster_args;
  if (!cluster_args.file && !cluster_args.options.gpu) {
    // The GPU the logs name, when the user names neither a cluster nor a GPU.
    for (const auto& log : logs) {
      if (!log.device.empty()) {
        effective.options.gpu = guess_gpu(log.device, catalog);
        break;
      }
    }
  }
  const ClusterSpec cluster = make_cluster(effective, catalog, context);
  LogCalibration calibration = calibrate_logs(logs, cluster, line_rate, paths);
  // nccl-tests -g N: one host thread launches the collective on N GPUs in turn (ncclGroupStart, one call per
  // GPU, ncclGroupEnd), so a small message cannot finish before N launches have left that thread; a training
  // job runs a process per GPU, each launching its own.
  for (const auto& log : logs) {
    if (log.gpus_per_thread > 1) {
      calibration.notes.push_back("warning: " + log.file + ": one host thread drove " +
                                  std::to_string(log.gpus_per_thread) +
                                  " GPUs (nccl-tests -g): its small-message times include launching on each "
                                  "in turn, which a process per GPU does not pay; latencies fitted from it "
                                  "may be high (rerun with -g 1, one process per GPU)");
    }
  }
  for (const auto& row : calibration.fits) {
    const std::string what = std::string(to_string(row.fit.collective)) + " (" + row.fit.files.front() + ")";
    if (row.fit.ranks == 1) {
      calibration.notes.push_back("warning: " + what + ": 1 rank (" + row.fit.ranks_from +
                                  "): a single GPU measures no fabric; check the log");
    }
  }
  // A scale-out fit against a link the user did not name: say which, and refuse one the logs beat.
  const bool link_given = cluster_args.file || cluster_args.options.link;
  for (const auto& level : calibration.levels) {
    if (level.level != FabricLevel::kScaleOut || link_given) continue;
    if (level.bandwidth.value > cluster.link.line_rate.value * 1.02) {
      throw usage_error(context, "--link",
                        "the multi-node logs are faster than the assumed " + cluster.link.name + " x " +
                            std::to_string(cluster.nics_per_node) + " per node",
                        "name the pilot's fabric: --link NAME --nics-per-node N (or --cluster FILE)");
    }
    calibration.notes.push_back("scale-out fitted against " + cluster.link.name + " x " +
                                std::to_string(cluster.nics_per_node) + " per node (" + cluster.gpu.name +
                                "'s typical node); pass --link and --nics-per-node if the pilot differs");
  }

  Table table = calibration_table(calibration, cluster, static_cast<int>(paths.size()), line_rate);
  if (emit_path) {
    if (!calibration.calibrated) {
      throw usage_error(context, "--emit-cluster", "no fit could be mapped onto the cluster",
                        "check --gpus-per-node and the logs' rank counts");
    }
    if (const auto reasons = validate(*calibration.calibrated); !reasons.empty()) {
      throw Error("the calibrated cluster is not usable: " + reasons.front());
    }
    emit_sink->stream() << cluster_yaml(*calibration.calibrated, calibration.comment);
    emit_sink->commit();
    table.notes.push_back("wrote " + *emit_path + " (use it with --cluster)");
  }
  if (output.format() == Format::kJson) {
    emit(output, calibration_json(calibration, cluster, static_cast<int>(paths.size()), line_rate));
    return 0;
  }
  if (output.format() == Format::kCsv) {  // one table per CSV: the fits (--format json has them all)
    emit(output, table);
    return 0;
  }
  write_table(output.stream(), table, output.format());
  output.stream() << '\n';
  write_table(output.stream(), calibration_level_table(calibration), output.format());
  output.stream() << '\n';
  write_table(output.stream(), calibration_residual_table(calibration), output.format());
  output.commit();
  return 0;
}

}  // namespace costmodel::cli
