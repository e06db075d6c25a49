// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/catalog.hpp"

#include <cmath>
#include <memory>

#include "costmodel/error.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

template <class Spec>
const Spec& find(const std::vector<Spec>& specs, std::string_view name, const char* what) {
  for (const auto& s : specs) {
    if (s.name == name) return s;
  }
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  const std::string suggestion = closest_name(std::string(name), names);
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : " ") + n;
  throw Error("unknown " + std::string(what) + " '" + std::string(name) + "'" +
              (suggestion.empty() ? "; known: " + known : "; did you mean '" + suggestion + "'?"));
}

}  // namespace

const GpuSpec& Catalog::gpu(std::string_view name) const {
  return find(gpus, name, "GPU");
}
const LinkSpec& Catalog::link(std::string_view name) const {
  return find(links, name, "link");
}
const SwitchSpec& Catalog::switch_spec(std::string_view name) const {
  return find(switches, name, "switch");
}
const ScaleUpSpec& Catalog::scale_up(std::string_view name) const {
  return find(scale_ups, name, "scale-up fabric");
}
const ModelSpec& Catalog::model(std::string_view name) const {
  return find(models, name, "model");
}
const StackSpec& Catalog::stack(std::string_view name) const {
  return find(stacks, name, "stack");
}

void resolve_stack(TrainingSpec& training, const Catalog& catalog, std::string_view cluster_stack) {
  if (training.stack.empty())
    training.stack = cluster_stack.empty() ? kDefaultStack : std::string(cluster_stack);
  training.intervals = catalog.intervals;
  fill_lifetime_costs(training.economics, catalog.prices);
  if (const PriceQuote* q = catalog.prices.find("electricity");
      q != nullptr && !is_given(training, "electricity")) {
    training.economics.electricity = UsdPerJoule(q->value);
    training.economics.quotes.push_back(*q);
  }
  if (catalog.stacks.empty()) return;
  const StackSpec* stack = nullptr;
  try {
    stack = &catalog.stack(training.stack);
  } catch (const Error& e) {
    throw Error(ErrorLocation{}, "stack", e.message(), e.hint());
  }
  apply_stack(training, *stack);
  training.stack_spec = std::make_shared<const StackSpec>(*stack);
}

const SwitchSpec& Catalog::default_switch_for(const LinkSpec& link) const {
  // The packet switch whose port speed is closest to the link's (ratio in log scale), preferring a switch
  // of the same family (InfiniBand switches for ib-* links, Ethernet ones otherwise); NVSwitch and
  // optical circuit switches are never a default scale-out switch.
  const bool infiniband = link.name.rfind("ib-", 0) == 0;
  const SwitchSpec* best = nullptr;
  double best_score = 0.0;
  for (const auto& s : switches) {
    if (s.name.rfind("nvswitch", 0) == 0 || s.name.rfind("ocs", 0) == 0) continue;
    const bool same_family =
        (s.vendor == "nvidia" && s.in_network_reduction == InNetworkReduction::kSharp) == infiniband;
    const double score =
        std::fabs(std::log(s.port_bandwidth.value / link.line_rate.value)) + (same_family ? 0.0 : 1.0);
    if (best == nullptr || score < best_score) {
      best = &s;
      best_score = score;
    }
  }
  if (best == nullptr) throw Error("the switch catalog has no packet switch");
  return *best;
}

}  // namespace costmodel::inline COSTMODEL_ABI
