// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the planner ranks by: wall-clock time, cost (under the run's cost basis), capex, TCO, switch count or
// power, with a deterministic total order over configurations for ties, and Pareto dominance over any three
// of them (default: time, cost, switches).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The quantity ranked first; the others break ties in this order, then the configuration itself.
enum class Objective { kTime, kCost, kCapex, kTco, kSwitches, kPower };
inline constexpr int kObjectiveCount = 6;  ///< values of Objective
/// Every Objective, in the order messages list them.
inline constexpr std::array kObjectives{Objective::kTime, Objective::kCost,     Objective::kCapex,
                                        Objective::kTco,  Objective::kSwitches, Objective::kPower};
/// "time", "cost", "capex", "tco", "switches", "power".
[[nodiscard]] std::string_view to_string(Objective objective);
/// The objective named `name`, or nullopt.
[[nodiscard]] std::optional<Objective> parse_objective(std::string_view name);
/// What the objective measures, for titles: "wall-clock time", "cost", "capex", "TCO", "switches", "power".
[[nodiscard]] std::string_view describe(Objective objective);

/// The ranked quantities of one estimate, all to be minimised.
struct Score {
  /// Wall-clock seconds per step (step time / goodput): proportional to the wall-clock days to train.
  Seconds time;
  Usd cost;   ///< StepEstimate::cost() with a token budget, else the cost of one step's wall-clock time
  Usd capex;  ///< GPUs, servers and fabric
  Usd tco;    ///< StepEstimate::tco with a token budget, else one step's share of it
  int switches = 0;  ///< switches of the scale-out fabric
  Watts power;       ///< rated IT power: GPUs, servers, fabric

  /// The quantity `objective` ranks by, as a number (SI units).
  [[nodiscard]] double of(Objective objective) const;
};

/// The score of `estimate`. Without a token budget, cost and TCO are those of one step's wall-clock time at
/// the estimate's owned_rate / rental_rate.
[[nodiscard]] Score score(const StepEstimate& estimate);

/// The three quantities a Pareto front is taken over.
using ParetoAxes = std::array<Objective, 3>;
/// (time, cost, switches).
inline constexpr ParetoAxes kDefaultParetoAxes{Objective::kTime, Objective::kCost, Objective::kSwitches};
/// Three distinct objectives separated by commas ("time,tco,switches"). Throws Error (kInput) naming the bad
/// part, with a suggestion.
[[nodiscard]] ParetoAxes parse_pareto_axes(std::string_view text);
/// "time, cost, switches".
[[nodiscard]] std::string to_string(const ParetoAxes& axes);

/// Total order over configurations (fabric kind, oversubscription, then every Strategy field, whose degrees
/// give the GPU count):
/// negative when `a` comes first, 0 when they are the same configuration, positive otherwise.
[[nodiscard]] int compare_configurations(const StepEstimate& a, const StepEstimate& b);
/// The same over a strategy and the fabric it runs on.
[[nodiscard]] int compare_configurations(const Strategy& a, TopologyKind a_kind, double a_oversubscription,
                                         const Strategy& b, TopologyKind b_kind, double b_oversubscription);

/// True when (`a`, `a_score`) ranks strictly before (`b`, `b_score`) under `objective`: the objective's
/// quantity, then the others (in Objective order), then compare_configurations().
[[nodiscard]] bool ranks_before(const Score& a_score, const StepEstimate& a, const Score& b_score,
                                const StepEstimate& b, Objective objective);

/// True when `a` is no worse than `b` on every axis and better on at least one.
[[nodiscard]] bool dominates(const Score& a, const Score& b, const ParetoAxes& axes = kDefaultParetoAxes);
/// True when `a` and `b` are equal on every axis.
[[nodiscard]] bool same_on(const Score& a, const Score& b, const ParetoAxes& axes = kDefaultParetoAxes);

}  // namespace costmodel::inline COSTMODEL_ABI
