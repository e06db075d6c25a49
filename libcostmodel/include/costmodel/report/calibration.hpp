// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel calibrate` prints: per collective, algorithm and rank count, the alpha-beta fit (alpha,
// beta, R², the worst point), the bandwidth it implies, the efficiency and the cluster constants.

#include <optional>

#include "costmodel/analysis/calibrate.hpp"
#include "costmodel/report/table.hpp"

namespace costmodel {

/// One row per fit, titled with the logs and the GPU; the notes say what efficiency is measured against.
[[nodiscard]] Table calibration_table(const LogCalibration& calibration, const ClusterSpec& cluster, int logs,
                                      std::optional<BytesPerSecond> line_rate);

}  // namespace costmodel
