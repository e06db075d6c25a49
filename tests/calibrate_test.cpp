// SPDX-License-Identifier: Apache-2.0
// io/calibrate: reading nccl-tests logs (the published format, old versions, noise around the table,
// truncated and garbled logs), the weighted alpha-beta fit, and the cluster constants that make the model
// reproduce it.

#include "costmodel/analysis/calibrate.hpp"
#include "costmodel/io/cluster_writer.hpp"
#include "costmodel/io/nccl_tests.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/io/runs.hpp"
#include "nccl_tests_log.hpp"

using namespace costmodel;

namespace {

std::string fixture(const std::string& name) {
  return std::string(COSTMODEL_TEST_FIXTURES) + "/nccl/" + name;
}

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

/// The line an Error points at, or -1 when the call did not throw.
int error_line(const std::string& name) {
  try {
    (void)load_nccl_tests_log(fixture(name));
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find(name + ":" + std::to_string(e.location().line)) != std::string::npos);
    return e.location().line;
  }
  return -1;
}

CollectiveFit fit_of(const std::string& text, const std::string& name) {
  const auto fits = fit_collectives({parse_nccl_tests_log(text, name)});
  REQUIRE(fits.size() == 1);
  return fits.front();
}

}  // namespace

TEST_CASE("a log in nccl-tests' published format parses") {
  const NcclTestsLog log = load_nccl_tests_log(fixture("all_reduce_perf_h100_1node.txt"));
  REQUIRE(log.collective.has_value());
  CHECK(*log.collective == Collective::kAllReduce);  // from the file name
  CHECK(log.ranks == 8);
  CHECK(log.nodes == 1);
  CHECK(log.gpus_per_thread == 8);  // "# nThread 1 nGpus 8": all_reduce_perf -g 8
  CHECK(log.device == "NVIDIA H100 80GB HBM3");
  CHECK(log.type == "float");
  CHECK(log.algorithm.empty());
  // 8 B .. 8 GiB by factors of 2: 31 rows, out-of-place and in-place.
  REQUIRE(log.points.size() == 62);
  // Line 16: "8  2  float  sum  -1  17.95  0.00  0.00  0  18.09  0.00  0.00  0".
  const NcclTestsPoint& first = log.points.front();
  CHECK(first.line == 16);
  CHECK_FALSE(first.in_place);
  CHECK(first.size.value == 8.0);
  CHECK(first.time.value == doctest::Approx(17.95e-6));
  CHECK(first.wrong == 0);
  CHECK(log.points[1].in_place);
  CHECK(log.points[1].time.value == doctest::Approx(18.09e-6));
  CHECK(log.points.back().size.value == 8589934592.0);
  REQUIRE(log.avg_busbw.has_value());
  CHECK(log.avg_busbw->value > 0);
}

TEST_CASE("launcher output, NCCL INFO lines and warnings around and inside the table are tolerated") {
  const NcclTestsLog log = load_nccl_tests_log(fixture("multinode_run.txt"));
  REQUIRE(log.collective.has_value());
  CHECK(*log.collective == Collective::kAllReduce);  // from the echoed command line only
  CHECK(log.ranks == 16);
  CHECK(log.nodes == 2);
  CHECK(log.points.size() == 2 * 30);  // 8 B .. 4 GiB
}

TEST_CASE("old nccl-tests: no root column, 'error' as a float, and #wrong printed as N/A") {
  const NcclTestsLog old = load_nccl_tests_log(fixture("all_gather_perf_old_format.txt"));
  REQUIRE(old.collective.has_value());
  CHECK(*old.collective == Collective::kAllGather);
  CHECK(old.points.size() == 2 * 26);  // 8 B .. 256 MiB
  CHECK(old.points.front().wrong == 0);
  CHECK(old.device == "A100-SXM4-80GB");

  const NcclTestsLog unchecked = load_nccl_tests_log(fixture("alltoall_perf_nocheck.txt"));
  REQUIRE(unchecked.collective.has_value());
  CHECK(*unchecked.collective == Collective::kAllToAll);
  CHECK_FALSE(unchecked.points.front().wrong.has_value());
}

