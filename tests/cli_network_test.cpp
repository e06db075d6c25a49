// SPDX-License-Identifier: Apache-2.0
// `costmodel collective` and `costmodel topology` end to end: nccl-tests-style sweeps checked against
// ../shared/reference/nccl-busbw.yaml, their usage errors, and the DGX SuperPOD switch counts.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "cli_runner.hpp"

using costmodel::Json;
using costmodel::test::check_one_line_error;
using costmodel::test::CliResult;
using costmodel::test::contains;
using costmodel::test::parse_json;
using costmodel::test::run_cli;

namespace {

const Json& member(const Json& object, const std::string& key) {
  const Json* value = object.find(key);
  REQUIRE_MESSAGE(value != nullptr, "missing key " << key);
  return *value;
}

double number(const Json& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value.value())) return static_cast<double>(*i);
  REQUIRE(std::holds_alternative<double>(value.value()));
  return std::get<double>(value.value());
}

std::string text(const Json& value) {
  REQUIRE(std::holds_alternative<std::string>(value.value()));
  return std::get<std::string>(value.value());
}

/// The collective sweep's JSON document for `args` (exit 0, valid JSON).
Json collective_json(std::vector<std::string> args) {
  args.insert(args.begin(), "collective");
  args.insert(args.end(), {"--format", "json"});
  const CliResult result = run_cli(args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return parse_json(result.out);
}

/// busbw (GB/s) of the 8 GiB row, the last of a default sweep.
double busbw_at_8gib(const Json& document) {
  const auto& rows = member(document, "rows").as_array();
  REQUIRE_FALSE(rows.empty());
  const Json& last = rows.back();
  CHECK(number(member(last, "size")) == doctest::Approx(8589934592.0));
  return number(member(last, "busbw_GBps"));
}

const std::vector<std::string> kDgxH100 = {"--gpu", "h100-sxm", "--gpus", "8"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

}  // namespace

TEST_CASE("collective: the sweep has nccl-tests' columns and the default sizes 8 B .. 8 GiB") {
  const Json document = collective_json(with({"--op", "allreduce"}, kDgxH100));
  CHECK(text(member(document, "op")) == "allreduce");
  CHECK(number(member(document, "ranks")) == 8);  // default: every GPU of the cluster
  const auto& rows = member(document, "rows").as_array();
  REQUIRE(rows.size() == 31);  // 8 B x 2^k up to 8 GiB
  double size = 8.0;
  for (const auto& row : rows) {
    CHECK(number(member(row, "size")) == size);
    CHECK(number(member(row, "count")) == size / 4.0);
    const double time_us = number(member(row, "time_us"));
    CHECK(time_us > 0.0);
    CHECK(time_us ==
          doctest::Approx(number(member(row, "latency_us")) + number(member(row, "bandwidth_us"))));
    const double algbw = number(member(row, "algbw_GBps"));
    CHECK(algbw == doctest::Approx(size / (time_us * 1e-6) / 1e9));
    CHECK(number(member(row, "busbw_GBps")) == doctest::Approx(algbw * 2.0 * 7.0 / 8.0));
    CHECK_FALSE(text(member(row, "algorithm")).empty());
    size *= 2.0;
  }
  // Auto: small messages and large ones need not pick the same algorithm, but it is always a real one.
  CHECK(text(member(rows.back(), "algorithm")) != "auto");
}

TEST_CASE("collective: busbw at 8 GiB on one DGX H100 matches nccl-busbw.yaml within 10%") {
  SUBCASE("ring: 370 GB/s (dgx-h100-nvlink-ring)") {
    const Json document = collective_json(with({"--op", "allreduce", "--algo", "ring"}, kDgxH100));
    CHECK(busbw_at_8gib(document) == doctest::Approx(370.0).epsilon(0.10));
  }
  SUBCASE("in-network: 480 GB/s (dgx-h100-nvls)") {
    const Json document = collective_json(with({"--op", "allreduce", "--algo", "in-network"}, kDgxH100));
    CHECK(busbw_at_8gib(document) == doctest::Approx(480.0).epsilon(0.10));
  }
}

TEST_CASE("collective: the protocol beside the algorithm; --proto pins one (NCCL's LL, LL128, Simple)") {
  // One DGX H100: ring LL for 8 B (15 us), NVLS (Simple) for 8 GiB.
  const Json automatic = collective_json(with({"--op", "allreduce"}, kDgxH100));
  const auto& rows = member(automatic, "rows").as_array();
  CHECK(text(member(rows.front(), "protocol")) == "ll");
  CHECK(text(member(rows.front(), "algorithm")) == "ring");
  CHECK(text(member(rows.back(), "protocol")) == "simple");
  CHECK(text(member(automatic, "proto")) == "auto");
  // Pinned: every row runs it, and LL pays half the bus bandwidth for its latency.
  const Json ll = collective_json(with({"--op", "allreduce", "--algo", "ring", "--proto", "ll"}, kDgxH100));
  for (const Json& row : member(ll, "rows").as_array()) CHECK(text(member(row, "protocol")) == "ll");
  CHECK(busbw_at_8gib(ll) <
        0.5 * busbw_at_8gib(collective_json(
                  with({"--op", "allreduce", "--algo", "ring", "--proto", "simple"}, kDgxH100))));
  SUBCASE("a protocol the algorithm does not run, or no protocol at all, exits 2 naming --proto") {
    const CliResult nvls =
        run_cli(with({"collective", "--op", "allreduce", "--algo", "in-network", "--proto", "ll"}, kDgxH100));
    check_one_line_error(nvls, 2);
    CHECK(contains(nvls.err, "--proto"));
    CHECK(contains(nvls.err, "simple"));
    const CliResult a2a = run_cli(with({"collective", "--op", "alltoall", "--proto", "ll128"}, kDgxH100));
    check_one_line_error(a2a, 2);
    CHECK(contains(a2a.err, "--proto"));
    const CliResult typo = run_cli(with({"collective", "--op", "allreduce", "--proto", "ll129"}, kDgxH100));
    check_one_line_error(typo, 2);
    CHECK(contains(typo.err, "did you mean 'll128'"));
  }
}

TEST_CASE("collective: SHARP across nodes only with --in-network sharp (NCCL keeps CollNet off)") {
  const std::vector<std::string> h100_64 = {"--op", "allreduce", "--gpu", "h100-sxm", "--gpus", "64"};
  const Json off = collective_json(h100_64);
  for (const Json& row : member(off, "rows").as_array())
    CHECK(text(member(row, "algorithm")) != "in-network");
  std::vector<std::string> on_args = h100_64;
  on_args.insert(on_args.end(), {"--in-network", "sharp"});
  const Json on = collective_json(on_args);
  CHECK(text(member(member(on, "rows").as_array().back(), "algorithm")) == "in-network");
  SUBCASE("asking for in-network with SHARP off says how to turn it on") {
    std::vector<std::string> args = {"collective", "--algo", "in-network"};
    args.insert(args.end(), h100_64.begin(), h100_64.end());
    const CliResult r = run_cli(args);
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "--in-network sharp"));
  }
  SUBCASE("--in-network sharp on a switch that cannot reduce is an error") {
    const CliResult r = run_cli({"collective", "--op", "allreduce", "--gpu", "h100-sxm", "--gpus", "64",
                                 "--link", "roce-400g", "--switch", "sn5600", "--in-network", "sharp"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "sn5600"));
  }
  SUBCASE("--in-network takes sharp or none") {
    const CliResult r = run_cli({"collective", "--op", "allreduce", "--in-network", "sharpp"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "did you mean 'sharp'"));
  }
}

