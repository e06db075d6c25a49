// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/plan.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "costmodel/report/configuration.hpp"
#include "costmodel/report/html.hpp"
#include "costmodel/report/launch.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

std::string fabric_name(const StepEstimate& e) {
  std::string name(to_string(e.topology));
  if (e.oversubscription != 1.0) name.append(":").append(format_number(e.oversubscription, 3));
  return name;
}

double days_of(const StepEstimate& e) {
  return e.training_time ? e.training_time->value / kSecondsPerDay : std::nan("");
}

/// "#1 trains at a global batch of 1920 sequences (15.73M tokens per step), chosen in 1843:2253 sequences":
/// the batch a search with a batch range chose.
std::string chosen_batch_note(const PlanResult& result, const PlanRequest& request) {
  const int batch = result.top.front().strategy.global_batch;
  const double tokens = static_cast<double>(batch) * static_cast<double>(result.model.seq_len);
  return "#1 trains at a global batch of " + std::to_string(batch) + " sequences (" +
         format_number(tokens / 1e6, 4) + "M tokens per step), chosen in " +
         std::to_string(request.batch_range->min) + ":" + std::to_string(request.batch_range->max) +
         " sequences";
}

/// Why no configuration of GPU count `c` fits: no split the stack runs divides the model, batch and GPUs,
/// those that do need more memory, or those that fit draw more than the power cap.
std::string why_none(const GpuCountResult& c) {
  if (c.valid == 0) return "no split the stack runs divides the layers, heads, batch and GPUs";
  if (c.over_power_cap > 0) return "over the power cap";
  return "no split fits in memory";
}

/// Why GPU count `c` lost to the chosen one, in a few words.
std::string verdict(const GpuCountResult& c, const GpuCountResult& chosen, const PlanRequest& request) {
  if (c.gpus == chosen.gpus) return "chosen";
  if (!c.best) {
    if (!c.fastest) return why_none(c);
    return "misses the deadline: " + format_number(days_of(*c.fastest), 3) + " days at best";
  }
  const Score s = score(*c.best);
  const Score best = score(*chosen.best);
  const double ours = s.of(request.objective);
  const double theirs = best.of(request.objective);
  std::string what(describe(request.objective));
  if (theirs > 0 && std::isfinite(ours) && ours != theirs) {
    return what + " " + (ours > theirs ? "+" : "") + format_number(100.0 * (ours / theirs - 1.0), 3) + "%";
  }
  return "ranks after on a tie-break";
}

/// One sentence on the counts of `side` (all smaller or all larger than the chosen one).
std::string side_note(const std::vector<GpuCountResult>& side, const GpuCountResult& chosen,
                      const PlanRequest& request, const std::string& label) {
  if (side.empty()) return {};
  std::vector<const GpuCountResult*> missed;
  std::vector<const GpuCountResult*> lost;
  std::vector<const GpuCountResult*> none;
  for (const auto& c : side) {
    (c.best ? lost : c.fastest ? missed : none).push_back(&c);
  }
  const auto counts = [](const std::vector<const GpuCountResult*>& v) {
    return v.size() == 1 ? std::to_string(v.front()->gpus) + " GPUs"
                         : std::to_string(v.size()) + " counts from " + std::to_string(v.front()->gpus) +
                               " to " + std::to_string(v.back()->gpus) + " GPUs";
  };
  std::vector<std::string> parts;
  if (!missed.empty()) {
    // The closest miss: the one nearest the deadline.
    const GpuCountResult* nearest = *std::min_element(missed.begin(), missed.end(), [](auto* a, auto* b) {
      return days_of(*a->fastest) < days_of(*b->fastest);
    });
    const std::string who = missed.size() == 1 ? "" : std::to_string(nearest->gpus) + " GPUs need ";
    parts.push_back(counts(missed) + " miss the deadline (" + who +
                    format_number(days_of(*nearest->fastest), 4) + " days at best)");
  }
  if (!lost.empty()) {
    const GpuCountResult* nearest = label == "smaller" ? lost.back() : lost.front();
    const std::string who = lost.size() == 1 ? "" : std::to_string(nearest->gpus) + " GPUs: ";
    parts.push_back(counts(lost) + " meet it at a higher " + std::string(describe(request.objective)) + " (" +
                    who + verdict(*nearest, chosen, request) + ")");
  }
  // The counts where nothing fits, by their real reason (issue 30: divisibility was called memory).
  std::vector<std::string> reasons;
  for (const auto& c : none) {
    if (std::find(reasons.begin(), reasons.end(), why_none(*c)) == reasons.end())
      reasons.push_back(why_none(*c));
  }
  for (const std::string& reason : reasons) {
    std::vector<const GpuCountResult*> these;
    for (const auto* c : none) {
      if (why_none(*c) == reason) these.push_back(c);
    }
    parts.push_back(counts(these) + (these.size() == 1 ? " has " : " have ") +
                    "nothing that runs: " + reason);
  }
  std::string text = label + " clusters lost: ";
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : "; ") + parts[i];
  return text;
}

}  // namespace