TEST_CASE("truncated and garbled logs fail at their line") {
  CHECK(error_line("truncated_row.txt") == 31);    // the last row is cut short
  CHECK(error_line("truncated_table.txt") == 34);  // the file ends before the footer
  CHECK(error_line("garbled_time.txt") == 26);     // "18,09" for a time
  CHECK(error_line("garbled_line.txt") == 28);     // a line of noise inside the table
  CHECK_THROWS_AS((void)parse_nccl_tests_log("# nThread 1 nGpus 8\nhello\n", "empty.txt"), Error);
  // A header whose in-place half has time and busbw but no algbw (a fuzzer's find: rows were read at
  // column -1) fails at the header.
  const std::string uneven =
      "#  size  count  type  redop  time  algbw  busbw  error  time  error  busbw  error\n"
      "   8  2  float  sum  9.0  0.00  0.00  0  9.0  0  0.00  0\n";
  try {
    (void)parse_nccl_tests_log(uneven, "uneven.txt");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.location().line == 1);
    CHECK(std::string(e.what()).find("unevenly") != std::string::npos);
  }
  // A table line of other whitespace only (a CRLF blank line's \r, \v, \f) is skipped like a blank one (a
  // fuzzer's find: the row reader took the first word of none).
  const std::string other_whitespace =
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
      "   8  2  float  sum  -1  9.0  0.00  0.00  0  9.0  0.00  0.00  0\n"
      "\r\n"
      " \v\f\n"
      "  16  4  float  sum  -1  9.0  0.00  0.00  0  9.0  0.00  0.00  0\n"
      "# Avg bus bandwidth    : 0.00\n";
  const NcclTestsLog parsed = parse_nccl_tests_log(other_whitespace, "crlf.txt");
  CHECK(parsed.points.size() == 2 * 2);
  // An old-style maximum error beyond 2^63 ("3e+101") counts as wrong, clamped (a fuzzer's find: the
  // conversion to an integer overflowed).
  std::string huge_error = other_whitespace;
  huge_error.replace(huge_error.find("0  9.0  0.00  0.00  0\n"), 1, "3e+101");
  const NcclTestsLog wrong = parse_nccl_tests_log(huge_error, "wrong.txt");
  REQUIRE(wrong.points.front().wrong.has_value());
  CHECK(*wrong.points.front().wrong > (std::int64_t{1} << 62));  // near the 9e18 clamp
  CHECK_THROWS_AS((void)load_nccl_tests_log(fixture("does-not-exist.txt")), Error);
}

TEST_CASE("test names: reduce_perf is not all_reduce_perf") {
  CHECK(collective_of_nccl_test("./build/all_reduce_perf") == Collective::kAllReduce);
  CHECK(collective_of_nccl_test("reduce_perf") == Collective::kReduce);
  CHECK(collective_of_nccl_test("reduce_scatter_perf") == Collective::kReduceScatter);
  CHECK(collective_of_nccl_test("sendrecv_perf -b 8") == Collective::kSendRecv);
  CHECK_FALSE(collective_of_nccl_test("hostname").has_value());
}

TEST_CASE("an exact line is recovered exactly") {
  std::vector<Bytes> sizes;
  std::vector<Seconds> times;
  for (double n = 8; n <= 1e10; n *= 4) {
    sizes.emplace_back(n);
    times.emplace_back(10e-6 + n * 2e-11);
  }
  const AlphaBetaLine line = fit_alpha_beta(sizes, times);
  CHECK(line.alpha.value == doctest::Approx(10e-6).epsilon(1e-9));
  CHECK(line.beta == doctest::Approx(2e-11).epsilon(1e-9));
  CHECK(line.r_squared == doctest::Approx(1.0));
  CHECK(std::fabs(line.worst_residual) < 1e-9);
  CHECK_THROWS_AS((void)fit_alpha_beta({Bytes(8.0), Bytes(8.0)}, {Seconds(1e-5), Seconds(1e-5)}), Error);
  CHECK_THROWS_AS((void)fit_alpha_beta({Bytes(8.0), Bytes(16.0)}, {Seconds(1e-5), Seconds(0.0)}), Error);
}

