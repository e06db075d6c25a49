// SPDX-License-Identifier: Apache-2.0
#include "report/calibration.hpp"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json();
}

std::vector<ColumnOf<FitCalibration>> fit_fields() {
  return {
      {"collective", "collective", "", 1,
       [](const FitCalibration& r) { return Json(std::string(to_string(r.fit.collective))); }},
      {"algorithm", "algo", "", 1,
       [](const FitCalibration& r) {
         return Json(r.fit.algorithm.empty() ? std::string("nccl") : r.fit.algorithm);
       }},
      {"ranks", "ranks", "", 1, [](const FitCalibration& r) { return Json(r.fit.ranks); }},
      {"ranks_from", "ranks from", "", 1, [](const FitCalibration& r) { return Json(r.fit.ranks_from); }},
      {"nodes", "nodes", "", 1,
       [](const FitCalibration& r) { return r.fit.nodes > 0 ? Json(r.fit.nodes) : Json(); }},
      {"points", "points", "", 1, [](const FitCalibration& r) { return Json(r.fit.line.points); }},
      {"alpha_s", "alpha", "us", kMicro,
       [](const FitCalibration& r) { return Json(r.fit.line.alpha.value); }},
      {"beta_s_per_B", "beta", "ps/B", 1e-12, [](const FitCalibration& r) { return Json(r.fit.line.beta); }},
      {"r_squared", "R^2", "", 1, [](const FitCalibration& r) { return Json(r.fit.line.r_squared); }, 5},
      {"worst_size_B", "worst at", "B", 1,
       [](const FitCalibration& r) { return Json(r.fit.line.worst_size.value); }},
      {"worst_residual", "worst resid", "%", 0.01,
       [](const FitCalibration& r) { return Json(r.fit.line.worst_residual); }, 3},
      {"algbw_Bps", "algbw", "GB/s", kGiga, [](const FitCalibration& r) { return Json(r.fit.algbw.value); }},
      {"busbw_Bps", "busbw", "GB/s", kGiga, [](const FitCalibration& r) { return Json(r.fit.busbw.value); }},
      {"knee_B", "knee", "B", 1,
       [](const FitCalibration& r) { return r.fit.regimes.found ? Json(r.fit.regimes.knee.value) : Json(); }},
      {"small_alpha_s", "alpha below knee", "us", kMicro,
       [](const FitCalibration& r) {
         return r.fit.regimes.found ? Json(r.fit.regimes.small.alpha.value) : Json();
       }},
      {"large_busbw_Bps", "busbw above knee", "GB/s", kGiga,
       [](const FitCalibration& r) {
         return r.fit.regimes.found && r.fit.regimes.large.beta > 0
                    ? Json(bus_factor(r.fit.collective, r.fit.ranks) / r.fit.regimes.large.beta)
                    : Json();
       }},
      {"efficiency", "efficiency", "", 1,
       [](const FitCalibration& r) { return optional_number(r.efficiency); }, 3},
      {"level", "level", "", 1,
       [](const FitCalibration& r) {
         return r.calibration ? Json(std::string(to_string(r.calibration->level))) : Json();
       }},
      {"line_rate_busbw_Bps", "line-rate busbw", "GB/s", kGiga,
       [](const FitCalibration& r) {
         return r.calibration ? Json(r.calibration->ceiling_busbw.value) : Json();
       }},

      {"latency_s", "ring latency", "us", kMicro,
       [](const FitCalibration& r) { return r.calibration ? Json(r.calibration->latency.value) : Json(); }, 4,
       Audience::kMachines},
      {"device", "device", "", 1, [](const FitCalibration& r) { return Json(r.fit.device); }, 4,
       Audience::kMachines},
      {"wrong", "#wrong", "", 1, [](const FitCalibration& r) { return Json(r.fit.wrong); }, 4,
       Audience::kMachines},
  };
}

Json finite_or_null(double value) {
  return std::isfinite(value) ? Json(value) : Json();
}