TEST_CASE("collective: --min-bytes, --max-bytes and --step-factor shape the sweep") {
  const Json document = collective_json(with({"--op", "allgather", "--ranks", "4", "--min-bytes", "1KiB",
                                              "--max-bytes", "1MiB", "--step-factor", "4"},
                                             kDgxH100));
  const auto& rows = member(document, "rows").as_array();
  REQUIRE(rows.size() == 6);  // 1 KiB, 4 KiB, ..., 1 MiB
  CHECK(number(member(rows.front(), "size")) == 1024.0);
  CHECK(number(member(rows.back(), "size")) == 1048576.0);
  CHECK(number(member(document, "ranks")) == 4);
}

TEST_CASE("collective: table and csv formats") {
  const CliResult table = run_cli(with({"collective", "--op", "allreduce", "--max-bytes", "1KiB"}, kDgxH100));
  REQUIRE(table.exit_code == 0);
  CHECK(contains(table.out, "busbw (GB/s)"));
  CHECK(contains(table.out, "algorithm"));
  CHECK(contains(table.out, "crossover"));

  // Across nodes the tree wins small messages and the ring large ones: the crossover is reported.
  const CliResult multi =
      run_cli({"collective", "--op", "allreduce", "--gpus", "1024", "--max-bytes", "1KiB"});
  REQUIRE(multi.exit_code == 0);
  CHECK(contains(multi.out, "ring/tree crossover: tree is faster below"));
  const Json json = collective_json({"--op", "allreduce", "--gpus", "1024", "--max-bytes", "1KiB"});
  CHECK(number(member(json, "ring_tree_crossover_bytes")) > 1024.0);
  CHECK(text(member(member(json, "rows").as_array().front(), "algorithm")) == "tree");

  const CliResult csv =
      run_cli(with({"collective", "--op", "allreduce", "--max-bytes", "64B", "--format", "csv"}, kDgxH100));
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.rfind("size,count,time_us,algbw_GBps,busbw_GBps,algorithm,protocol,latency_us,bandwidth_us,"
                      "chosen_by,schema_version\n",
                      0) == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 5);  // header + 8, 16, 32, 64 B
}

