// SPDX-License-Identifier: Apache-2.0
// A procurement tool built on the installed costmodel package: given price quotes for GPUs and switches and a
// deadline to train a token budget, which fabric meets the deadline for the least capital expense?
//
// For every fabric (fat-tree 1:1 and 2:1, rail-optimized, rail-only, Dragonfly+) it tries GPU counts in
// ascending order, asks the planner for the fastest parallel configuration on each, and keeps the first count
// whose fastest configuration trains the budget within the deadline: more GPUs only add GPU capex, and a
// fabric never needs fewer switches for more GPUs. Capex = GPUs x GPU quote + the fabric's inventory
// (switches at the switch quote, NICs and transceivers at catalog prices).
//
//   procurement [--model NAME] [--gpu NAME] [--link NAME] [--tokens N] [--days D]
//               [--gpu-price USD] [--switch-price USD] [--format table|csv|json|markdown]

#include <costmodel/costmodel.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

// The quotes and the goal, unless given on the command line.
constexpr const char* kModel = "llama2-70b";
constexpr const char* kGpu = "h100-sxm";
constexpr const char* kLink = "ib-ndr-400g";
constexpr double kTokens = 2e12;             // Llama 2's pre-training budget (Touvron et al. 2023 §2.2)
constexpr double kDeadlineDays = 30.0;       // wall-clock days, at the estimated step time
constexpr double kGpuQuoteUsd = 25000.0;     // per GPU, installed in an 8-GPU server
constexpr double kSwitchQuoteUsd = 25000.0;  // per 64-port 400G switch
const std::vector<int> kGpuCounts = {512, 1024, 2048, 4096, 8192};

struct Fabric {
  std::string name;
  costmodel::TopologyKind kind;
  double oversubscription;
};

const std::vector<Fabric> kFabrics = {
    {"fat-tree 1:1", costmodel::TopologyKind::kFatTree, 1.0},
    {"fat-tree 2:1", costmodel::TopologyKind::kFatTree, 2.0},
    {"rail-optimized", costmodel::TopologyKind::kRailOptimized, 1.0},
    {"rail-only", costmodel::TopologyKind::kRailOnly, 1.0},
    {"dragonfly-plus", costmodel::TopologyKind::kDragonflyPlus, 1.0},
};

/// The cheapest GPU count of one fabric that meets the deadline.
struct Offer {
  Fabric fabric;
  costmodel::ClusterSpec cluster;
  costmodel::StepEstimate plan;
  costmodel::Usd gpu_capex;
  costmodel::Usd network_capex;
  [[nodiscard]] costmodel::Usd total() const { return gpu_capex + network_capex; }
};

/// "--name value" pairs; every flag takes a value.
std::map<std::string, std::string> parse_flags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || i + 1 >= argc)
      throw costmodel::Error("usage: procurement [--flag value]...");
    flags[arg.substr(2)] = argv[++i];
  }
  return flags;
}

std::string flag(const std::map<std::string, std::string>& flags, const std::string& name,
                 const std::string& fallback) {
  const auto it = flags.find(name);
  return it == flags.end() ? fallback : it->second;
}

double number_flag(const std::map<std::string, std::string>& flags, const std::string& name,
                   double fallback) {
  const auto it = flags.find(name);
  return it == flags.end() ? fallback : costmodel::parse_number(it->second);
}

/// The fastest configuration of `model` on `cluster` that fits in memory, or nullopt.
std::optional<costmodel::StepEstimate> fastest(const costmodel::ModelSpec& model,
                                               const costmodel::ClusterSpec& cluster, double tokens) {
  costmodel::PlanRequest request;
  request.model = model;
  request.cluster = cluster;
  request.training.global_batch = costmodel::default_global_batch(model, cluster.gpus);
  request.options.tokens = tokens;
  request.objective = costmodel::Objective::kTime;
  request.top_k = 1;
  // Fewer knobs keep the search to a fraction of a second: selective recompute and the distributed
  // optimizer are what large runs use (Korthikanti et al. 2022; Megatron-LM).
  request.space.recompute = {costmodel::Recompute::kSelective};
  request.space.zero = {1};
  request.space.overlap = {true};
  request.space.sequence_parallel = {true};
  const costmodel::PlanResult result = costmodel::plan(request);
  if (result.top.empty()) return std::nullopt;
  return result.top.front();
}

