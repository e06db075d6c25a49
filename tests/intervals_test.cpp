// SPDX-License-Identifier: Apache-2.0
// Prediction intervals (spec/intervals.hpp, data/intervals.yaml): conformal bounds, classes, the envelope of
// what the validation runs exercised, and the intervals on estimates.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "costmodel/costmodel.hpp"

using namespace costmodel;

TEST_CASE("conformal bounds: the ranks of Lei et al. 2018") {
  // n = 9 values 1..9, coverage 0.8: low rank floor(10 x 0.1) = 1, high rank ceil(10 x 0.9) = 9.
  std::vector<double> nine{5, 3, 9, 1, 7, 2, 8, 4, 6};
  CHECK(conformal_bounds(nine, 0.8) == std::pair<double, double>{1.0, 9.0});
  // n = 19 values 1..19: floor(20 x 0.1) = 2, ceil(20 x 0.9) = 18.
  std::vector<double> nineteen;
  for (int i = 19; i >= 1; --i) nineteen.push_back(i);
  CHECK(conformal_bounds(nineteen, 0.8) == std::pair<double, double>{2.0, 18.0});
  // 50%: floor(20 x 0.25) = 5, ceil(20 x 0.75) = 15.
  CHECK(conformal_bounds(nineteen, 0.5) == std::pair<double, double>{5.0, 15.0});
  CHECK(conformal_bounds({}, 0.8) == std::pair<double, double>{0.0, 0.0});
}

TEST_CASE("classes and the unvalidated features of a configuration") {
  ModelSpec dense;
  dense.layers = 2;
  Strategy s;
  CHECK(interval_class(dense, s) == "dense");
  s.zero = 3;
  CHECK(interval_class(dense, s) == "zero3");
  ModelSpec moe = dense;
  moe.moe = MoeSpec{};
  moe.moe->experts = 8;
  CHECK(interval_class(moe, s) == "moe");

  ValidatedEnvelope v;
  v.max_gpus = 1024;
  v.max_cp = 2;
  v.max_ep = 8;
  v.max_zero3_gpus = 512;
  v.gpus = {"h100-sxm"};
  v.stacks = {"megatron-core"};
  Strategy t;
  t.cp = 8;
  t.ep = 16;
  t.zero = 3;
  t.dtype = Dtype::kFp8;
  const auto flags = unvalidated_features(v, moe, t, 2048, "mi300x", "maxtext");
  CHECK(flags == std::vector<std::string>{"gpus 2048 (validated up to 1024)", "cp 8 (validated up to 2)",
                                          "ep 16 (validated up to 8)",
                                          "zero3 gpus 2048 (validated up to 512)", "fp8", "gpu mi300x",
                                          "stack maxtext"});
  CHECK(unvalidated_features(v, dense, Strategy{}, 64, "h100-sxm", "megatron-core").empty());
  // Below the least validated EP of a MoE run: flagged for a MoE model only, and only with a lower bound.
  v.min_ep = 8;
  Strategy few;
  few.ep = 4;
  CHECK(unvalidated_features(v, moe, few, 64, "h100-sxm", "megatron-core") ==
        std::vector<std::string>{"ep 4 (validated from 8)"});
  CHECK(unvalidated_features(v, dense, few, 64, "h100-sxm", "megatron-core").empty());
  few.ep = 8;
  CHECK(unvalidated_features(v, moe, few, 64, "h100-sxm", "megatron-core").empty());
  v.min_ep = 0;
  few.ep = 1;
  CHECK(unvalidated_features(v, moe, few, 64, "h100-sxm", "megatron-core").empty());
}

TEST_CASE("the catalog's intervals: every class, and an estimate's step inside its own interval") {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  REQUIRE(catalog.intervals != nullptr);
  const IntervalModel& m = *catalog.intervals;
  CHECK(m.coverage == doctest::Approx(0.8));
  for (const char* name : {"dense", "zero3", "moe"}) {
    const IntervalClass* c = m.find(name);
    REQUIRE(c != nullptr);
    CHECK(c->low <= 0.0);
    CHECK(c->high >= 0.0);
    CHECK(c->runs >= 5);
  }
  // The mixture-of-experts class is the widest on the slow side: the fine-grained MoE runs the model finds
  // 2-3x too fast (issue 27) are in it.
  CHECK(m.find("moe")->high > m.find("dense")->high);
  // An estimate: [step x e^low, step x e^high] of its class.
  TrainingSpec training;
  resolve_stack(training, catalog);
  training.pins.tp = 8;
  training.pins.pp = 8;
  training.pins.dp = 16;
  training.global_batch = 1536;
  const ClusterSpec cluster = default_cluster(catalog);
  const ModelSpec model = catalog.model("gpt3-175b");
  const StepEstimate e =
      estimate(model, cluster, pinned_strategy(training, model, cluster.gpus), estimate_options(training));
  const IntervalClass& dense = *m.find("dense");
  CHECK(e.interval_coverage == doctest::Approx(0.8));
  CHECK(e.step_time_low.value == doctest::Approx(e.step_time.value * std::exp(dense.low)));
  CHECK(e.step_time_high.value == doctest::Approx(e.step_time.value * std::exp(dense.high)));
  CHECK(e.unvalidated.empty());  // 1,024 A100 under megatron-core: all validated
}

TEST_CASE("the envelope's lower bound on EP: written, read back, and absent from older files") {
  // data/intervals.yaml: every validated MoE run (data/holdout-runs.yaml: Qwen3, gpt-oss, DeepSeek-V3,
  // Mixtral) splits its experts over 8 or more ranks, so a MoE split at ep 1-4 is beyond what was measured.
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  REQUIRE(catalog.intervals != nullptr);
  CHECK(catalog.intervals->validated.min_ep == 8);
  IntervalModel m = *catalog.intervals;
  const test::TempDir dir;
  const std::string path = (dir.path() / "intervals.yaml").string();
  const auto round_trip = [&] {
    {
      std::ofstream out(path);
      write_intervals(out, m);
    }
    return load_intervals_file(path).validated.min_ep;
  };
  CHECK(round_trip() == 8);
  m.validated.min_ep = 0;  // no MoE run: written without the key, read as no lower bound
  CHECK(round_trip() == 0);
}
