#pragma once
// Published training runs (data/published-runs.yaml): what was run and what was measured, for
// `costmodel validate` and calibration.

#include <optional>
#include <string>
#include <vector>

#include "costmodel/io/catalog.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel {

/// The knobs a source states; absent ones are for the planner to choose.
struct StatedTraining {
  Pins pins;  ///< tp, pp, dp, cp, ep, vpp, micro_batch, recompute, zero where the source states them
  int global_batch = 0;
  Dtype dtype = Dtype::kBf16;
  std::optional<double> tokens;  ///< training tokens, when the source gives days to train
};

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
  StatedTraining training;
  Measured measured;
};

/// Loads a runs file (`runs:` list); errors name FILE:LINE:COL and the field.
[[nodiscard]] std::vector<PublishedRun> load_published_runs(const std::string& path, const Catalog& catalog);

}  // namespace costmodel
