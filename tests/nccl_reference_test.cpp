// SPDX-License-Identifier: Apache-2.0
// Every figure of ../shared/reference/nccl-busbw.yaml (nccl-tests measurements quoted by NCCL's maintainers
// and others), reproduced by the collective model on the catalog's hardware (data/*.yaml): large messages
// within 10%, the size curve (1-128 MiB) within 15%, latency within 20%. Each case names its source.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/network/collective.hpp"

using namespace costmodel;

namespace {

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

// `gpus` of catalog GPU `gpu`, `per_node` per node, `nics` NICs of catalog link `link` per node, on the
// link's default switch (a non-blocking fat-tree).
ClusterSpec cluster(const std::string& gpu, int gpus, int per_node, const std::string& link, int nics) {
  ClusterOptions o;
  o.gpu = gpu;
  o.gpus = gpus;
  o.gpus_per_node = per_node;
  o.link = link;
  o.nics_per_node = nics;
  return apply_cluster_options(default_cluster(catalog(), gpu), o, catalog());
}

// nccl-tests' busbw (GB/s) of `op` on all of `c`'s GPUs at `bytes`.
double busbw_gbps(const ClusterSpec& c, Collective op, Algorithm a, double bytes) {
  const CommCost cost = collective_cost(op, a, Bytes(bytes), c.gpus, 1, c);
  return busbw(op, Bytes(bytes), c.gpus, cost.time).value / 1e9;
}

}  // namespace

TEST_CASE("large messages within 10% (../shared/reference/nccl-busbw.yaml measurements)") {
  SUBCASE("dgx-a100-nvlink-ring: 230 GB/s ring AllReduce on 8 A100 (nccl-tests issue 149)") {
    CHECK(busbw_gbps(cluster("a100-80gb", 8, 8, "ib-hdr-200g", 8), Collective::kAllReduce, Algorithm::kRing,
                     8 * kGiB) == doctest::Approx(230.0).epsilon(0.10));
  }
  SUBCASE("dgx-h100-nvlink-ring: 370 GB/s ring AllReduce on 8 H100 (nccl-tests issue 212)") {
    CHECK(busbw_gbps(cluster("h100-sxm", 8, 8, "ib-ndr-400g", 8), Collective::kAllReduce, Algorithm::kRing,
                     8 * kGiB) == doctest::Approx(370.0).epsilon(0.10));
  }
  SUBCASE("dgx-h100-nvls: 480 GB/s NVLS AllReduce on 8 H100 (nccl-tests issue 212)") {
    // NCCL's NVLS: 8 channels of 40 GB/s x 0.85 x 7/8 x 2 = 476 GB/s; Auto picks it.
    const ClusterSpec c = cluster("h100-sxm", 8, 8, "ib-ndr-400g", 8);
    CHECK(busbw_gbps(c, Collective::kAllReduce, Algorithm::kInNetwork, 8 * kGiB) ==
          doctest::Approx(480.0).epsilon(0.10));
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8 * kGiB), 8, 1, c).algorithm ==
          Algorithm::kInNetwork);
  }
  SUBCASE("dgx-a100-multinode-hdr: 192 GB/s ring AllReduce, 64 ranks, 8 HDR per node (NCCL issue 1576)") {
    CHECK(busbw_gbps(cluster("a100-80gb", 64, 8, "ib-hdr-200g", 8), Collective::kAllReduce, Algorithm::kRing,
                     8 * kGiB) == doctest::Approx(192.0).epsilon(0.10));
  }
  SUBCASE("ndr-400g-per-nic: 47 GB/s ring AllGather, one GPU and one NDR NIC per node (nccl-tests 267/290)") {
    CHECK(busbw_gbps(cluster("h100-sxm", 8, 1, "ib-ndr-400g", 1), Collective::kAllGather, Algorithm::kRing,
                     8 * kGiB) == doctest::Approx(47.0).epsilon(0.10));
  }
  SUBCASE("h100-2node-roce-nvls: 430 GB/s at 4 GiB, 2 x 8 H100 on 8 x 400G RoCE (NCCL issue 1221)") {
    // NVLSTree (on by default across NVSwitch nodes): per channel min(NVLS 59.5, 2 x the NIC's, 57.7).
    const ClusterSpec c = cluster("h100-sxm", 16, 8, "roce-400g", 8);
    CHECK(busbw_gbps(c, Collective::kAllReduce, Algorithm::kAuto, 4 * kGiB) ==
          doctest::Approx(430.0).epsilon(0.10));
    // "330 GB/s with NCCL_NVLS_ENABLE=0": the ring, bound by the 8 NICs at 0.90 x 50 GB/s = 360.
    CHECK(busbw_gbps(c, Collective::kAllReduce, Algorithm::kRing, 4 * kGiB) ==
          doctest::Approx(330.0).epsilon(0.10));
  }
  SUBCASE("alltoall-2node-rule: 94 GB/s all-to-all at 1 GiB, 2 x 8 GPUs, 8 NDR per node (nccl-tests 130)") {
    CHECK(busbw_gbps(cluster("h100-sxm", 16, 8, "ib-ndr-400g", 8), Collective::kAllToAll, Algorithm::kAuto,
                     kGiB) == doctest::Approx(94.0).epsilon(0.10));
  }
}

