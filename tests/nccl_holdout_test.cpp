// SPDX-License-Identifier: Apache-2.0
// The collective model against nccl-tests measurements it was never fitted on (tests/fixtures/
// nccl-holdout.yaml, each with its source): the error per measurement, then per size class over those held
// to the targets of costmodel issue 12 (large messages >= 256 MiB: busbw within 12% median, 25% max; mid-size
// 1-128 MiB: busbw within 20% median, 35% max; small messages < 1 MiB: time within 25% median), over every
// held measurement and over those on NCCL's own transports (no net plugin). The bounds are what the model
// reaches today, the targets it misses are WARNs. COSTMODEL_PRINT_HOLDOUT=1 prints the table.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "costmodel/io/catalog.hpp"
#include "costmodel/network/collective.hpp"
#include "io/entries.hpp"
#include "io/yaml_reader.hpp"

using namespace costmodel;

namespace {

constexpr double kMiB = 1048576.0;

enum class SizeClass { kSmall, kMid, kLarge };

const char* name_of(SizeClass c) {
  return c == SizeClass::kSmall ? "small (time)" : c == SizeClass::kMid ? "mid (busbw)" : "large (busbw)";
}

struct Point {
  std::string id;
  bool held = true;     // not excluded
  bool plugin = false;  // its network runs through an NCCL net plugin (aws-ofi-nccl, TCPXO)
  double bytes = 0;
  SizeClass size_class = SizeClass::kLarge;
  double measured = 0;  // us for small, GB/s otherwise
  double model = 0;
  std::string choice;  // algorithm/protocol the model ran

  [[nodiscard]] double error() const { return (model - measured) / measured; }
};

SizeClass classify(double bytes) {
  if (bytes < kMiB) return SizeClass::kSmall;
  return bytes <= 128 * kMiB ? SizeClass::kMid : SizeClass::kLarge;
}

std::vector<Point> evaluate_fixture() {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  const yaml::Document document = yaml::parse_file(COSTMODEL_TEST_FIXTURES "/nccl-holdout.yaml");
  yaml::Map root(document.file, document.root, "");
  const YAML::Node list = root.required("measurements");
  root.finish();
  std::vector<Point> points;
  for (std::size_t i = 0; i < list.size(); ++i) {
    yaml::Map m(document.file, list[i], "measurements[" + std::to_string(i) + "]");
    const std::string id = m.string("id");
    (void)m.string("source");
    const bool held = !m.optional_string("excluded").has_value();
    const bool plugin = m.optional_string("net_plugin").has_value();
    yaml::Map cluster_map = m.map("cluster");
    const ClusterSpec cluster = yaml::read_cluster(cluster_map, catalog);
    const Collective op =
        *parse_collective(m.choice("op", {"allreduce", "alltoall", "allgather", "reducescatter"}));
    const Algorithm algorithm = *parse_algorithm(m.optional_string("algorithm").value_or("auto"));
    const int ranks = cluster.gpus;
    const auto add = [&](const std::string& key, bool as_time) {
      if (!m.has(key)) return;
      const YAML::Node values = m.required(key);
      for (auto it = values.begin(); it != values.end(); ++it) {
        Point p;
        p.id = id;
        p.held = held;
        p.plugin = plugin;
        p.bytes = parse_bytes(it->first.as<std::string>()).value;
        p.size_class = classify(p.bytes);
        const double value = it->second.as<double>();
        const CommCost cost = collective_cost(op, algorithm, Bytes(p.bytes), ranks, 1, cluster);
        p.choice = std::string(to_string(cost.algorithm)) + "/" + std::string(to_string(cost.protocol)) +
                   (cost.tuned ? " (tuner)" : "");
        const double model_busbw = busbw(op, Bytes(p.bytes), ranks, cost.time).value / 1e9;
        if (p.size_class == SizeClass::kSmall) {
          // Time, us; a busbw is turned into time (nccl-tests: busbw = size / time x factor).
          p.measured = as_time ? value : p.bytes * bus_factor(op, ranks) / (value * 1e9) * 1e6;
          p.model = cost.time.value * 1e6;
        } else {
          REQUIRE_FALSE(as_time);  // the fixture gives times only below 1 MiB
          p.measured = value;
          p.model = model_busbw;
        }
        points.push_back(p);
      }
    };
    add("busbw_GBps", false);
    add("time_us", true);
    m.finish();
  }
  return points;
}

struct Stats {
  int count = 0;
  double median = 0;
  double max = 0;
};

Stats stats_of(const std::vector<Point>& points, SizeClass c, bool with_plugins = true) {
  std::vector<double> errors;
  for (const Point& p : points) {
    if (p.held && p.size_class == c && (with_plugins || !p.plugin)) errors.push_back(std::fabs(p.error()));
  }
  Stats s;
  s.count = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  s.median = n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  s.max = errors.back();
  return s;
}

std::string size_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 3 && std::fmod(bytes, 1024.0) == 0.0) {
    bytes /= 1024.0;
    ++u;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g%s", bytes, units[u]);
  return buffer;
}

}  // namespace

