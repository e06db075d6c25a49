// SPDX-License-Identifier: Apache-2.0
#include "costmodel/search/objective.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "costmodel/error.hpp"

namespace costmodel::inline COSTMODEL_ABI {

namespace {

constexpr std::array<std::string_view, kObjectiveCount> kNames = {"time", "cost",     "capex",
                                                                  "tco",  "switches", "power"};

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_on(const Score& a, const Score& b, Objective objective) {
  if (objective == Objective::kSwitches) return three_way(a.switches, b.switches);
  return three_way(a.of(objective), b.of(objective));
}

/// The objective's quantity first, then the others in Objective order.
int compare_scores(const Score& a, const Score& b, Objective objective) {
  if (const int c = compare_on(a, b, objective); c != 0) return c;
  for (int k = 0; k < kObjectiveCount; ++k) {
    const auto other = static_cast<Objective>(k);
    if (other == objective) continue;
    if (const int c = compare_on(a, b, other); c != 0) return c;
  }
  return 0;
}

auto strategy_key(const Strategy& s) {
  return std::make_tuple(s.tp, s.pp, s.dp, s.cp, s.ep, s.expert_tp(), s.vpp, s.micro_batch, s.global_batch,
                         static_cast<int>(s.recompute), s.zero, static_cast<int>(s.dtype), !s.overlap,
                         !s.sequence_parallel, static_cast<int>(s.compression.kind),
                         s.compression.topk_fraction);
}

}  // namespace

std::string_view to_string(Objective objective) {
  const auto index = static_cast<size_t>(objective);
  return index < kNames.size() ? kNames[index] : "time";
}

std::optional<Objective> parse_objective(std::string_view name) {
  for (size_t k = 0; k < kNames.size(); ++k) {
    if (kNames[k] == name) return static_cast<Objective>(k);
  }
  return std::nullopt;
}

std::string_view describe(Objective objective) {
  switch (objective) {
    case Objective::kTime:
      return "wall-clock time";
    case Objective::kCost:
      return "cost";
    case Objective::kCapex:
      return "capex";
    case Objective::kTco:
      return "TCO";
    case Objective::kSwitches:
      return "switches";
    case Objective::kPower:
      return "power";
  }
  return "wall-clock time";
}

double Score::of(Objective objective) const {
  switch (objective) {
    case Objective::kTime:
      return time.value;
    case Objective::kCost:
      return cost.value;
    case Objective::kCapex:
      return capex.value;
    case Objective::kTco:
      return tco.value;
    case Objective::kSwitches:
      return switches;
    case Objective::kPower:
      return power.value;
  }
  return time.value;
}

Score score(const StepEstimate& estimate) {
  Score s;
  const double goodput = estimate.goodput.fraction;
  // Daly's wall-clock time per unit of useful time is 1 / goodput (+infinity when nothing progresses).
  s.time =
      Seconds(goodput > 0.0 ? estimate.step_time.value / goodput : std::numeric_limits<double>::infinity());
  const UsdPerSecond rate =
      estimate.cost_basis == CostBasis::kRental ? estimate.rental_rate : estimate.owned_rate;
  s.cost = estimate.cost().value_or(rate * s.time);
  s.capex = estimate.capex;
  s.tco = estimate.tco.value_or(estimate.owned_rate * s.time);
  s.switches = estimate.switches;
  s.power = estimate.power;
  return s;
}

ParetoAxes parse_pareto_axes(std::string_view text) {
  std::vector<std::string> known(kNames.begin(), kNames.end());
  ParetoAxes axes{};
  size_t count = 0;
  size_t start = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string part(text.substr(start, comma - start));
    const auto objective = parse_objective(part);
    if (!objective) {
      const std::string closest = closest_name(part, known);
      throw Error(ErrorLocation{}, "", "unknown objective '" + part + "'",
                  closest.empty() ? "expected three of time, cost, capex, tco, switches, power"
                                  : "did you mean '" + closest + "'?");
    }
    if (count == axes.size()) throw Error("expected three objectives, got more: '" + std::string(text) + "'");
    for (size_t k = 0; k < count; ++k) {
      if (axes[k] == *objective) throw Error("'" + part + "' appears twice in '" + std::string(text) + "'");
    }
    axes[count++] = *objective;
    if (comma == text.size()) break;
    start = comma + 1;
  }
  if (count != axes.size()) {
    throw Error(ErrorLocation{}, "", "expected three objectives, got " + std::to_string(count),
                "e.g. time,tco,switches");
  }
  return axes;
}

std::string to_string(const ParetoAxes& axes) {
  std::string text;
  for (const Objective axis : axes) {
    if (!text.empty()) text += ", ";
    text += std::string(to_string(axis));
  }
  return text;
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

bool dominates(const Score& a, const Score& b, const ParetoAxes& axes) {
  bool better = false;
  for (const Objective axis : axes) {
    const int c = compare_on(a, b, axis);
    if (c > 0) return false;
    better = better || c < 0;
  }
  return better;
}

bool same_on(const Score& a, const Score& b, const ParetoAxes& axes) {
  for (const Objective axis : axes) {
    if (compare_on(a, b, axis) != 0) return false;
  }
  return true;
}

}  // namespace costmodel::inline COSTMODEL_ABI
