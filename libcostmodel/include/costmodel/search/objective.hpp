// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the planner ranks by: step time, cost or switch count, with a deterministic total order over
// configurations for ties, and Pareto dominance over (step time, cost, switches).

#include <optional>
#include <string_view>

#include "costmodel/estimate/step.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// The quantity ranked first; the other two break ties, then the configuration itself.
enum class Objective { kTime, kCost, kSwitches };
/// "time", "cost", "switches".
[[nodiscard]] std::string_view to_string(Objective objective);
/// The objective named `name`, or nullopt.
[[nodiscard]] std::optional<Objective> parse_objective(std::string_view name);

/// The three ranked quantities of one estimate, all to be minimised.
struct Score {
  Seconds step_time;  ///< one step
  Usd cost;           ///< rental cost of the token budget, else of one step
  int switches = 0;   ///< switches of the scale-out fabric
};

/// The score of `estimate`: cost is StepEstimate::rental_cost when a token budget was given, else the cost of
/// one step, GPUs x step time x `rental_price`.
[[nodiscard]] Score score(const StepEstimate& estimate, UsdPerSecond rental_price);

/// Total order over configurations (fabric kind, oversubscription, then every Strategy field):
/// negative when `a` comes first, 0 when they are the same configuration, positive otherwise.
[[nodiscard]] int compare_configurations(const StepEstimate& a, const StepEstimate& b);
/// The same over a strategy and the fabric it runs on.
[[nodiscard]] int compare_configurations(const Strategy& a, TopologyKind a_kind, double a_oversubscription,
                                         const Strategy& b, TopologyKind b_kind, double b_oversubscription);

/// True when (`a`, `a_score`) ranks strictly before (`b`, `b_score`) under `objective`: the objective's
/// quantity, then the other two (time, cost, switches order), then compare_configurations().
[[nodiscard]] bool ranks_before(const Score& a_score, const StepEstimate& a, const Score& b_score,
                                const StepEstimate& b, Objective objective);

/// True when `a` is no worse than `b` in step time, cost and switches and better in at least one.
[[nodiscard]] bool dominates(const Score& a, const Score& b);

}  // namespace costmodel
