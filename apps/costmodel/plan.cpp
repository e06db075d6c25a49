// `costmodel plan [cluster] [model] [training] [pins] [--top K] [--rank-by time|cost|switches] [--pareto]`:
// every valid parallel configuration (and fabric, and GPU count) ranked; exit 3 when nothing is feasible.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli.hpp"
#include "costmodel/io/results.hpp"
#include "costmodel/search/planner.hpp"

namespace costmodel::cli {

namespace {

constexpr int kDefaultTop = 10;
constexpr int kMinDefaultGlobalBatch = 1024;
constexpr int kGpusPerDefaultSequence = 8;
constexpr double kProgressDelay_s = 1.0;
constexpr int kProgressWidth = 40;

void add_plan_options(po::options_description& options) {
  options.add_options()                                                                                  //
      ("model", po::value<std::string>()->value_name("NAME|FILE"), "model catalog name or model YAML")  //
      ("global-batch", po::value<std::string>()->value_name("N"),
       "sequences per step (default: max(1024, GPUs/8))")                                               //
      ("seq-len", po::value<std::string>()->value_name("N"), "sequence length (default: the model's)")  //
      ("dtype", po::value<std::string>()->value_name("T"), "bf16|fp16|fp8 (default bf16)")              //
      ("tokens", po::value<std::string>()->value_name("N"),
       "training tokens for days and cost: 300e9, 300000000000, 300B, 1.5T")                            //
      ("compression", po::value<std::string>()->value_name("C"), "none|fp16|int8|topk:FRACTION")        //
      ("tp", po::value<std::string>()->value_name("N"), "pin tensor parallelism")                       //
      ("pp", po::value<std::string>()->value_name("N"), "pin pipeline parallelism")                     //
      ("dp", po::value<std::string>()->value_name("N"), "pin data parallelism")                         //
      ("cp", po::value<std::string>()->value_name("N"), "pin context parallelism")                      //
      ("ep", po::value<std::string>()->value_name("N"), "pin expert parallelism")                       //
      ("vpp", po::value<std::string>()->value_name("N"), "pin virtual pipeline stages")                 //
      ("micro-batch", po::value<std::string>()->value_name("N"), "pin the micro-batch (sequences)")     //
      ("recompute", po::value<std::string>()->value_name("M"), "pin recompute: none|selective|full")    //
      ("zero", po::value<std::string>()->value_name("Z"), "pin the ZeRO stage: 0|1|2|3")               //
      ("overlap", po::value<std::string>()->value_name("on|off"), "pin DP communication overlap")      //
      ("top", po::value<std::string>()->value_name("K"), "configurations shown (default 10)")           //
      ("rank-by", po::value<std::string>()->value_name("O"),
       "time|cost|switches (default time; cost with --deadline-days)")                                  //
      ("pareto", "also show the Pareto front of (step time, cost, switches)")                           //
      ("tp-beyond-node", "let tensor parallelism span more than the scale-up domain")                   //
      ("threads", po::value<std::string>()->value_name("N"), "worker threads (default: every core)")    //
      ("deadline-days", po::value<std::string>()->value_name("D"),
       "find the cheapest GPU count that trains --tokens within D days")                                //
      ("gpus-range", po::value<std::string>()->value_name("A:B"),
       "GPU counts searched with --deadline-days (multiples of --gpus-per-node; default 1 node:--gpus)");
}

/// "300e9", "300000000000", "300B", "1.5T", "7M", "10k" as a positive token count.
double parse_tokens(const std::string& text, const Context& context) {
  const char* begin = text.c_str();
  char* end = nullptr;
  double value = std::strtod(begin, &end);
  std::string suffix(end);
  if (suffix == "k" || suffix == "K") {
    value *= 1e3;
  } else if (suffix == "M") {
    value *= 1e6;
  } else if (suffix == "B" || suffix == "G") {
    value *= 1e9;
  } else if (suffix == "T") {
    value *= 1e12;
  } else if (!suffix.empty()) {
    value = -1;
  }
  if (end == begin || !std::isfinite(value) || value <= 0) {
    throw usage_error(context, "--tokens", "expected a positive token count, not '" + text + "'",
                      "e.g. 300e9, 300000000000, 300B or 1.5T");
  }
  return value;
}

std::pair<int, int> parse_range(const std::string& text, const Context& context) {
  const auto colon = text.find(':');
  int a = 0;
  int b = 0;
  char extra = 0;
  if (colon == std::string::npos || std::sscanf(text.c_str(), "%d:%d%c", &a, &b, &extra) != 2 || a < 1 || b < a) {
    throw usage_error(context, "--gpus-range", "expected A:B with 1 <= A <= B, not '" + text + "'",
                      "e.g. --gpus-range 512:4096");
  }
  return {a, b};
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) parts.push_back(part);
  return parts;
}

std::vector<std::string> topology_names() {
  std::vector<std::string> known = {"auto"};
  for (int k = 0; k < kTopologyKindCount; ++k) known.emplace_back(to_string(static_cast<TopologyKind>(k)));
  return known;
}

/// `--topology auto|NAME[:OVERSUBSCRIPTION][,NAME...]`; empty when the flag names a single plain kind
/// (make_cluster applies that one).
std::vector<TopologyChoice> parse_topologies(const std::string& text, const Context& context) {
  if (text == "auto") return auto_topologies();
  std::vector<TopologyChoice> choices;
  for (const std::string& part : split_commas(text)) {
    const auto colon = part.find(':');
    const std::string name = part.substr(0, colon);
    const auto kind = parse_topology_kind(name);
    if (!kind) {
      const std::string hint = did_you_mean(name, topology_names());
      throw usage_error(context, "--topology", "unknown topology '" + name + "'",
                        hint.empty() ? "expected auto or a comma list of fabric kinds" : hint);
    }
    TopologyChoice choice{*kind, std::nullopt};
    if (colon != std::string::npos) {
      char* end = nullptr;
      const double over = std::strtod(part.c_str() + colon + 1, &end);
      if (*end != '\0' || !(over >= 1.0) || !std::isfinite(over)) {
        throw usage_error(context, "--topology", "bad oversubscription in '" + part + "'", "e.g. fat-tree:2");
      }
      choice.oversubscription = over;
    }
    choices.push_back(choice);
  }
  return choices;
}

void pin(std::vector<int>& knob, const po::variables_map& values, const std::string& name, const Context& context) {
  if (const auto value = positive_int(values, name, context)) knob = {*value};
}

TrainingSettings read_training(const po::variables_map& values, const Context& context, const ClusterSpec& cluster) {
  TrainingSettings training;
  training.global_batch = std::max(kMinDefaultGlobalBatch, cluster.gpus / kGpusPerDefaultSequence);
  if (const auto batch = positive_int(values, "global-batch", context)) training.global_batch = *batch;
  if (const auto dtype = string_option(values, "dtype")) {
    const auto parsed = parse_dtype(*dtype);
    if (!parsed || (*parsed != Dtype::kBf16 && *parsed != Dtype::kFp16 && *parsed != Dtype::kFp8)) {
      throw usage_error(context, "--dtype", "unknown dtype '" + *dtype + "'", "expected bf16, fp16 or fp8");
    }
    training.dtype = *parsed;
  }
  if (const auto compression = string_option(values, "compression")) {
    try {
      training.compression = parse_compression(*compression);
    } catch (const Error& error) {
      throw usage_error(context, "--compression", error.message(), "expected none, fp16, int8 or topk:FRACTION");
    }
  }
  return training;
}

SearchSpace read_space(const po::variables_map& values, const Context& context) {
  SearchSpace space;
  pin(space.tp, values, "tp", context);
  pin(space.pp, values, "pp", context);
  pin(space.dp, values, "dp", context);
  pin(space.cp, values, "cp", context);
  pin(space.ep, values, "ep", context);
  pin(space.vpp, values, "vpp", context);
  pin(space.micro_batch, values, "micro-batch", context);
  if (const auto recompute = string_option(values, "recompute")) {
    const auto parsed = parse_recompute(*recompute);
    if (!parsed) {
      throw usage_error(context, "--recompute", "unknown recompute '" + *recompute + "'",
                        "expected none, selective or full");
    }
    space.recompute = {*parsed};
  }
  if (const auto zero = nonnegative_int(values, "zero", context)) {
    if (*zero > 3) throw usage_error(context, "--zero", "the ZeRO stage must be 0, 1, 2 or 3");
    space.zero = {*zero};
  }
  if (const auto overlap = string_option(values, "overlap")) {
    if (*overlap != "on" && *overlap != "off") {
      throw usage_error(context, "--overlap", "expected on or off, not '" + *overlap + "'");
    }
    space.overlap = {*overlap == "on"};
  }
  space.tp_beyond_node = values.count("tp-beyond-node") > 0;
  return space;
}

/// Prints a progress bar on stderr once a run has taken a second, when stderr is a terminal.
class ProgressBar {
 public:
  ProgressBar() : enabled_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar() {
    if (shown_) std::cerr << '\r' << std::string(kProgressWidth + 16, ' ') << '\r' << std::flush;
  }

