// `costmodel collective`: the alpha-beta cost of one collective over a sweep of message sizes, with
// nccl-tests' columns (size, count, time_us, algbw_GBps, busbw_GBps) so it lies beside real nccl-tests
// output, plus the algorithm chosen and the latency and bandwidth terms.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/units.hpp"

namespace costmodel::cli {
namespace {

constexpr double kGiga = 1e9;  // nccl-tests' GB/s: 1e9 B/s
constexpr double kMicro = 1e-6;
constexpr double kElementBytes = 4.0;  // nccl-tests' default datatype: float
constexpr std::size_t kMaxRows = 10000;

/// One message size of the sweep.
struct Row {
  std::int64_t size = 0;
  CommCost cost;
  double algbw = 0.0;  // B/s
  double busbw = 0.0;  // B/s
};

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (int c = 0; c < kCollectiveCount; ++c) names.emplace_back(to_string(static_cast<Collective>(c)));
  return names;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (int a = 0; a < kAlgorithmCount; ++a) names.emplace_back(to_string(static_cast<Algorithm>(a)));
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : "|") + name;
  return joined;
}

/// A size flag through parse_bytes, its errors reported against the flag.
std::optional<double> bytes_option(const po::variables_map& values, const std::string& name,
                                   const Context& context) {
  const auto text = string_option(values, name);
  if (!text) return std::nullopt;
  try {
    return parse_bytes(*text).value;
  } catch (const Error& error) {
    throw usage_error(context, "--" + name, error.message(), error.hint());
  }
}

/// Why `algorithm` does not implement `op` on `path` (applicable() said no).
std::string not_applicable_reason(Collective op, Algorithm algorithm, const LinkPath& path,
                                  const ClusterSpec& cluster) {
  const std::string a(to_string(algorithm));
  const std::string c(to_string(op));
  const bool up = path.scale_up.ranks > 1;
  const bool out = path.scale_out.ranks > 1;
  switch (algorithm) {
    case Algorithm::kRing:
      return "ring does not implement " + c + " (use direct or halving-doubling)";
    case Algorithm::kDoubleBinaryTree:
      return "tree implements only allreduce, broadcast and reduce";
    case Algorithm::kHalvingDoubling:
      return "halving-doubling does not implement " + c;
    case Algorithm::kHierarchical:
      return "hierarchical implements only allreduce, reducescatter, allgather and alltoall";
    case Algorithm::kDirect:
      return "direct implements only alltoall, allgather, reducescatter and sendrecv";
    case Algorithm::kInNetwork: {
      if (op != Collective::kAllReduce && op != Collective::kReduceScatter && op != Collective::kAllGather) {
        return "in-network reduction implements allreduce (and reducescatter/allgather inside one NVLink "
               "domain), not " +
               c;
      }
      if (op != Collective::kAllReduce && out) {
        return "in-network " + c + " runs inside one NVLink domain only; this communicator spans " +
               std::to_string(path.scale_out.ranks) + " domains";
      }
      if (up && path.scale_up.reduction_bandwidth.value <= 0.0) {
        return "the " + cluster.gpu.name + " NVLink domain has no in-network reduction (NVLS)";
      }
      if (out && path.scale_out.reduction_bandwidth.value <= 0.0) {
        if (cluster.topology == TopologyKind::kTorus2D || cluster.topology == TopologyKind::kTorus3D) {
          return "a " + std::string(to_string(cluster.topology)) + " has no switches to reduce in";
        }
        return "switch '" + cluster.switch_spec.name + "' has no in-network reduction (SHARP)";
      }
      return "in-network reduction is not available on this communicator";
    }
    case Algorithm::kTorusBucket:
      if (cluster.topology != TopologyKind::kTorus2D && cluster.topology != TopologyKind::kTorus3D) {
        return "torus-bucket needs a torus-2d or torus-3d topology, this cluster is " +
               std::string(to_string(cluster.topology));
      }
      if (!out) return "torus-bucket runs across torus nodes; this communicator stays inside one node";
      return "torus-bucket implements only allreduce, reducescatter and allgather";
    case Algorithm::kAuto:
      break;
  }
  return a + " does not implement " + c + " on this communicator";
}

/// min, min·f, min·f², ... up to max (nccl-tests' -b/-e/-f), rounded to whole bytes.
std::vector<std::int64_t> message_sizes(double min_bytes, double max_bytes, double factor,
                                        const Context& context) {
  std::vector<std::int64_t> sizes;
  const double limit = max_bytes * (1.0 + 1e-12);
  for (double size = min_bytes; size <= limit; size *= factor) {
    const auto rounded = static_cast<std::int64_t>(std::llround(size));
    if (!sizes.empty() && sizes.back() == rounded) continue;
    sizes.push_back(rounded);
    if (sizes.size() > kMaxRows) {
      throw usage_error(context, "--step-factor",
                        "the sweep has more than " + std::to_string(kMaxRows) + " message sizes",
                        "raise --step-factor or narrow --min-bytes/--max-bytes");
    }
  }
  return sizes;
}