TEST_CASE("collective --first: a communicator that straddles two nodes leaves the emptier side by its NICs") {
  // 2 DGX A100 (8 x HDR 200G per node, 24 GB/s per NIC after PCIe). 6 ranks from GPU 0 sit on one node and
  // all-reduce over NVLink; from GPU 6 they put 2 ranks on node 0 and 4 on node 1, so the ring crosses
  // between the nodes through 2 NICs: at most 48 GB/s of bus bandwidth, against NVLink's 231.
  const std::vector<std::string> base = {"--op",        "allreduce", "--gpu",       "a100-80gb",
                                         "--gpus",      "16",        "--ranks",     "6",
                                         "--min-bytes", "64MiB",     "--max-bytes", "64MiB"};
  const Json inside = collective_json(base);
  const Json straddling = collective_json(with(base, {"--first", "6"}));
  CHECK(number(member(inside, "nodes")) == 1);
  CHECK(number(member(straddling, "nodes")) == 2);
  CHECK(number(member(straddling, "first_gpu")) == 6);
  const auto busbw = [](const Json& document) {
    return number(member(member(document, "rows").as_array().front(), "busbw_GBps"));
  };
  CHECK(busbw(straddling) <= 48.0);
  CHECK(busbw(inside) > 4.0 * busbw(straddling));
  // Past the cluster's last GPU: exit 2, naming the flag.
  const CliResult r = run_cli(with({"collective"}, with(base, {"--first", "12"})));
  check_one_line_error(r, 2);
  CHECK(contains(r.err, "--ranks"));
  CHECK(contains(r.err, "from GPU 12"));
  check_one_line_error(run_cli(with({"collective"}, with(base, {"--first", "-1"}))), 2);
}

TEST_CASE("collective on p5 (h100-sxm, 32 x efa-100g): aws-ofi-nccl's region tuner picks, and says so") {
  // data/nccl-tuners.yaml aws-ofi-nccl-p5, 8 ranks per node: at 64 ranks tree/LL128 up to 112 MiB, ring/LL128
  // from there to 2 GiB (tests/nccl_tuner_test.cpp derives both from the regions' corners).
  const std::vector<std::string> p5 = {
      "--op",     "allreduce",       "--gpu", "h100-sxm",    "--gpus-per-node", "8",           "--link",
      "efa-100g", "--nics-per-node", "32",    "--min-bytes", "64MiB",           "--max-bytes", "256MiB"};
  std::vector<std::string> args = p5;
  args.insert(args.end(), {"--gpus", "64"});
  const Json json = collective_json(args);
  CHECK(text(member(json, "nccl_tuner")) == "aws-ofi-nccl-p5");
  const auto& rows = member(json, "rows").as_array();
  REQUIRE(rows.size() == 3);
  CHECK(text(member(rows[0], "algorithm")) == "tree");
  CHECK(text(member(rows[0], "protocol")) == "ll128");
  for (const Json& row : rows) CHECK(text(member(row, "chosen_by")) == "aws-ofi-nccl");
  CHECK(text(member(rows[1], "algorithm")) == "ring");
  CHECK(text(member(rows[2], "protocol")) == "ll128");
  args.insert(args.begin(), "collective");
  const CliResult table = run_cli(args);
  REQUIRE(table.exit_code == 0);
  CHECK(contains(table.out,
                 "algorithm and protocol at 64 MiB to 256 MiB: aws-ofi-nccl's tuner (p5/p5e regions"));
  // Two nodes: the plug-in leaves them to NCCL.
  std::vector<std::string> two = p5;
  two.insert(two.end(), {"--gpus", "16"});
  const Json two_nodes = collective_json(two);
  for (const Json& row : member(two_nodes, "rows").as_array())
    CHECK(text(member(row, "chosen_by")) == "NCCL");
  two.insert(two.begin(), "collective");
  CHECK(contains(run_cli(two).out, "leaves communicators on fewer than 3 nodes to NCCL"));
  // estimate names the tuner beside the data-parallel all-reduce it picked (8 ranks, one per node).
  const CliResult estimate = run_cli(
      {"estimate", "--model", "llama3-8b", "--gpu",           "h100-sxm", "--gpus", "64", "--gpus-per-node",
       "8",        "--link",  "efa-100g",  "--nics-per-node", "32",       "--tp",   "8",  "--pp",
       "1",        "--dp",    "8",         "--global-batch",  "256"});
  REQUIRE(estimate.exit_code == 0);
  CHECK(contains(estimate.out, "dp allreduce ring/simple (aws-ofi-nccl tuner)"));
}

