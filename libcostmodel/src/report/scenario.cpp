// SPDX-License-Identifier: Apache-2.0
#include "report/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "cells.hpp"
#include "costmodel/error.hpp"
#include "costmodel/report/configuration.hpp"
#include "costmodel/report/plan.hpp"
#include "costmodel/search/objective.hpp"
#include "costmodel/units.hpp"
#include "degrees.hpp"
#include "knob_columns.hpp"
#include "text.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// ---------------------------------------------------------------------------------------------------
// Columns

struct RowView {
  const ScenarioCase& scenario_case;
  const ScenarioRow& row;
  const StepEstimate& estimate;
  const StepEstimate* baseline;  // the baseline case's best, or nullptr
  const ScenarioRow* baseline_row;
  const ScenarioCase* baseline_case;
};

std::string split_text(const Strategy& s) {
  std::string text =
      "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp) + " dp" + std::to_string(s.dp);
  text += detail::degrees_beyond_tp_pp_dp(s);
  if (s.vpp > 1) text += " vpp" + std::to_string(s.vpp);
  return text;
}

double exposed_comm(const StepEstimate& e) {
  const auto& b = e.breakdown;
  return b.tp_comm.value + b.cp_comm.value + b.ep_comm.value + b.pp_comm.value + b.dp_comm_exposed.value;
}

double case_cost(const StepEstimate& e) {
  return score(e).cost.value;
}

Json delta(const RowView& v, double (*value)(const RowView&, bool)) {
  if (!v.baseline) return Json();
  return Json(value(v, false) - value(v, true));
}

