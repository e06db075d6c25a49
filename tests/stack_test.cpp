// SPDX-License-Identifier: Apache-2.0
// Software stacks (data/stacks.yaml, spec/stack.hpp): what each runs, the defaults of its launch, and a
// planner that proposes nothing else.
#include <doctest/doctest.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "costmodel/costmodel.hpp"

using namespace costmodel;

namespace {

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

/// `training` with `key` set as a user would (marked given).
TrainingSpec with(TrainingSpec training, const std::string& key, const std::string& value) {
  set_training_field(training, key, value);
  return training;
}

}  // namespace

TEST_CASE("the catalog has DESIGN.md's seven stacks, each sourced, megatron-core the default") {
  std::vector<std::string> names;
  for (const StackSpec& s : catalog().stacks) {
    names.push_back(s.name);
    CHECK_FALSE(s.source.empty());
    CHECK_FALSE(s.description.empty());
    CHECK_FALSE(s.library.empty());
    // Every stack runs plain data parallelism without pipelining.
    CHECK(refuses(s.features, Strategy{}) == StackRefusal::kNone);
  }
  CHECK(names == std::vector<std::string>{"megatron-lm-2021", "megatron-lm-2023", "megatron-core", "nemo",
                                          "deepspeed", "torchtitan", "maxtext"});
  TrainingSpec training;
  resolve_stack(training, catalog());
  CHECK(training.stack == "megatron-core");
  REQUIRE(training.stack_spec != nullptr);
  // megatron-core's launch keeps the settings every command had before stacks: flash attention, TP and
  // pipeline communication overlap as NVIDIA's published runs, fused gradient accumulation.
  CHECK(training.flash_attention);
  CHECK(training.tp_comm_overlap);
  CHECK(training.pp_comm_overlap);
  CHECK(training.grad_accumulation_fusion);
  CHECK_FALSE(training.ep_comm_overlap);
  // A cluster file's stack applies when the training names none; the training's own wins.
  TrainingSpec from_cluster;
  resolve_stack(from_cluster, catalog(), "deepspeed");
  CHECK(from_cluster.stack == "deepspeed");
  TrainingSpec own = with(TrainingSpec{}, "stack", "nemo");
  resolve_stack(own, catalog(), "deepspeed");
  CHECK(own.stack == "nemo");
}

TEST_CASE("a stack's defaults apply only where nothing was set; a set knob it lacks is an error") {
  // Megatron-LM v2.6: no fused attention, no fused gradient accumulation (83b1e42f, 2022), blocking p2p.
  TrainingSpec t = with(TrainingSpec{}, "stack", "megatron-lm-2021");
  resolve_stack(t, catalog());
  CHECK_FALSE(t.flash_attention);
  CHECK_FALSE(t.grad_accumulation_fusion);
  CHECK_FALSE(t.pp_comm_overlap);
  CHECK_FALSE(t.tp_comm_overlap);
  // A knob the stack has, set otherwise by the user, stays as set.
  TrainingSpec fused =
      with(with(TrainingSpec{}, "stack", "megatron-lm-2021"), "grad_accumulation_fusion", "on");
  resolve_stack(fused, catalog());
  CHECK(fused.grad_accumulation_fusion);
  // Set knobs the stack cannot run: one Error naming the field.
  const auto refused_field = [](TrainingSpec spec) {
    try {
      resolve_stack(spec, catalog());
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::kInput);
      CHECK(e.message().find("megatron-lm-2021") != std::string::npos);
      return e.field();
    }
    return std::string("(accepted)");
  };
  const TrainingSpec old = with(TrainingSpec{}, "stack", "megatron-lm-2021");
  CHECK(refused_field(with(old, "cp", "2")) == "cp");
  CHECK(refused_field(with(old, "zero", "1")) == "zero");
  CHECK(refused_field(with(old, "dtype", "fp8")) == "dtype");
  CHECK(refused_field(with(old, "attention", "flash")) == "attention");
  CHECK(refused_field(with(old, "sequence_parallel", "on")) == "sequence_parallel");
  CHECK(refused_field(with(old, "recompute", "selective")) == "recompute");
  CHECK(refused_field(with(with(old, "pp", "4"), "overlap", "on")) == "overlap");
  CHECK(refused_field(with(old, "overlap", "on")) == "(accepted)");  // torch DDP overlaps without pipelining
  CHECK(refused_field(with(old, "tp", "8")) == "(accepted)");
  // An unknown stack: the closest names.
  TrainingSpec typo = with(TrainingSpec{}, "stack", "megatron-cor");
  CHECK_THROWS_WITH_AS(resolve_stack(typo, catalog()), doctest::Contains("did you mean 'megatron-core'"),
                       Error);
}

TEST_CASE("refuses(): what Megatron-LM of 2021 and FSDP2 run") {
  const StackFeatures& old = catalog().stack("megatron-lm-2021").features;
  const StackFeatures& titan = catalog().stack("torchtitan").features;
  Strategy s;
  s.tp = 8;
  s.pp = 16;
  s.sequence_parallel = false;
  s.overlap = false;
  CHECK(refuses(old, s) == StackRefusal::kNone);  // Narayanan et al. 2021's PTD-P
  s.vpp = 2;
  CHECK(refuses(old, s) == StackRefusal::kNone);  // its interleaved schedule
  s.overlap = true;                               // local DDP all-reduces after the flush
  CHECK(refuses(old, s) == StackRefusal::kFeature);
  s.overlap = false;
  s.sequence_parallel = true;  // Korthikanti et al. 2022
  CHECK(refuses(old, s) == StackRefusal::kFeature);
  s.sequence_parallel = false;
  s.zero = 1;  // the distributed optimizer came in 2022
  CHECK(refuses(old, s) == StackRefusal::kZero);
  // FSDP2 with pipelining: ZeRO-2 (no resharding after the forward) as Llama 3 405B, not ZeRO-1.
  s.zero = 2;
  CHECK(refuses(titan, s) == StackRefusal::kNone);
  CHECK(refuses(catalog().stack("megatron-core").features, s) == StackRefusal::kZero);
  s.zero = 1;
  CHECK(refuses(titan, s) == StackRefusal::kZero);
  const std::vector<std::string> why = stack_refusals(catalog().stack("megatron-lm-2021"), s);
  REQUIRE(why.size() == 1);
  CHECK(why.front() == "stack megatron-lm-2021 has no ZeRO stage 1");
}

