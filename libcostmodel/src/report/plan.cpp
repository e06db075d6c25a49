// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/plan.hpp"

#include <sstream>

#include "costmodel/report/configuration.hpp"
#include "costmodel/report/launch.hpp"

namespace costmodel {

Json plan_json(const PlanResult& result) {
  Json configs = Json::array();
  for (const auto& e : result.top) configs.push_back(configuration_json(e, result.model, result.cluster));
  Json pareto = Json::array();
  for (const auto& e : result.pareto) pareto.push_back(configuration_json(e, result.model, result.cluster));
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
      .set("skipped_topologies", std::move(skipped))
      .set("schema_version", kSchemaVersion);
  return document;
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

void write_plan(std::ostream& out, const PlanResult& result, Objective objective, Format format,
                bool pareto) {
  if (is_launch(format)) {
    write_launch(out, pareto ? result.pareto : result.top, result.model, result.cluster, format);
    return;
  }
  if (format == Format::kJson) {
    plan_json(result).write(out);
    out << '\n';
    return;
  }
  if (format == Format::kCsv) {
    write_table(out, configurations_table(pareto ? result.pareto : result.top, "", true), Format::kCsv);
    return;
  }
  std::ostringstream summary;
  summary << "evaluated " << result.evaluated << " candidates, " << result.feasible << " feasible, in "
          << format_number(result.elapsed_s, 3) << " s on " << result.threads << " threads";
  std::vector<std::string> notes = {summary.str(), "rejected: " + rejected_summary(result)};
  for (const auto& s : result.skipped_topologies) notes.push_back("skipped " + s);

  Table top = configurations_table(
      result.top, "top " + std::to_string(result.top.size()) + " by " + std::string(to_string(objective)),
      true);
  top.preamble = {describe_cluster(result.cluster)};
  if (!pareto) top.notes = notes;
  write_table(out, top, format);
  if (pareto) {
    Table front = configurations_table(result.pareto, "Pareto front of (step time, cost, switches)", true);
    front.notes = notes;
    out << '\n';
    write_table(out, front, format);
  }
}

}  // namespace costmodel
