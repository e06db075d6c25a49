// SPDX-License-Identifier: Apache-2.0
// `costmodel plan` driven through the real binary: DESIGN.md §3 flags, JSON shape, exit codes, determinism.

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace costmodel::test {
namespace {

/// The acceptance example of `make plan`: GPT-3 175B on 1,024 A100-80GB, 8 x HDR 200G per node.
std::vector<std::string> make_plan_args() {
  return {"plan", "--model",         "gpt3-175b", "--gpu",    "a100-80gb",   "--gpus",
          "1024", "--gpus-per-node", "8",         "--link",   "ib-hdr-200g", "--nics-per-node",
          "8",    "--global-batch",  "1536",      "--tokens", "300e9",       "--top",
          "10"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

/// The document without elapsed_s, which is the one thing allowed to differ between runs.
std::string without_elapsed(const Json& document) {
  Json copy = Json::object();
  for (const auto& [key, value] : document.as_object()) {
    if (key != "elapsed_s") copy.set(key, value);
  }
  return copy.dump(0);
}

TEST_CASE("make plan: a ranked table whose best entry fits and keeps TP in the node") {
  const auto result = run_cli(make_plan_args());
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  CHECK(result.out.find("top 10 by time") != std::string::npos);
  CHECK(result.out.find("evaluated ") != std::string::npos);
  CHECK(result.out.find("rejected: ") != std::string::npos);

  const auto json_run = run_cli(with(make_plan_args(), {"--format", "json"}));
  REQUIRE_MESSAGE(json_run.exit_code == 0, json_run.err);
  const Json doc = parse_json(json_run.out);
  const auto& configs = member(doc, "configs").as_array();
  REQUIRE(configs.size() == 10);
  const Json& best = configs.front();
  CHECK(std::get<bool>(member(best, "fits_memory").value()));
  CHECK(std::get<std::int64_t>(member(best, "tp").value()) <= 8);
  for (const char* key : {"tp",
                          "pp",
                          "dp",
                          "cp",
                          "ep",
                          "vpp",
                          "micro_batch",
                          "global_batch",
                          "recompute",
                          "zero",
                          "dtype",
                          "topology",
                          "step_time_s",
                          "tokens_per_s",
                          "mfu",
                          "memory_per_gpu_bytes",
                          "breakdown",
                          "training_days",
                          "cost_usd",
                          "switches",
                          "network_cost_usd",
                          "power_w"}) {
    CHECK_MESSAGE(best.find(key) != nullptr, key);
  }
  CHECK(member(doc, "pareto").is_array());
  CHECK(std::get<std::int64_t>(member(doc, "evaluated").value()) > 100000);
  CHECK(std::get<std::int64_t>(member(doc, "feasible").value()) > 0);
  CHECK(member(doc, "elapsed_s").value().index() == 3);  // a double
  CHECK(std::get<std::int64_t>(member(member(doc, "rejected"), "out_of_memory").value()) > 0);
}

TEST_CASE("byte-identical JSON (but elapsed_s) for 1, 2 and 4 threads") {
  std::vector<std::string> outputs;
  for (const char* threads : {"1", "2", "4"}) {
    const auto result =
        run_cli(with(make_plan_args(), {"--format", "json", "--threads", threads, "--topology",
                                        "fat-tree,fat-tree:2,rail-only", "--pareto"}));
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    outputs.push_back(without_elapsed(parse_json(result.out)));
  }
  CHECK(outputs[0] == outputs[1]);
  CHECK(outputs[0] == outputs[2]);
}

TEST_CASE("nothing feasible: exit 3 with the reasons and the closest candidates") {
  const auto result =
      run_cli({"plan", "--model", "gpt3-175b", "--gpus", "8", "--global-batch", "8", "--format", "json"});
  CHECK(result.exit_code == 3);
  CHECK(result.out.empty());
  CHECK(result.err.find("nothing feasible") != std::string::npos);
  CHECK(result.err.find("out_of_memory") != std::string::npos);
  CHECK(result.err.find("closest: [1] tp=") != std::string::npos);
}

TEST_CASE("pins are honoured") {
  const auto result =
      run_cli(with(make_plan_args(), {"--tp", "8", "--pp", "8", "--recompute", "full", "--zero", "1",
                                      "--overlap", "off", "--format", "json"}));
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  const Json doc = parse_json(result.out);
  for (const auto& config : member(doc, "configs").as_array()) {
    CHECK(std::get<std::int64_t>(member(config, "tp").value()) == 8);
    CHECK(std::get<std::int64_t>(member(config, "pp").value()) == 8);
    CHECK(std::get<std::string>(member(config, "recompute").value()) == "full");
    CHECK(std::get<std::int64_t>(member(config, "zero").value()) == 1);
    CHECK(std::get<bool>(member(config, "overlap").value()) == false);
  }
}

TEST_CASE("--tokens takes 300e9, 300000000000 and 300B alike") {
  std::vector<std::string> costs;
  for (const char* tokens : {"300e9", "300000000000", "300B", "0.3T"}) {
    auto args = make_plan_args();
    args[16] = tokens;
    args[18] = "1";  // --top
    const auto result = run_cli(with(args, {"--format", "json"}));
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    costs.push_back(member(member(parse_json(result.out), "configs").as_array().front(), "cost_usd").dump(0));
  }
  CHECK(costs[0] == costs[1]);
  CHECK(costs[0] == costs[2]);
  CHECK(costs[0] == costs[3]);
}

TEST_CASE("--topology auto searches the fabric; --rank-by switches ranks by it") {
  auto args = make_plan_args();
  args[18] = "50";  // --top
  const auto result =
      run_cli(with(args, {"--topology", "auto", "--rank-by", "switches", "--format", "json"}));
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  const Json doc = parse_json(result.out);
  const auto& configs = member(doc, "configs").as_array();
  std::int64_t previous = 0;
  for (const auto& config : configs) {
    const auto switches = std::get<std::int64_t>(member(config, "switches").value());
    CHECK(switches >= previous);
    previous = switches;
    // Every row names its library, and each communicator's collective runs an algorithm NCCL has (no
    // torus-bucket on the tori, no halving-doubling or hierarchical: src/tuning/*.cc, src/device/*.h).
    CHECK(std::get<std::string>(member(member(config, "cluster"), "library").value()) == "NCCL");
    int named = 0;
    for (const auto& entry : member(config, "collectives").as_object()) {
      const std::string& group = entry.first;  // clang < 16 cannot capture a structured binding
      const auto& used = entry.second;
      if (std::holds_alternative<std::monostate>(used.value())) continue;
      ++named;
      const std::string name = std::get<std::string>(member(used, "algorithm").value());
      CAPTURE(group);
      CAPTURE(name);
      CHECK(std::get<std::string>(member(used, "library").value()) == "NCCL");
      CHECK((name == "ring" || name == "tree" || name == "nvls-tree" || name == "pat" || name == "direct" ||
             name == "in-network"));
    }
    CHECK(named >= 2);  // at least TP and DP
  }
  // The table names what the first row runs.
  args[18] = "1";  // --top
  const auto table = run_cli(with(args, {"--topology", "auto"}));
  REQUIRE_MESSAGE(table.exit_code == 0, table.err);
  CHECK(table.out.find("#1 runs on NCCL: tp ") != std::string::npos);
}

TEST_CASE("--deadline-days finds the cheapest GPU count in --gpus-range") {
  const auto result = run_cli({"plan", "--model", "megatron-1.7b", "--tokens", "2B", "--deadline-days", "1",
                               "--gpus-range", "8:64", "--global-batch", "64", "--format", "json"});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  const Json doc = parse_json(result.out);
  const auto& configs = member(doc, "configs").as_array();
  REQUIRE(!configs.empty());
  for (const auto& config : configs) {
    CHECK(std::get<double>(member(config, "training_days").value()) <= 1.0);
  }
}

TEST_CASE("table with --pareto, and -o FILE") {
  const TempDir dir;
  const std::string path = (dir.path() / "plan.txt").string();
  const auto result = run_cli(with(make_plan_args(), {"--pareto", "-o", path}));
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  CHECK(result.out.empty());
  const std::string text = read_file(path);
  CHECK(text.find("Pareto front") != std::string::npos);
  CHECK(text.find("evaluated ") != std::string::npos);
}

TEST_CASE("--pareto --format csv: the top rows, then the front, each saying which") {
  // Issue 30: the CSV held the Pareto front alone, dropping the --top rows.
  const auto result =
      run_cli({"plan", "--model", "llama3-8b", "--gpus", "64", "--top", "3", "--pareto", "--format", "csv"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::istringstream in(result.out);
  std::string line;
  std::getline(in, line);
  CHECK(line.rfind("set,rank,tp,", 0) == 0);
  int top = 0, front = 0;
  while (std::getline(in, line)) {
    if (line.rfind("top,", 0) == 0) ++top;
    if (line.rfind("pareto,", 0) == 0) ++front;
  }
  CHECK(top == 3);
  CHECK(front >= 1);
}

TEST_CASE("usage errors exit 2") {
  const auto bad_topology = run_cli(with(make_plan_args(), {"--topology", "fat-tre"}));
  CHECK(bad_topology.exit_code == 2);
  CHECK(bad_topology.err.find("fat-tree") != std::string::npos);
  CHECK(run_cli(with(make_plan_args(), {"--rank-by", "speed"})).exit_code == 2);
  CHECK(run_cli(with(make_plan_args(), {"--gpus-range", "8:64"})).exit_code == 2);
  CHECK(run_cli(with(make_plan_args(), {"--zero", "4"})).exit_code == 2);
  CHECK(run_cli(with(make_plan_args(), {"--model", "gpt3-175"})).exit_code == 2);  // unknown model
  // Without --model the default is gpt3-175b, which cannot fit on 8 GPUs: exit 3, not a usage error.
  CHECK(run_cli({"plan", "--gpus", "8"}).exit_code == 3);
  auto bad_tokens = make_plan_args();
  bad_tokens[16] = "lots";
  CHECK(run_cli(bad_tokens).exit_code == 2);
}

}  // namespace
}  // namespace costmodel::test