Json plan_json(const PlanResult& result) {
  Json configs = Json::array();
  for (const auto& e : result.top)
    configs.push_back(configuration_json(e, result.model, result.cluster, result.options));
  Json pareto = Json::array();
  for (const auto& e : result.pareto)
    pareto.push_back(configuration_json(e, result.model, result.cluster, result.options));
  Json counts = Json::array();
  for (const auto& c : result.gpu_counts) {
    Json count = Json::object();
    count.set("gpus", c.gpus).set("feasible", Json(c.feasible));
    const StepEstimate* b = c.best ? &*c.best : nullptr;
    count.set("global_batch", b ? Json(b->strategy.global_batch) : Json());
    count.set("topology", b ? Json(std::string(to_string(b->topology))) : Json())
        .set("oversubscription", b ? Json(b->oversubscription) : Json())
        .set("switches", b ? Json(b->switches) : Json())
        .set("capex_usd", b ? Json(b->capex.value) : Json())
        .set("training_days", b ? Json(days_of(*b)) : Json())
        .set("cost_usd", b && b->cost() ? Json(b->cost()->value) : Json())
        .set("fastest_days", c.fastest ? Json(days_of(*c.fastest)) : Json())
        .set("none_reason", c.best || c.fastest ? Json() : Json(why_none(c)));
    counts.push_back(std::move(count));
  }
  Json rejected = Json::object();
  for (int k = 0; k < kRejectionReasonCount; ++k) {
    rejected.set(std::string(rejection_reason_name(k)), Json(result.rejected[static_cast<size_t>(k)]));
  }
  Json skipped = Json::array();
  for (const auto& s : result.skipped_topologies) skipped.push_back(Json(s));
  Json document = Json::object();
  document.set("configs", std::move(configs))
      .set("pareto", std::move(pareto))
      .set("gpu_counts", std::move(counts))
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

std::string cost_basis_note(const EconomicsSpec& economics, const GpuSpec& gpu) {
  if (economics.cost_basis == CostBasis::kRental) {
    return "cost = GPU rental at " + format_number(gpu.rental_price.value * kSecondsPerHour, 4) +
           " USD/h per GPU";
  }
  return "cost = owned TCO: capex over " + format_number(economics.amortization_years, 3) +
         " years + energy at " + format_number(economics.electricity.value * kJoulesPerKwh, 3) +
         " USD/kWh x PUE " + format_number(economics.pue, 3);
}

Table gpu_counts_table(const PlanResult& result, const PlanRequest& request) {
  Table table;
  const auto& counts = result.gpu_counts;
  const auto chosen_at = std::find_if(counts.begin(), counts.end(), [&](const GpuCountResult& c) {
    return !result.top.empty() && c.gpus == result.top.front().gpus;
  });
  if (!request.deadline || chosen_at == counts.end()) return table;
  const GpuCountResult& chosen = *chosen_at;
  table.title = "by GPU count: the best configuration of each within " +
                format_number(request.deadline->time.value / kSecondsPerDay, 4) + " wall-clock days, by " +
                std::string(to_string(request.objective));
  table.columns = {{"gpus", "GPUs", "", 1.0, 6},          {"topology", "fabric", "", 1.0, 4},
                   {"switches", "switches", "", 1.0, 6},  {"capex_usd", "capex", "M$", 1e6, 4},
                   {"training_days", "days", "", 1.0, 4}, {"cost_usd", "cost", "M$", 1e6, 4},
                   {"goodput", "goodput", "%", 0.01, 3},  {"verdict", "verdict", "", 1.0, 4}};
  // The chosen count, the four nearest either side that fit some split, and the ends of the range; the
  // counts where nothing fits are in the notes only.
  constexpr int kNeighbours = 4;
  std::vector<const GpuCountResult*> shown;
  int below = 0;
  for (auto it = chosen_at; it != counts.begin() && below < kNeighbours;) {
    --it;
    if (it->fastest) {
      shown.insert(shown.begin(), &*it);
      ++below;
    }
  }
  if (const auto first = std::find_if(counts.begin(), chosen_at, [](const auto& c) { return c.fastest; });
      first != chosen_at && (shown.empty() || shown.front() != &*first)) {
    shown.insert(shown.begin(), &*first);
  }
  shown.push_back(&chosen);
  int above = 0;
  const GpuCountResult* last_shown = nullptr;
  for (auto it = chosen_at + 1; it != counts.end(); ++it) {
    if (!it->fastest) continue;
    if (above < kNeighbours) {
      shown.push_back(&*it);
      ++above;
    }
    last_shown = &*it;
  }
  if (last_shown && shown.back() != last_shown) shown.push_back(last_shown);
  for (const GpuCountResult* c : shown) {
    const StepEstimate* b = c->best ? &*c->best : nullptr;
    table.rows.push_back({Json(c->gpus), b ? Json(fabric_name(*b)) : Json(), b ? Json(b->switches) : Json(),
                          b ? Json(b->capex.value) : Json(), b ? Json(days_of(*b)) : Json(),
                          b && b->cost() ? Json(b->cost()->value) : Json(),
                          b ? Json(b->goodput.fraction) : Json(), Json(verdict(*c, chosen, request))});
    // With a batch range, the batch each count chose (sequences).
    if (request.batch_range) {
      table.rows.back().insert(table.rows.back().begin() + 1, b ? Json(b->strategy.global_batch) : Json());
    }
  }
  if (request.batch_range)
    table.columns.insert(table.columns.begin() + 1, Column{"global_batch", "batch", "", 1.0, 6});
  const std::vector<GpuCountResult> smaller(counts.begin(), chosen_at);
  const std::vector<GpuCountResult> larger(chosen_at + 1, counts.end());
  for (const auto& note :
       {side_note(smaller, chosen, request, "smaller"), side_note(larger, chosen, request, "larger")}) {
    if (!note.empty()) table.notes.push_back(note);
  }
  table.notes.push_back(cost_basis_note(request.options.economics, request.cluster.gpu) +
                        "; days are wall-clock, after goodput");
  return table;
}

void write_plan(std::ostream& out, const PlanResult& result, const PlanRequest& request, Format format,
                bool pareto) {
  if (is_launch(format)) {
    write_launch(out, pareto ? result.pareto : result.top, result.model, result.cluster, format,
                 request.options);
    return;
  }
  if (format == Format::kJson) {
    plan_json(result).write(out);
    out << '\n';
    return;
  }
  if (format == Format::kHtml) return write_plan_html(out, result, request);
  const bool deadline = request.deadline.has_value();
  if (format == Format::kCsv) {
    Table table = configurations_table(result.top, result.options, "", true, deadline, result.cluster.stack,
                                       result.model.seq_len);
    if (pareto) {
      // The top rows and then the Pareto front, each row saying which (issue 30: the front alone dropped
      // the top rows): a leading `set` column, top or pareto.
      const Table front = configurations_table(result.pareto, result.options, "", true, deadline,
                                               result.cluster.stack, result.model.seq_len);
      table.columns.insert(table.columns.begin(), Column{"set", "set", "", 1.0, 4, Audience::kEveryone});
      for (auto& row : table.rows) row.insert(row.begin(), Json(std::string("top")));
      for (const auto& row : front.rows) {
        table.rows.push_back(row);
        table.rows.back().insert(table.rows.back().begin(), Json(std::string("pareto")));
      }
    }
    write_table(out, table, Format::kCsv);
    return;
  }
  std::ostringstream summary;
  summary << "evaluated " << result.evaluated << " candidates, " << result.feasible << " feasible, in "
          << format_number(result.elapsed_s, 3) << " s on " << result.threads << " threads";
  std::vector<std::string> notes = {summary.str(), "rejected: " + rejected_summary(result)};
  if (!result.top.empty()) {
    if (const std::string used = describe_collectives(result.top.front(), tuner_label(result.cluster));
        !used.empty())
      notes.push_back("#1 runs on " + result.cluster.gpu.library + ": " + used);
    if (const std::string interval = describe_interval(result.top.front()); !interval.empty())
      notes.push_back("#1 step time " + interval + " (data/intervals.yaml, docs/intervals.md)");
  }
  for (const auto& s : result.skipped_topologies) notes.push_back("skipped " + s);
  if (request.batch_range && !result.top.empty()) notes.push_back(chosen_batch_note(result, request));

  const std::string basis = cost_basis_note(request.options.economics, request.cluster.gpu);
  std::vector<Table> tables;
  tables.push_back(configurations_table(result.top, result.options,
                                        "top " + std::to_string(result.top.size()) + " by " +
                                            std::string(to_string(request.objective)) +
                                            (request.pessimistic ? ":high" : "") + "; " + basis,
                                        true, deadline));
  // The header names the fabric searched: one --topology choice replaces the base cluster's; several are
  // listed after it.
  ClusterSpec described = result.cluster;
  if (request.topologies.size() == 1) {
    described.topology = request.topologies.front().kind;
    described.oversubscription =
        request.topologies.front().oversubscription.value_or(described.oversubscription);
  }
  std::string cluster = describe_cluster(described);
  if (request.topologies.size() > 1) {
    // Spelled as the cluster's own fabric is ("fat-tree 4:1"), comma-separated.
    cluster += "; fabrics searched: ";
    const char* separator = "";
    for (const TopologyChoice& t : request.topologies) {
      cluster += separator + std::string(to_string(t.kind));
      if (t.oversubscription) cluster += " " + format_number(*t.oversubscription, 3) + ":1";
      separator = ", ";
    }
  }
  if (deadline) {
    // The GPU count is what the search varies: name its range instead of the base cluster's count.
    const std::string base = "cluster: " + std::to_string(result.cluster.gpus) + " x ";
    if (cluster.rfind(base, 0) == 0) {
      cluster = "cluster: " + std::to_string(request.deadline->min_gpus) + "-" +
                std::to_string(request.deadline->max_gpus) + " x " + cluster.substr(base.size());
    }
  }
  tables.front().preamble = {
      cluster,
      request.batch_range && !result.top.empty()
          ? describe_run(result.model, result.top.front().strategy.global_batch, request.options.tokens) +
                " (#1's batch; searched " + std::to_string(request.batch_range->min) + "-" +
                std::to_string(request.batch_range->max) + " sequences)"
          : describe_run(result.model, request.training.global_batch, request.options.tokens)};
  if (pareto) {
    tables.push_back(configurations_table(result.pareto, result.options,
                                          "Pareto front of (" + to_string(request.pareto) + ")", true,
                                          deadline));
  }
  if (Table counts = gpu_counts_table(result, request); !counts.rows.empty())
    tables.push_back(std::move(counts));
  // The search summary under the last table.
  tables.back().notes.insert(tables.back().notes.end(), notes.begin(), notes.end());
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) out << '\n';
    write_table(out, tables[i], format);
  }
}

}  // namespace costmodel::inline COSTMODEL_ABI