// The columns a scenario's `columns:` may name: these, then every other declared knob (knob_columns.hpp).
std::vector<ColumnOf<RowView>> make_column_defs() {
  std::vector<ColumnOf<RowView>> columns = {
      {"split", "split", "", 1, [](const RowView& v) { return Json(split_text(v.estimate.strategy)); }},
      {"gpus", "GPUs", "", 1, [](const RowView& v) { return Json(v.estimate.gpus); }, 6},
      {"tp", "tp", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.tp); }},
      {"pp", "pp", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.pp); }},
      {"dp", "dp", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.dp); }, 6},
      {"cp", "cp", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.cp); }},
      {"ep", "ep", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.ep); }},
      {"etp", "etp", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.expert_tp()); }, 4,
       Audience::kMachines},
      {"vpp", "vpp", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.vpp); }},
      {"micro_batch", "mb", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.micro_batch); }},
      {"global_batch", "batch", "", 1,
       [](const RowView& v) { return Json(v.estimate.strategy.global_batch); }, 6},
      {"recompute", "recompute", "", 1,
       [](const RowView& v) { return Json(std::string(to_string(v.estimate.strategy.recompute))); }},
      {"zero", "zero", "", 1, [](const RowView& v) { return Json(v.estimate.strategy.zero); }, 2},
      {"topology", "fabric", "", 1, [](const RowView& v) { return Json(detail::fabric_label(v.estimate)); }},
      {"fits_memory", "fits", "", 1, [](const RowView& v) { return Json(v.estimate.fits_memory); }, 1},
      {"step_time_s", "step", "s", 1, [](const RowView& v) { return Json(v.estimate.step_time.value); }},
      {"tokens_per_s", "tokens/s", "M", 1e6, [](const RowView& v) { return Json(v.estimate.tokens_per_s); }},
      {"model_tflops_per_gpu", "model", "TFLOP/s", 1,
       [](const RowView& v) { return Json(v.estimate.model_flops_per_gpu.value / 1e12); }},
      {"hardware_tflops_per_gpu", "hardware", "TFLOP/s", 1,
       [](const RowView& v) { return Json(v.estimate.hardware_flops_per_gpu.value / 1e12); }},
      {"mfu", "MFU", "%", 0.01, [](const RowView& v) { return Json(v.estimate.mfu); }, 3},
      {"memory_per_gpu_bytes", "memory", "GiB", kGibi,
       [](const RowView& v) { return Json(v.estimate.memory.total.value); }, 3},
      {"comm_share", "exposed comm", "%", 0.01,
       [](const RowView& v) {
         const double step = v.estimate.step_time.value;
         return Json(step > 0 ? exposed_comm(v.estimate) / step : 0.0);
       },
       3},
      {"compute_s", "compute", "s", 1,
       [](const RowView& v) { return Json(v.estimate.breakdown.compute.value); }},
      {"tp_comm_s", "TP comm", "s", 1,
       [](const RowView& v) { return Json(v.estimate.breakdown.tp_comm.value); }},
      {"ep_comm_s", "EP comm", "s", 1,
       [](const RowView& v) { return Json(v.estimate.breakdown.ep_comm.value); }},
      {"pp_bubble_s", "bubble", "s", 1,
       [](const RowView& v) { return Json(v.estimate.breakdown.pp_bubble.value); }},
      {"dp_comm_s", "DP comm", "s", 1,
       [](const RowView& v) { return Json(v.estimate.breakdown.dp_comm.value); }},
      {"dp_comm_exposed_s", "DP exposed", "s", 1,
       [](const RowView& v) { return Json(v.estimate.breakdown.dp_comm_exposed.value); }},
      {"optimizer_s", "optimizer", "s", 1,
       [](const RowView& v) { return Json(v.estimate.breakdown.optimizer.value); }},
      {"training_days", "days", "", 1,
       [](const RowView& v) { return detail::days_cell(v.estimate.training_time); }},
      {"ideal_days", "ideal days", "", 1,
       [](const RowView& v) { return detail::days_cell(v.estimate.ideal_time); }},
      {"goodput", "goodput", "%", 0.01, [](const RowView& v) { return Json(v.estimate.goodput.fraction); },
       3},
      {"interruptions", "interruptions", "", 1,
       [](const RowView& v) { return v.estimate.interruptions ? Json(*v.estimate.interruptions) : Json(); }},
      {"planned_interruptions", "planned", "", 1,
       [](const RowView& v) {
         return v.estimate.planned_interruptions ? Json(*v.estimate.planned_interruptions) : Json();
       }},
      {"interruptions_per_day", "interruptions/day", "", 1,
       [](const RowView& v) { return Json(interruptions_per_day(v.estimate.goodput)); }},
      {"cluster_mtbf_s", "MTBF", "h", kSecondsPerHour,
       [](const RowView& v) {
         const double m = v.estimate.goodput.cluster_mtbf.value;
         return std::isfinite(m) ? Json(m) : Json();
       }},
      {"checkpoint_time_s", "checkpoint", "s", 1,
       [](const RowView& v) { return Json(v.estimate.goodput.checkpoint_time.value); }},
      {"checkpoint_interval_s", "interval", "min", kSecondsPerMinute,
       [](const RowView& v) {
         const double t = v.estimate.goodput.checkpoint_interval.value;
         return std::isfinite(t) ? Json(t) : Json();
       }},
      {"cost_usd", "cost", "M$", 1e6, [](const RowView& v) { return detail::usd_cell(v.estimate.cost()); }},
      {"rental_cost_usd", "rental", "M$", 1e6,
       [](const RowView& v) { return detail::usd_cell(v.estimate.rental_cost); }},
      {"tco_usd", "TCO", "M$", 1e6, [](const RowView& v) { return detail::usd_cell(v.estimate.tco); }},
      {"capex_usd", "capex", "M$", 1e6, [](const RowView& v) { return Json(v.estimate.capex.value); }},
      {"gpu_capex_usd", "GPU capex", "M$", 1e6,
       [](const RowView& v) { return Json(v.estimate.gpu_capex.value); }},
      {"gpu", "GPU", "", 1, [](const RowView& v) { return Json(v.scenario_case.request.cluster.gpu.name); }},
      {"scale_up", "scale-up", "", 1,
       [](const RowView& v) {
         const ClusterSpec& c = v.scenario_case.request.cluster;
         const std::string name = c.scale_up_fabric().name;
         return Json((name.empty() ? std::string("own") : name) + " x" + std::to_string(c.scale_up_domain()));
       }},
      {"library", "library", "", 1,
       [](const RowView& v) { return Json(v.scenario_case.request.cluster.gpu.library); }},
      {"scale_up_capex_usd", "SU capex", "M$", 1e6,
       [](const RowView& v) { return Json(v.estimate.scale_up_capex.value); }},
      {"scale_up_power_w", "SU power", "kW", 1e3,
       [](const RowView& v) { return Json(v.estimate.scale_up_power.value); }},
      {"energy_kwh", "energy", "GWh", 1e6,
       [](const RowView& v) {
         return v.estimate.energy ? Json(v.estimate.energy->value / kJoulesPerKwh) : Json();
       }},
      {"energy_usd", "energy cost", "M$", 1e6,
       [](const RowView& v) { return detail::usd_cell(v.estimate.energy_cost); }},
      {"switches", "switches", "", 1, [](const RowView& v) { return Json(v.estimate.switches); }, 6},
      {"transceivers", "optics", "", 1, [](const RowView& v) { return Json(v.row.transceivers); }, 6},
      {"diameter", "diameter", "", 1, [](const RowView& v) { return Json(v.row.diameter); }, 3},
      {"network_cost_usd", "net capex", "M$", 1e6,
       [](const RowView& v) { return Json(v.estimate.network_capex.value); }},
      {"network_power_w", "net power", "kW", 1e3,
       [](const RowView& v) { return Json(v.row.network_power.value); }},
      {"power_w", "power", "MW", 1e6, [](const RowView& v) { return Json(v.estimate.power.value); }},
      {"speedup", "speed-up", "x", 1,
       [](const RowView& v) {
         return v.baseline && v.estimate.step_time.value > 0
                    ? Json(v.baseline->step_time.value / v.estimate.step_time.value)
                    : Json();
       },
       3},
      {"cost_delta", "cost +/-", "%", 0.01,
       [](const RowView& v) {
         if (!v.baseline) return Json();
         const double base = case_cost(*v.baseline);
         return base > 0 ? Json(case_cost(v.estimate) / base - 1.0) : Json();
       },
       3},
      {"switches_delta", "switches +/-", "", 1,
       [](const RowView& v) {
         return v.baseline ? Json(v.estimate.switches - v.baseline->switches) : Json();
       },
       6},
      {"network_cost_delta_usd", "net capex +/-", "M$", 1e6,
       [](const RowView& v) {
         return delta(v, [](const RowView& r, bool base) {
           return base ? r.baseline->network_capex.value : r.estimate.network_capex.value;
         });
       }},
      {"network_power_delta_w", "net power +/-", "kW", 1e3,
       [](const RowView& v) {
         return delta(v, [](const RowView& r, bool base) {
           return base ? r.baseline_row->network_power.value : r.row.network_power.value;
         });
       }},
      {"power_delta_w", "power +/-", "kW", 1e3,
       [](const RowView& v) {
         return delta(v, [](const RowView& r, bool base) {
           return base ? r.baseline->power.value : r.estimate.power.value;
         });
       }},
      {"evaluated", "evaluated", "", 1, [](const RowView& v) { return Json(v.row.evaluated); }, 8},
      {"feasible", "feasible", "", 1, [](const RowView& v) { return Json(v.row.feasible); }, 8},
  };
  for (auto& column : detail::knob_columns(
           columns, [](const RowView& v) -> const Strategy& { return v.estimate.strategy; },
           [](const RowView& v) -> const EstimateOptions& { return v.scenario_case.request.options; },
           Audience::kEveryone))
    columns.push_back(std::move(column));
  return columns;
}