TEST_CASE("logs synthesized from a known alpha and beta with 1% noise give them back within 2%") {
  struct Case {
    const char* binary;
    Collective collective;
    double alpha;
    double busbw;  // B/s
    int ranks;
    int nodes;
  };
  // busbw factors (nccl-tests doc/PERFORMANCE.md): AllReduce 2(n-1)/n, AllGather/ReduceScatter/AllToAll
  // (n-1)/n, Broadcast/SendRecv 1.
  const Case cases[] = {
      {"all_reduce_perf", Collective::kAllReduce, 18e-6, 360e9, 8, 1},
      {"all_reduce_perf", Collective::kAllReduce, 45e-6, 150e9, 32, 4},
      {"all_gather_perf", Collective::kAllGather, 12e-6, 300e9, 8, 1},
      {"reduce_scatter_perf", Collective::kReduceScatter, 30e-6, 45e9, 16, 2},
      {"alltoall_perf", Collective::kAllToAll, 60e-6, 40e9, 16, 2},
      {"sendrecv_perf", Collective::kSendRecv, 8e-6, 45e9, 2, 2},
      {"broadcast_perf", Collective::kBroadcast, 25e-6, 200e9, 8, 1},
  };
  unsigned seed = 1;
  for (const auto& c : cases) {
    CAPTURE(c.binary);
    CAPTURE(c.ranks);
    test::SyntheticLog spec;
    spec.binary = c.binary;
    spec.alpha_s = c.alpha;
    spec.bus_factor = bus_factor(c.collective, c.ranks);
    spec.beta_s_per_byte = spec.bus_factor / c.busbw;
    spec.ranks = c.ranks;
    spec.nodes = c.nodes;
    spec.seed = seed++;
    const CollectiveFit fit = fit_of(test::synthesize_nccl_log(spec), "synthetic.txt");
    CHECK(fit.collective == c.collective);
    CHECK(fit.ranks == c.ranks);
    CHECK(fit.nodes == c.nodes);
    CHECK(fit.line.alpha.value == doctest::Approx(c.alpha).epsilon(0.02));
    CHECK(fit.line.beta == doctest::Approx(spec.beta_s_per_byte).epsilon(0.02));
    CHECK(fit.busbw.value == doctest::Approx(c.busbw).epsilon(0.02));
    CHECK(fit.line.r_squared > 0.99);
    CHECK(std::fabs(fit.line.worst_residual) < 0.05);
  }
}

TEST_CASE("efficiency against a given line rate") {
  test::SyntheticLog spec;
  spec.beta_s_per_byte = 1.75 / 360e9;
  const auto fits = fit_collectives({parse_nccl_tests_log(test::synthesize_nccl_log(spec), "x.txt")},
                                    BytesPerSecond(450e9));
  REQUIRE(fits.size() == 1);
  REQUIRE(fits.front().efficiency.has_value());
  CHECK(*fits.front().efficiency == doctest::Approx(0.8).epsilon(0.02));
}

TEST_CASE("several logs of the same collective and rank count make one fit") {
  test::SyntheticLog a;
  test::SyntheticLog b = a;
  b.seed = 2;
  const auto fits = fit_collectives({parse_nccl_tests_log(test::synthesize_nccl_log(a), "a.txt"),
                                     parse_nccl_tests_log(test::synthesize_nccl_log(b), "b.txt")});
  REQUIRE(fits.size() == 1);
  CHECK(fits.front().files.size() == 2);
  CHECK(fits.front().line.points == 2 * 62);
}