TEST_CASE("collective: bad input exits 2 with a clear message") {
  SUBCASE("min > max") {
    const CliResult r =
        run_cli({"collective", "--op", "allreduce", "--min-bytes", "1PB", "--max-bytes", "1B"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "--min-bytes"));
    CHECK(contains(r.err, "larger than --max-bytes"));
  }
  SUBCASE("misspelt collective") {
    const CliResult r = run_cli({"collective", "--op", "allreduc"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "did you mean 'allreduce'"));
  }
  SUBCASE("missing --op") {
    check_one_line_error(run_cli({"collective"}), 2);
  }
  SUBCASE("step factor not above 1") {
    const CliResult r = run_cli({"collective", "--op", "allreduce", "--step-factor", "1"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "--step-factor"));
  }
  SUBCASE("bad size") {
    check_one_line_error(run_cli({"collective", "--op", "allreduce", "--max-bytes", "lots"}), 2);
  }
  SUBCASE("ranks beyond the cluster, or fewer than 2") {
    const CliResult r = run_cli(with({"collective", "--op", "allreduce", "--ranks", "16"}, kDgxH100));
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "--ranks"));
    check_one_line_error(
        run_cli(with({"collective", "--op", "allreduce", "--ranks", "4", "--stride", "4"}, kDgxH100)), 2);
    check_one_line_error(run_cli(with({"collective", "--op", "allreduce", "--ranks", "1"}, kDgxH100)), 2);
  }
  SUBCASE("in-network without NVLS says why") {
    const CliResult r = run_cli(
        {"collective", "--op", "allreduce", "--algo", "in-network", "--gpu", "a100-80gb", "--gpus", "8"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "NVLS"));
  }
  SUBCASE("in-network across a switch without SHARP says why") {
    const CliResult r = run_cli({"collective", "--op", "allreduce", "--algo", "in-network", "--gpu",
                                 "h100-sxm", "--gpus", "64", "--link", "roce-400g", "--switch", "sn5600"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "SHARP"));
  }
  SUBCASE("algorithm that does not implement the collective") {
    const CliResult r = run_cli({"collective", "--op", "alltoall", "--algo", "ring"});
    check_one_line_error(r, 2);
    CHECK(contains(r.err, "alltoall"));
  }
}

