// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prediction intervals on step time from the model's own validation residuals (data/intervals.yaml, written
// by `costmodel validate RUNS... --emit-intervals FILE`). Method (docs/intervals.md): each validated run's
// residual is r = log(measured step / predicted step) = log(predicted / measured throughput); the runs fall
// in classes by the features that decide how far the model can miss (a mixture-of-experts model; ZeRO-3; the
// rest dense), and a class's interval is the empirical (1 - c) / 2 and (1 + c) / 2 quantiles of its
// residuals for a coverage c (0.8 by default), taken at split-conformal ranks. A configuration's interval is
// its class's, applied to its predicted step: [step x e^low, step x e^high]. Beside it, the envelope of what
// the runs exercised names the features a configuration uses beyond it (unvalidated flags).

#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One class of configurations and the quantiles of its runs' residuals.
struct IntervalClass {
  std::string name;   ///< "dense", "zero3", "moe"
  double low = 0.0;   ///< lower bound of log(measured step / predicted step): conformal_bounds()
  double high = 0.0;  ///< upper bound
  int runs = 0;       ///< validated runs in the class
};

/// What the validation runs exercised: a configuration beyond it is flagged.
struct ValidatedEnvelope {
  int max_gpus = 0;
  int max_cp = 1;
  int max_ep = 1;
  int min_ep = 0;                   ///< the least EP of a MoE run (0: no MoE run, no lower bound)
  int max_zero3_gpus = 0;           ///< the most GPUs of a ZeRO-3 run (0: none)
  std::vector<std::string> gpus;    ///< GPU catalog names with a validated run
  std::vector<std::string> stacks;  ///< stacks with a validated run
  bool fp8 = false;                 ///< an FP8 run was validated
};

/// The catalog's prediction intervals (data/intervals.yaml).
struct IntervalModel {
  double coverage = 0.8;               ///< the share of measurements each interval is meant to contain
  std::vector<IntervalClass> classes;  ///< every class interval_class() names
  ValidatedEnvelope validated;
  /// The leave-one-out coverage reached on the runs it was built from (each run's interval from the others).
  double loo_coverage = 0.0;
  int runs = 0;        ///< validated runs it was built from
  std::string source;  ///< the command and runs files that wrote it

  /// The class `name`; nullptr when absent.
  [[nodiscard]] const IntervalClass* find(std::string_view name) const noexcept;
};

/// The class of a configuration: "moe" for a mixture-of-experts model, else "zero3" under ZeRO-3, else
/// "dense".
[[nodiscard]] std::string_view interval_class(const ModelSpec& model, const Strategy& strategy) noexcept;

/// The bounds of a split-conformal prediction interval of `coverage` from the residuals `values` (Lei et al.,
/// "Distribution-free predictive inference for regression", JASA 2018, §2.2; Vovk et al. 2005): of the n
/// values sorted, the floor((n + 1)(1 - coverage) / 2)-th and the ceil((n + 1)(1 + coverage) / 2)-th
/// (1-based, clamped to 1..n). A new residual exchangeable with them falls inside with probability at least
/// `coverage` (minus the clamping's shortfall for small n). {0, 0} for no values.
[[nodiscard]] std::pair<double, double> conformal_bounds(std::vector<double> values, double coverage);

/// The features of a configuration (`strategy` of `model` on `gpus` x `gpu` under `stack`) beyond what the
/// runs exercised, in words: "cp 8 (validated up to 2)", "gpu mi300x", "stack maxtext", ...
[[nodiscard]] std::vector<std::string> unvalidated_features(const ValidatedEnvelope& envelope,
                                                            const ModelSpec& model, const Strategy& strategy,
                                                            int gpus, std::string_view gpu,
                                                            std::string_view stack);

}  // namespace costmodel::inline COSTMODEL_ABI