const std::vector<ColumnOf<RowView>>& column_defs() {
  static const std::vector<ColumnOf<RowView>> kColumns = make_column_defs();
  return kColumns;
}

/// Columns whose cells are text (or yes/no), which a plot cannot take as y.
bool is_text_column(const std::string& key) {
  if (key == "split" || key == "recompute" || key == "topology" || key == "fits_memory" || key == "gpu" ||
      key == "scale_up" || key == "library" || key == "note")
    return true;
  // A knob's column is text when its declaration gives words or on/off (its value at the defaults).
  for (const TrainingField& field : training_fields()) {
    if (field.key != key || !field.column) continue;
    const KnobValue value = field.column(Strategy{}, EstimateOptions{});
    return std::holds_alternative<std::string>(value) || std::holds_alternative<bool>(value);
  }
  return false;
}

const ColumnOf<RowView>& column(const std::string& key) {
  for (const auto& c : column_defs()) {
    if (c.key == key) return c;
  }
  throw Error("internal: unknown scenario column '" + key + "'", ErrorKind::kInternal);
}

/// A dimension's header: its path without the section prefix.
std::string dimension_header(const std::string& dimension) {
  for (const std::string prefix : {"cluster.", "training.", "planner."}) {
    if (dimension.rfind(prefix, 0) == 0) return dimension.substr(prefix.size());
  }
  return dimension;
}

