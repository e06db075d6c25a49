// `costmodel calibrate LOG... [cluster] [--op NAME] [--line-rate BW] [--emit-cluster FILE.yaml]`: fit alpha
// (s) and beta (s/B) per collective to nccl-tests logs, with R², the worst point, the bandwidth they imply
// and the efficiency against the line rate; --emit-cluster writes the cluster with the measured constants,
// for
// `--cluster` of every later command.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "costmodel/io/calibrate.hpp"
#include "costmodel/network/collective.hpp"

namespace costmodel::cli {
namespace {

constexpr double kGiga = 1e9;
constexpr double kMicro = 1e-6;

/// One fit with the cluster constants it implies (none when the cluster cannot place its ranks).
struct FitRow {
  CollectiveFit fit;
  std::optional<ClusterCalibration> calibration;
  std::optional<double> efficiency;  ///< vs --line-rate, else vs the model's line-rate busbw
};

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json();
}

std::vector<Field<FitRow>> fit_fields() {
  return {
      {"collective", "collective", "", 1,
       [](const FitRow& r) { return Json(std::string(to_string(r.fit.collective))); }},
      {"algorithm", "algo", "", 1,
       [](const FitRow& r) { return Json(r.fit.algorithm.empty() ? std::string("nccl") : r.fit.algorithm); }},
      {"ranks", "ranks", "", 1, [](const FitRow& r) { return Json(r.fit.ranks); }},
      {"nodes", "nodes", "", 1, [](const FitRow& r) { return r.fit.nodes > 0 ? Json(r.fit.nodes) : Json(); }},
      {"points", "points", "", 1, [](const FitRow& r) { return Json(r.fit.line.points); }},
      {"alpha_s", "alpha", "us", kMicro, [](const FitRow& r) { return Json(r.fit.line.alpha.value); }},
      {"beta_s_per_B", "beta", "ps/B", 1e-12, [](const FitRow& r) { return Json(r.fit.line.beta); }},
      {"r_squared", "R^2", "", 1, [](const FitRow& r) { return Json(r.fit.line.r_squared); }, 5},
      {"worst_size_B", "worst at", "B", 1, [](const FitRow& r) { return Json(r.fit.line.worst_size.value); }},
      {"worst_residual", "worst resid", "%", 0.01,
       [](const FitRow& r) { return Json(r.fit.line.worst_residual); }, 3},
      {"algbw_Bps", "algbw", "GB/s", kGiga, [](const FitRow& r) { return Json(r.fit.algbw.value); }},
      {"busbw_Bps", "busbw", "GB/s", kGiga, [](const FitRow& r) { return Json(r.fit.busbw.value); }},
      {"efficiency", "efficiency", "", 1, [](const FitRow& r) { return optional_number(r.efficiency); }, 3},
      {"level", "level", "", 1,
       [](const FitRow& r) {
         return r.calibration ? Json(std::string(to_string(r.calibration->level))) : Json();
       }},
      {"line_rate_busbw_Bps", "line-rate busbw", "GB/s", kGiga,
       [](const FitRow& r) { return r.calibration ? Json(r.calibration->ceiling_busbw.value) : Json(); }},
      {"latency_s", "cluster latency", "us", kMicro,
       [](const FitRow& r) { return r.calibration ? Json(r.calibration->latency.value) : Json(); }},
      {"device", "device", "", 1, [](const FitRow& r) { return Json(r.fit.device); }, 4, false},
      {"wrong", "#wrong", "", 1, [](const FitRow& r) { return Json(r.fit.wrong); }, 4, false},
  };
}

/// The catalog GPU nccl-tests' device name most likely is ("NVIDIA H100 80GB HBM3" -> h100-sxm): the entry
/// whose first name part appears in the device name, preferring one whose other parts appear too.
std::optional<std::string> guess_gpu(const std::string& device, const Catalog& catalog) {
  std::string low = device;
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::optional<std::string> best;
  int best_score = 0;
  for (const auto& gpu : catalog.gpus) {
    const std::string& name = gpu.name;
    const size_t dash = name.find('-');
    const std::string family = name.substr(0, dash);
    if (family.empty() || low.find(family) == std::string::npos) continue;
    int score = 1;
    if (dash != std::string::npos && low.find(name.substr(dash + 1)) != std::string::npos) score = 2;
    if (score > best_score) {
      best = name;
      best_score = score;
    }
  }
  return best;
}

bool has_cluster_args(const ClusterArgs& args) {
  const auto& o = args.options;
  return args.file || o.gpu || o.gpus || o.gpus_per_node || o.link || o.nics_per_node || o.topology ||
         o.switch_name || o.oversubscription;
}

/// The fit that characterises `level` best: AllReduce first (what training spends most time in), then the
/// most ranks.
const FitRow* pick(const std::vector<FitRow>& rows, FabricLevel level) {
  const FitRow* best = nullptr;
  for (const auto& r : rows) {
    if (!r.calibration || r.calibration->level != level) continue;
    const auto key = [](const FitRow& x) {
      return std::make_pair(x.fit.collective == Collective::kAllReduce ? 1 : 0, x.fit.ranks);
    };
    if (best == nullptr || key(r) > key(*best)) best = &r;
  }
  return best;
}

std::string describe(const FitRow& r) {
  const auto& c = *r.calibration;
  return std::string(to_string(c.level)) + " from " + std::string(to_string(r.fit.collective)) + " on " +
         std::to_string(r.fit.ranks) + " ranks (" + r.fit.files.front() + "): alpha " +
         format_number(r.fit.line.alpha.value / kMicro) + " us, busbw " +
         format_number(r.fit.busbw.value / kGiga) + " GB/s -> efficiency " + format_number(c.efficiency) +
         ", latency " + format_number(c.latency.value / kMicro) + " us" +
         (c.latency_clamped ? " (alpha below the model's base)" : "");
}

}  // namespace