TEST_CASE("calibrate_cluster inverts the model: constants the model produced come back") {
  ClusterSpec cluster = default_cluster(catalog());
  cluster.gpu = catalog().gpu("h100-sxm");
  cluster.link = catalog().link("ib-ndr-400g");
  cluster.switch_spec = catalog().default_switch_for(cluster.link);
  cluster.link.efficiency = 0.6;
  cluster.link.latency = Seconds(3e-6);

  // What the model's ring AllReduce takes on 16 ranks over 2 nodes in the two regimes an alpha-beta fit of
  // nccl-tests captures, as if measured: the small-message latency (LL) and the large-message bandwidth
  // (Simple).
  const double alpha = collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(0.0), 16, 1, cluster)
                           .latency_term.value;
  const Bytes large(1073741824.0);
  const double beta =
      collective_cost(Collective::kAllReduce, Algorithm::kRing, large, 16, 1, cluster).bandwidth_term.value /
      large.value;
  std::vector<Bytes> sizes;
  std::vector<Seconds> times;
  for (double n = 1024; n <= 4e9; n *= 2) {
    sizes.emplace_back(n);
    times.emplace_back(alpha + n * beta);
  }
  CollectiveFit fit;
  fit.collective = Collective::kAllReduce;
  fit.ranks = 16;
  fit.nodes = 2;
  fit.line = fit_alpha_beta(sizes, times);

  ClusterSpec start = cluster;
  start.link = catalog().link("ib-ndr-400g");
  const ClusterCalibration cal = calibrate_cluster(start, fit);
  CHECK(cal.level == FabricLevel::kScaleOut);
  CHECK(cal.efficiency == doctest::Approx(0.6).epsilon(1e-6));
  CHECK(cal.latency.value == doctest::Approx(3e-6).epsilon(1e-6));
  CHECK(cal.bandwidth.value == start.link.line_rate.value);
  CHECK_FALSE(cal.latency_clamped);

  // Within one node the same fit describes the scale-up domain.
  CollectiveFit local = fit;
  local.ranks = 8;
  local.nodes = 1;
  CHECK(calibrate_cluster(start, local).level == FabricLevel::kScaleUp);
}

TEST_CASE("a slower measured fabric never speeds up a step, a faster one never slows it") {
  ClusterOptions options;
  options.gpu = "h100-sxm";
  options.link = "ib-ndr-400g";
  const ClusterSpec base = apply_cluster_options(default_cluster(catalog()), options, catalog());
  const ModelSpec model = catalog().model("llama2-70b");
  Strategy s;
  s.tp = 8;
  s.pp = 4;
  s.dp = 32;
  s.micro_batch = 1;
  s.global_batch = 1024;
  const StepEstimate before = estimate(model, base, s);

  for (const double busbw : {100e9, 200e9}) {
    test::SyntheticLog spec;
    spec.ranks = 16;
    spec.nodes = 2;
    spec.alpha_s = 30e-6;
    spec.bus_factor = bus_factor(Collective::kAllReduce, 16);
    spec.beta_s_per_byte = spec.bus_factor / busbw;
    const CollectiveFit fit = fit_of(test::synthesize_nccl_log(spec), "x.txt");
    const ClusterSpec calibrated = apply_calibration(base, calibrate_cluster(base, fit));
    const StepEstimate after = estimate(model, calibrated, s);
    CAPTURE(busbw);
    CHECK(after.breakdown.dp_comm.value > before.breakdown.dp_comm.value);
    CHECK(after.step_time.value >= before.step_time.value);
  }
}

TEST_CASE("cluster_yaml reads back as the same cluster") {
  ClusterOptions options;
  options.gpu = "h100-sxm";
  options.gpus = 512;
  options.link = "ib-ndr-400g";
  options.topology = "rail-optimized";
  ClusterSpec c = apply_cluster_options(default_cluster(catalog()), options, catalog());
  c.link.efficiency = 0.4321;
  c.link.latency = Seconds(4.5e-6);
  c.scale_up = c.scale_up_fabric();
  c.scale_up->efficiency = 0.75;
  const std::string text = cluster_yaml(c, {"a comment"});
  CHECK(text.rfind("# a comment\n", 0) == 0);
  const ClusterSpec back = load_cluster_text(text, "calibrated.yaml", catalog());
  CHECK(back.gpu.name == c.gpu.name);
  CHECK(back.gpus == 512);
  CHECK(back.topology == TopologyKind::kRailOptimized);
  CHECK(back.link.name == "ib-ndr-400g");
  CHECK(back.link.efficiency == doctest::Approx(0.4321));
  CHECK(back.link.latency.value == doctest::Approx(4.5e-6));
  CHECK(back.link.line_rate.value == doctest::Approx(c.link.line_rate.value));
  CHECK(back.link.nic_price.value == doctest::Approx(c.link.nic_price.value));
  CHECK(back.scale_up_fabric().efficiency == doctest::Approx(0.75));
  CHECK(back.scale_up_fabric().bandwidth.value == doctest::Approx(c.scale_up->bandwidth.value));
  CHECK(back.scale_up_fabric().latency.value == doctest::Approx(c.scale_up->latency.value));
  CHECK(back.switch_spec.name == c.switch_spec.name);
  CHECK(back.link.nccl_protocols == kAllNcclProtocols);
  // A network whose NCCL runs only some protocols keeps them (links.yaml tcpxo-200g: Simple).
  options.link = "tcpxo-200g";
  const ClusterSpec tcpxo = apply_cluster_options(default_cluster(catalog()), options, catalog());
  CHECK(tcpxo.link.nccl_protocols == 0b100);
  const std::string tcpxo_text = cluster_yaml(tcpxo, {});
  CHECK(tcpxo_text.find("    nccl_protocols: [simple]\n") != std::string::npos);
  CHECK(load_cluster_text(tcpxo_text, "calibrated.yaml", catalog()).link.nccl_protocols == 0b100);
  // And the algorithms it enables (NCCL_ALGO=Ring,Tree): written, read back.
  ClusterSpec ring_tree = tcpxo;
  ring_tree.link.nccl_algorithms = 0b000011;
  const std::string ring_tree_text = cluster_yaml(ring_tree, {});
  CHECK(ring_tree_text.find("    nccl_algorithms: [ring, tree]\n") != std::string::npos);
  CHECK(load_cluster_text(ring_tree_text, "calibrated.yaml", catalog()).link.nccl_algorithms == 0b000011);
  // Copper host links (an NDR DAC reaches 3 m) are written and read back.
  ClusterSpec dac = default_cluster(catalog(), "h100-sxm");
  dac.copper_host_links = true;
  const std::string dac_text = cluster_yaml(dac, {});
  CHECK(dac_text.find("  host_cables: copper\n") != std::string::npos);
  CHECK(load_cluster_text(dac_text, "calibrated.yaml", catalog()).copper_host_links);
}