std::vector<ColumnOf<LevelCalibration>> level_fields() {
  std::vector<ColumnOf<LevelCalibration>> fields{
      {"level", "level", "", 1,
       [](const LevelCalibration& l) { return Json(std::string(to_string(l.level))); }},
      {"points", "sizes", "", 1, [](const LevelCalibration& l) { return Json(l.points); }},
      {"in_network_reduction", "in-network", "", 1,
       [](const LevelCalibration& l) { return Json(l.in_network_reduction); }},
      {"bandwidth_Bps", "line rate", "GB/s", kGiga,
       [](const LevelCalibration& l) { return Json(l.bandwidth.value); }},
      {"efficiency", "efficiency", "", 1, [](const LevelCalibration& l) { return Json(l.efficiency); }},
      {"efficiency_error", "+-", "%", 0.01,
       [](const LevelCalibration& l) { return finite_or_null(l.efficiency_error); }, 2},
  };
  constexpr std::array<const char*, kNcclProtocols> kNames{"ll", "ll128", "simple"};
  constexpr std::array<const char*, kNcclProtocols> kHeaders{"LL", "LL128", "Simple"};
  for (int p = 0; p < kNcclProtocols; ++p) {
    const auto i = static_cast<size_t>(p);
    fields.push_back({std::string(kNames[i]) + "_step_latency_s", std::string(kHeaders[i]) + " step", "us",
                      kMicro,
                      [i](const LevelCalibration& l) { return Json(l.protocols.step_latency[i].value); }});
    fields.push_back({std::string(kNames[i]) + "_step_latency_error", "+-", "%", 0.01,
                      [i](const LevelCalibration& l) { return finite_or_null(l.step_latency_error[i]); }, 2});
    if (p == 2) break;
    fields.push_back({std::string(kNames[i]) + "_bandwidth_factor", std::string(kHeaders[i]) + " bw x", "", 1,
                      [i](const LevelCalibration& l) { return Json(l.protocols.bandwidth[i]); }});
    fields.push_back({std::string(kNames[i]) + "_bandwidth_error", "+-", "%", 0.01,
                      [i](const LevelCalibration& l) { return finite_or_null(l.bandwidth_error[i]); }, 2});
  }
  fields.push_back({"worst_error_before", "worst before", "%", 0.01,
                    [](const LevelCalibration& l) { return Json(l.worst_before); }, 3});
  fields.push_back({"worst_error_after", "worst after", "%", 0.01,
                    [](const LevelCalibration& l) { return Json(l.worst_after); }, 3});
  fields.push_back({"outside_band", "outside band", "", 1,
                    [](const LevelCalibration& l) { return Json(l.outside_band); }});
  return fields;
}

std::vector<ColumnOf<SizeResidual>> residual_fields() {
  return {
      {"file", "log", "", 1, [](const SizeResidual& r) { return Json(r.file); }, 4, Audience::kMachines},
      {"collective", "collective", "", 1,
       [](const SizeResidual& r) { return Json(std::string(to_string(r.collective))); }},
      {"ranks", "ranks", "", 1, [](const SizeResidual& r) { return Json(r.ranks); }},
      {"size_B", "size", "B", 1, [](const SizeResidual& r) { return Json(r.size.value); }, 10},
      {"measured_s", "measured", "us", kMicro, [](const SizeResidual& r) { return Json(r.measured.value); }},
      {"before_s", "before", "us", kMicro, [](const SizeResidual& r) { return Json(r.before.value); }},
      {"error_before", "error", "%", 0.01, [](const SizeResidual& r) { return Json(r.error_before()); }, 3},
      {"after_s", "after", "us", kMicro, [](const SizeResidual& r) { return Json(r.after.value); }},
      {"error_after", "error", "%", 0.01, [](const SizeResidual& r) { return Json(r.error_after()); }, 3},
      {"band", "band", "%", 0.01, [](const SizeResidual& r) { return Json(residual_band(r.size)); }, 2},
      {"algorithm", "algo", "", 1,
       [](const SizeResidual& r) { return Json(std::string(to_string(r.algorithm))); }},
      {"protocol", "proto", "", 1,
       [](const SizeResidual& r) { return Json(std::string(to_string(r.protocol))); }},
  };
}

}  // namespace

Table calibration_level_table(const LogCalibration& calibration) {
  Table table = make_table(level_fields(), calibration.levels);
  table.title = "fabric constants fitted to every size (Levenberg-Marquardt on log(model / measured), Auto)";
  for (const auto& level : calibration.levels) {
    for (const Protocol p : level.unconstrained) {
      table.notes.push_back(std::string(to_string(level.level)) + ": no measured size is decided by " +
                            std::string(to_string(p)) +
                            "; its constants are not identifiable from these logs");
    }
  }
  table.notes.push_back(
      "+-: standard error (Gauss-Newton covariance); step: one ring step of the level (NCCL's "
      "per-step latency, measured)");
  return table;
}

Table calibration_residual_table(const LogCalibration& calibration) {
  Table table = make_table(residual_fields(), calibration.residuals);
  table.title = "per-size residuals: the model (Auto) before and after calibration against each log";
  return table;
}

Json calibration_json(const LogCalibration& calibration, const ClusterSpec& cluster, int logs,
                      std::optional<BytesPerSecond> line_rate) {
  Json document = Json::object();
  document.set("fits", table_json(calibration_table(calibration, cluster, logs, line_rate)));
  document.set("levels", table_json(calibration_level_table(calibration)));
  document.set("residuals", table_json(calibration_residual_table(calibration)));
  Json notes = Json::array();
  for (const auto& note : calibration.notes) notes.push_back(Json(note));
  document.set("notes", notes);
  return document;
}

Table calibration_table(const LogCalibration& calibration, const ClusterSpec& cluster, int logs,
                        std::optional<BytesPerSecond> line_rate) {
  Table table = make_table(fit_fields(), calibration.fits);
  table.title = "alpha-beta fits of " + std::to_string(logs) + " nccl-tests log(s) on " + cluster.gpu.name +
                " (t = alpha + beta x size, weights 1/t^2)";
  table.notes = calibration.notes;
  table.notes.push_back("efficiency: busbw / " +
                        (line_rate
                             ? "--line-rate " + format_quantity(line_rate->value, Dimension::kBytesPerSecond)
                             : std::string("the model's busbw at line rate for the same communicator")));
  return table;
}

