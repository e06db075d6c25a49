// SPDX-License-Identifier: Apache-2.0
// Planner speed (issues 5, 31): one Estimator::evaluate of a prepared configuration, the estimates of one
// split's candidates in the planner's order (target <= 200 ns each through the planner's EvaluationMemo),
// the enumeration alone, and the whole planner in configurations per second for GPT-3 175B on 4,096
// A100-80GB (target >= 5 million per second on one core).

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/search/planner.hpp"
#include "costmodel/search/space.hpp"
#include "costmodel/spec/stack.hpp"

#include "estimate/evaluation_memo.hpp"

namespace costmodel {
namespace {

PlanRequest gpt3_on_4096() {
  const Catalog catalog = load_catalog();
  PlanRequest request;
  request.model = load_model_file(COSTMODEL_BENCH_SOURCE_DIR "/models/gpt3-175b.yaml");
  request.cluster = default_cluster(catalog);
  request.cluster.gpus = 4096;
  request.training.global_batch = 1536;
  request.options.tokens = 300e9;
  // The CLI's default software stack bounds the search (spec/stack.hpp), as `costmodel plan` does.
  request.stack = std::make_shared<const StackSpec>(catalog.stack(kDefaultStack));
  return request;
}

/// Narayanan et al. 2021's GPT-3 split scaled to 4,096 GPUs: tp 8, pp 8, dp 64, interleaved.
Strategy prepared_strategy() {
  Strategy s;
  s.tp = 8;
  s.pp = 8;
  s.dp = 64;
  s.vpp = 2;
  s.micro_batch = 1;
  s.global_batch = 1536;
  s.recompute = Recompute::kSelective;
  s.zero = 1;
  return s;
}

void BM_EstimatorEvaluate(benchmark::State& state) {
  const PlanRequest request = gpt3_on_4096();
  const Estimator estimator(request.model, request.cluster, request.options);
  const Strategy strategy = prepared_strategy();
  // Prepared as the planner's inner loop has it: the split's paths once per split, check() and the memory
  // pre-check (BM_EstimatorMemoryPrecheck) already done for the candidate.
  const SplitPaths paths = estimator.paths(strategy);
  const MemoryBreakdown memory = estimator.memory(strategy);
  for (auto _ : state) {
    benchmark::DoNotOptimize(estimator.evaluate_checked(strategy, paths, memory));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimatorEvaluate);

// Every candidate of prepared_strategy()'s split that fits in memory (the rest never reach the estimate),
// in the planner's order, each with its memory pre-check done.
struct SplitCandidates {
  std::vector<Strategy> strategies;
  std::vector<MemoryBreakdown> memories;
};

SplitCandidates split_candidates(const PlanRequest& request, const Estimator& estimator) {
  const CandidateSpace space(request.space, request.model, request.cluster.gpus,
                             request.cluster.scale_up_domain(), request.training);
  const Strategy p = prepared_strategy();
  SplitCandidates out;
  for (const auto& split : space.splits()) {
    if (split.tp != p.tp || split.pp != p.pp || split.dp != p.dp || split.cp != 1 || split.ep != 1) continue;
    space.for_each_candidate(split, [&](const Strategy& s) {
      if (estimator.check(s) != kValid || refuses(request.stack->features, s) != StackRefusal::kNone) return;
      const MemoryBreakdown memory = estimator.memory(s);
      if (memory.total > memory.capacity) return;
      out.strategies.push_back(s);
      out.memories.push_back(memory);
    });
  }
  return out;
}

// The estimates of split_candidates() in the planner's order, through the planner's EvaluationMemo (/1:
// what consecutive candidates share is computed once) or each on its own (/0); time per estimate.
void BM_EstimatorEvaluateInPlanOrder(benchmark::State& state) {
  const PlanRequest request = gpt3_on_4096();
  const Estimator estimator(request.model, request.cluster, request.options);
  const SplitCandidates c = split_candidates(request, estimator);
  const SplitPaths paths = estimator.paths(prepared_strategy());
  const bool memoised = state.range(0) == 1;
  const std::size_t n = c.strategies.size();
  EvaluationMemo memo;  // one per worker, reset for each split, as the planner keeps it
  for (auto _ : state) {
    memo.reset();
    for (std::size_t i = 0; i < n; ++i) {
      if (memoised) {
        benchmark::DoNotOptimize(memo.evaluate(estimator, c.strategies[i], paths, c.memories[i]));
      } else {
        benchmark::DoNotOptimize(estimator.evaluate_checked(c.strategies[i], paths, c.memories[i]));
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
  state.counters["candidates"] = static_cast<double>(n);
}
BENCHMARK(BM_EstimatorEvaluateInPlanOrder)->Arg(1)->Arg(0);

void BM_EstimatorEvaluateUnprepared(benchmark::State& state) {
  const PlanRequest request = gpt3_on_4096();
  const Estimator estimator(request.model, request.cluster, request.options);
  const Strategy strategy = prepared_strategy();
  for (auto _ : state) {
    benchmark::DoNotOptimize(estimator.evaluate(strategy));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimatorEvaluateUnprepared);

void BM_EstimatorMemoryPrecheck(benchmark::State& state) {
  const PlanRequest request = gpt3_on_4096();
  const Estimator estimator(request.model, request.cluster, request.options);
  const Strategy strategy = prepared_strategy();
  for (auto _ : state) {
    benchmark::DoNotOptimize(estimator.memory(strategy));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimatorMemoryPrecheck);

void BM_Enumerate(benchmark::State& state) {
  const PlanRequest request = gpt3_on_4096();
  const CandidateSpace space(request.space, request.model, request.cluster.gpus,
                             request.cluster.scale_up_domain(), request.training);
  std::int64_t total = 0;
  for (auto _ : state) {
    std::int64_t n = 0;
    for (const auto& split : space.splits()) {
      space.for_each_candidate(split, [&n](const Strategy& s) {
        benchmark::DoNotOptimize(s);
        ++n;
      });
    }
    total += n;
  }
  state.counters["configs_per_s"] =
      benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Enumerate)->Unit(benchmark::kMillisecond);

/// The whole planner (enumerate, check, memory pre-check, evaluate, rank, Pareto) on `threads` threads;
/// arg 0 means every core.
void BM_PlanGpt3On4096(benchmark::State& state) {
  PlanRequest request = gpt3_on_4096();
  request.threads = static_cast<int>(state.range(0));
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    const PlanResult result = plan(request);
    evaluated += result.evaluated;
    benchmark::DoNotOptimize(result.top.data());
  }
  const int threads =
      request.threads > 0 ? request.threads : static_cast<int>(std::thread::hardware_concurrency());
  state.counters["configs_per_s"] =
      benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
  state.counters["configs_per_s_per_core"] =
      benchmark::Counter(static_cast<double>(evaluated) / threads, benchmark::Counter::kIsRate);
  state.counters["candidates"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_PlanGpt3On4096)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

/// `--topology auto`: seven fabrics, each sized once.
void BM_PlanGpt3On4096AutoTopology(benchmark::State& state) {
  PlanRequest request = gpt3_on_4096();
  request.topologies = auto_topologies();
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    const PlanResult result = plan(request);
    evaluated += result.evaluated;
    benchmark::DoNotOptimize(result.top.data());
  }
  state.counters["configs_per_s"] =
      benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanGpt3On4096AutoTopology)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace costmodel
