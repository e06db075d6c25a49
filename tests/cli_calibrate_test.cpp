// SPDX-License-Identifier: Apache-2.0
// `costmodel calibrate` end to end: fits of nccl-tests logs (synthesized from known constants and the
// hand-written fixtures), errors at the line of a broken log, and --emit-cluster feeding `estimate`.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "cli_runner.hpp"
#include "costmodel/network/collective.hpp"
#include "nccl_tests_log.hpp"

using costmodel::Json;
using costmodel::test::check_one_line_error;
using costmodel::test::CliResult;
using costmodel::test::contains;
using costmodel::test::number;
using costmodel::test::parse_json;
using costmodel::test::run_cli;
using costmodel::test::TempDir;

namespace {

std::string fixture(const std::string& name) {
  return std::string(COSTMODEL_TEST_FIXTURES) + "/nccl/" + name;
}

std::string text(const Json& object, const std::string& key) {
  const Json* value = object.find(key);
  REQUIRE(value != nullptr);
  REQUIRE(std::holds_alternative<std::string>(value->value()));
  return std::get<std::string>(value->value());
}

/// The fits `calibrate` prints as JSON for `args` (exit 0).
Json::Array fits(std::vector<std::string> args) {
  args.insert(args.begin(), "calibrate");
  args.insert(args.end(), {"--format", "json"});
  const CliResult result = run_cli(args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const Json json = parse_json(result.out);
  REQUIRE(json.is_object());
  REQUIRE(json.find("fits") != nullptr);
  return json.find("fits")->as_array();
}

void write(const std::filesystem::path& path, const std::string& content) {
  std::ofstream(path) << content;
}

/// `estimate` of Llama 2 70B, tp 8 x pp 4 x dp 32, on the cluster `cluster_args` describe.
Json estimate(const std::vector<std::string>& cluster_args) {
  std::vector<std::string> args{"estimate", "--model", "llama2-70b",     "--tp", "8",        "--pp", "4",
                                "--dp",     "32",      "--global-batch", "1024", "--format", "json"};
  args.insert(args.end(), cluster_args.begin(), cluster_args.end());
  const CliResult result = run_cli(args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return parse_json(result.out);
}

}  // namespace

TEST_CASE("calibrate recovers known alpha and beta within 2%") {
  const TempDir dir;
  costmodel::test::SyntheticLog spec;
  spec.binary = "all_reduce_perf";
  spec.ranks = 16;
  spec.nodes = 2;
  spec.alpha_s = 32e-6;
  spec.bus_factor = costmodel::bus_factor(costmodel::Collective::kAllReduce, 16);
  spec.beta_s_per_byte = spec.bus_factor / 180e9;
  spec.seed = 42;
  const auto log = dir.path() / "run.txt";
  write(log, costmodel::test::synthesize_nccl_log(spec));

  const Json::Array rows = fits({log.string(), "--gpu", "h100-sxm", "--link", "ib-ndr-400g"});
  REQUIRE(rows.size() == 1);
  const Json& fit = rows.front();
  CHECK(text(fit, "collective") == "allreduce");
  CHECK(number(fit, "ranks") == 16);
  CHECK(number(fit, "nodes") == 2);
  CHECK(number(fit, "alpha_s") == doctest::Approx(32e-6).epsilon(0.02));
  CHECK(number(fit, "beta_s_per_B") == doctest::Approx(spec.beta_s_per_byte).epsilon(0.02));
  CHECK(number(fit, "busbw_Bps") == doctest::Approx(180e9).epsilon(0.02));
  CHECK(number(fit, "r_squared") > 0.99);
  CHECK(text(fit, "level") == "scale-out");
  // Efficiency against a line rate given on the command line: 180 / 400 GB/s.
  const Json::Array against = fits({log.string(), "--line-rate", "400GB/s"});
  CHECK(number(against.front(), "efficiency") == doctest::Approx(0.45).epsilon(0.02));
}

TEST_CASE("calibrate reads the hand-written logs: one fit per log") {
  const Json::Array rows =
      fits({fixture("all_reduce_perf_h100_1node.txt"), fixture("all_gather_perf_old_format.txt"),
            fixture("alltoall_perf_nocheck.txt"), fixture("multinode_run.txt")});
  REQUIRE(rows.size() == 4);
  CHECK(text(rows[0], "collective") == "allreduce");
  CHECK(number(rows[0], "alpha_s") == doctest::Approx(18e-6).epsilon(0.02));
  CHECK(number(rows[0], "busbw_Bps") == doctest::Approx(360e9).epsilon(0.02));
  CHECK(text(rows[0], "level") == "scale-up");
  CHECK(text(rows[1], "collective") == "allgather");
  CHECK(text(rows[2], "collective") == "alltoall");
  CHECK(number(rows[2], "busbw_Bps") == doctest::Approx(100e9).epsilon(0.02));
  CHECK(text(rows[3], "level") == "scale-out");
}

TEST_CASE("a log of one thread driving several GPUs (nccl-tests -g 8) is flagged; one with -g 1 is not") {
  const CliResult one_thread = run_cli({"calibrate", fixture("all_reduce_perf_h100_1node.txt")});
  CHECK(one_thread.exit_code == 0);
  CHECK(contains(one_thread.out, "one host thread drove 8 GPUs (nccl-tests -g)"));
  const CliResult per_gpu = run_cli({"calibrate", fixture("multinode_run.txt")});
  CHECK(per_gpu.exit_code == 0);
  CHECK_FALSE(contains(per_gpu.out, "one host thread drove"));
}

TEST_CASE("broken logs fail with FILE:LINE and exit 2") {
  for (const auto& log : std::vector<std::pair<std::string, int>>{{"truncated_row.txt", 31},
                                                                  {"truncated_table.txt", 34},
                                                                  {"garbled_time.txt", 26},
                                                                  {"garbled_line.txt", 28}}) {
    const std::string& name = log.first;  // not a structured binding: clang < 16 cannot capture one
    const int line = log.second;
    const CliResult result = run_cli({"calibrate", fixture(name)});
    CAPTURE(name);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK(contains(result.err, name + ":" + std::to_string(line) + ":"));
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
}

TEST_CASE("a log that does not name its test needs --op") {
  const TempDir dir;
  std::ifstream in(fixture("all_reduce_perf_h100_1node.txt"));
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto log = dir.path() / "run1.txt";
  write(log, content);
  const CliResult unnamed = run_cli({"calibrate", log.string()});
  CHECK(unnamed.exit_code == 2);
  CHECK(contains(unnamed.err, "cannot tell which collective"));
  CHECK(contains(unnamed.err, "or pass --op (allreduce, allgather,"));
  CHECK(text(fits({log.string(), "--op", "allreduce"}).front(), "collective") == "allreduce");
  const CliResult typo = run_cli({"calibrate", log.string(), "--op", "allreduse"});
  CHECK(typo.exit_code == 2);
  CHECK(contains(typo.err, "did you mean 'allreduce'?"));
  CHECK(run_cli({"calibrate"}).exit_code == 2);
}

TEST_CASE("--emit-cluster writes a cluster that --cluster accepts and that changes estimate accordingly") {
  const TempDir dir;
  const std::vector<std::string> cluster{"--gpu", "h100-sxm", "--gpus", "1024", "--link", "ib-ndr-400g"};
  const Json catalog_estimate = estimate(cluster);

  // Measured: 16 ranks over 2 nodes at a busbw of 150 GB/s, well below the catalog's 0.94 x 400 Gb/s per NIC.
  const auto slow = dir.path() / "slow.yaml";
  std::vector<std::string> args{"calibrate", fixture("multinode_run.txt"), "--emit-cluster", slow.string()};
  args.insert(args.end(), cluster.begin(), cluster.end());
  const CliResult result = run_cli(args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(contains(result.out, "wrote " + slow.string()));
  REQUIRE(std::filesystem::exists(slow));
  const std::string yaml = costmodel::test::read_file(slow);
  CHECK(contains(yaml, "# scale-out: Simple at "));
  CHECK(contains(yaml, "protocols:"));
  CHECK(!contains(yaml, "latency: 0.000ns"));  // measured latencies, never 0
  CHECK(contains(yaml, "name: ib-ndr-400g"));

  const Json calibrated = estimate({"--cluster", slow.string()});
  const Json* before = catalog_estimate.find("breakdown");
  const Json* after = calibrated.find("breakdown");
  REQUIRE(before != nullptr);
  REQUIRE(after != nullptr);
  CHECK(number(*after, "dp_comm_s") > 1.5 * number(*before, "dp_comm_s"));
  CHECK(number(calibrated, "step_time_s") > number(catalog_estimate, "step_time_s"));
  CHECK(number(*after, "compute_s") == doctest::Approx(number(*before, "compute_s")));

  // Measured faster than the model's line-rate busbw (390 GB/s; the ring's ceiling is NVLink's 0.82 x 450
  // GB/s): the link's rate is raised, so DP traffic (one rank per node, on the NICs) gets cheaper.
  costmodel::test::SyntheticLog spec;
  spec.ranks = 16;
  spec.nodes = 2;
  spec.alpha_s = 20e-6;
  spec.bus_factor = costmodel::bus_factor(costmodel::Collective::kAllReduce, 16);
  spec.beta_s_per_byte = spec.bus_factor / 390e9;
  const auto log = dir.path() / "fast.txt";
  write(log, costmodel::test::synthesize_nccl_log(spec));
  const auto fast = dir.path() / "fast.yaml";
  args = {"calibrate", log.string(), "--emit-cluster", fast.string()};
  args.insert(args.end(), cluster.begin(), cluster.end());
  REQUIRE(run_cli(args).exit_code == 0);
  const Json faster = estimate({"--cluster", fast.string()});
  CHECK(number(*faster.find("breakdown"), "dp_comm_s") < number(*before, "dp_comm_s"));
}

TEST_CASE(
    "a directory, an empty log and a multi-node fit faster than the assumed link exit 2 with one line") {
  const TempDir dir;
  const CliResult directory = run_cli({"calibrate", dir.path().string()});
  CHECK(directory.exit_code == 2);
  CHECK(contains(directory.err, "is a directory"));
  CHECK(std::count(directory.err.begin(), directory.err.end(), '\n') == 1);
  const auto empty = dir.path() / "all_reduce_perf.txt";
  write(empty, "");
  const CliResult nothing = run_cli({"calibrate", empty.string()});
  CHECK(nothing.exit_code == 2);
  CHECK(std::count(nothing.err.begin(), nothing.err.end(), '\n') == 1);

  // 16 ranks on 2 nodes at 700 GB/s busbw: beyond 8 x NDR per node, the H100's typical node.
  costmodel::test::SyntheticLog spec;
  spec.ranks = 16;
  spec.nodes = 2;
  spec.bus_factor = costmodel::bus_factor(costmodel::Collective::kAllReduce, 16);
  spec.beta_s_per_byte = spec.bus_factor / 700e9;
  const auto fast = dir.path() / "fast.txt";
  write(fast, costmodel::test::synthesize_nccl_log(spec));
  const CliResult refused = run_cli({"calibrate", fast.string()});
  CHECK(refused.exit_code == 2);
  CHECK(contains(refused.err, "--link"));
}

TEST_CASE(
    "calibrate --runs: several GPU types need --gpu; the emitted entry is accepted as a cluster's gpu") {
  const std::string runs = std::string(COSTMODEL_TEST_SOURCE_DIR) + "/data/published-runs.yaml";
  const CliResult mixed = run_cli({"calibrate", "--runs", runs});
  CHECK(mixed.exit_code == 2);
  CHECK(contains(mixed.err, "--gpu"));
  const TempDir dir;
  const auto gpu = dir.path() / "h100.yaml";
  const CliResult fitted =
      run_cli({"calibrate", "--runs", runs, "--gpu", "h100-sxm", "--emit-gpu", gpu.string()});
  INFO(fitted.err);
  REQUIRE(fitted.exit_code == 0);
  CHECK(contains(fitted.out, "rms error of the fitted runs"));
  // The emitted entry says how to refit it.
  CHECK(contains(costmodel::test::read_file(gpu),
                 "fitted: \"costmodel calibrate --runs " + runs + " --gpu h100-sxm --objective lsq: "));
  const CliResult typo = run_cli({"calibrate", "--runs", runs, "--gpu", "h100-sxm", "--objective", "minmax"});
  CHECK(typo.exit_code == 2);
  CHECK(contains(typo.err, "--objective"));
  CHECK(contains(typo.err, "minimax"));
  const CliResult stray = run_cli({"calibrate", "--objective", "lsq", "x.txt"});
  CHECK(stray.exit_code == 2);
  CHECK(contains(stray.err, "needs --runs"));
  const std::string entry = costmodel::test::read_file(gpu);
  std::string indented;
  for (char c : entry) indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
  const auto cluster = dir.path() / "cluster.yaml";
  write(cluster, "gpu:\n  " + indented + "\ngpus: 1024\nscale_out: {link: ib-ndr-400g}\n");
  CHECK(estimate({"--cluster", cluster.string()}).find("step_time_s") != nullptr);
}