TEST_CASE("held-out nccl-tests measurements (tests/fixtures/nccl-holdout.yaml)") {
  const std::vector<Point> points = evaluate_fixture();
  REQUIRE(points.size() > 100);
  if (std::getenv("COSTMODEL_PRINT_HOLDOUT") != nullptr) {
    std::printf("| measurement | size | class | measured | model | error (%%) | model's choice | held |\n");
    std::printf("| --- | ---: | --- | ---: | ---: | ---: | --- | --- |\n");
    for (const Point& p : points) {
      std::printf("| %s | %s | %s | %.4g | %.4g | %+.1f | %s | %s |\n", p.id.c_str(),
                  size_text(p.bytes).c_str(), name_of(p.size_class), p.measured, p.model, 100 * p.error(),
                  p.choice.c_str(), p.held ? "yes" : "no");
    }
    for (bool with_plugins : {true, false}) {
      for (SizeClass c : {SizeClass::kSmall, SizeClass::kMid, SizeClass::kLarge}) {
        const Stats s = stats_of(points, c, with_plugins);
        std::printf("%s%s: %d held, |error| median %.1f%%, max %.1f%%\n", name_of(c),
                    with_plugins ? "" : " (NCCL's own transports)", s.count, 100 * s.median, 100 * s.max);
      }
    }
  }
  for (const Point& p : points) {
    CAPTURE(p.id);
    CAPTURE(p.bytes);
    CHECK(std::isfinite(p.model));
    CHECK(p.model > 0);
  }
  const Stats large = stats_of(points, SizeClass::kLarge);
  const Stats mid = stats_of(points, SizeClass::kMid);
  const Stats small = stats_of(points, SizeClass::kSmall);
  CHECK(large.count >= 119);
  CHECK(mid.count >= 113);
  CHECK(small.count >= 59);
  // Met: large messages within 12% median, small-message time within 25% median, mid-size busbw within 20%
  // median (bounds: today's 4.4%, 16.6%, 11.2%; the TCPXO curve's floor, 136-167 us, is NCCL's Simple
  // protocol, the only one Google's A3 Mega profile runs: links.yaml tcpxo-200g nccl_protocols, model 151-156
  // us; with LL it was 74-102 us). Rings across domains and trees run NCCL's pipeline model (collective.cpp
  // pipelined_terms): the mid-size median was 28.4% (23.9% on NCCL's own transports) with the alpha-beta
  // ring and tree alone. Rings inside one NVLink domain run the classic model (algorithms/ring.cpp): with the
  // pipeline there, the 8 x H100 curves of NCCL 2.26.2 were 31-48% slow at 4-32 MiB and the mid-size median
  // 14.1% (11.3% on NCCL's own transports), and 8 x A100 with one process per GPU (Meta's GCM samples, NCCL
  // 2.16.2) -36..-1% at 32-128 MiB, now -1..+11%. Two held-out curves it makes worse: Azure's 8 x A100
  // all-reduce (NCCL 2.18.5), -20..+16% -> +25..+50% at 4-128 MiB, and its 4 x GB200 ring, -2..+12% ->
  // +8..+21% at 8-128 MiB. NVLS and NVLSTree run NCCL's chunk ladder with the loops that fill their kernel's
  // stages (algorithms/nvls.cpp): the mid-size median was 18.5% (16.2% on NCCL's own transports) with NCCL's
  // tree correction table in their place.
  CHECK(large.median <= 0.05);
  CHECK(small.median <= 0.17);
  CHECK(mid.median <= 0.12);
  // Not met (WARN prints the shortfall; the CHECKs hold today's figures). The curves behind NCCL net plugins
  // are 1.5-3x off in the model at mid sizes: AWS p5 over EFA, on the (algorithm, protocol) aws-ofi-nccl's
  // region tuner picks (data/nccl-tuners.yaml; its 512 KiB chunks and 8 MiB buffers are not modelled):
  // tree/LL128 +36..+75% at 32-256 MiB on 8 and 32 nodes, ring/LL128 -36% at 128 MiB on 8 nodes, NVLSTree
  // +85% and +46% at 512 MiB and 1 GiB on 32 nodes (the large max: measured, a fixed ~3.7 ms per call that
  // NVLSTree over EFA shows at 32 nodes and the model has not); and GCP's TCPXO (+165% at 16 MiB: Google's
  // tuner is not modelled). On NCCL's own transports: the ring pipeline's first slice crosses every step
  // whole, so a 32-rank all-gather (4 x 8 H100) is 32-53% slow at 8-64 MiB (the mid max); the 4 x 8 H100
  // all-reduce curve dips to 240 GB/s at 256 MiB between 275 at 128 MiB and 291 at 512 MiB (+32%, the
  // large max); one GB200 NVL72 rack reaches 586 GB/s at 512 MiB against the model's NVLS 759 (+30%).
  WARN(large.max <= 0.25);
  WARN(mid.max <= 0.35);
  CHECK(large.max <= 0.9);
  CHECK(mid.max <= 1.7);
  // NCCL's own transports (NVLink, InfiniBand), what the model's constants come from.
  const Stats native_large = stats_of(points, SizeClass::kLarge, false);
  const Stats native_mid = stats_of(points, SizeClass::kMid, false);
  const Stats native_small = stats_of(points, SizeClass::kSmall, false);
  CHECK(native_large.median <= 0.04);
  CHECK(native_mid.median <= 0.11);
  CHECK(native_small.median <= 0.19);
  WARN(native_large.max <= 0.25);
  WARN(native_mid.max <= 0.35);
  CHECK(native_large.max <= 0.33);
  CHECK(native_mid.max <= 0.54);
}