TEST_CASE("GPT-3 175B on 1,024 A100 under megatron-lm-2021 plans nothing the 2021 code lacked") {
  // Issue 28's acceptance: the planner proposes only what the stack runs (data/stacks.yaml, Megatron-LM
  // v2.6): no distributed optimizer, no sequence parallelism, no selective recompute, no flash attention, no
  // DP overlap under pipelining, fp16 as its scripts.
  TrainingSpec training = with(with(TrainingSpec{}, "stack", "megatron-lm-2021"), "dtype", "fp16");
  resolve_stack(training, catalog());
  ClusterOptions o;
  o.gpu = "a100-80gb";
  o.gpus = 1024;
  const ClusterSpec cluster = apply_cluster_options(default_cluster(catalog()), o, catalog());
  PlanRequest request = plan_request(catalog().model("gpt3-175b"), cluster, training);
  request.top_k = 20;
  request.threads = 2;
  const PlanResult result = plan(request);
  REQUIRE(result.top.size() == 20);
  CHECK(result.cluster.stack == "megatron-lm-2021");
  CHECK_FALSE(request.options.flash_attention);
  CHECK_FALSE(request.options.tp_comm_overlap);
  CHECK_FALSE(request.options.grad_accumulation_fusion);
  for (const StepEstimate& e : result.top) {
    const Strategy& s = e.strategy;
    CHECK(s.zero == 0);
    CHECK(s.cp == 1);
    CHECK((s.tp == 1 || !s.sequence_parallel));
    CHECK(s.recompute != Recompute::kSelective);
    CHECK((s.pp == 1 || !s.overlap));
    CHECK(s.first_stage_layers == 0);
  }
  const auto index = [](InvalidReason bit) {
    return static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(bit)));
  };
  CHECK(result.rejected[index(kZeroUnsupported)] > 0);
  CHECK(result.rejected[index(kStackUnsupported)] > 0);
  // The same question under megatron-core proposes what 2021 lacked, and runs faster for it.
  TrainingSpec current = with(TrainingSpec{}, "dtype", "fp16");
  resolve_stack(current, catalog());
  PlanRequest now = plan_request(catalog().model("gpt3-175b"), cluster, current);
  now.top_k = 1;
  now.threads = 2;
  const PlanResult best = plan(now);
  REQUIRE(!best.top.empty());
  CHECK(best.top.front().step_time < result.top.front().step_time);
}

TEST_CASE("data/stacks.yaml errors: at the line, with the field") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "costmodel-stack-test";
  fs::create_directories(dir);
  const auto load = [&](const std::string& features, const std::string& defaults) {
    const fs::path file = dir / "stacks.yaml";
    std::ofstream(file)
        << "stacks:\n  - name: s\n    description: d\n    library: NCCL\n    source: x\n"
           "    features: {zero: [0, 1], pipeline: true, "
           "interleaved_pipeline: true, uneven_stages: true, sequence_parallel: true, "
           "context_parallel: true, expert_parallel: true, expert_tensor_parallel: true, "
           "flash_attention: true, fp8: true, selective_recompute: true, dp_overlap: true, "
           "dp_overlap_with_pipeline: true, tp_comm_overlap: false, pp_comm_overlap: true, "
           "ep_comm_overlap: true, flex_dispatcher: true, bf16_optimizer: true, recompute_modules: true"
        << features << "}\n"
        << defaults;
    return load_stacks_file(file.string());
  };
  const std::string ok = ", zero_with_pipeline: [0]";
  CHECK(load(ok, "").size() == 1);
  CHECK(load(ok, "    defaults: {attention: standard}\n").front().defaults.size() == 1);
  // A stage with pipelining it does not run at all.
  CHECK_THROWS_WITH_AS(load(", zero_with_pipeline: [0, 3]", ""), doctest::Contains("zero_with_pipeline"),
                       Error);
  // A default for a knob that is not a software knob, a typo, a value its knob refuses, one it cannot run.
  CHECK_THROWS_WITH_AS(load(ok, "    defaults: {tp: 8}\n"), doctest::Contains("unknown key"), Error);
  CHECK_THROWS_WITH_AS(load(ok, "    defaults: {atention: flash}\n"), doctest::Contains("did you mean"),
                       Error);
  CHECK_THROWS_WITH_AS(load(ok, "    defaults: {attention: fast}\n"), doctest::Contains("flash"), Error);
  CHECK_THROWS_WITH_AS(load(ok, "    defaults: {tp_comm_overlap: on}\n"),
                       doctest::Contains("tensor-parallel communication overlap"), Error);
  // A feature left out.
  CHECK_THROWS_WITH_AS(load(ok + ", fp9: true", ""), doctest::Contains("fp9"), Error);
  fs::remove_all(dir);
}
