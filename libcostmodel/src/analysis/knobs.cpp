// SPDX-License-Identifier: Apache-2.0
#include "analysis/knobs.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// The step time of `strategy` with `options` (the estimate's cluster and model).
Seconds step_time(const ModelSpec& model, const ClusterSpec& cluster, const Strategy& strategy,
                  const EstimateOptions& options) {
  return Estimator(model, cluster, options).evaluate(strategy).step_time;
}

}  // namespace

std::vector<IneffectiveKnob> ineffective_knobs(const StepEstimate& e, const ModelSpec& model,
                                               const ClusterSpec& cluster, const TrainingSpec& training) {
  std::vector<IneffectiveKnob> out;
  if (!e.valid()) return out;
  const Strategy& st = e.strategy;
  const int replicas = st.dp * st.cp;
  const EstimateOptions options = estimate_options(training);
  const auto unchanged = [&](const EstimateOptions& other) {
    return step_time(model, cluster, st, other) == e.step_time;
  };
  if (training.dp_algorithm != Algorithm::kAuto) {
    EstimateOptions automatic = options;
    automatic.dp_algorithm = Algorithm::kAuto;
    if (replicas <= 1) {
      out.push_back({"dp_algorithm", "the chosen configuration has no data parallelism (dp x cp = 1)"});
    } else if (unchanged(automatic)) {
      out.push_back({"dp_algorithm", st.zero >= 1
                                         ? "ZeRO " + std::to_string(st.zero) +
                                               " exchanges gradients by reduce-scatter and all-gather, "
                                               "where it is not used or is what auto picks anyway"
                                         : "auto picks the same algorithm for this gradient exchange"});
    }
  }
  if (training.tp_algorithm != Algorithm::kAuto) {
    EstimateOptions automatic = options;
    automatic.tp_algorithm = Algorithm::kAuto;
    if (st.tp <= 1) {
      out.push_back({"tp_algorithm", "the chosen configuration has no tensor parallelism (tp = 1)"});
    } else if (unchanged(automatic)) {
      out.push_back({"tp_algorithm", "auto picks the same algorithm for the tensor-parallel collectives"});
    }
  }
  if (training.compression.kind != CompressionKind::kNone && replicas <= 1) {
    out.push_back(
        {"compression", "the chosen configuration has no data parallelism to compress (dp x cp = 1)"});
  }
  if (training.pins.sequence_parallel && st.tp <= 1) {
    out.push_back({"sequence_parallel", "sequence parallelism needs tensor parallelism (tp = 1)"});
  }
  if (training.pins.overlap && replicas <= 1) {
    out.push_back({"overlap", "there is no data-parallel exchange to overlap (dp x cp = 1)"});
  }
  return out;
}

}  // namespace costmodel::inline COSTMODEL_ABI