TEST_CASE("a forced tree across 5 nodes keeps the share of the ring NVIDIA/nccl issue 1368 measured") {
  // 5 x 8 H100, 4 x 400G RoCE per node, NCCL 2.20: peak all-reduce busbw 190 GB/s with NCCL_ALGO=Ring and
  // 150 GB/s with NCCL_ALGO=Tree (the description; the fixture takes both at 1 GiB), a tree share of
  // 150 / 190 = 0.79. The model must land each within the large-message target (12%) and the share within
  // 0.05 of it.
  const std::vector<Point> points = evaluate_fixture();
  const auto find = [&points](const std::string& id) {
    const auto it = std::find_if(points.begin(), points.end(), [&id](const Point& p) { return p.id == id; });
    REQUIRE(it != points.end());
    return *it;
  };
  const Point ring = find("h100-5node-4x400g-roce-ring");
  const Point tree = find("h100-5node-4x400g-roce-tree");
  CHECK(ring.choice == "ring/simple");
  CHECK(tree.choice.rfind("tree/", 0) == 0);
  CHECK(std::fabs(ring.error()) <= 0.12);
  CHECK(std::fabs(tree.error()) <= 0.12);
  CHECK(std::fabs(tree.model / ring.model - 150.0 / 190.0) <= 0.05);
}
