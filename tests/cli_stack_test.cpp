// SPDX-License-Identifier: Apache-2.0
// --stack and `stack:` on the command line, in cluster and runs files (DESIGN.md §5).
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "cli_runner.hpp"

using costmodel::Json;
using costmodel::test::check_one_line_error;
using costmodel::test::contains;
using costmodel::test::member;
using costmodel::test::parse_json;
using costmodel::test::run_cli;
using costmodel::test::TempDir;

TEST_CASE("catalog stacks lists the seven stacks with their library and what each lacks") {
  const auto result = run_cli({"catalog", "stacks", "--format", "json"});
  REQUIRE(result.exit_code == 0);
  const Json rows = parse_json(result.out);
  REQUIRE(rows.as_array().size() == 7);
  const Json& old = rows.as_array().front();
  CHECK(std::get<std::string>(member(old, "name").value()) == "megatron-lm-2021");
  CHECK(contains(std::get<std::string>(member(old, "lacks").value()), "sequence_parallel"));
  CHECK(contains(std::get<std::string>(member(old, "source").value()), "3860e995"));
}

TEST_CASE("--stack bounds the plan and names itself in every format") {
  const std::vector<std::string> plan = {
      "plan",           "--model", "megatron-1.7b", "--gpus",          "32", "--top", "3",
      "--global-batch", "64",      "--stack",       "megatron-lm-2021"};
  auto json = plan;
  json.insert(json.end(), {"--format", "json"});
  const auto result = run_cli(json);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const Json out = parse_json(result.out);
  for (const Json& config : member(out, "configs").as_array()) {
    CHECK(std::get<std::string>(member(config, "stack").value()) == "megatron-lm-2021");
    CHECK(std::get<std::int64_t>(member(config, "zero").value()) == 0);
  }
  CHECK(std::get<std::int64_t>(member(member(out, "rejected"), "zero_unsupported").value()) > 0);
  auto csv = plan;
  csv.insert(csv.end(), {"--format", "csv"});
  const auto table = run_cli(csv);
  REQUIRE(table.exit_code == 0);
  CHECK(contains(table.out, ",megatron-lm-2021,"));
  const auto text = run_cli(plan);
  REQUIRE(text.exit_code == 0);
  CHECK(contains(text.out, ", stack megatron-lm-2021\n"));
}

TEST_CASE("a knob the stack cannot run, an unknown stack: one line, exit 2") {
  const auto cp = run_cli({"plan", "--gpus", "64", "--stack", "megatron-lm-2021", "--cp", "2"});
  check_one_line_error(cp, 2);
  CHECK(contains(cp.err, "--cp: stack megatron-lm-2021 has no context parallelism"));
  const auto fp8 = run_cli({"estimate", "--gpu", "h100-sxm", "--gpus", "8", "--model", "megatron-1.7b",
                            "--tp", "1", "--pp", "1", "--dp", "8", "--stack", "deepspeed", "--dtype", "fp8"});
  check_one_line_error(fp8, 2);
  CHECK(contains(fp8.err, "--dtype: stack deepspeed has no FP8 training"));
  // DeepSpeed's MoE dispatches with its own all-to-all: no DeepEP or HybridEP (data/stacks.yaml).
  const auto flex = run_cli({"plan", "--gpus", "64", "--model", "mixtral-8x7b", "--stack", "deepspeed",
                             "--moe-dispatcher", "deepep"});
  check_one_line_error(flex, 2);
  CHECK(contains(flex.err, "--moe-dispatcher: stack deepspeed has no DeepEP or HybridEP dispatcher"));
  const auto choice =
      run_cli({"plan", "--gpus", "64", "--model", "mixtral-8x7b", "--moe-dispatcher", "deepp"});
  check_one_line_error(choice, 2);
  CHECK(contains(choice.err, "deepep"));
  const auto typo = run_cli({"plan", "--gpus", "64", "--stack", "torchtitn"});
  check_one_line_error(typo, 2);
  CHECK(contains(typo.err, "did you mean 'torchtitan'"));
}