std::optional<Offer> cheapest_offer(const Fabric& fabric, const costmodel::ModelSpec& model,
                                    const costmodel::ClusterSpec& base, double tokens, double days,
                                    double gpu_quote) {
  for (const int gpus : kGpuCounts) {
    costmodel::ClusterSpec cluster = base;
    cluster.gpus = gpus;
    cluster.topology = fabric.kind;
    cluster.oversubscription = fabric.oversubscription;
    std::optional<costmodel::StepEstimate> best;
    try {
      best = fastest(model, cluster, tokens);
    } catch (const costmodel::Error&) {
      continue;  // this fabric cannot be built at this size (e.g. beyond its radix)
    }
    if (best && best->training_time && best->training_time->value <= days * costmodel::kSecondsPerDay) {
      return Offer{fabric, cluster, *best, costmodel::Usd(gpu_quote * gpus), best->network_capex};
    }
  }
  return std::nullopt;
}

std::string split_of(const costmodel::Strategy& s) {
  return "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp) + " dp" + std::to_string(s.dp) +
         (s.cp > 1 ? " cp" + std::to_string(s.cp) : "") + " mb" + std::to_string(s.micro_batch);
}

int run(int argc, char** argv) {
  const auto flags = parse_flags(argc, argv);
  const double tokens = number_flag(flags, "tokens", kTokens);
  const double days = number_flag(flags, "days", kDeadlineDays);
  const double gpu_quote = number_flag(flags, "gpu-price", kGpuQuoteUsd);
  const double switch_quote = number_flag(flags, "switch-price", kSwitchQuoteUsd);
  const auto format = costmodel::parse_format(flag(flags, "format", "table"));
  if (!format) throw costmodel::Error("--format must be table, csv, json or markdown");

  // The catalogs installed with the package: data/gpus.yaml, links.yaml, switches.yaml, models/*.yaml.
  const costmodel::Catalog catalog = costmodel::load_catalog();
  const costmodel::ModelSpec model = costmodel::resolve_model(flag(flags, "model", kModel), catalog);

  costmodel::ClusterSpec base = costmodel::default_cluster(catalog);
  base.gpu = catalog.gpu(flag(flags, "gpu", kGpu));
  base.scale_up = base.gpu.scale_up;
  base.link = catalog.link(flag(flags, "link", kLink));
  base.switch_spec = catalog.default_switch_for(base.link);
  base.gpu.price = costmodel::Usd(gpu_quote);
  base.switch_spec.price = costmodel::Usd(switch_quote);

  std::vector<Offer> offers;
  costmodel::Table table;
  table.title = model.name + ", " + costmodel::format_number(tokens / 1e12, 3) + "T tokens within " +
                costmodel::format_number(days, 3) + " days on " + base.gpu.name + " + " + base.link.name;
  table.columns = {{"fabric", "fabric", "", 1.0, 4},
                   {"gpus", "GPUs", "", 1.0, 4},
                   {"split", "split", "", 1.0, 4},
                   {"days", "days", "", 1.0, 3},
                   {"switches", "switches", "", 1.0, 4},
                   {"gpu_capex_usd", "GPU capex", "USD", 1.0, 4},
                   {"network_capex_usd", "network capex", "USD", 1.0, 4},
                   {"total_usd", "total", "USD", 1.0, 4}};
  for (const auto& fabric : kFabrics) {
    const auto offer = cheapest_offer(fabric, model, base, tokens, days, gpu_quote);
    if (!offer) {
      table.rows.push_back({fabric.name, nullptr,
                            "misses the deadline up to " + std::to_string(kGpuCounts.back()) + " GPUs",
                            nullptr, nullptr, nullptr, nullptr, nullptr});
      continue;
    }
    table.rows.push_back({fabric.name, offer->cluster.gpus, split_of(offer->plan.strategy),
                          offer->plan.training_time->value / costmodel::kSecondsPerDay, offer->plan.switches,
                          offer->gpu_capex.value, offer->network_capex.value, offer->total().value});
    offers.push_back(*offer);
  }
  table.notes.push_back("GPU quote $" + costmodel::format_number(gpu_quote, 6) + ", switch quote $" +
                        costmodel::format_number(switch_quote, 6) + "; catalogs: " + catalog.root);
  if (offers.empty()) {
    costmodel::write_table(std::cout, table, *format);
    std::cerr << "procurement: no fabric meets the deadline\n";
    return 3;
  }
  const Offer* best = &offers.front();
  for (const auto& o : offers) {
    if (o.total() < best->total()) best = &o;
  }
  table.notes.push_back("cheapest plan: " + best->fabric.name + " with " +
                        std::to_string(best->cluster.gpus) + " GPUs, total capex $" +
                        costmodel::format_number(best->total().value, 6));
  costmodel::write_table(std::cout, table, *format);

  // The winning plan as the CLI would print it, and what its fabric takes to build.
  std::cout << '\n';
  // Its knob columns read the estimator's options: fastest() left them at their defaults (and tokens).
  costmodel::write_table(std::cout,
                         costmodel::configurations_table({best->plan}, costmodel::EstimateOptions{},
                                                         "cheapest plan: " + best->fabric.name),
                         *format);
  const costmodel::Topology topology = costmodel::build_topology(best->cluster);
  const costmodel::Inventory& inv = topology.inventory;
  costmodel::Table inventory;
  inventory.title = "fabric inventory: " + best->fabric.name + ", " + std::to_string(inv.tiers) + " tier(s)";
  inventory.columns = {{"item", "item", "", 1.0, 4}, {"count", "count", "", 1.0, 6}};
  for (int t = 0; t < inv.tiers; ++t) {
    inventory.rows.push_back({std::string(inv.tier_names[t]) + " switches", inv.switches_per_tier[t]});
  }
  inventory.rows.push_back({"NICs", inv.nics});
  inventory.rows.push_back({"cables", inv.cables});
  inventory.rows.push_back({"optical transceivers", inv.optical_transceivers});
  inventory.rows.push_back({"capex (USD)", inv.capex.value});
  inventory.rows.push_back({"power (W)", inv.power.value});
  std::cout << '\n';
  costmodel::write_table(std::cout, inventory, *format);

  // One collective on that fabric: the data-parallel gradient AllReduce of one step (bf16 gradients of the
  // local shard), as NCCL's tuner would run it.
  const costmodel::Strategy& s = best->plan.strategy;
  const double gradient_bytes = costmodel::count_parameters(model).total * 2.0 / (s.tp * s.pp);
  const costmodel::CommCost allreduce =
      costmodel::collective_cost(costmodel::Collective::kAllReduce, costmodel::Algorithm::kAuto,
                                 costmodel::Bytes(gradient_bytes), s.dp, s.tp * s.cp, best->cluster);
  std::cout << "\nDP gradient allreduce: "
            << costmodel::format_quantity(gradient_bytes, costmodel::Dimension::kBytes) << " over " << s.dp
            << " ranks takes "
            << costmodel::format_quantity(allreduce.time.value, costmodel::Dimension::kSeconds) << " ("
            << costmodel::to_string(allreduce.algorithm) << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const costmodel::Error& error) {
    std::cerr << "procurement: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "procurement: internal error: " << error.what() << '\n';
    return 1;
  }
}