int run_calibrate(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context, "costmodel calibrate LOG... [cluster] [--emit-cluster FILE.yaml]",
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
       "write the calibrated cluster file (replaced only once complete)");
  add_cluster_options(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  const OutputOptions output = read_output_options(values, context);
  const ClusterArgs cluster_args = read_cluster_args(values, context);
  if (!values.count("log")) throw usage_error(context, "LOG", "expected at least one nccl-tests log");
  const auto paths = values["log"].as<std::vector<std::string>>();

  std::optional<Collective> op;
  if (const auto name = string_option(values, "op")) {
    op = parse_collective(*name);
    if (!op) {
      std::vector<std::string> known;
      for (int c = 0; c < kCollectiveCount; ++c) known.emplace_back(to_string(static_cast<Collective>(c)));
      const std::string hint = did_you_mean(*name, known);
      throw usage_error(context, "--op", "unknown collective '" + *name + "'",
                        hint.empty()
                            ? "expected allreduce, reducescatter, allgather, alltoall, broadcast, reduce "
                              "or sendrecv"
                            : hint);
    }
  }
  std::optional<BytesPerSecond> line_rate;
  if (const auto text = string_option(values, "line-rate")) {
    try {
      line_rate = parse_bandwidth(*text);
    } catch (const Error& e) {
      throw usage_error(context, "--line-rate", e.message());
    }
    if (!(line_rate->value > 0)) throw usage_error(context, "--line-rate", "must be positive");
  }
  const auto emit_path = string_option(values, "emit-cluster");

  std::vector<NcclTestsLog> logs;
  for (const auto& path : paths) {
    NcclTestsLog log = load_nccl_tests_log(path);
    if (op) log.collective = op;
    logs.push_back(std::move(log));
  }
  const std::vector<CollectiveFit> fits = fit_collectives(logs, line_rate);

  const Catalog catalog = load_catalog();
  ClusterArgs effective = cluster_args;
  if (!has_cluster_args(cluster_args) && !fits.front().device.empty()) {
    effective.options.gpu = guess_gpu(fits.front().device, catalog);
  }
  const ClusterSpec cluster = make_cluster(effective, catalog);

  Table table;
  std::vector<FitRow> rows;
  for (const auto& fit : fits) {
    FitRow row{fit, std::nullopt, fit.efficiency};
    try {
      row.calibration = calibrate_cluster(cluster, fit);
      if (!line_rate) row.efficiency = row.calibration->measured_efficiency;
    } catch (const Error& e) {
      table.notes.push_back(std::string(to_string(fit.collective)) + " on " + std::to_string(fit.ranks) +
                            " ranks: no cluster constants: " + e.message());
    }
    if (fit.wrong > 0) {
      table.notes.push_back("warning: " + fit.files.front() + " reports " + std::to_string(fit.wrong) +
                            " wrong results; its timings may not be trustworthy");
    }
    rows.push_back(std::move(row));
  }
  const Table fitted = make_table(fit_fields(), rows, output.format);
  table.title = "alpha-beta fits of " + std::to_string(paths.size()) + " nccl-tests log(s) on " +
                cluster.gpu.name + " (t = alpha + beta x size, weights 1/t^2)";
  table.columns = fitted.columns;
  table.rows = fitted.rows;
  table.notes.push_back("efficiency: busbw / " +
                        (line_rate
                             ? "--line-rate " + format_quantity(line_rate->value, Dimension::kBytesPerSecond)
                             : std::string("the model's busbw at line rate for the same communicator")));

  if (emit_path) {
    ClusterSpec calibrated = cluster;
    std::vector<std::string> comment{"Calibrated by `costmodel calibrate` from nccl-tests logs:"};
    for (const auto& p : paths) comment.push_back("  " + p);
    bool any = false;
    for (const FabricLevel level : {FabricLevel::kScaleUp, FabricLevel::kScaleOut}) {
      if (const FitRow* r = pick(rows, level)) {
        calibrated = apply_calibration(calibrated, *r->calibration);
        comment.push_back(describe(*r));
        any = true;
      }
    }
    if (!any) {
      throw usage_error(context, "--emit-cluster", "no fit could be mapped onto the cluster",
                        "check --gpus-per-node and the logs' rank counts");
    }
    const auto reasons = validate(calibrated);
    if (!reasons.empty()) throw Error("the calibrated cluster is not usable: " + reasons.front());
    OutputSink sink(OutputOptions{Format::kTable, *emit_path}, context);
    sink.stream() << cluster_yaml(calibrated, comment);
    sink.commit();
    table.notes.push_back("wrote " + *emit_path + " (use it with --cluster)");
  }
  emit(output, context, table);
  return 0;
}

}  // namespace costmodel::cli
