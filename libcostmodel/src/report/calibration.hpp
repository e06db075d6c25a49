// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel calibrate` prints: per collective, algorithm and rank count, the alpha-beta fit (alpha,
// beta, R², the worst point), the bandwidth it implies, the efficiency and the cluster constants.

#include <optional>
#include "costmodel/version.hpp"

#include "costmodel/analysis/calibrate.hpp"
#include "costmodel/report/table.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One row per fit, titled with the logs and the GPU; the notes say what efficiency is measured against.
[[nodiscard]] Table calibration_table(const LogCalibration& calibration, const ClusterSpec& cluster, int logs,
                                      std::optional<BytesPerSecond> line_rate);
/// One row per fabric level: the constants fitted, their standard errors, the worst error before and after.
[[nodiscard]] Table calibration_level_table(const LogCalibration& calibration);
/// One row per measured size of every log: measured, the model before and after, the errors, Auto's choice.
[[nodiscard]] Table calibration_residual_table(const LogCalibration& calibration);
/// {"fits": [...], "levels": [...], "residuals": [...], "notes": [...]} (the three tables' machine rows).
[[nodiscard]] Json calibration_json(const LogCalibration& calibration, const ClusterSpec& cluster, int logs,
                                    std::optional<BytesPerSecond> line_rate);

/// One row per run of a GPU fit: measured, before, after (TFLOP/s per GPU), errors, the configuration.
[[nodiscard]] Table gpu_fit_runs_table(const GpuCalibration& calibration);
/// One row per fitted efficiency parameter: before, after, standard error, identifiable.
[[nodiscard]] Table gpu_fit_parameters_table(const GpuCalibration& calibration);
/// {"runs": [...], "parameters": [...], "rms_error_before", "rms_error_after", "notes"}.
[[nodiscard]] Json gpu_fit_json(const GpuCalibration& calibration);

}  // namespace costmodel::inline COSTMODEL_ABI
