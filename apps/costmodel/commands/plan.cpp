// SPDX-License-Identifier: Apache-2.0
// `costmodel report` (the same search, written as one HTML page) and `costmodel plan [cluster] [model]
// [training] [pins] [--top K] [--rank-by time|cost|capex|tco|switches|power]
// [--pareto [A,B,C]] [--deadline-days D --tokens N --gpus-range A:B]`: every valid parallel configuration
// (and fabric, and GPU count) ranked; exit 3 when nothing is feasible.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/flags.hpp"
#include "cli/progress.hpp"
#include "cli/sink.hpp"
#include "costmodel/report/configuration.hpp"
#include "costmodel/report/html.hpp"
#include "costmodel/report/plan.hpp"
#include "costmodel/search/objective.hpp"
#include "costmodel/search/planner.hpp"
#include "costmodel/spec/names.hpp"
#include "report/svg.hpp"

namespace costmodel::cli {
namespace {

constexpr int kDefaultTop = 10;

// What --topology auto tries, from the fabrics' own files: "fat-tree 1:1, 2:1, 4:1, rail-optimized, ...".
std::string auto_topologies_text() {
  std::vector<std::string> parts;
  for (const TopologyKind kind : topology_kinds()) {
    std::string text;
    for (const double r : traits(kind).auto_oversubscriptions) {
      if (r > 0.0) text += (text.empty() ? "" : ", ") + format_number(r, 3) + ":1";
    }
    if (text.empty()) continue;
    parts.push_back(text == "1:1" ? std::string(to_string(kind)) : std::string(to_string(kind)) + " " + text);
  }
  return join(parts, ", ");
}

// `text` broken at spaces into lines of at most 95 characters, as the rest of plan's description.
std::string wrap_help(const std::string& text) {
  constexpr std::size_t kWidth = 95;
  std::string out;
  std::size_t line = 0;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (line > 0 && line + 1 + word.size() > kWidth) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
  }
  return out;
}
constexpr const char* kDefaultPareto = "time,cost,switches";

void add_plan_options(po::options_description& options) {
  const std::string objectives = listed(kObjectives);
  options.add_options()                                                                        //
      ("top", po::value<std::string>()->value_name("K"), "configurations shown (default 10)")  //
      ("rank-by", po::value<std::string>()->value_name("O"),
       (objectives +
        " (default time; cost with --deadline-days); time:high, cost:high, tco:high rank by the pessimistic "
        "end of the prediction interval (data/intervals.yaml)")
           .c_str())  //
      ("pareto", po::value<std::string>()->value_name("A,B,C")->implicit_value(std::string(kDefaultPareto)),
       ("also show the Pareto front over three of " + objectives + " (default " + kDefaultPareto + ")")
           .c_str())                                                                                  //
      ("tp-beyond-node", "let tensor parallelism span more than the scale-up domain")                 //
      ("threads", po::value<std::string>()->value_name("N"), "worker threads (default: every core)")  //
      ("deadline-days", po::value<std::string>()->value_name("D"),
       "find the cheapest GPU count that trains --tokens within D wall-clock days")  //
      ("gpus-range", po::value<std::string>()->value_name("A:B"),
       "GPU counts searched with --deadline-days (multiples of --gpus-per-node; default 1 node:--gpus)")  //
      ("global-batch-range", po::value<std::string>()->value_name("A:B"),
       "global batches (sequences) the search may choose from: per data-parallel degree the largest "
       "multiple in A:B, and --global-batch if in it")  //
      ("tokens-per-step-range", po::value<std::string>()->value_name("A:B"),
       "the same in tokens per step (e.g. 15M:17M), divided by the sequence length")  //
      ("plot", po::value<std::string>()->value_name("FILE.svg"),
       "draw the Pareto front (first objective vs second, marker size = third) as SVG")  //
      ("power-cap", po::value<std::string>()->value_name("MW"),
       "the most rated IT power the cluster may draw (GPUs at TDP, servers, fabric), e.g. 6MW or 6 (MW); "
       "larger clusters are rejected (over_power_cap)");
}

std::pair<int, int> parse_range(const std::string& text, const Context& context,
                                const std::string& flag = "--gpus-range") {
  int a = 0;
  int b = 0;
  char extra = 0;
  if (text.find(':') == std::string::npos || std::sscanf(text.c_str(), "%d:%d%c", &a, &b, &extra) != 2 ||
      a < 1 || b < a) {
    throw usage_error(context, flag, "expected A:B with 1 <= A <= B, not '" + text + "'",
                      "e.g. " + flag + (flag == "--gpus-range" ? " 512:4096" : " 1843:2253"));
  }
  return {a, b};
}

std::string describe(const Strategy& s) {
  std::ostringstream text;
  text << "tp=" << s.tp << " pp=" << s.pp << " dp=" << s.dp << " cp=" << s.cp << " ep=" << s.ep
       << " etp=" << s.expert_tp() << " vpp=" << s.vpp << " micro_batch=" << s.micro_batch
       << " recompute=" << to_string(s.recompute) << " zero=" << s.zero
       << " sequence_parallel=" << (s.sequence_parallel ? "on" : "off")
       << " overlap=" << (s.overlap ? "on" : "off");
  return text.str();
}

[[noreturn]] void throw_infeasible(const PlanResult& result) {
  std::ostringstream text;
  text << "nothing feasible among " << result.evaluated << " candidates";
  if (result.evaluated == 0 && !result.no_candidates.empty()) {
    text << ": " << join(result.no_candidates, "; ");
  } else {
    text << " (rejected: " << rejected_summary(result) << ")";
  }
  if (result.rejected[kRejectedPowerCap] > 0) {
    text << "; " << result.rejected[kRejectedPowerCap]
         << " configurations that fit in memory draw more rated IT power (GPUs at TDP, servers, fabric) than "
            "--power-cap";
  }
  for (size_t i = 0; i < result.closest.size(); ++i) {
    const auto& c = result.closest[i];
    text << (i == 0 ? "; closest: " : "; ") << '[' << i + 1 << "] " << describe(c.estimate.strategy) << " on "
         << to_string(c.estimate.topology) << ": " << join(c.reasons, ", ");
  }
  for (const auto& skipped : result.skipped_topologies) text << "; skipped " << skipped;
  throw Error(text.str(), ErrorKind::kInfeasible);
}

/// The request the flags describe: cluster, model and training, the fabrics, the search's bounds and goal.
PlanRequest read_request(po::variables_map values, const Context& context, TrainingSpec& training_spec) {
  // --topology may be a list here: take it out before the shared [cluster] reader checks it.
  std::vector<TopologyChoice> topologies;
  if (const auto topology = string_option(values, "topology")) {
    try {
      topologies = parse_topology_choices(*topology);
    } catch (const Error& e) {
      throw flag_error(context, "--topology", e);
    }
    values.erase("topology");
  }
  const Catalog catalog = load_priced_catalog(values, context);
  const ClusterSpec cluster = make_cluster(read_cluster_args(values, context), catalog, context);
  TrainingArgs training = read_training_args(values, context);
  resolve_training_stack(training, catalog, cluster, context);
  training_spec = training.training;
  const ModelSpec model = make_model(training, catalog, context);
  // A recompute module the model lacks rules out every split: say so, as estimate does, not as exit 3.
  if (const char* problem = recompute_modules_problem(training.training.recompute_modules, model))
    throw usage_error(context, "--recompute-modules", problem);
  PlanRequest request = plan_request(model, cluster, training.training);
  request.topologies = topologies;
  request.space.tp_beyond_node = values.count("tp-beyond-node") > 0;
  request.top_k = positive_int(values, "top", context).value_or(kDefaultTop);
  if (const auto threads = positive_int(values, "threads", context)) request.threads = *threads;
  const auto batch_range = string_option(values, "global-batch-range");
  const auto token_range = string_option(values, "tokens-per-step-range");
  if (batch_range && token_range) {
    throw usage_error(context, "--tokens-per-step-range", "give either it or --global-batch-range, not both");
  }
  if (batch_range) {
    const auto [a, b] = parse_range(*batch_range, context, "--global-batch-range");
    request.batch_range = BatchRange{a, b};
  }
  if (token_range) {
    const auto colon = token_range->find(':');
    double a = 0, b = 0;
    try {
      if (colon == std::string::npos) throw Error("expected A:B");
      a = parse_token_count(token_range->substr(0, colon));
      b = parse_token_count(token_range->substr(colon + 1));
    } catch (const Error& e) {
      throw usage_error(context, "--tokens-per-step-range", e.message(),
                        "e.g. --tokens-per-step-range 15M:17M");
    }
    const double seq = static_cast<double>(request.model.seq_len);
    const int lo = static_cast<int>(std::ceil(a / seq));
    const int hi = static_cast<int>(std::floor(b / seq));
    if (b < a || hi < lo || hi < 1) {
      throw usage_error(context, "--tokens-per-step-range",
                        "no whole number of " + std::to_string(request.model.seq_len) +
                            "-token sequences lies in '" + *token_range + "'");
    }
    request.batch_range = BatchRange{std::max(1, lo), hi};
  }
  if (const auto cap = string_option(values, "power-cap")) {
    try {
      // A bare number is megawatts, the unit facilities are sized in.
      const bool bare = !cap->empty() && cap->find_first_not_of("0123456789.eE+-") == std::string::npos;
      request.power_cap = parse_watts(bare ? *cap + "MW" : *cap);
    } catch (const Error& e) {
      throw flag_error(context, "--power-cap", e);
    }
    if (!(request.power_cap->value > 0.0))
      throw usage_error(context, "--power-cap", "expected a positive power");
  }

  const auto deadline = positive_number(values, "deadline-days", context);
  const auto range = string_option(values, "gpus-range");
  if (range && !deadline) throw usage_error(context, "--gpus-range", "only applies with --deadline-days");
  if (deadline) {
    if (!request.options.tokens) throw usage_error(context, "--deadline-days", "needs --tokens");
    DeadlineSearch search{Seconds(*deadline * kSecondsPerDay), request.cluster.gpus_per_node,
                          request.cluster.gpus};
    if (range) std::tie(search.min_gpus, search.max_gpus) = parse_range(*range, context);
    request.deadline = search;
    request.objective = Objective::kCost;
  }
  if (auto rank_by = string_option(values, "rank-by")) {
    // time:high, cost:high, tco:high: by the pessimistic end of the prediction interval.
    if (const auto colon = rank_by->find(':'); colon != std::string::npos) {
      const std::string end = rank_by->substr(colon + 1);
      *rank_by = rank_by->substr(0, colon);
      if (end != "high") {
        throw usage_error(context, "--rank-by", "unknown end '" + end + "' of the interval",
                          "expected OBJECTIVE:high, e.g. time:high");
      }
      if (*rank_by != "time" && *rank_by != "cost" && *rank_by != "tco") {
        throw usage_error(context, "--rank-by", *rank_by + " has no prediction interval",
                          "expected time:high, cost:high or tco:high");
      }
      request.pessimistic = true;
    }
    const auto objective = parse_objective(*rank_by);
    if (!objective) {
      const std::vector<std::string> names = names_of(kObjectives);
      const std::string hint = did_you_mean(*rank_by, names);
      throw usage_error(context, "--rank-by", "unknown objective '" + *rank_by + "'",
                        hint.empty() ? "expected " + alternatives(names) : hint);
    }
    request.objective = *objective;
  }
  if (const auto pareto = string_option(values, "pareto")) {
    try {
      request.pareto = parse_pareto_axes(*pareto);
    } catch (const Error& e) {
      throw flag_error(context, "--pareto", e);
    }
  }
  return request;
}

/// plan and report: the same search; report always writes the HTML page.
int plan_command(const std::vector<std::string>& args, const Context& context, bool report) {
  CommandParser parser(
      context,
      report ? "costmodel report [cluster] [model] [training] [options] -o FILE.html"
             : "costmodel plan [cluster] [model] [training] [options]",
      (report ? std::string("One self-contained HTML page for a buyer: the assumptions and prices with their "
                            "sources, the top\nconfigurations (sortable), the Pareto front, the chosen "
                            "configuration's step time and memory by\nterm, its fabric's bill of materials, "
                            "capex, run cost, goodput, launch arguments, and the model's\naccuracy on "
                            "published runs like this one. Nothing in it is fetched: it opens offline and "
                            "prints to PDF.\nThe search is plan's (same options).\n")
              : std::string(
                    "Every valid parallel configuration, ranked; the Pareto front over three objectives. "
                    "Cost is the\nowned cluster's TCO (--cost-basis rental: GPU rental); time is "
                    "wall-clock, after goodput.\nWith --deadline-days, the GPU counts of --gpus-range that "
                    "train --tokens in time, cheapest first.\n")) +
          wrap_help("--topology also takes auto (" + auto_topologies_text() +
                    ") or a comma list of kinds, each optionally KIND:OVERSUBSCRIPTION.") +
          "\nExit 3 when nothing is feasible, with the closest candidates and why.");
  add_cluster_options(parser.options());
  add_prices_option(parser.options());
  add_training_options(parser.options(), true);
  add_plan_options(parser.options());
  if (report) {
    parser.options().add_options()(
        "output,o", po::value<std::string>()->value_name("FILE.html"),
        "write the page to FILE.html (replaced only once complete); default stdout");
  } else {
    add_output_options(parser.options(), true, true);
  }
  if (!parser.parse(args)) return 0;
  // Output files are opened before any work, so that a bad path fails at once.
  OutputOptions output_options = read_output_options(parser.values(), context, true, true);
  if (report) output_options.format = Format::kHtml;
  OutputSink output(output_options, context);
  const auto plot_path = string_option(parser.values(), "plot");
  std::optional<OutputSink> plot_sink;
  if (plot_path) plot_sink.emplace(OutputOptions{Format::kTable, *plot_path}, context, "--plot");
  TrainingSpec training;
  const PlanRequest request = read_request(parser.values(), context, training);

  PlanResult result;
  {
    ProgressBar bar("planning", *context.err);
    result = plan(request, [&bar](double fraction) { bar.update(fraction); });
  }
  if (result.feasible == 0) throw_infeasible(result);
  const StepEstimate& best = result.top.front();
  warn_ineffective_knobs(best, result.model, cluster_of(best, result.cluster), training, context);
  if (plot_sink) {
    const std::string gpus = request.deadline ? std::to_string(request.deadline->min_gpus) + "-" +
                                                    std::to_string(request.deadline->max_gpus)
                                              : std::to_string(request.cluster.gpus);
    plot_sink->stream() << render_svg(pareto_chart(
        result, request.model.name + " on " + gpus + " x " + request.cluster.gpu.name + ": Pareto front",
        request.pareto));
    plot_sink->commit();
  }
  if (output.format() == Format::kHtml) {
    const SimilarRuns evidence = similar_published_runs(result.model, result.cluster, request.threads);
    write_plan_html(output.stream(), result, request, &evidence);
  } else {
    write_plan(output.stream(), result, request, output.format(), parser.values().count("pareto") > 0);
  }
  output.commit();
  return 0;
}

}  // namespace

int run_plan(const std::vector<std::string>& args, const Context& context) {
  return plan_command(args, context, false);
}

int run_report(const std::vector<std::string>& args, const Context& context) {
  return plan_command(args, context, true);
}

}  // namespace costmodel::cli
