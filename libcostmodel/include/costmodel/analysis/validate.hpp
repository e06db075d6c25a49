#pragma once
// Predicted vs published (the runs of data/published-runs.yaml, read by io/runs.hpp): each run's stated knobs
// pinned, the rest chosen by the planner, compared with the measured TFLOP/s per GPU in the source's FLOP
// convention.

#include <optional>
#include <string>
#include <vector>

#include "costmodel/estimate/step.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel {

/// What the source measured.
struct Measured {
  std::optional<double> tflops_per_gpu;  ///< TFLOP/s per GPU in the source's convention
  bool hardware_convention =
      false;  ///< true: counts recomputed FLOPs (Megatron-LM eq. 3); false: model FLOPs
  std::optional<double> mfu;
  std::optional<double> training_days;
};

/// One published run.
struct PublishedRun {
  std::string id;
  std::string source;
  std::string confidence;
  ModelSpec model;
  ClusterSpec cluster;
  TrainingSpec training;  ///< what the source states; the planner chooses what it leaves unset
  Measured measured;
};

/// One run's comparison.
struct ValidationRow {
  std::string id;
  std::string gpu;
  int gpus = 0;
  bool feasible = false;        ///< the planner found a configuration that fits
  StepEstimate best;            ///< the fastest configuration with the stated knobs pinned
  double measured_tflops = 0;   ///< TFLOP/s per GPU, source's convention
  double predicted_tflops = 0;  ///< TFLOP/s per GPU, same convention
  double error = 0;             ///< predicted / measured - 1 (dimensionless)
  std::optional<double> measured_days;
  std::optional<double> predicted_days;
  bool hardware_convention = false;
};

/// Error statistics over the rows with a measured TFLOP/s (absolute relative errors, dimensionless).
struct ValidationSummary {
  std::vector<ValidationRow> rows;
  double median_abs_error = 0;
  double mean_abs_error = 0;
  double max_abs_error = 0;
};

/// Validates every run: pins what the source states, plans the rest with `threads` workers.
[[nodiscard]] ValidationSummary validate_runs(const std::vector<PublishedRun>& runs, int threads = 0);

}  // namespace costmodel
