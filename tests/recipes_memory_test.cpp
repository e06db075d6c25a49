// SPDX-License-Identifier: Apache-2.0
// Memory against the framework's own recipes (costmodel issue 28, item 4: "the recipes that ship as runnable
// on 80 GB and 192 GB GPUs must fit").
//
// tests/fixtures/framework-recipes.yaml holds Megatron-Bridge's shipped performance presets
// (NVIDIA-NeMo/Megatron-Bridge @b7b4e11b, scripts/performance/configs/*/*_workload_base_configs.py), each on
// the GPU it ships for (DGX H100, DGX B200, GB200 NVL72), with every knob the preset and its pretrain script
// set pinned; the fixture's header says how each setting was read. For each recipe the test evaluates the
// memory per GPU of exactly that configuration (pinned_strategy: no planner), prints
//   "<id>: predicted peak X GiB of Y GiB HBM (Z%)"
// and checks that the peak is within the GPU's HBM. NVIDIA ships these as runnable (most have a published
// throughput in docs/performance-summary*.md), so a recipe that does not fit means the memory model is too
// pessimistic. The ones that do not fit today are listed in kPredictedOutOfMemory with the reason and are
// WARNed instead of failing; a listed recipe that starts to fit is reported so that the list shrinks.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "costmodel/costmodel.hpp"

using namespace costmodel;

namespace {

constexpr double kGiB = 1073741824.0;

/// Above this share of HBM a recipe is flagged as close to the limit (issue 28: "configurations within a
/// stated margin are flagged").
constexpr double kMarginShare = 0.95;

struct KnownMiss {
  std::string_view id;
  std::string_view reason;
};

// Shipped recipes the model predicts out of memory (figures of costmodel estimate when the fixture was made).
constexpr KnownMiss kPredictedOutOfMemory[] = {
    // The other terms 44.6 GiB; activations 139.9 GiB on the first stage: with
    // tp 4 and sequence parallelism a Llama 3.1 405B layer keeps (8h + 4q + 4kv + 6f) x 2 B / 4 per token at
    // 8K tokens, 1.07 GB, and the interleaved schedule's first stage holds 2(p - 1) + (v - 1)p + 1 = 143
    // model chunks (pp 16, vpp 8) of 7/8 of a layer each in flight. No published run of this preset.
    {"bridge_llama31_405b_256_gb200_bf16",
     "184.5 of 173.2 GiB: activations 139.9 GiB on the first stage (pp 16 x vpp 8, 8K tokens, no recompute); "
     "the FP8 presets of the same split fit, and NVIDIA published no BF16 throughput for it"},
};

const KnownMiss* known_miss(std::string_view id) {
  for (const KnownMiss& miss : kPredictedOutOfMemory)
    if (miss.id == id) return &miss;
  return nullptr;
}

std::string summary(const std::string& id, const MemoryBreakdown& memory) {
  const double share = memory.total / memory.capacity;
  char line[256];
  std::snprintf(line, sizeof line, "%s: predicted peak %.1f GiB of %.1f GiB HBM (%.1f%%)%s", id.c_str(),
                memory.total.value / kGiB, memory.capacity.value / kGiB, 100.0 * share,
                share > 1.0            ? ", does not fit"
                : share > kMarginShare ? ", within 5% of the limit"
                                       : "");
  return line;
}

}  // namespace

TEST_CASE("Megatron-Bridge's shipped performance recipes fit their GPU's memory") {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  const std::vector<PublishedRun> runs = load_published_runs(
      std::string(COSTMODEL_TEST_SOURCE_DIR) + "/tests/fixtures/framework-recipes.yaml", catalog);
  REQUIRE(runs.size() >= 20);

  int fitting = 0;
  std::vector<std::string> seen;
  for (const PublishedRun& run : runs) {
    CAPTURE(run.id);
    seen.push_back(run.id);
    const ModelSpec model = with_sequence_length(run.model, run.training);
    const Strategy strategy = pinned_strategy(run.training, model, run.cluster.gpus);
    const std::vector<std::string> reasons = validate(strategy, model, run.cluster);
    CHECK_MESSAGE(reasons.empty(), run.id << ": the recipe's split is invalid in the model");
    if (!reasons.empty()) continue;

    const Estimator estimator(model, run.cluster, estimate_options(run.training));
    const MemoryBreakdown memory = estimator.memory(strategy);
    REQUIRE(memory.capacity.value > 0);
    const bool fits = memory.total <= memory.capacity;
    MESSAGE(summary(run.id, memory));
    if (fits) ++fitting;

    if (const KnownMiss* miss = known_miss(run.id)) {
      WARN_MESSAGE(fits, run.id << " is predicted out of memory: " << miss->reason);
      // Once the model improves, the recipe belongs with the checked ones: say so.
      if (fits) MESSAGE(run.id << " now fits: remove it from kPredictedOutOfMemory");
    } else {
      CHECK_MESSAGE(fits, summary(run.id, memory));
    }
  }

  // Every listed miss names a recipe of the fixture (the list cannot go stale unnoticed), and at least 20
  // recipes fit (the count).
  for (const KnownMiss& miss : kPredictedOutOfMemory) {
    bool found = false;
    for (const std::string& id : seen) found = found || id == miss.id;
    CHECK_MESSAGE(found, miss.id << " is listed in kPredictedOutOfMemory but not in the fixture");
  }
  CHECK(fitting >= 20);
}