namespace {

constexpr double kGiB = 1073741824.0;

// 16 nodes x 8 H100 on NDR InfiniBand, as the catalog builds it from the names alone.
ClusterSpec sixteen_nodes() {
  ClusterOptions options;
  options.gpu = "h100-sxm";
  options.gpus = 128;
  options.link = "ib-ndr-400g";
  return apply_cluster_options(default_cluster(catalog()), options, catalog());
}

// Checks that `calibrated` reproduces `truth` at every size of 8 B .. 8 GiB through collective_cost()
// with Auto (what `collective --cluster FILE` prints): within 10% up to 64 KiB and from 256 MiB on, 20%
// between.
void check_reproduces(const ClusterSpec& calibrated, const std::function<double(double)>& truth, int ranks) {
  const CollectivePath path = collective_path(link_path(calibrated, Communicator{ranks, 1, 1}));
  for (double n = 8; n <= 8 * kGiB; n *= 2) {
    const double model = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(n), path).time.value;
    const double error = (model - truth(n)) / truth(n);
    CAPTURE(n);
    CAPTURE(model);
    CAPTURE(truth(n));
    CHECK(std::fabs(error) <= residual_band(Bytes(n)));
  }
}

LogCalibration calibrate_synthetic(const std::function<double(double)>& truth, const ClusterSpec& start,
                                   unsigned seed = 7) {
  test::SyntheticLog spec;
  spec.ranks = 128;
  spec.nodes = 16;
  spec.bus_factor = bus_factor(Collective::kAllReduce, 128);
  spec.time_of = truth;
  spec.seed = seed;
  const NcclTestsLog log = parse_nccl_tests_log(test::synthesize_nccl_log(spec), "all_reduce_perf.txt");
  return calibrate_logs({log}, start, std::nullopt, {"all_reduce_perf.txt"});
}

}  // namespace

