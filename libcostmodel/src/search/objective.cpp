// SPDX-License-Identifier: Apache-2.0
#include "costmodel/search/objective.hpp"

#include <array>
#include <tuple>

namespace costmodel {

namespace {

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

/// The objective's quantity first, then the other two in (time, cost, switches) order.
int compare_scores(const Score& a, const Score& b, Objective objective) {
  const std::array<int, 3> time_cost_switches = {
      three_way(a.step_time, b.step_time), three_way(a.cost, b.cost), three_way(a.switches, b.switches)};
  const int first = static_cast<int>(objective);
  if (time_cost_switches[static_cast<size_t>(first)] != 0)
    return time_cost_switches[static_cast<size_t>(first)];
  for (size_t k = 0; k < time_cost_switches.size(); ++k) {
    if (static_cast<int>(k) != first && time_cost_switches[k] != 0) return time_cost_switches[k];
  }
  return 0;
}

auto strategy_key(const Strategy& s) {
  return std::make_tuple(s.tp, s.pp, s.dp, s.cp, s.ep, s.vpp, s.micro_batch, s.global_batch,
                         static_cast<int>(s.recompute), s.zero, static_cast<int>(s.dtype), !s.overlap,
                         !s.sequence_parallel, static_cast<int>(s.compression.kind),
                         s.compression.topk_fraction);
}

}  // namespace

std::string_view to_string(Objective objective) {
  switch (objective) {
    case Objective::kTime:
      return "time";
    case Objective::kCost:
      return "cost";
    case Objective::kSwitches:
      return "switches";
  }
  return "time";
}

std::optional<Objective> parse_objective(std::string_view name) {
  if (name == "time") return Objective::kTime;
  if (name == "cost") return Objective::kCost;
  if (name == "switches") return Objective::kSwitches;
  return std::nullopt;
}

Score score(const StepEstimate& estimate, UsdPerSecond rental_price) {
  Score s;
  s.step_time = estimate.step_time;
  if (estimate.rental_cost) {
    s.cost = *estimate.rental_cost;
  } else {
    const Strategy& st = estimate.strategy;
    const double gpus = static_cast<double>(st.tp) * st.pp * st.dp * st.cp;
    s.cost = Usd(gpus * estimate.step_time.value * rental_price.value);
  }
  s.switches = estimate.switches;
  return s;
}

int compare_configurations(const Strategy& a, TopologyKind a_kind, double a_oversubscription,
                           const Strategy& b, TopologyKind b_kind, double b_oversubscription) {
  if (const int c = three_way(static_cast<int>(a_kind), static_cast<int>(b_kind)); c != 0) return c;
  if (const int c = three_way(a_oversubscription, b_oversubscription); c != 0) return c;
  return three_way(strategy_key(a), strategy_key(b));
}

int compare_configurations(const StepEstimate& a, const StepEstimate& b) {
  return compare_configurations(a.strategy, a.topology, a.oversubscription, b.strategy, b.topology,
                                b.oversubscription);
}

bool ranks_before(const Score& a_score, const StepEstimate& a, const Score& b_score, const StepEstimate& b,
                  Objective objective) {
  if (const int c = compare_scores(a_score, b_score, objective); c != 0) return c < 0;
  return compare_configurations(a, b) < 0;
}

bool dominates(const Score& a, const Score& b) {
  const bool no_worse = a.step_time <= b.step_time && a.cost <= b.cost && a.switches <= b.switches;
  const bool better = a.step_time < b.step_time || a.cost < b.cost || a.switches < b.switches;
  return no_worse && better;
}

}  // namespace costmodel