  void update(double fraction) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < kProgressDelay_s) return;
    shown_ = true;
    const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressWidth);
    std::cerr << "\rplanning [" << std::string(static_cast<size_t>(filled), '#')
              << std::string(static_cast<size_t>(kProgressWidth - filled), ' ') << "] "
              << static_cast<int>(fraction * 100.0) << "%" << std::flush;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

std::string describe(const Strategy& s) {
  std::ostringstream text;
  text << "tp=" << s.tp << " pp=" << s.pp << " dp=" << s.dp << " cp=" << s.cp << " ep=" << s.ep << " vpp=" << s.vpp
       << " micro_batch=" << s.micro_batch << " recompute=" << to_string(s.recompute) << " zero=" << s.zero;
  return text.str();
}

std::string rejected_summary(const PlanResult& result) {
  std::string text;
  for (int k = 0; k < kRejectionReasonCount; ++k) {
    const auto count = result.rejected[static_cast<size_t>(k)];
    if (count == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::string(rejection_reason_name(k)) + " " + std::to_string(count);
  }
  return text.empty() ? "none" : text;
}

[[noreturn]] void throw_infeasible(const PlanResult& result) {
  std::ostringstream text;
  text << "nothing feasible among " << result.evaluated << " candidates (rejected: " << rejected_summary(result)
       << ")";
  for (size_t i = 0; i < result.closest.size(); ++i) {
    const auto& c = result.closest[i];
    text << (i == 0 ? "; closest: " : "; ") << '[' << i + 1 << "] " << describe(c.estimate.strategy) << " on "
         << to_string(c.estimate.topology) << ": ";
    for (size_t r = 0; r < c.reasons.size(); ++r) text << (r == 0 ? "" : ", ") << c.reasons[r];
  }
  for (const auto& skipped : result.skipped_topologies) text << "; skipped " << skipped;
  throw Error(text.str(), ErrorKind::kInfeasible);
}

Json plan_json(const PlanResult& result) {
  Json configs = Json::array();
  for (const auto& e : result.top) configs.push_back(configuration_json(e));
  Json pareto = Json::array();
  for (const auto& e : result.pareto) pareto.push_back(configuration_json(e));
  Json rejected = Json::object();
  for (int k = 0; k < kRejectionReasonCount; ++k) {
    rejected.set(std::string(rejection_reason_name(k)), Json(result.rejected[static_cast<size_t>(k)]));
  }
  Json skipped = Json::array();
  for (const auto& s : result.skipped_topologies) skipped.push_back(Json(s));
  Json document = Json::object();
  document.set("configs", std::move(configs))
      .set("pareto", std::move(pareto))
      .set("evaluated", Json(result.evaluated))
      .set("feasible", Json(result.feasible))
      .set("elapsed_s", Json(result.elapsed_s))
      .set("rejected", std::move(rejected))
      .set("skipped_topologies", std::move(skipped));
  return document;
}

void write_plan(const OutputOptions& output, const Context& context, const PlanResult& result,
                const PlanRequest& request, bool show_pareto) {
  OutputSink sink(output, context);
  std::ostream& out = sink.stream();
  if (sink.format() == Format::kJson) {
    plan_json(result).write(out);
    out << '\n';
    sink.commit();
    return;
  }
  std::ostringstream summary;
  summary << "evaluated " << result.evaluated << " candidates, " << result.feasible << " feasible, in "
          << format_number(result.elapsed_s, 3) << " s on " << result.threads << " threads";
  const std::string rejected = "rejected: " + rejected_summary(result);
  if (sink.format() == Format::kCsv) {
    write_table(out, configurations_table(show_pareto ? result.pareto : result.top, "", true), Format::kCsv);
    sink.commit();
    return;
  }
  Table top = configurations_table(
      result.top, "top " + std::to_string(result.top.size()) + " by " + std::string(to_string(request.objective)),
      true);
  if (!show_pareto) {
    top.notes.push_back(summary.str());
    top.notes.push_back(rejected);
    for (const auto& s : result.skipped_topologies) top.notes.push_back("skipped " + s);
  }
  write_table(out, top, sink.format());
  if (show_pareto) {
    Table front = configurations_table(result.pareto, "Pareto front of (step time, cost, switches)", true);
    front.notes.push_back(summary.str());
    front.notes.push_back(rejected);
    for (const auto& s : result.skipped_topologies) front.notes.push_back("skipped " + s);
    out << '\n';
    write_table(out, front, sink.format());
  }
  sink.commit();
}

}  // namespace