TEST_CASE("topology: the 64-unit rail-optimized DGX SuperPOD uses 512 + 512 + 256 switches") {
  const CliResult r = run_cli({"topology", "--gpus", "16384", "--topology", "rail-optimized", "--switch",
                               "qm9700", "--link", "ib-ndr-400g", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json document = parse_json(r.out);
  CHECK(text(member(document, "topology")) == "rail-optimized");
  const auto& per_tier = member(document, "switches_per_tier").as_array();
  REQUIRE(per_tier.size() == 3);
  CHECK(number(per_tier[0]) == 512);
  CHECK(number(per_tier[1]) == 512);
  CHECK(number(per_tier[2]) == 256);
  CHECK(number(member(document, "switches")) == 1280);
  const auto& names = member(document, "tier_names").as_array();
  REQUIRE(names.size() == 3);
  CHECK(text(names[0]) == "leaf");
  CHECK(number(member(document, "host_links")) == 16384);
  CHECK(number(member(document, "nics")) == 16384);
  CHECK(number(member(document, "capex_usd")) > 0.0);
  CHECK(number(member(document, "power_w")) > 0.0);
  CHECK(number(member(document, "diameter_hops")) > 0);
  CHECK(number(member(document, "bisection_Bps")) > 0.0);
  CHECK(member(document, "note").is_null());
  // 64 x 400G NDR in 32 twin-port OSFP cages: 16,384 NIC modules + (16,384 + 2 x 32,768) / 2 switch modules.
  CHECK(number(member(document, "switch_radix")) == 64);
  CHECK(number(member(document, "optical_transceivers")) == 98304);
  CHECK(number(member(document, "optical_modules")) == 16384 + 40960);
}

TEST_CASE("topology: 4,096 GPUs at 400G on a 51.2T Tomahawk 5 run it as 128 x 400G: 2 tiers, 96 switches") {
  // 4,096 NIC ports / 64 down per leaf = 64 leaves <= 128 ports: 2 tiers; 64 x 64 / 128 = 32 spines.
  const CliResult r = run_cli({"topology", "--gpu", "h100-sxm", "--gpus", "4096", "--link", "roce-400g",
                               "--switch", "tomahawk5", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json document = parse_json(r.out);
  CHECK(number(member(document, "switch_radix")) == 128);
  CHECK(number(member(document, "tiers")) == 2);
  CHECK(number(member(document, "switches")) == 96);
}

TEST_CASE("collective --routing: a 2-group all-to-all on a minimal-routed Dragonfly+ is slower") {
  // 4,096 H100, 4 groups of 1,024 NDR ports: minimal routing keeps the exchange between 2 groups on their
  // 341 direct global links for 514 ports' worth of traffic; adaptive detours the rest (topology_test).
  const auto time = [](const char* routing) {
    const CliResult r = run_cli({"collective", "--op", "alltoall", "--gpu", "h100-sxm", "--gpus", "4096",
                                 "--topology", "dragonfly-plus", "--routing", routing, "--ranks", "2048",
                                 "--min-bytes", "1GiB", "--max-bytes", "1GiB", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return number(member(member(parse_json(r.out), "rows").as_array().at(0), "time_us"));
  };
  CHECK(time("minimal") > 1.3 * time("adaptive"));
}

TEST_CASE("topology: the default table shows the inventory") {
  const CliResult r = run_cli({"topology"});
  REQUIRE(r.exit_code == 0);
  for (const char* label : {"switches", "optical transceivers", "capex (USD)", "diameter", "bisection"}) {
    CHECK_MESSAGE(contains(r.out, label), label);
  }
}

TEST_CASE("topology --topology all: one row per topology, failures as notes") {
  const CliResult r = run_cli({"topology", "--topology", "all", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json document = parse_json(r.out);
  const auto& rows = member(document, "topologies").as_array();
  REQUIRE(rows.size() == 6);
  std::vector<std::string> kinds;
  for (const auto& row : rows) kinds.push_back(text(member(row, "topology")));
  CHECK(kinds == std::vector<std::string>{"fat-tree", "rail-optimized", "rail-only", "dragonfly-plus",
                                          "torus-2d", "torus-3d"});

  const CliResult table = run_cli({"topology", "--topology", "all"});
  REQUIRE(table.exit_code == 0);
  for (const auto& kind : kinds) CHECK(contains(table.out, kind));

  // Beyond what 3 tiers of a 40-port switch hold: the switched fabrics say why, the torus still builds.
  const Json big = parse_json(run_cli({"topology", "--topology", "all", "--gpus", "1000000", "--switch",
                                       "qm8700", "--format", "json"})
                                  .out);
  const auto& big_rows = member(big, "topologies").as_array();
  REQUIRE(big_rows.size() == 6);
  CHECK(contains(text(member(big_rows[0], "note")), "3-tier"));
  CHECK(member(big_rows[0], "switches").is_null());
  CHECK(member(big_rows[4], "note").is_null());
  CHECK(number(member(big_rows[4], "gpus")) == 1000000);
}

TEST_CASE("topology: a misspelt topology suggests the right one, including 'all'") {
  const CliResult r = run_cli({"topology", "--topology", "alll"});
  check_one_line_error(r, 2);
  CHECK(contains(r.err, "did you mean 'all'"));
  const CliResult other = run_cli({"topology", "--topology", "rail-optimised"});
  check_one_line_error(other, 2);
  CHECK(contains(other.err, "did you mean 'rail-optimized'"));
}