/// A coordinate as a JSON number when it is one.
Json coordinate_json(const std::string& text) {
  try {
    const double value = parse_number(text);
    if (value == std::floor(value) && std::fabs(value) < 9e15) return Json(static_cast<std::int64_t>(value));
    return Json(value);
  } catch (const Error&) {
    return Json(text);
  }
}

bool is_number(const std::string& text) {
  try {
    (void)parse_number(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

// The scenario's report.columns keys are the column definitions' own keys: one list, so that a column cannot
// be printed yet refused by the reader (etp was).
const std::vector<std::string>& scenario_column_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys;
    for (const auto& c : column_defs()) keys.push_back(c.key);
    return keys;
  }();
  return kKeys;
}

bool is_numeric_scenario_column(const std::string& key) {
  return !is_text_column(key);
}

Table scenario_table(const Scenario& scenario, const ScenarioResult& result) {
  const auto& keys = scenario.columns.empty() ? scenario_default_columns() : scenario.columns;
  Table table;
  table.title = scenario.title;
  // A dimension reads as written for people and as a number, where it is one, for machines.
  for (const auto& d : scenario.dimensions) {
    table.columns.push_back({d, dimension_header(d), "", 1.0, 6, Audience::kPeople});
    table.columns.push_back({d, d, "", 1.0, 6, Audience::kMachines});
  }
  const bool ranked =
      std::any_of(result.rows.begin(), result.rows.end(), [](const auto& r) { return r.best.size() > 1; });
  if (ranked) table.columns.push_back({"rank", "#", "", 1.0, 3});
  for (const auto& key : keys) table.columns.push_back(column(key).column());
  table.columns.push_back({"note", "note", "", 1.0, 4, Audience::kMachines});
  std::int64_t evaluated = 0;
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& sc = scenario.cases[i];
    const ScenarioRow& row = result.rows[i];
    evaluated += row.evaluated;
    const auto dimensions = [&](std::vector<Json>& cells) {
      for (const auto& value : sc.coordinates) {
        cells.emplace_back(value);
        cells.push_back(coordinate_json(value));
      }
    };
    if (row.best.empty()) {
      std::vector<Json> cells;
      dimensions(cells);
      if (ranked) cells.emplace_back();
      for (size_t k = 0; k < keys.size(); ++k) cells.emplace_back();
      cells.emplace_back(row.note);
      table.rows.push_back(std::move(cells));
    }
    for (size_t rank = 0; rank < row.best.size(); ++rank) {
      const ScenarioRow* base_row = row.baseline ? &result.rows[*row.baseline] : nullptr;
      const RowView view{sc,
                         row,
                         row.best[rank],
                         base_row ? &base_row->best.front() : nullptr,
                         base_row,
                         row.baseline ? &scenario.cases[*row.baseline] : nullptr};
      std::vector<Json> cells;
      dimensions(cells);
      if (ranked) cells.emplace_back(static_cast<int>(rank + 1));
      for (const auto& key : keys) cells.push_back(column(key).get(view));
      cells.emplace_back(row.note);
      table.rows.push_back(std::move(cells));
    }
    // Appended, not `"[" + ...`: GCC 12 warns falsely about `"literal" + std::string&&` (-Wrestrict, -O2).
    if (!row.note.empty())
      table.notes.push_back(std::string("[").append(join(sc.coordinates, ", ")).append("] ") + row.note);
  }
  std::ostringstream summary;
  summary << scenario.cases.size() << " cases, " << evaluated << " configurations evaluated in "
          << format_number(result.elapsed_s, 3) << " s; deltas against ";
  if (scenario.baseline.empty()) {
    summary << "the first row";
  } else {
    std::vector<std::string> parts;
    for (const auto& [dimension, value] : scenario.baseline) parts.push_back(dimension + " = " + value);
    summary << join(parts, ", ");
  }
  table.notes.insert(table.notes.begin(), summary.str());
  const bool costs = std::any_of(keys.begin(), keys.end(), [](const std::string& key) {
    return key == "cost_usd" || key == "cost_delta";
  });
  if (costs && !scenario.cases.empty()) {
    // What the cost column means: the first case's basis, or that the cases differ.
    const auto& first = scenario.cases.front().request;
    const bool same = std::all_of(scenario.cases.begin(), scenario.cases.end(), [&](const ScenarioCase& c) {
      return c.request.options.economics.cost_basis == first.options.economics.cost_basis;
    });
    table.notes.insert(table.notes.begin() + 1,
                       same ? cost_basis_note(first.options.economics, first.cluster.gpu)
                            : std::string("cost = owned TCO or GPU rental, per case (training.cost_basis)"));
  }
  return table;
}