TEST_CASE(
    "the size curve within 15%, large within 10%: 8 x H200, NCCL's default choice (S. Bekman, "
    "ml-engineering network/benchmarks)") {
  const ClusterSpec c = cluster("h200-sxm", 8, 8, "ib-ndr-400g", 8);
  struct Point {
    double bytes;
    double busbw;
    double tolerance;
  };
  const Point points[] = {{256 * 1024.0, 24.63, 0.15}, {4 * kMiB, 139.97, 0.15},   {16 * kMiB, 242.45, 0.15},
                          {64 * kMiB, 369.82, 0.15},   {128 * kMiB, 411.21, 0.15}, {kGiB, 464.0, 0.10}};
  for (const Point& p : points) {
    CAPTURE(p.bytes);
    CHECK(busbw_gbps(c, Collective::kAllReduce, Algorithm::kAuto, p.bytes) ==
          doctest::Approx(p.busbw).epsilon(p.tolerance));
  }
}

TEST_CASE(
    "latency within 20%: 2 x 8 H20 (H100's NVLink), NVLSTree forced, 8 B in 47.6 us (NCCL issue 1244)") {
  // NVLSTree: the NVLink NVLS step (25 us) + 2 floor(log2 2) network steps (14 us): 53 us.
  const ClusterSpec c = cluster("h100-sxm", 16, 8, "ib-ndr-400g", 8);
  const CommCost cost = collective_cost(Collective::kAllReduce, Algorithm::kNvlsTree, Bytes(8), 16, 1, c);
  CHECK(cost.time.value == doctest::Approx(47.6e-6).epsilon(0.20));
}

TEST_CASE("NCCL's own latency model (reference file's note; src/tuning/cost_model.cc, ring.cc, tree.cc)") {
  // Ring AllReduce ~ base + 2(n-1) x per-step; tree ~ base + 2((ppn-1) x intra + floor(log2 nodes) x inter).
  const ClusterSpec node = cluster("h100-sxm", 8, 8, "ib-ndr-400g", 8);
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(0), 8, 1, node, Protocol::kLL)
            .latency_term.value == doctest::Approx((6.6 + 14 * 0.6) * 1e-6));
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(0), 8, 1, node, Protocol::kSimple)
            .latency_term.value == doctest::Approx((8.4 + 14 * 3.4) * 1e-6));
  const ClusterSpec nodes = cluster("h100-sxm", 64, 8, "ib-ndr-400g", 8);
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Bytes(0), 64, 1, nodes,
                        Protocol::kLL)
            .latency_term.value == doctest::Approx((6.8 + 2 * (7 * 0.6 + 3 * 5.0)) * 1e-6));
}

namespace {

// Median |relative error| of the model's busbw over `points` (size in bytes, measured busbw in GB/s).
double median_error(const ClusterSpec& c, const std::vector<std::pair<double, double>>& points) {
  std::vector<double> errors;
  for (const auto& [bytes, measured] : points) {
    errors.push_back(
        std::fabs(busbw_gbps(c, Collective::kAllReduce, Algorithm::kAuto, bytes) / measured - 1.0));
  }
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  return n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
}

}  // namespace

TEST_CASE("the two-node curves, median over their sizes (dstack's Nebius H100 and GCP A4 B200 runs)") {
  // ../shared/reference/nccl-busbw.yaml nebius-h100-2x8-ib-allreduce (32 KiB - 8 GiB) and
  // gcp-a4-b200-2x8-roce-allreduce (8 MiB - 8 GiB): 2 nodes x 8 GPUs, 8 NICs per node, NCCL's default
  // choice. Issue 26's target is a median |error| of 15% over each curve: Nebius 9.1%, GCP A4 6.8%, with
  // NVLSTree's chunks as NCCL picks them and its first loops filling the kernel's stages (collective.cpp,
  // algorithms/nvls.cpp; nothing fitted). Before that (NCCL's tree correction borrowed) 15.3% and 13.1%.
  const ClusterSpec nebius = cluster("h100-sxm", 16, 8, "ib-ndr-400g", 8);
  const double k = 1024.0;
  const std::vector<std::pair<double, double>> nebius_points{
      {32 * k, 1.4},        {64 * k, 3.25},       {128 * k, 5.7},       {256 * k, 8.39},
      {512 * k, 10.04},     {kMiB, 22.58},        {2 * kMiB, 39.69},    {4 * kMiB, 71.4},
      {8 * kMiB, 101.82},   {16 * kMiB, 149.56},  {32 * kMiB, 229.43},  {64 * kMiB, 266.35},
      {128 * kMiB, 331.31}, {256 * kMiB, 385.49}, {512 * kMiB, 423.06}, {kGiB, 446.21},
      {2 * kGiB, 458.8},    {4 * kGiB, 462.61},   {8 * kGiB, 467.54}};
  CHECK(median_error(nebius, nebius_points) <= 0.10);
  const ClusterSpec a4 = cluster("b200", 16, 8, "roce-400g", 8);
  const std::vector<std::pair<double, double>> a4_points{
      {8 * kMiB, 100.25},   {16 * kMiB, 160.29},  {32 * kMiB, 243.42},  {64 * kMiB, 340.67},
      {128 * kMiB, 394.17}, {256 * kMiB, 535.29}, {512 * kMiB, 593.81}, {kGiB, 623.33},
      {2 * kGiB, 659.26},   {4 * kGiB, 673.79},   {8 * kGiB, 683.52}};
  CHECK(median_error(a4, a4_points) <= 0.08);
}
