// `costmodel plan [cluster] [model] [training] [pins] [--top K] [--rank-by time|cost|switches] [--pareto]`:
// every valid parallel configuration (and fabric, and GPU count) ranked; exit 3 when nothing is feasible.

#include <algorithm>
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
#include "costmodel/io/svg.hpp"
#include "costmodel/search/planner.hpp"
#include "training.hpp"

namespace costmodel::cli {

namespace {

constexpr int kDefaultTop = 10;

void add_plan_options(po::options_description& options) {
  options.add_options()                                                                        //
      ("top", po::value<std::string>()->value_name("K"), "configurations shown (default 10)")  //
      ("rank-by", po::value<std::string>()->value_name("O"),
       "time|cost|switches (default time; cost with --deadline-days)")                                //
      ("pareto", "also show the Pareto front of (step time, cost, switches)")                         //
      ("tp-beyond-node", "let tensor parallelism span more than the scale-up domain")                 //
      ("threads", po::value<std::string>()->value_name("N"), "worker threads (default: every core)")  //
      ("deadline-days", po::value<std::string>()->value_name("D"),
       "find the cheapest GPU count that trains --tokens within D days")  //
      ("gpus-range", po::value<std::string>()->value_name("A:B"),
       "GPU counts searched with --deadline-days (multiples of --gpus-per-node; default 1 node:--gpus)")  //
      ("plot", po::value<std::string>()->value_name("FILE.svg"),
       "draw the Pareto front (step time vs cost, marker size = switches) as SVG");
}

std::pair<int, int> parse_range(const std::string& text, const Context& context) {
  const auto colon = text.find(':');
  int a = 0;
  int b = 0;
  char extra = 0;
  if (colon == std::string::npos || std::sscanf(text.c_str(), "%d:%d%c", &a, &b, &extra) != 2 || a < 1 ||
      b < a) {
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

/// `--topology auto|NAME[:OVERSUBSCRIPTION][,NAME...]`: the fabrics to search (plan() sizes each one).
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

std::string describe(const Strategy& s) {
  std::ostringstream text;
  text << "tp=" << s.tp << " pp=" << s.pp << " dp=" << s.dp << " cp=" << s.cp << " ep=" << s.ep
       << " vpp=" << s.vpp << " micro_batch=" << s.micro_batch << " recompute=" << to_string(s.recompute)
       << " zero=" << s.zero << " sequence_parallel=" << (s.sequence_parallel ? "on" : "off")
       << " overlap=" << (s.overlap ? "on" : "off");
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
  text << "nothing feasible among " << result.evaluated
       << " candidates (rejected: " << rejected_summary(result) << ")";
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
      result.top,
      "top " + std::to_string(result.top.size()) + " by " + std::string(to_string(request.objective)), true);
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
  CommandParser parser(
      context, "costmodel plan [cluster] [model] [training] [options]",
      "Every valid parallel configuration, ranked; the Pareto front of step time, cost and switches.\n"
      "--topology also takes auto (fat-tree 1:1, 2:1, 4:1, rail-optimized, rail-only,\n"
      "dragonfly-plus, torus-3d) or a comma list of kinds, each optionally KIND:OVERSUBSCRIPTION.\n"
      "Exit 3 when nothing is feasible, with the closest candidates and why.");
  add_cluster_options(parser.options());
  add_training_options(parser.options(), true);
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
  request.topologies = topologies;

  const TrainingArgs training = read_training_args(values, context);
  request.model = make_model(training, catalog);
  request.training.global_batch =
      training.global_batch.value_or(default_global_batch(request.model, request.cluster.gpus));
  request.training.dtype = training.dtype;
  request.training.compression = training.compression;
  request.space = pinned(SearchSpace{}, training.pins);
  request.space.tp_beyond_node = values.count("tp-beyond-node") > 0;
  request.options = training.options;
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
    ProgressBar bar("planning");
    result = plan(request, [&bar](double fraction) { bar.update(fraction); });
  }
  if (result.feasible == 0) throw_infeasible(result);
  if (const auto plot_path = string_option(values, "plot")) {
    OutputSink sink(OutputOptions{Format::kTable, *plot_path}, context);  // temp file + rename, like -o
    sink.stream() << render_svg(pareto_chart(result,
                                             request.model.name + " on " +
                                                 std::to_string(request.cluster.gpus) + " x " +
                                                 request.cluster.gpu.name + ": Pareto front",
                                             request.cluster.gpu.hourly_price));
    sink.commit();
  }
  write_plan(output, context, result, request, values.count("pareto") > 0);
  return 0;
}

}  // namespace costmodel::cli
