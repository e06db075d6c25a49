// SPDX-License-Identifier: Apache-2.0
// `costmodel collective`: the alpha-beta cost of one collective over a sweep of message sizes, with
// nccl-tests' columns (size, count, time_us, algbw_GBps, busbw_GBps) so it lies beside real nccl-tests
// output, plus the algorithm chosen and the latency and bandwidth terms.

#include <optional>
#include <string>
#include <vector>

#include "analysis/collective_sweep.hpp"
#include "cli/flags.hpp"
#include "cli/sink.hpp"
#include "costmodel/spec/names.hpp"
#include "report/collective.hpp"

namespace costmodel::cli {
namespace {

/// A name flag through its parser; a miss is a usage error with a suggestion.
template <typename Parse>
auto named_option(const po::variables_map& values, const std::string& flag, const char* what,
                  const std::vector<std::string>& known, Parse parse, const Context& context) {
  const auto text = string_option(values, flag);
  using Result = decltype(parse(std::string_view{}));
  if (!text) return Result{};
  const auto parsed = parse(*text);
  if (!parsed) {
    const std::string hint = did_you_mean(*text, known);
    throw usage_error(context, "--" + flag, std::string("unknown ") + what + " '" + *text + "'",
                      hint.empty() ? "expected one of " + join(known, "|") : hint);
  }
  return parsed;
}

/// A size flag through parse_bytes, its errors reported against the flag.
std::optional<Bytes> bytes_option(const po::variables_map& values, const std::string& name,
                                  const Context& context) {
  const auto text = string_option(values, name);
  if (!text) return std::nullopt;
  try {
    return parse_bytes(*text);
  } catch (const Error& error) {
    throw flag_error(context, "--" + name, error);
  }
}

}  // namespace

int run_collective(const std::vector<std::string>& args, const Context& context) {
  const auto collectives = names_of<Collective>(kCollectiveCount);
  const auto algorithms = names_of<Algorithm>(kAlgorithmCount);
  const auto protocols = names_of<Protocol>(kProtocolCount);
  CommandParser parser(
      context,
      "costmodel collective --op OP [--algo ALGO] [--proto PROTO] [cluster] [--ranks N] [--stride N] "
      "[--first N] [--min-bytes SIZE] [--max-bytes SIZE] [--step-factor F]",
      "Time, algbw and busbw of one collective over message sizes from --min-bytes to --max-bytes,\n"
      "multiplying by --step-factor, with nccl-tests' columns (size in bytes, count of 4-byte floats,\n"
      "GB = 1e9 B) plus the algorithm and protocol chosen (as NCCL's tuner chooses them) and the latency\n"
      "and bandwidth terms. The communicator is --ranks GPUs, rank i on GPU --first + i x --stride\n"
      "(default: every GPU of the cluster). One that does not start on a node's first GPU may straddle two\n"
      "nodes: the side with fewer ranks leaves through their NICs only.");
  parser.options().add_options()                                                          //
      ("op", po::value<std::string>()->value_name("OP"), join(collectives, "|").c_str())  //
      ("algo", po::value<std::string>()->value_name("ALGO"),
       (join(algorithms, "|") + " (default auto)").c_str())  //
      ("proto", po::value<std::string>()->value_name("PROTO"),
       (join(protocols, "|") + ": NCCL's protocol (default auto: the fastest per size)").c_str())      //
      ("ranks", po::value<std::string>()->value_name("N"), "GPUs in the communicator (default: all)")  //
      ("stride", po::value<std::string>()->value_name("N"), "GPU distance between ranks (default 1)")  //
      ("first", po::value<std::string>()->value_name("N"), "GPU of rank 0 (default 0)")                //
      ("min-bytes", po::value<std::string>()->value_name("SIZE"), "smallest message (default 8B)")     //
      ("max-bytes", po::value<std::string>()->value_name("SIZE"), "largest message (default 8GiB)")    //
      ("step-factor", po::value<std::string>()->value_name("F"), "size multiplier between rows (default 2)");
  add_cluster_options(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();

  if (!string_option(values, "op"))
    throw usage_error(context, "--op", "required", "one of " + join(collectives, "|"));
  const auto op = named_option(values, "op", "collective", collectives, parse_collective, context);
  const Algorithm algorithm = named_option(values, "algo", "algorithm", algorithms, parse_algorithm, context)
                                  .value_or(Algorithm::kAuto);
  const Protocol protocol =
      named_option(values, "proto", "protocol", protocols, parse_protocol, context).value_or(Protocol::kAuto);
  const Bytes min_bytes = bytes_option(values, "min-bytes", context).value_or(Bytes(8.0));
  const Bytes max_bytes = bytes_option(values, "max-bytes", context).value_or(Bytes(8.0 * 1073741824.0));
  if (min_bytes.value < 1.0) throw usage_error(context, "--min-bytes", "must be at least 1 byte");
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
  const int stride = positive_int(values, "stride", context).value_or(1);
  const int first = nonnegative_int(values, "first", context).value_or(0);
  const auto ranks_flag = positive_int(values, "ranks", context);
  const ClusterArgs cluster_args = read_cluster_args(values, context);
  OutputSink output(read_output_options(values, context), context);

  const ClusterSpec cluster = make_cluster(cluster_args, load_catalog(), context);
  const int ranks = ranks_flag.value_or((cluster.gpus - std::min(first, cluster.gpus)) / stride);
  if (ranks < 2) {
    throw usage_error(context, "--ranks",
                      "a collective needs at least 2 ranks, got " + std::to_string(ranks));
  }
  const long long last_gpu = first + static_cast<long long>(ranks - 1) * stride;
  if (last_gpu >= cluster.gpus) {
    throw usage_error(context, ranks_flag ? "--ranks" : "--first",
                      std::to_string(ranks) + " ranks with stride " + std::to_string(stride) +
                          (first > 0 ? " from GPU " + std::to_string(first) : std::string()) + " reach GPU " +
                          std::to_string(last_gpu) + "; the cluster has " + std::to_string(cluster.gpus) +
                          " (GPUs 0-" + std::to_string(cluster.gpus - 1) + ")",
                      "lower --ranks, --stride or --first, or raise --gpus");
  }
  std::vector<Bytes> sizes;
  try {
    sizes = message_sizes(min_bytes, max_bytes, factor);
  } catch (const Error& e) {
    throw usage_error(context, "--step-factor", e.message(),
                      "raise --step-factor or narrow --min-bytes/--max-bytes");
  }
  CollectiveSweep sweep;
  try {
    sweep = sweep_collective(cluster, *op, algorithm, ranks, stride, sizes, protocol, first);
  } catch (const Error& e) {
    if (e.field() == "protocol")
      throw usage_error(context, "--proto", e.message(), "use --proto auto to let the model choose");
    if (e.field() != "algorithm") throw;
    throw usage_error(context, "--algo", e.message(), "use --algo auto to let the model choose");
  }
  if (output.format() == Format::kJson) {
    emit(output, collective_json(sweep, cluster));
  } else {
    emit(output, collective_table(sweep, cluster));
  }
  return 0;
}

}  // namespace costmodel::cli
