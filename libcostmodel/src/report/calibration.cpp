// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/calibration.hpp"

#include <string>
#include <vector>

namespace costmodel {
namespace {

constexpr double kGiga = 1e9;
constexpr double kMicro = 1e-6;

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
      {"latency_s", "cluster latency", "us", kMicro,
       [](const FitCalibration& r) { return r.calibration ? Json(r.calibration->latency.value) : Json(); }},
      {"device", "device", "", 1, [](const FitCalibration& r) { return Json(r.fit.device); }, 4,
       Audience::kMachines},
      {"wrong", "#wrong", "", 1, [](const FitCalibration& r) { return Json(r.fit.wrong); }, 4,
       Audience::kMachines},
  };
}

}  // namespace

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

}  // namespace costmodel