Json count_of(std::int64_t size) {
  return Json(static_cast<std::int64_t>(static_cast<double>(size) / kElementBytes));
}

std::vector<Field<Row>> row_fields() {
  return {
      {"size", "size", "B", 1, [](const Row& r) { return Json(r.size); }},
      {"count", "count", "floats", 1, [](const Row& r) { return count_of(r.size); }},
      {"time_us", "time", "us", 1, [](const Row& r) { return Json(r.cost.time.value / kMicro); }},
      {"algbw_GBps", "algbw", "GB/s", 1, [](const Row& r) { return Json(r.algbw / kGiga); }},
      {"busbw_GBps", "busbw", "GB/s", 1, [](const Row& r) { return Json(r.busbw / kGiga); }},
      {"algorithm", "algorithm", "", 1,
       [](const Row& r) { return Json(std::string(to_string(r.cost.algorithm))); }},
      {"latency_us", "latency term", "us", 1,
       [](const Row& r) { return Json(r.cost.latency_term.value / kMicro); }},
      {"bandwidth_us", "bandwidth term", "us", 1,
       [](const Row& r) { return Json(r.cost.bandwidth_term.value / kMicro); }},
  };
}

std::string describe_path(const LinkPath& path) {
  std::string text = std::to_string(path.ranks) + " ranks on " + std::to_string(path.nodes) +
                     (path.nodes == 1 ? " node" : " nodes");
  if (path.scale_up.ranks > 1) {
    text += "; scale-up " + std::to_string(path.scale_up.ranks) + " ranks per domain at " +
            format_number(path.scale_up.bandwidth.value / kGiga) + " GB/s per rank";
  }
  if (path.scale_out.ranks > 1) {
    text += "; scale-out " + std::to_string(path.scale_out.ranks) + " domains at " +
            format_number(path.scale_out.bandwidth.value / kGiga) + " GB/s per rank, " +
            std::to_string(path.scale_out.far_hops) + " hops to the farthest";
  }
  return text;
}

}  // namespace