Json scenario_json(const Scenario& scenario, const ScenarioResult& result) {
  Json rows = Json::array();
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& sc = scenario.cases[i];
    const ScenarioRow& row = result.rows[i];
    const ScenarioRow* base_row = row.baseline ? &result.rows[*row.baseline] : nullptr;
    Json object = Json::object();
    for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
      object.set(scenario.dimensions[d], coordinate_json(sc.coordinates[d]));
    }
    Json configurations = Json::array();
    for (const auto& e : row.best) {
      configurations.push_back(
          configuration_json(e, sc.request.model, sc.request.cluster, sc.request.options));
    }
    object.set("configurations", std::move(configurations));
    object.set("evaluated", Json(row.evaluated)).set("feasible", Json(row.feasible));
    if (!row.best.empty()) {
      const RowView view{sc,
                         row,
                         row.best.front(),
                         base_row ? &base_row->best.front() : nullptr,
                         base_row,
                         row.baseline ? &scenario.cases[*row.baseline] : nullptr};
      for (const char* key :
           {"comm_share", "transceivers", "diameter", "network_power_w", "speedup", "cost_delta",
            "switches_delta", "network_cost_delta_usd", "network_power_delta_w", "power_delta_w"}) {
        object.set(key, column(key).get(view));
      }
    }
    object.set("baseline_row", row.baseline ? Json(static_cast<std::int64_t>(*row.baseline)) : Json());
    object.set("note", row.note.empty() ? Json() : Json(row.note));
    rows.push_back(std::move(object));
  }
  Json dimensions = Json::array();
  for (const auto& d : scenario.dimensions) dimensions.push_back(Json(d));
  Json document = Json::object();
  document.set("scenario", Json(scenario.title))
      .set("dimensions", std::move(dimensions))
      .set("rows", std::move(rows))
      .set("elapsed_s", Json(result.elapsed_s));
  return document;
}