int run_plan(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(context, "costmodel plan [cluster] [model] [training] [options]",
                       "Every valid parallel configuration, ranked; the Pareto front of step time, cost and switches.\n"
                       "--topology also takes auto (fat-tree 1:1, 2:1, 4:1, rail-optimized, rail-only,\n"
                       "dragonfly-plus, torus-3d) or a comma list of kinds, each optionally KIND:OVERSUBSCRIPTION.\n"
                       "Exit 3 when nothing is feasible, with the closest candidates and why.");
  add_cluster_options(parser.options());
  add_plan_options(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;

  // --topology may be a list here: take it out before the shared [cluster] reader checks it.
  po::variables_map values = parser.values();
  std::vector<TopologyChoice> topologies;
  if (const auto topology = string_option(values, "topology")) {
    topologies = parse_topologies(*topology, context);
    values.erase("topology");
  }
  const Catalog catalog = load_catalog();
  PlanRequest request;
  request.cluster = make_cluster(read_cluster_args(values, context), catalog);
  if (topologies.size() == 1) {
    request.cluster.topology = topologies.front().kind;
    request.cluster.oversubscription =
        topologies.front().oversubscription.value_or(request.cluster.oversubscription);
  } else {
    request.topologies = topologies;
  }

  const auto model_name = string_option(values, "model");
  if (!model_name) throw usage_error(context, "--model", "a model is required", "e.g. --model gpt3-175b");
  request.model = resolve_model(*model_name, catalog);
  if (const auto seq_len = positive_int(values, "seq-len", context)) request.model.seq_len = *seq_len;
  request.training = read_training(values, context, request.cluster);
  request.space = read_space(values, context);
  if (const auto tokens = string_option(values, "tokens")) request.options.tokens = parse_tokens(*tokens, context);
  if (const auto top = positive_int(values, "top", context)) {
    request.top_k = *top;
  } else {
    request.top_k = kDefaultTop;
  }
  if (const auto threads = positive_int(values, "threads", context)) request.threads = *threads;

  const auto deadline = positive_number(values, "deadline-days", context);
  const auto range = string_option(values, "gpus-range");
  if (range && !deadline) throw usage_error(context, "--gpus-range", "only applies with --deadline-days");
  if (deadline) {
    if (!request.options.tokens) throw usage_error(context, "--deadline-days", "needs --tokens");
    DeadlineSearch search{*deadline, request.cluster.gpus_per_node, request.cluster.gpus};
    if (range) std::tie(search.min_gpus, search.max_gpus) = parse_range(*range, context);
    request.deadline = search;
    request.objective = Objective::kCost;
  }
  if (const auto rank_by = string_option(values, "rank-by")) {
    const auto objective = parse_objective(*rank_by);
    if (!objective) {
      throw usage_error(context, "--rank-by", "unknown objective '" + *rank_by + "'",
                        "expected time, cost or switches");
    }
    request.objective = *objective;
  }
  const OutputOptions output = read_output_options(values, context);

  PlanResult result;
  {
    ProgressBar bar;
    result = plan(request, [&bar](double fraction) { bar.update(fraction); });
  }
  if (result.feasible == 0) throw_infeasible(result);
  write_plan(output, context, result, request, values.count("pareto") > 0);
  return 0;
}

}  // namespace costmodel::cli