TEST_CASE("a two-regime truth on 16 x 8 H100 is reproduced at every size through the model") {
  // The truth: a latency-bound regime (NCCL's LL: 28 us, 6 GB/s algbw) and a bandwidth-bound one (Simple:
  // 120 us, 300 GB/s busbw = 151 GB/s algbw on 128 ranks), the time the faster of the two; the knee at
  // (120 - 28) us / (1/6 - 1/151) ns/B = 575 kB. The Simple regime is NVLSTree's, whose first loops fill its
  // kernel's 4 stages: 3 loops of 128 blocks' chunks more (64 KiB on 16 nodes, 32 KiB below 8 MiB; NCCL
  // src/enqueue.cc, collective.cpp nvls_chunk_bytes), which calibration leaves to NCCL's rules. Measured with
  // 1% noise; the model starts from the catalog's NDR link with NCCL's constants.
  const double algbw_large = 300e9 / bus_factor(Collective::kAllReduce, 128);
  const auto fill = [](double n) { return 3.0 * std::min(n, 128 * (n < 8 * 1048576.0 ? 32768.0 : 65536.0)); };
  const auto truth = [&](double n) {
    return std::min(28e-6 + n / 6e9, 120e-6 + (n + fill(n)) / algbw_large);
  };
  const ClusterSpec start = sixteen_nodes();
  const LogCalibration result = calibrate_synthetic(truth, start);
  REQUIRE(result.calibrated);
  REQUIRE(result.levels.size() == 1);
  CHECK(result.levels.front().level == FabricLevel::kScaleOut);
  CHECK(result.calibrated->in_network == InNetworkReduction::kNone);
  for (const Seconds step : result.calibrated->link.protocols.step_latency) CHECK(step.value > 0.0);
  check_reproduces(*result.calibrated, truth, 128);
  // Before calibration the catalog's constants miss the truth somewhere by more than the bands. After, the
  // noise-free truth is met within the bands at every size (check_reproduces); against the log's 1% noise
  // one size at the knee sits at 20.1%: the model's mid-size ramp is NCCL's pipeline (collective.cpp
  // pipelined_terms), not this truth's sharp alpha-beta knee.
  CHECK(result.levels.front().worst_before > 0.2);
  CHECK(result.levels.front().worst_after <= 0.21);
  CHECK(result.levels.front().outside_band <= 1);
}

TEST_CASE("constants the model was run with come back: the calibrated cluster reproduces a model-made log") {
  // The truth is the model itself on a fabric slower than the catalog's: NDR at 70% efficiency, network steps
  // of 4 / 6 / 20 us (LL / LL128 / Simple) and LL at 80% of NCCL's bandwidth.
  ClusterSpec hidden = sixteen_nodes();
  hidden.link.efficiency = 0.7;
  hidden.link.protocols.step_latency = {Seconds(4e-6), Seconds(6e-6), Seconds(20e-6)};
  hidden.link.protocols.bandwidth = {0.8, 1.0, 1.0};
  const CollectivePath path = collective_path(link_path(hidden, Communicator{128, 1, 1}));
  const auto truth = [&](double n) {
    return collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(n), path).time.value;
  };
  const LogCalibration result = calibrate_synthetic(truth, sixteen_nodes(), 11);
  REQUIRE(result.calibrated);
  check_reproduces(*result.calibrated, truth, 128);
  const LevelCalibration& level = result.levels.front();
  CHECK(level.efficiency == doctest::Approx(0.7).epsilon(0.03));
  CHECK(level.protocols.step_latency[0].value == doctest::Approx(4e-6).epsilon(0.15));
}

TEST_CASE("SHARP stays off when the log does not need it, even on a cluster that has it on") {
  ClusterSpec start = sixteen_nodes();
  start.in_network = InNetworkReduction::kSharp;
  const double algbw_large = 320e9 / bus_factor(Collective::kAllReduce, 128);
  const auto truth = [&](double n) { return std::min(34e-6 + n / 6e9, 130e-6 + n / algbw_large); };
  const LogCalibration result = calibrate_synthetic(truth, start);
  REQUIRE(result.calibrated);
  CHECK(result.calibrated->in_network == InNetworkReduction::kNone);
  // The uncalibrated SHARP cluster predicts far more than the 320 GB/s measured at 8 GiB.
  CHECK(result.residuals.back().error_before() < -0.2);
  CHECK(std::fabs(result.residuals.back().error_after()) < 0.1);
}

TEST_CASE("ranks come from the device lines, else nGpus x the MPI world, else busbw/algbw") {
  test::SyntheticLog spec;
  spec.ranks = 16;
  spec.nodes = 2;
  spec.bus_factor = bus_factor(Collective::kAllReduce, 16);
  const std::string with_lines = test::synthesize_nccl_log(spec);
  CHECK(parse_nccl_tests_log(with_lines, "a.txt").ranks == 16);
  CHECK(parse_nccl_tests_log(with_lines, "a.txt").ranks_from == "device lines");

  spec.device_lines = false;
  const std::string bare = test::synthesize_nccl_log(spec);
  // busbw/algbw = 2(n-1)/n on the largest row: 1.875 for 16 ranks.
  const NcclTestsLog implied = parse_nccl_tests_log(bare, "b.txt");
  CHECK(implied.ranks == 16);
  CHECK(implied.ranks_from == "busbw/algbw");

  const NcclTestsLog launched =
      parse_nccl_tests_log("$ mpirun -np 16 ./all_reduce_perf -b 8 -e 8G\n" + bare, "c.txt");
  CHECK(launched.ranks == 16);  // nThread 1 x nGpus 1 x 16 processes
  CHECK(launched.ranks_from == "nGpus x MPI world");
}