LineChart scenario_chart(const Scenario& scenario, const ScenarioResult& result) {
  LineChart chart;
  chart.title = scenario.plot.title.empty() ? scenario.title : scenario.plot.title;
  const ColumnOf<RowView>& y = column(scenario.plot.y);
  static const std::map<std::string, std::string> kLongNames = {
      {"step_time_s", "step time"},
      {"speedup", "speed-up over the baseline"},
      {"network_cost_usd", "network capex"},
      {"network_power_w", "network power"},
      {"training_days", "wall-clock days to train"},
      {"comm_share", "exposed communication"},
      {"cost_usd", "cost to train"},
      {"power_w", "power, GPUs, servers and fabric"},
      {"tco_usd", "TCO of the run"},
      {"capex_usd", "capex"},
      {"goodput", "goodput"},
      {"ideal_days", "days without interruptions"},
      {"tokens_per_s", "tokens per second"},
      {"model_tflops_per_gpu", "model TFLOP/s per GPU"}};
  const auto label = [](const ColumnOf<RowView>& column) {
    const auto long_name = kLongNames.find(column.key);
    return (long_name != kLongNames.end() ? long_name->second : column.header) +
           (column.unit.empty() ? "" : " (" + column.unit + ")");
  };
  chart.y_label = label(y);
  const ColumnOf<RowView>* y2 = scenario.plot.y2.empty() ? nullptr : &column(scenario.plot.y2);
  if (y2) chart.y2_label = label(*y2);
  chart.log_y = scenario.plot.log_y;
  const auto x_at = std::find(scenario.dimensions.begin(), scenario.dimensions.end(), scenario.plot.x);
  const size_t x_index = static_cast<size_t>(x_at - scenario.dimensions.begin());
  const bool has_x = x_at != scenario.dimensions.end();
  chart.x_label = has_x ? dimension_header(scenario.plot.x) : "case";
  if (scenario.plot.x == "cluster.gpus" || scenario.plot.x == "cluster.scale_up.domain")
    chart.x_label += " (GPUs)";
  std::vector<std::string> where_text;
  for (const auto& [dimension, value] : scenario.plot.where) {
    where_text.push_back(dimension_header(dimension) + " " + value);
  }
  chart.subtitle = join(where_text, ", ");

  std::map<std::string, size_t> series_index;
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& sc = scenario.cases[i];
    bool selected = true;
    for (const auto& [dimension, value] : scenario.plot.where) {
      const auto d = std::find(scenario.dimensions.begin(), scenario.dimensions.end(), dimension);
      selected = selected && sc.coordinates[static_cast<size_t>(d - scenario.dimensions.begin())] == value;
    }
    if (!selected) continue;
    const std::string category = has_x ? sc.coordinates[x_index] : std::to_string(i + 1);
    auto category_at = std::find(chart.categories.begin(), chart.categories.end(), category);
    if (category_at == chart.categories.end()) {
      chart.categories.push_back(category);
      category_at = chart.categories.end() - 1;
    }
    std::vector<std::string> name_parts;
    for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
      if (has_x && d == x_index) continue;
      const bool filtered = std::any_of(scenario.plot.where.begin(), scenario.plot.where.end(),
                                        [&](const auto& w) { return w.first == scenario.dimensions[d]; });
      if (filtered) continue;
      const std::string& value = sc.coordinates[d];
      const bool bare =
          is_number(value) || value == "on" || value == "off" || value == "true" || value == "false";
      name_parts.push_back(bare ? dimension_header(scenario.dimensions[d]) + " " + value : value);
    }
    const size_t at = static_cast<size_t>(category_at - chart.categories.begin());
    const ScenarioRow& row = result.rows[i];
    // One series per column plotted: y, and y2 on the right-hand axis.
    for (const ColumnOf<RowView>* column : {&y, y2}) {
      if (column == nullptr) continue;
      const bool right = column == y2;
      std::string name = name_parts.empty() ? column->header : join(name_parts, ", ");
      if (y2 && !name_parts.empty()) name += ": " + column->header;
      auto [it, inserted] = series_index.emplace((right ? "\x01" : "") + name, chart.series.size());
      if (inserted) chart.series.push_back(LineSeries{name, {}, right});
      auto& series = chart.series[it->second];
      if (series.y.size() <= at) series.y.resize(at + 1, std::nan(""));
      double value = std::nan("");
      if (!row.best.empty()) {
        const ScenarioRow* base_row = row.baseline ? &result.rows[*row.baseline] : nullptr;
        const RowView view{sc,
                           row,
                           row.best.front(),
                           base_row ? &base_row->best.front() : nullptr,
                           base_row,
                           row.baseline ? &scenario.cases[*row.baseline] : nullptr};
        const Json cell = column->get(view);
        if (const auto* n = std::get_if<std::int64_t>(&cell.value()))
          value = static_cast<double>(*n) / column->scale;
        if (const auto* d = std::get_if<double>(&cell.value())) value = *d / column->scale;
      }
      series.y[at] = value;
    }
  }
  for (auto& s : chart.series) s.y.resize(chart.categories.size(), std::nan(""));
  // Variants are not an ordered quantity: bars, unless lines were asked for.
  chart.bars = scenario.plot.bars.value_or(!has_x || scenario.plot.x == kVariantDimension);
  return chart;
}

}  // namespace costmodel::inline COSTMODEL_ABI