namespace {

std::vector<ColumnOf<RunFitRow>> run_fit_fields() {
  return {
      {"id", "run", "", 1, [](const RunFitRow& r) { return Json(r.id); }},
      {"fitted", "fit", "", 1, [](const RunFitRow& r) { return Json(r.fitted ? "fit" : "held out"); }},
      {"configuration", "tp/pp/dp/mb", "", 1,
       [](const RunFitRow& r) {
         const Strategy& s = r.strategy;
         return r.feasible ? Json(std::to_string(s.tp) + "/" + std::to_string(s.pp) + "/" +
                                  std::to_string(s.dp) + "/" + std::to_string(s.micro_batch))
                           : Json();
       }},
      {"convention", "convention", "", 1,
       [](const RunFitRow& r) { return Json(r.hardware_convention ? "hardware" : "model"); }},
      {"measured_flops_per_gpu", "measured", "TFLOP/s", kTera,
       [](const RunFitRow& r) { return Json(r.measured.value); }},
      {"before_flops_per_gpu", "before", "TFLOP/s", kTera,
       [](const RunFitRow& r) { return r.feasible ? Json(r.before.value) : Json(); }},
      {"error_before", "error", "%", 0.01,
       [](const RunFitRow& r) { return r.feasible ? Json(r.error_before()) : Json(); }, 3},
      {"after_flops_per_gpu", "after", "TFLOP/s", kTera,
       [](const RunFitRow& r) { return r.feasible ? Json(r.after.value) : Json(); }},
      {"error_after", "error", "%", 0.01,
       [](const RunFitRow& r) { return r.feasible ? Json(r.error_after()) : Json(); }, 3},
  };
}

std::vector<ColumnOf<FittedParameter>> parameter_fields() {
  return {
      {"parameter", "parameter", "", 1, [](const FittedParameter& p) { return Json(p.name); }},
      {"before", "before", "", 1, [](const FittedParameter& p) { return Json(p.before); }},
      {"value", "fitted", "", 1, [](const FittedParameter& p) { return Json(p.value); }},
      {"standard_error", "+-", "", 1,
       [](const FittedParameter& p) { return finite_or_null(p.standard_error); }, 2},
      {"lower", "min", "", 1, [](const FittedParameter& p) { return Json(p.lower); }},
      {"upper", "max", "", 1, [](const FittedParameter& p) { return Json(p.upper); }},
      {"identifiable", "identifiable", "", 1, [](const FittedParameter& p) { return Json(p.identifiable); }},
  };
}

}  // namespace

Table gpu_fit_runs_table(const GpuCalibration& calibration) {
  Table table = make_table(run_fit_fields(), calibration.rows);
  table.title = "runs on " + calibration.gpu.name +
                ": measured TFLOP/s per GPU against the model before and after the fit";
  table.notes = calibration.notes;
  table.notes.push_back("rms error of the fitted runs: " + format_number(100.0 * calibration.rms_before) +
                        "% -> " + format_number(100.0 * calibration.rms_after) + "%; max |error| " +
                        format_number(100.0 * calibration.max_before) + "% -> " +
                        format_number(100.0 * calibration.max_after) + "%");
  return table;
}

Table gpu_fit_parameters_table(const GpuCalibration& calibration) {
  Table table = make_table(parameter_fields(), calibration.parameters);
  const bool minimax = calibration.objective == FitObjective::kMinimax;
  table.title =
      calibration.gpu.name + " efficiencies (bounded Levenberg-Marquardt, " +
      (minimax ? "minimax: the largest |model / measured - 1|" : "least squares on model / measured - 1") +
      ")";
  table.notes.push_back(std::string("+-: standard error from the Gauss-Newton covariance s^2 (J^T J)^-1") +
                        (minimax ? " at the minimax values" : ""));
  return table;
}

Json gpu_fit_json(const GpuCalibration& calibration) {
  Json document = Json::object();
  document.set("gpu", Json(calibration.gpu.name));
  document.set("objective", Json(to_string(calibration.objective)));
  document.set("runs", table_json(gpu_fit_runs_table(calibration)));
  document.set("parameters", table_json(gpu_fit_parameters_table(calibration)));
  document.set("rms_error_before", Json(calibration.rms_before));
  document.set("rms_error_after", Json(calibration.rms_after));
  document.set("max_abs_error_before", Json(calibration.max_before));
  document.set("max_abs_error_after", Json(calibration.max_after));
  document.set("replans", Json(calibration.replans));
  Json notes = Json::array();
  for (const auto& note : calibration.notes) notes.push_back(Json(note));
  document.set("notes", notes);
  return document;
}

}  // namespace costmodel::inline COSTMODEL_ABI
