// SPDX-License-Identifier: Apache-2.0
// Regression goldens: every command's output, byte for byte, against tests/golden/<case>. These are the
// model's own numbers, not truths: they pin behaviour while code moves (a renovation must leave them
// unchanged) and show, in review, every number a change of the model moves.
//
// Refresh after a deliberate change of the model or of an output: `make golden` (runs this test with
// COSTMODEL_UPDATE_GOLDEN=1, which rewrites the files), then read `git diff tests/golden`.
// Wall-clock timings and thread counts are the only values masked.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.hpp"

namespace {

using costmodel::test::read_file;
using costmodel::test::run_cli;

struct GoldenCase {
  GoldenCase(std::string name_, std::vector<std::string> args_, int exit_code_ = 0, std::string written_ = {})
      : name(std::move(name_)), args(std::move(args_)), exit_code(exit_code_), written(std::move(written_)) {}

  std::string name;               ///< file under tests/golden/
  std::vector<std::string> args;  ///< the command line after `costmodel`
  int exit_code = 0;
  /// A file the command writes (by -o, --plot or --emit-*), compared instead of stdout; written under a
  /// temporary folder whose path replaces "{tmp}" in args.
  std::string written;
};

const std::string kGpt3Estimate[] = {
    "--model", "gpt3-175b", "--gpus", "1024",           "--tp", "8",           "--pp", "8",        "--dp",
    "16",      "--vpp",     "2",      "--global-batch", "1536", "--recompute", "full", "--tokens", "300e9"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::vector<GoldenCase> cases() {
  const std::vector<std::string> estimate =
      with({"estimate"}, {std::begin(kGpt3Estimate), std::end(kGpt3Estimate)});
  // The `make plan` example.
  const std::vector<std::string> plan = {
      "plan", "--model",         "gpt3-175b", "--gpu",    "a100-80gb",   "--gpus",
      "1024", "--gpus-per-node", "8",         "--link",   "ib-hdr-200g", "--nics-per-node",
      "8",    "--global-batch",  "1536",      "--tokens", "300e9"};
  const std::string runs = std::string(COSTMODEL_TEST_SOURCE_DIR) + "/data/published-runs.yaml";
  const std::string nccl = std::string(COSTMODEL_TEST_FIXTURES) + "/nccl/";
  return {
      {"catalog.txt", {"catalog"}},
      {"catalog-gpus.txt", {"catalog", "gpus"}},
      {"catalog-gpus.json", {"catalog", "gpus", "--format", "json"}},
      {"catalog-gpus.csv", {"catalog", "gpus", "--format", "csv"}},
      {"catalog-links.json", {"catalog", "links", "--format", "json"}},
      {"catalog-switches.json", {"catalog", "switches", "--format", "json"}},
      {"catalog-scale-up.txt", {"catalog", "scale-up"}},
      {"catalog-models.json", {"catalog", "models", "--format", "json"}},
      {"catalog-models.md", {"catalog", "models", "--format", "markdown"}},
      {"catalog-topologies.txt", {"catalog", "topologies"}},
      {"estimate.txt", estimate},
      {"estimate.json", with(estimate, {"--format", "json"})},
      {"estimate.csv", with(estimate, {"--format", "csv"})},
      {"estimate-moe.json",
       {"estimate", "--model",        "mixtral-8x7b", "--gpu",    "h100-sxm", "--gpus",
        "64",       "--link",         "ib-ndr-400g",  "--tp",     "2",        "--pp",
        "1",        "--dp",           "32",           "--ep",     "8",        "--zero",
        "1",        "--global-batch", "512",          "--format", "json"},
       3},
      {"estimate-cp-compression.json",
       {"estimate", "--model",       "llama3-8b", "--gpu",          "h100-sxm", "--gpus",
        "64",       "--link",        "roce-400g", "--tp",           "2",        "--pp",
        "2",        "--dp",          "8",         "--cp",           "2",        "--zero",
        "1",        "--compression", "topk:0.01", "--global-batch", "256",      "--format",
        "json"}},
      {"plan.txt", with(plan, {"--top", "10"})},
      {"plan.json", with(plan, {"--top", "10", "--format", "json"})},
      {"plan.csv", with(plan, {"--top", "10", "--format", "csv"})},
      {"plan.md", with(plan, {"--top", "10", "--format", "markdown"})},
      {"plan-megatron.sh", with(plan, {"--top", "2", "--format", "megatron"})},
      {"estimate-nemo.txt", with(estimate, {"--format", "nemo"})},
      {"plan-pareto.txt", with(plan, {"--pareto", "--top", "3"})},
      {"plan-auto.json",
       {"plan", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "512", "--link", "ib-ndr-400g",
        "--switch", "qm9700", "--topology", "auto", "--top", "3", "--pareto", "--format", "json"}},
      {"plan-rank-cost.txt", with(plan, {"--rank-by", "cost", "--top", "5"})},
      {"plan-deadline.txt",
       {"plan", "--model", "llama3-8b", "--gpu", "h100-sxm", "--link", "ib-ndr-400g", "--tokens", "1T",
        "--deadline-days", "20", "--gpus-range", "64:256", "--top", "3"}},
      // The buyer's question over three fabrics: why smaller and larger clusters lost.
      {"plan-deadline-fabrics.txt",
       {"plan", "--model", "llama3-8b", "--gpu", "h100-sxm", "--tokens", "1T", "--deadline-days", "10",
        "--gpus-range", "64:512", "--topology", "fat-tree,fat-tree:4,torus-3d", "--top", "3"}},
      // Rental cost without interruptions: the failure-free days and GPU-hours cost of before goodput.
      {"plan-rental.txt", with(plan, {"--cost-basis", "rental", "--gpu-mtbf", "off", "--top", "3"})},
      {"estimate-economics.json",
       with(estimate,
            {"--format", "json", "--async-checkpoint", "on", "--restart-time", "5min", "--pue", "1.2",
             "--electricity", "0.1", "--amortization-years", "5", "--checkpoint-bandwidth", "4GB/s"})},
      {"scenario-cluster-size.txt",
       {"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/cluster-size.yaml"}},
      {"plan-infeasible.txt",
       {"plan", "--model", "gpt3-175b", "--gpu", "v100-32gb", "--gpus", "8", "--global-batch", "8"},
       3},
      {"collective-allreduce-h100.txt",
       {"collective", "--op", "allreduce", "--gpu", "h100-sxm", "--gpus", "8"}},
      {"collective-allreduce-mi300x.txt",
       {"collective", "--op", "allreduce", "--gpu", "mi300x", "--gpus", "8"}},
      {"collective-allreduce-a100-64.json",
       {"collective", "--op", "allreduce", "--gpus", "64", "--max-bytes", "1GiB", "--step-factor", "8",
        "--format", "json"}},
      {"collective-alltoall.csv",
       {"collective", "--op", "alltoall", "--gpu", "h100-sxm", "--gpus", "64", "--link", "ib-ndr-400g",
        "--max-bytes", "1GiB", "--step-factor", "4", "--format", "csv"}},
      {"collective-ring-torus.txt",
       {"collective", "--op", "reducescatter", "--algo", "ring", "--gpus", "512", "--topology", "torus-3d",
        "--nics-per-node", "8", "--max-bytes", "1GiB", "--step-factor", "16"}},
      {"collective-hier-dragonfly.md",
       {"collective", "--op", "allgather", "--algo", "hierarchical", "--gpus", "1024", "--topology",
        "dragonfly-plus", "--max-bytes", "1GiB", "--step-factor", "16", "--format", "markdown"}},
      {"topology.txt",
       {"topology", "--gpu", "h100-sxm", "--gpus", "4096", "--link", "ib-ndr-400g", "--switch", "qm9700"}},
      {"topology.json",
       {"topology", "--gpu", "h100-sxm", "--gpus", "4096", "--link", "ib-ndr-400g", "--switch", "qm9700",
        "--format", "json"}},
      {"topology-all.json", {"topology", "--gpus", "2048", "--topology", "all", "--format", "json"}},
      {"topology-all.csv", {"topology", "--gpus", "16384", "--topology", "all", "--format", "csv"}},
      {"scenario-gpt3.txt",
       {"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/gpt3-175b-1024-a100.yaml"}},
      {"scenario-compression.json",
       {"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/compression.yaml", "--format",
        "json"}},
      {"scenario-open-scale-up.txt",
       {"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/open-scale-up.yaml"}},
      {"scenario-optics.csv",
       {"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/optics-power.yaml", "--format",
        "csv"}},
      {"scenario-link-speed.svg",
       {"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/link-speed.yaml", "--plot",
        "{tmp}/plot.svg"},
       0,
       "plot.svg"},
      {"validate.txt", {"validate", runs, "--threads", "2"}},
      {"validate.json", {"validate", runs, "--threads", "2", "--format", "json"}},
      {"calibrate.txt", {"calibrate", nccl + "all_reduce_perf_h100_1node.txt", nccl + "multinode_run.txt"}},
      {"calibrate.json",
       {"calibrate", nccl + "all_reduce_perf_h100_1node.txt", nccl + "multinode_run.txt", "--format",
        "json"}},
      {"calibrate-emit.yaml",
       {"calibrate", nccl + "all_reduce_perf_h100_1node.txt", nccl + "multinode_run.txt", "--emit-cluster",
        "{tmp}/cluster.yaml"},
       0,
       "cluster.yaml"},
  };
}

/// Wall-clock timings and thread counts, the only values that differ between runs of the same binary.
std::string masked(std::string text) {
  static const std::regex kElapsedJson(R"("elapsed_s": [-+.0-9eE]+)");
  static const std::regex kElapsedText(R"(in [-+.0-9eE]+ s( on [0-9]+ threads?)?)");
  text = std::regex_replace(text, kElapsedJson, R"("elapsed_s": "<masked>")");
  return std::regex_replace(text, kElapsedText, "in <masked> s$1");
}

std::string substitute(const std::string& arg, const std::string& tmp) {
  std::string out = arg;
  if (const auto at = out.find("{tmp}"); at != std::string::npos) out.replace(at, 5, tmp);
  return out;
}

}  // namespace

TEST_CASE("every command's output matches its golden file (tests/golden; refresh with make golden)") {
  const std::filesystem::path golden_dir = std::filesystem::path(COSTMODEL_TEST_SOURCE_DIR) / "tests/golden";
  const bool update = std::getenv("COSTMODEL_UPDATE_GOLDEN") != nullptr;
  for (const GoldenCase& c : cases()) {
    CAPTURE(c.name);
    const costmodel::test::TempDir tmp;
    std::vector<std::string> args;
    for (const auto& arg : c.args) args.push_back(substitute(arg, tmp.path().string()));
    const auto result = run_cli(args);
    CHECK_MESSAGE(result.exit_code == c.exit_code, result.err);
    std::string actual = c.written.empty() ? result.out : read_file(tmp.path() / c.written);
    if (c.exit_code != 0) actual += "--- stderr ---\n" + result.err;
    // Paths of this checkout are not part of the output's meaning.
    for (const std::string& root :
         {std::string(COSTMODEL_TEST_FIXTURES), std::string(COSTMODEL_TEST_SOURCE_DIR)}) {
      for (auto at = actual.find(root); at != std::string::npos; at = actual.find(root)) {
        actual.replace(at, root.size(), root == COSTMODEL_TEST_SOURCE_DIR ? "<source>" : "<fixtures>");
      }
    }
    actual = masked(actual);
    const auto path = golden_dir / c.name;
    if (update) {
      std::filesystem::create_directories(golden_dir);
      std::ofstream(path, std::ios::binary) << actual;
      continue;
    }
    REQUIRE_MESSAGE(std::filesystem::exists(path), "missing golden " << path << ": run make golden");
    const std::string expected = read_file(path);
    if (actual != expected) {
      // The first differing line, so that a failure says where.
      size_t line = 1, at = 0;
      while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) {
        if (actual[at] == '\n') ++line;
        ++at;
      }
      FAIL_CHECK("differs from " << path << " from line " << line
                                 << " (refresh with make golden if intended)");
    }
  }
}

#ifdef COSTMODEL_PLAN_JSON_PATH
TEST_CASE("the API example examples/api/plan_json.cpp prints what plan --format json prints, byte for byte") {
  const auto cli = run_cli(
      {"plan", "--model", "gpt3-175b", "--global-batch", "1536", "--tokens", "300e9", "--format", "json"});
  const auto api = costmodel::test::run_program(COSTMODEL_PLAN_JSON_PATH, {});
  REQUIRE(cli.exit_code == 0);
  REQUIRE_MESSAGE(api.exit_code == 0, api.err);
  CHECK(masked(api.out) == masked(cli.out));
  CHECK(api.out.find("\"configs\"") != std::string::npos);
}
#endif