namespace {

std::vector<PublishedRun> published_runs(const std::string& gpu, size_t limit) {
  std::vector<PublishedRun> runs;
  for (auto& run :
       load_published_runs(std::string(COSTMODEL_TEST_SOURCE_DIR) + "/data/published-runs.yaml", catalog())) {
    if (run.cluster.gpu.name == gpu && runs.size() < limit) runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace

TEST_CASE(
    "GPU efficiencies the runs were made with are recovered: fit runs within 3%, a held-out run within 5%") {
  // Truth: the A100 with gemm 0.7, half size 384, attention 0.45, overlap 0.9; each run's "measured" TFLOP/s
  // is the model's under the truth, on the configuration the planner picks under the truth.
  std::vector<PublishedRun> runs = published_runs("a100-80gb", 6);
  REQUIRE(runs.size() == 6);
  GpuSpec truth = runs.front().cluster.gpu;
  truth.efficiency.gemm = 0.7;
  truth.efficiency.gemm_half_size = 384;
  truth.efficiency.attention = 0.45;
  truth.efficiency.overlap = 0.9;
  std::vector<PublishedRun> truth_runs = runs;
  for (auto& run : truth_runs) run.cluster.gpu = truth;
  const ValidationSummary made = validate_runs(truth_runs, 1);
  for (size_t i = 0; i < runs.size(); ++i) {
    REQUIRE(made.rows[i].feasible);
    runs[i].measured.flops_per_gpu = made.rows[i].predicted_flops;
  }
  const std::string held_out = runs.back().id;
  const GpuCalibration fit =
      calibrate_gpu(runs, {std::nullopt, {held_out}, {}, FitObjective::kLeastSquares, 1});
  for (const auto& row : fit.rows) {
    CAPTURE(row.id);
    CHECK(std::fabs(row.error_after()) <= (row.fitted ? 0.03 : 0.05));
  }
  CHECK(fit.rms_after < fit.rms_before);
}

TEST_CASE("runs on two GPU types need --gpu; fewer runs than parameters is an error") {
  std::vector<PublishedRun> runs = published_runs("a100-80gb", 2);
  const std::vector<PublishedRun> h100 = published_runs("h100-sxm", 1);
  runs.insert(runs.end(), h100.begin(), h100.end());
  CHECK_THROWS_WITH_AS(calibrate_gpu(runs), doctest::Contains("--gpu"), Error);
  GpuFitOptions a100;
  a100.gpu = "a100-80gb";
  a100.threads = 1;
  CHECK_THROWS_WITH_AS(calibrate_gpu(runs, a100), doctest::Contains("cannot determine"), Error);
  a100.parameters = {"gemm"};
  CHECK(calibrate_gpu(runs, a100).parameters.size() == 1);
}

namespace {

// The words of `note` after "costmodel calibrate", up to the first that ends the command ("(..." or "...:").
std::vector<std::string> command_words(const std::string& note) {
  std::vector<std::string> words;
  const auto start = note.find("costmodel calibrate ");
  if (start == std::string::npos) return words;
  std::string word;
  for (const char c : note.substr(start + 20) + " ") {
    if (c != ' ') {
      word += c;
      continue;
    }
    if (word.empty()) continue;
    if (word.front() == '(') break;
    const bool last = word.back() == ':';
    if (last) word.pop_back();
    words.push_back(word);
    word.clear();
    if (last) break;
  }
  return words;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (const char c : text + ",") {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      items.push_back(item);
      item.clear();
    }
  }
  return items;
}

}  // namespace

TEST_CASE("the catalog's A100 and H100 efficiencies are what the command in their fitted: note prints") {
  // Issue 14: data/gpus.yaml's a100-80gb and h100-sxm `fitted:` notes name the command, e.g. `costmodel
  // calibrate --runs data/published-runs.yaml --gpu h100-sxm --objective lsq --fit gemm,attention,overlap`.
  // Run here as the CLI runs it (calibrate_gpu with those options), from the catalog's values and with the
  // fitted ones 15% below them, it must land on the catalog's values within the 4 decimals `--emit-gpu`
  // writes (0.5e-4). The parameters it does not fit stay the catalog's, as in the CLI.
  const auto all =
      load_published_runs(std::string(COSTMODEL_TEST_SOURCE_DIR) + "/data/published-runs.yaml", catalog());
  for (const std::string gpu : {"a100-80gb", "h100-sxm"}) {
    CAPTURE(gpu);
    const GpuSpec& entry = catalog().gpu(gpu);
    const std::vector<std::string> words = command_words(entry.efficiency.fitted);
    REQUIRE(words.size() >= 6);
    GpuFitOptions options;
    options.threads = 1;
    std::string runs_file;
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
      const std::string& flag = words[i];
      const std::string& value = words[i + 1];
      if (flag == "--runs") {
        runs_file = value;
      } else if (flag == "--gpu") {
        options.gpu = value;
      } else if (flag == "--objective") {
        REQUIRE(parse_fit_objective(value).has_value());
        options.objective = *parse_fit_objective(value);
      } else if (flag == "--fit") {
        options.parameters = split_list(value);
      } else {
        FAIL("a flag this test does not replay: " << flag);
      }
    }
    CHECK(runs_file == "data/published-runs.yaml");
    CHECK(options.gpu == gpu);
    REQUIRE_FALSE(options.parameters.empty());

    for (const double start : {1.0, 0.85}) {
      CAPTURE(start);
      std::vector<PublishedRun> runs = all;
      for (auto& run : runs) {
        if (run.cluster.gpu.name != gpu) continue;
        GpuEfficiency& e = run.cluster.gpu.efficiency;
        for (const auto& name : options.parameters) {
          (name == "gemm"        ? e.gemm
           : name == "attention" ? e.attention
           : name == "overlap"   ? e.overlap
                                 : e.gemm_half_size) *= start;
        }
      }
      const GpuCalibration fit = calibrate_gpu(runs, options);
      REQUIRE(fit.parameters.size() == options.parameters.size());
      for (const FittedParameter& p : fit.parameters) {
        CAPTURE(p.name);
        const double shipped = p.name == "gemm"        ? entry.efficiency.gemm
                               : p.name == "attention" ? entry.efficiency.attention
                               : p.name == "overlap"   ? entry.efficiency.overlap
                                                       : entry.efficiency.gemm_half_size;
        CHECK(p.identifiable);
        CHECK(std::fabs(p.value - shipped) <= 0.5e-4 + 1e-9);
      }
      CHECK(std::none_of(fit.notes.begin(), fit.notes.end(),
                         [](const std::string& n) { return n.find("still change") != std::string::npos; }));
    }
  }
}

TEST_CASE("minimax: with one parameter the largest over- and under-prediction are equal (Chebyshev)") {
  // Chebyshev's alternation theorem: the minimax fit of one parameter balances the largest positive and the
  // largest negative error (the A100 runs have both: the 1.7B model predicted slow, GPT-3 fast). Its largest
  // |error| is at most least squares'.
  const std::vector<PublishedRun> runs = published_runs("a100-80gb", 11);
  GpuFitOptions options;
  options.parameters = {"gemm"};
  options.threads = 1;
  const GpuCalibration lsq = calibrate_gpu(runs, options);
  options.objective = FitObjective::kMinimax;
  const GpuCalibration minimax = calibrate_gpu(runs, options);
  double over = 0, under = 0;
  for (const auto& row : minimax.rows) {
    over = std::max(over, row.error_after());
    under = std::max(under, -row.error_after());
  }
  CHECK(over == doctest::Approx(under).epsilon(0.01));
  CHECK(minimax.max_after == doctest::Approx(std::max(over, under)));
  CHECK(minimax.max_after < lsq.max_after);
  CHECK(lsq.rms_after < minimax.rms_after);
  CHECK(parse_fit_objective("minmax") == std::nullopt);
}
