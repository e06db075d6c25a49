// SPDX-License-Identifier: Apache-2.0
#include "costmodel/analysis/scenario.hpp"

#include <algorithm>
#include <chrono>

#include "costmodel/error.hpp"
#include "costmodel/network/topology.hpp"
#include "text.hpp"

namespace costmodel::inline COSTMODEL_ABI {

const std::vector<std::string>& scenario_default_columns() {
  static const std::vector<std::string> kColumns = {
      "split",      "micro_batch",   "recompute", "topology", "step_time_s",     "mfu",
      "comm_share", "training_days", "cost_usd",  "switches", "network_power_w", "speedup",
      "cost_delta", "switches_delta"};
  return kColumns;
}

ScenarioResult run_scenario(const Scenario& scenario, const ScenarioProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioResult result;
  const double total = static_cast<double>(std::max<size_t>(1, scenario.cases.size()));
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& c = scenario.cases[i];
    ScenarioRow row;
    PlanRequest request = c.request;
    const int top = scenario.top.value_or(request.top_k);
    request.top_k = top;
    try {
      const PlanResult plan_result = plan(request, [&](double fraction) {
        if (progress) progress((static_cast<double>(i) + fraction) / total);
      });
      row.evaluated = plan_result.evaluated;
      row.feasible = plan_result.feasible;
      for (size_t k = 0; k < plan_result.top.size() && static_cast<int>(k) < top; ++k) {
        row.best.push_back(plan_result.top[k]);
      }
      if (row.best.empty() && c.pinned && !plan_result.closest.empty() &&
          plan_result.closest.front().estimate.valid()) {
        // The pinned split does not fit: report what it would do, flagged (the estimator's answer).
        row.best.push_back(plan_result.closest.front().estimate);
        row.note = "pinned split does not fit: " + join(plan_result.closest.front().reasons, "; ");
      } else if (row.best.empty()) {
        std::vector<std::string> reasons;
        for (int k = 0; k < kRejectionReasonCount; ++k) {
          if (plan_result.rejected[static_cast<size_t>(k)] > 0) {
            reasons.push_back(std::string(rejection_reason_name(k)) + " " +
                              std::to_string(plan_result.rejected[static_cast<size_t>(k)]));
          }
        }
        row.note = reasons.empty() ? "nothing feasible: no split satisfies the pins"
                                   : "nothing feasible (rejected: " + join(reasons, ", ") + ")";
        if (!plan_result.closest.empty() && !plan_result.closest.front().reasons.empty()) {
          row.note += "; closest: " + plan_result.closest.front().reasons.front();
        }
      }
      for (const auto& skipped : plan_result.skipped_topologies) {
        row.note += (row.note.empty() ? "skipped " : "; skipped ") + skipped;
      }
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
      row.note = e.message();
    }
    if (!row.best.empty()) {
      ClusterSpec cluster = c.request.cluster;
      cluster.topology = row.best.front().topology;
      cluster.oversubscription = row.best.front().oversubscription;
      const Topology topology = build_topology(cluster);
      row.diameter = topology.diameter;
      row.transceivers = topology.inventory.optical_transceivers;
      row.network_power = topology.inventory.power;
    }
    result.rows.push_back(std::move(row));
    if (progress) progress(static_cast<double>(i + 1) / total);
  }
  // Baselines: the case equal on every dimension but those the baseline names.
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    std::optional<size_t> found;
    if (scenario.baseline.empty()) {
      found = 0;
    } else {
      for (size_t j = 0; j < scenario.cases.size() && !found; ++j) {
        bool match = true;
        for (size_t d = 0; d < scenario.dimensions.size() && match; ++d) {
          const auto named = std::find_if(scenario.baseline.begin(), scenario.baseline.end(),
                                          [&](const auto& b) { return b.first == scenario.dimensions[d]; });
          const std::string& want =
              named != scenario.baseline.end() ? named->second : scenario.cases[i].coordinates[d];
          match = scenario.cases[j].coordinates[d] == want;
        }
        if (match) found = j;
      }
    }
    if (found && !result.rows[*found].best.empty() && !result.rows[i].best.empty())
      result.rows[i].baseline = found;
  }
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace costmodel::inline COSTMODEL_ABI
