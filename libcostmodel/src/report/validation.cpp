// SPDX-License-Identifier: Apache-2.0
#include "report/validation.hpp"

#include <vector>

#include "cells.hpp"
#include "degrees.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

std::string split_text(const ValidationRow& r) {
  if (!r.feasible) return "nothing feasible";
  const auto& s = r.best.strategy;
  return std::to_string(s.tp) + "-" + std::to_string(s.pp) + "-" + std::to_string(s.dp) + " (" +
         std::to_string(s.vpp) + ", " + std::to_string(s.micro_batch) + ")" +
         detail::degrees_beyond_tp_pp_dp(s);
}

std::vector<ColumnOf<ValidationRow>> validation_run_fields() {
  using R = const ValidationRow&;
  return {
      {"id", "run", "", 1, [](R r) { return Json(r.id); }},
      {"gpu", "gpu", "", 1, [](R r) { return Json(r.gpu); }},
      {"gpus", "GPUs", "", 1, [](R r) { return Json(r.gpus); }, 6},
      {"convention", "FLOPs", "", 1, [](R r) { return Json(r.hardware_convention ? "hardware" : "model"); }},
      {"measured_as", "measured as", "", 1, [](R r) { return Json(std::string(to_string(r.basis))); }},
      {"measured_tflops_per_gpu", "measured", "TFLOP/s", 1,
       [](R r) { return r.measured_flops.value > 0 ? Json(r.measured_flops.value / 1e12) : Json(); }},
      {"predicted_tflops_per_gpu", "predicted", "TFLOP/s", 1,
       [](R r) { return r.feasible ? Json(r.predicted_flops.value / 1e12) : Json(); }},
      {"error", "error", "%", 0.01,
       [](R r) { return r.feasible && r.measured_flops.value > 0 ? Json(r.error) : Json(); }, 3},
      {"split", "best split tp-pp-dp (vpp, mb)", "", 1, [](R r) { return Json(split_text(r)); }},
      {"recompute", "recompute", "", 1,
       [](R r) { return r.feasible ? Json(std::string(to_string(r.best.strategy.recompute))) : Json(); }},
      {"recompute_layers", "rc layers", "", 1,
       [](R r) {
         return r.feasible && r.best.strategy.recompute_layers > 0 ? Json(r.best.strategy.recompute_layers)
                                                                   : Json();
       }},
      {"zero", "zero", "", 1, [](R r) { return r.feasible ? Json(r.best.strategy.zero) : Json(); }, 2},
      {"measured_days", "measured days", "", 1,
       [](R r) { return detail::days_cell(r.measured_training_time); }, 3},
      {"predicted_days", "predicted days", "", 1,
       [](R r) { return detail::days_cell(r.predicted_training_time); }, 3},
  };
}

}  // namespace

Table validation_table(const ValidationSummary& summary, const std::string& source) {
  Table table = make_table(validation_run_fields(), summary.rows);
  table.title = "predicted vs published: " + source;
  table.notes.push_back("|error|: median " + format_number(100 * summary.median_abs_error, 3) + "%, mean " +
                        format_number(100 * summary.mean_abs_error, 3) + "%, max " +
                        format_number(100 * summary.max_abs_error, 3) + "% over " +
                        std::to_string(summary.rows.size()) + " runs");
  if (summary.interval_total > 0) {
    table.notes.push_back(
        format_number(100 * summary.interval_coverage, 3) +
        "% prediction intervals (data/intervals.yaml): " + std::to_string(summary.interval_inside) + " of " +
        std::to_string(summary.interval_total) + " measurements inside (" +
        format_number(100.0 * summary.interval_inside / summary.interval_total, 3) +
        "%), median half-width " + format_number(100 * summary.median_half_width, 3) +
        "%; intervals built from these runs alone, each run against the others': " +
        format_number(100 * summary.loo_coverage, 3) + "% inside");
  }
  return table;
}

Json validation_json(const ValidationSummary& summary) {
  Json document = Json::object();
  document.set("runs", table_json(make_table(validation_run_fields(), summary.rows)))
      .set("median_abs_error", summary.median_abs_error)
      .set("mean_abs_error", summary.mean_abs_error)
      .set("max_abs_error", summary.max_abs_error)
      .set("interval_coverage", summary.interval_total > 0 ? Json(summary.interval_coverage) : Json())
      .set("interval_inside", summary.interval_inside)
      .set("interval_total", summary.interval_total)
      .set("median_half_width", summary.median_half_width)
      .set("loo_coverage", summary.loo_coverage);
  return document;
}

}  // namespace costmodel::inline COSTMODEL_ABI
