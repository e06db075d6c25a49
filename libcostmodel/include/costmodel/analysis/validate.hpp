// SPDX-License-Identifier: Apache-2.0
#pragma once
// Predicted vs published (the runs of data/published-runs.yaml, read by io/runs.hpp): each run's stated knobs
// pinned, the rest chosen by the planner, compared with the measured TFLOP/s per GPU in the source's FLOP
// convention.

#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/intervals.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// What the source measured. A run is compared on the first of flops_per_gpu, tokens_per_s_per_gpu and
/// step_time it states; the latter two are compared as throughput (model FLOPs per GPU with the model's own
/// FLOPs per token, so that every row reads in TFLOP/s).
struct Measured {
  std::optional<FlopsPerSecond> flops_per_gpu;  ///< per GPU, in the source's convention
  bool hardware_convention =
      false;  ///< true: counts recomputed FLOPs (Megatron-LM eq. 3); false: model FLOPs
  std::optional<double> mfu;
  std::optional<Seconds> training_time;        ///< wall-clock time to train the run's tokens
  std::optional<double> tokens_per_s_per_gpu;  ///< training throughput per GPU, tokens/s
  std::optional<Seconds> step_time;            ///< one optimizer step of the run's global batch
};

/// What a run is compared on: the first quantity of Measured it states.
enum class MeasuredBasis { kFlops, kTokensPerSecond, kStepTime };
/// "TFLOP/s", "tokens/s", "step time".
[[nodiscard]] std::string_view to_string(MeasuredBasis basis);

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
  bool feasible = false;           ///< the planner found a configuration that fits
  StepEstimate best;               ///< the fastest configuration with the stated knobs pinned
  FlopsPerSecond measured_flops;   ///< per GPU, source's convention; 0 when not measured
  FlopsPerSecond predicted_flops;  ///< per GPU, same convention
  double error = 0;                ///< predicted / measured - 1 (dimensionless)
  std::optional<Seconds> measured_training_time;
  std::optional<Seconds> predicted_training_time;
  bool hardware_convention = false;
  MeasuredBasis basis = MeasuredBasis::kFlops;  ///< what the source measured (measured_flops derives from it)
};

/// Error statistics over the rows with a measured TFLOP/s (absolute relative errors, dimensionless).
struct ValidationSummary {
  std::vector<ValidationRow> rows;
  double median_abs_error = 0;
  double mean_abs_error = 0;
  double max_abs_error = 0;
  /// The catalog's prediction intervals on these runs: measured rows whose measured step falls inside
  /// their best configuration's interval, of those with one (interval_total 0: no intervals).
  int interval_inside = 0;
  int interval_total = 0;
  double interval_coverage = 0;  ///< the coverage the intervals state (0.8)
  /// The median over those rows of the interval's half-width relative to the step: (high - low) / 2 / step.
  double median_half_width = 0;
  /// Intervals built from these runs alone (build_intervals()): each run's interval from the others.
  double loo_coverage = 0;
};

/// A row's residual: log(measured step / predicted step) = log(1 + error) (throughputs compared).
[[nodiscard]] double residual(const ValidationRow& row);

/// Prediction intervals from validated runs (spec/intervals.hpp): per class (interval_class() of each run's
/// model and best configuration) the conformal_bounds() of the residuals of its measured rows (a class of
/// fewer than kMinClassRuns runs takes every run's); the leave-one-out
/// coverage (each run against the quantiles of the others); and the envelope of what the runs exercised.
/// `runs` and `summary.rows` correspond one to one.
[[nodiscard]] IntervalModel build_intervals(const std::vector<PublishedRun>& runs,
                                            const ValidationSummary& summary, double coverage = 0.8);
/// Runs a class needs for quantiles of its own.
inline constexpr int kMinClassRuns = 5;

/// Validates every run: pins what the source states, plans the rest with `threads` workers.
[[nodiscard]] ValidationSummary validate_runs(const std::vector<PublishedRun>& runs, int threads = 0);

/// Published runs like one being planned, validated: the model's measured accuracy where a buyer's answer
/// lies (the HTML report's evidence).
struct SimilarRuns {
  ValidationSummary summary;
  std::string description;  ///< which runs: "published dense runs on h100-sxm"
};
/// The runs of `runs` on `gpu` with the same kind of model as `model` (dense, or mixture-of-experts); when
/// there are none, the runs of that kind on any GPU; validated with `threads` workers.
[[nodiscard]] SimilarRuns validate_similar_runs(const std::vector<PublishedRun>& runs, const ModelSpec& model,
                                                const std::string& gpu, int threads = 0);

}  // namespace costmodel::inline COSTMODEL_ABI