TEST_CASE("stack: in a cluster file and in a runs file, errors at their line") {
  TempDir dir;
  const std::string cluster = (dir.path() / "cluster.yaml").string();
  const std::string fabric = "scale_out: {topology: fat-tree, link: ib-hdr-200g, nics_per_node: 8}\n";
  std::ofstream(cluster) << "gpu: a100-80gb\ngpus: 32\nstack: deepspeed\n" << fabric;
  const auto planned = run_cli({"plan", "--cluster", cluster, "--model", "megatron-1.7b", "--global-batch",
                                "64", "--top", "1", "--format", "json"});
  INFO(planned.err);
  REQUIRE(planned.exit_code == 0);
  const Json planned_json = parse_json(planned.out);
  const Json& first = member(planned_json, "configs").as_array().front();
  CHECK(std::get<std::string>(member(first, "stack").value()) == "deepspeed");
  // DeepSpeed has no sequence parallelism and no interleaved schedule.
  CHECK(std::get<std::int64_t>(member(first, "vpp").value()) == 1);

  const std::string bad_cluster = (dir.path() / "bad-cluster.yaml").string();
  std::ofstream(bad_cluster) << "gpu: a100-80gb\ngpus: 32\nstack: deepspeeed\n" << fabric;
  const auto bad = run_cli({"plan", "--cluster", bad_cluster});
  check_one_line_error(bad, 2);
  CHECK(contains(bad.err, "bad-cluster.yaml:3:8: error: stack: unknown stack 'deepspeeed'"));

  const std::string runs = (dir.path() / "runs.yaml").string();
  std::ofstream(runs)
      << "runs:\n  - id: r\n    source: s\n    stack: megatron-lm-2021\n"
         "    model: {layers: 24, hidden: 2304, heads: 24, vocab: 51200, seq_len: 2048, ffn: gelu}\n"
         "    cluster: {gpu: a100-80gb, gpus: 32, scale_out: {topology: fat-tree, link: ib-hdr-200g}}\n"
         "    training: {global_batch: 512, tp: 1, pp: 1, dp: 16, cp: 2}\n"
         "    measured: {tflops_per_gpu: 137, flops_convention: hardware}\n";
  const auto refused = run_cli({"validate", runs});
  check_one_line_error(refused, 2);
  CHECK(contains(refused.err, "runs.yaml:7:61: error: runs[0].training.cp: stack megatron-lm-2021 has no"));
}

TEST_CASE("validate and calibrate --runs: --stack for the runs that name none") {
  TempDir dir;
  const std::string runs = (dir.path() / "runs.yaml").string();
  // A run that names no stack and leaves ZeRO to the planner: under megatron-core the planner shards the
  // optimizer states (zero 1, the distributed optimizer); megatron-lm-2021's code had no such thing.
  std::ofstream(runs)
      << "runs:\n  - id: r\n    source: s\n"
         "    model: {layers: 24, hidden: 2304, heads: 24, vocab: 51200, seq_len: 2048, ffn: gelu}\n"
         "    cluster: {gpu: a100-80gb, gpus: 32, scale_out: {topology: fat-tree, link: ib-hdr-200g}}\n"
         "    training: {global_batch: 512, tp: 1, pp: 2, dp: 16}\n"
         "    measured: {tflops_per_gpu: 137, flops_convention: hardware}\n";
  const auto zero_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"validate", runs, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto result = run_cli(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const Json out = parse_json(result.out);
    const Json& row = member(out, "runs").as_array().front();
    return std::get<std::int64_t>(member(row, "zero").value());
  };
  CHECK(zero_of({}) == 1);
  CHECK(zero_of({"--stack", "megatron-lm-2021"}) == 0);
  const auto typo = run_cli({"validate", runs, "--stack", "megatron-lm-2012"});
  check_one_line_error(typo, 2);
  CHECK(contains(typo.err, "--stack: unknown stack 'megatron-lm-2012'; did you mean 'megatron-lm-2021'?"));
  const auto logs = run_cli({"calibrate", "--stack", "deepspeed"});
  check_one_line_error(logs, 2);
  CHECK(contains(logs.err, "--stack: needs --runs RUNS.yaml"));
}

TEST_CASE("scenario --stack: the stack of the cases that name none") {
  TempDir dir;
  const std::string file = (dir.path() / "scenario.yaml").string();
  std::ofstream(file) << "title: t\nbase:\n  cluster:\n    gpu: a100-80gb\n    gpus: 32\n"
                         "    scale_out: {topology: fat-tree, link: ib-hdr-200g}\n"
                         "  model: megatron-1.7b\n  training: {global_batch: 64}\n"
                         "sweep:\n  training.micro_batch: [1, 2]\n";
  const auto result = run_cli({"scenario", file, "--stack", "deepspeed", "--format", "json"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const Json out = parse_json(result.out);
  int configurations = 0;
  for (const Json& row : member(out, "rows").as_array()) {
    for (const Json& config : member(row, "configurations").as_array()) {
      CHECK(std::get<std::string>(member(config, "stack").value()) == "deepspeed");
      ++configurations;
    }
  }
  CHECK(configurations >= 2);
  const auto typo = run_cli({"scenario", file, "--stack", "deepspeeed"});
  check_one_line_error(typo, 2);
  CHECK(contains(typo.err, "did you mean 'deepspeed'"));
}