int run_collective(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context,
      "costmodel collective --op OP [--algo ALGO] [cluster] [--ranks N] [--stride N] [--min-bytes SIZE] "
      "[--max-bytes SIZE] [--step-factor F]",
      "Time, algbw and busbw of one collective over message sizes from --min-bytes to --max-bytes,\n"
      "multiplying by --step-factor, with nccl-tests' columns (size in bytes, count of 4-byte floats,\n"
      "GB = 1e9 B) plus the algorithm chosen and the latency and bandwidth terms. The communicator is\n"
      "--ranks GPUs, rank i on GPU i x --stride (default: every GPU of the cluster).");
  parser.options().add_options()                                                            //
      ("op", po::value<std::string>()->value_name("OP"), join(collective_names()).c_str())  //
      ("algo", po::value<std::string>()->value_name("ALGO"),
       (join(algorithm_names()) + " (default auto)").c_str())                                          //
      ("ranks", po::value<std::string>()->value_name("N"), "GPUs in the communicator (default: all)")  //
      ("stride", po::value<std::string>()->value_name("N"), "GPU distance between ranks (default 1)")  //
      ("min-bytes", po::value<std::string>()->value_name("SIZE"), "smallest message (default 8B)")     //
      ("max-bytes", po::value<std::string>()->value_name("SIZE"), "largest message (default 8GiB)")    //
      ("step-factor", po::value<std::string>()->value_name("F"), "size multiplier between rows (default 2)");
  add_cluster_options(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();

  const auto op_name = string_option(values, "op");
  if (!op_name) throw usage_error(context, "--op", "required", "one of " + join(collective_names()));
  const auto op = parse_collective(*op_name);
  if (!op) {
    const std::string hint = did_you_mean(*op_name, collective_names());
    throw usage_error(context, "--op", "unknown collective '" + *op_name + "'",
                      hint.empty() ? "expected one of " + join(collective_names()) : hint);
  }
  Algorithm algorithm = Algorithm::kAuto;
  if (const auto algo_name = string_option(values, "algo")) {
    const auto parsed = parse_algorithm(*algo_name);
    if (!parsed) {
      const std::string hint = did_you_mean(*algo_name, algorithm_names());
      throw usage_error(context, "--algo", "unknown algorithm '" + *algo_name + "'",
                        hint.empty() ? "expected one of " + join(algorithm_names()) : hint);
    }
    algorithm = *parsed;
  }
  const double min_bytes = bytes_option(values, "min-bytes", context).value_or(8.0);
  const double max_bytes = bytes_option(values, "max-bytes", context).value_or(8.0 * 1073741824.0);
  if (min_bytes < 1.0) throw usage_error(context, "--min-bytes", "must be at least 1 byte");
  if (min_bytes > max_bytes) {
    throw usage_error(context, "--min-bytes",
                      string_option(values, "min-bytes").value_or("8B") + " is larger than --max-bytes " +
                          string_option(values, "max-bytes").value_or("8GiB"),
                      "the sweep runs from --min-bytes up to --max-bytes");
  }
  const double factor = positive_number(values, "step-factor", context).value_or(2.0);
  if (!(factor > 1.0)) {
    throw usage_error(context, "--step-factor", "must be greater than 1, got " + format_number(factor));
  }
  const auto stride_flag = positive_int(values, "stride", context);
  const int stride = stride_flag.value_or(1);
  const auto ranks_flag = positive_int(values, "ranks", context);
  const ClusterArgs cluster_args = read_cluster_args(values, context);
  const OutputOptions output = read_output_options(values, context);

  const Catalog catalog = load_catalog();
  const ClusterSpec cluster = make_cluster(cluster_args, catalog);
  const int ranks = ranks_flag.value_or(cluster.gpus / stride);
  if (ranks < 2) {
    throw usage_error(context, "--ranks",
                      "a collective needs at least 2 ranks, got " + std::to_string(ranks));
  }
  if (static_cast<long long>(ranks) * stride > cluster.gpus) {
    throw usage_error(context, "--ranks",
                      std::to_string(ranks) + " ranks with stride " + std::to_string(stride) + " need " +
                          std::to_string(static_cast<long long>(ranks) * stride) + " GPUs; the cluster has " +
                          std::to_string(cluster.gpus),
                      "lower --ranks or --stride, or raise --gpus");
  }

  const Topology topology = build_topology(cluster);
  const LinkPath path = link_path(topology, Communicator{ranks, stride, 1});
  if (!applicable(*op, algorithm, path)) {
    throw usage_error(context, "--algo",
                      std::string(to_string(algorithm)) + " is not applicable to " +
                          std::string(to_string(*op)) +
                          " here: " + not_applicable_reason(*op, algorithm, path, cluster),
                      "use --algo auto to let the model choose");
  }

  std::vector<Row> rows;
  for (const std::int64_t size : message_sizes(min_bytes, max_bytes, factor, context)) {
    Row row;
    row.size = size;
    const Bytes n(static_cast<double>(size));
    row.cost = collective_cost(*op, algorithm, n, path);
    row.algbw = algbw(n, row.cost.time).value;
    row.busbw = busbw(*op, n, ranks, row.cost.time).value;
    rows.push_back(row);
  }

  std::optional<Bytes> crossover;
  if (applicable(*op, Algorithm::kRing, path) && applicable(*op, Algorithm::kDoubleBinaryTree, path)) {
    crossover = crossover_size(*op, Algorithm::kDoubleBinaryTree, Algorithm::kRing, path);
  }

  if (output.format == Format::kJson) {
    Json document = Json::object();
    document.set("op", std::string(to_string(*op)));
    document.set("algo", std::string(to_string(algorithm)));
    document.set("ranks", ranks);
    document.set("stride", stride);
    document.set("nodes", path.nodes);
    document.set("topology", std::string(to_string(cluster.topology)));
    document.set("ring_tree_crossover_bytes", crossover ? Json(crossover->value) : Json());
    const Table table = make_table(row_fields(), rows, Format::kJson);
    Json json_rows = Json::array();
    for (const auto& cells : table.rows) {
      Json object = Json::object();
      for (std::size_t k = 0; k < cells.size(); ++k) object.set(table.columns[k].key, cells[k]);
      json_rows.push_back(std::move(object));
    }
    document.set("rows", std::move(json_rows));
    emit(output, context, document);
    return 0;
  }

  Table table = make_table(row_fields(), rows, output.format);
  table.title = std::string(to_string(*op)) + " (" + std::string(to_string(algorithm)) + ") on " +
                std::to_string(cluster.gpus) + " x " + cluster.gpu.name + ", " +
                std::string(to_string(cluster.topology)) + " of " + cluster.link.name + ": " +
                describe_path(path);
  if (crossover) {
    table.notes.push_back(std::string(to_string(*op)) + " ring/tree crossover: tree is faster below " +
                          format_quantity(crossover->value, Dimension::kBytes) + ", ring from there up");
  } else if (*op == Collective::kAllReduce && applicable(*op, Algorithm::kDoubleBinaryTree, path)) {
    const Bytes large(1099511627776.0);
    const bool ring_wins = collective_cost(*op, Algorithm::kRing, large, path).time <=
                           collective_cost(*op, Algorithm::kDoubleBinaryTree, large, path).time;
    table.notes.push_back(std::string("allreduce ring/tree crossover: none between 1 B and 1 TiB; ") +
                          (ring_wins ? "ring is no slower at any size" : "tree is faster at every size") +
                          " on this communicator");
  }
  table.notes.push_back("count = size / 4 (float); algbw = size / time; busbw = algbw x " +
                        format_number(bus_factor(*op, ranks)) + " (nccl-tests); GB = 1e9 B");
  emit(output, context, table);
  return 0;
}

}  // namespace costmodel::cli
