// SPDX-License-Identifier: Apache-2.0
// Collective costs: calibration against nccl-tests (../shared/reference/nccl-busbw.yaml), NCCL's latency
// model, the ring/tree crossover, and properties that hold for every input.
#include <doctest/doctest.h>

#include "network_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "allocation_counter.hpp"
#include "costmodel/error.hpp"
#include "costmodel/network/collective.hpp"

namespace costmodel {
namespace {

using namespace costmodel::test;

constexpr double kGB = 1e9;
constexpr double kUs = 1e-6;
const Bytes kLarge(8.0 * 1024 * 1024 * 1024);  // 8 GiB: nccl-tests' plateau

double busbw_gbps(Collective c, Algorithm a, const ClusterSpec& cl, int ranks, Bytes n = kLarge) {
  const CommCost cost = collective_cost(c, a, n, ranks, 1, cl);
  return busbw(c, n, ranks, cost.time).value / kGB;
}

constexpr Collective kAllCollectives[] = {
    Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather, Collective::kAllToAll,
    Collective::kBroadcast, Collective::kReduce,        Collective::kSendRecv};
constexpr Algorithm kAllAlgorithms[] = {
    Algorithm::kRing,         Algorithm::kDoubleBinaryTree, Algorithm::kHalvingDoubling,
    Algorithm::kHierarchical, Algorithm::kDirect,           Algorithm::kInNetwork,
    Algorithm::kNvlsTree,     Algorithm::kTorusBucket,      Algorithm::kPat,
    Algorithm::kAuto};
constexpr Protocol kAllProtocols[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple, Protocol::kAuto};

ClusterSpec with_sharp(ClusterSpec c) {
  c.in_network = InNetworkReduction::kSharp;
  return c;
}

}  // namespace

TEST_CASE("names round-trip with the CLI's spelling") {
  for (Collective c : kAllCollectives) CHECK(parse_collective(to_string(c)) == c);
  for (Algorithm a : kAllAlgorithms) CHECK(parse_algorithm(to_string(a)) == a);
  for (Protocol p : kAllProtocols) CHECK(parse_protocol(to_string(p)) == p);
  CHECK(to_string(Collective::kReduceScatter) == "reducescatter");
  CHECK(to_string(Algorithm::kDoubleBinaryTree) == "tree");
  CHECK(to_string(Algorithm::kHalvingDoubling) == "halving-doubling");
  CHECK(to_string(Algorithm::kInNetwork) == "in-network");
  CHECK(to_string(Algorithm::kNvlsTree) == "nvls-tree");
  CHECK(to_string(Algorithm::kPat) == "pat");
  CHECK(to_string(Protocol::kLL128) == "ll128");
  CHECK_FALSE(parse_algorithm("rings").has_value());
  CHECK_FALSE(parse_collective("all_reduce").has_value());
  CHECK_FALSE(parse_protocol("LL").has_value());
}

TEST_CASE("nccl-tests bus-bandwidth factors") {
  CHECK(bus_factor(Collective::kAllReduce, 8) == doctest::Approx(1.75));
  CHECK(bus_factor(Collective::kAllGather, 8) == doctest::Approx(0.875));
  CHECK(bus_factor(Collective::kAllToAll, 4) == doctest::Approx(0.75));
  CHECK(bus_factor(Collective::kBroadcast, 8) == 1.0);
  CHECK(bus_factor(Collective::kSendRecv, 2) == 1.0);
  // 1 GB in 10 ms: algbw 100 GB/s, AllReduce busbw over 8 ranks 175 GB/s.
  CHECK(busbw(Collective::kAllReduce, Bytes(1e9), 8, Seconds(0.01)).value == doctest::Approx(175e9));
}

TEST_CASE("every (algorithm, protocol) has its own latency and bandwidth (NCCL src/tuning/*.cc)") {
  // 8x A100, one node: NVLink 300 x 0.77 = 231 GB/s; 12 channels (231 / 40 GB/s -> 6, doubled); Ampere caps.
  const LinkPath node = link_path(dgx_a100(8), Communicator{8, 1, 1});
  const Bytes n(1e9);
  const auto cost = [&](Collective c, Algorithm a, Protocol p) { return collective_cost(c, a, n, node, p); };
  SUBCASE("ring AllReduce: base + 14 NVLink steps; LL half the bus bandwidth up to llMaxBw, LL128 0.92") {
    // ring.cc: latency base + 2(p-1) x hwLat[NVLINK][Ring]; algorithm bandwidth busBw x 8 / 14.
    const CommCost ll = cost(Collective::kAllReduce, Algorithm::kRing, Protocol::kLL);
    CHECK(ll.latency_term.value == doctest::Approx((6.6 + 14 * 0.6) * kUs));     // 15.0 us
    CHECK(ll.bandwidth_term.value == doctest::Approx(1e9 / (87.7e9 * 8 / 14)));  // min(87.7, 115.5)
    const CommCost ll128 = cost(Collective::kAllReduce, Algorithm::kRing, Protocol::kLL128);
    CHECK(ll128.latency_term.value == doctest::Approx((14.0 + 14 * 1.9) * kUs));          // 40.6 us
    CHECK(ll128.bandwidth_term.value == doctest::Approx(1e9 / (0.92 * 231e9 * 8 / 14)));  // < 12 x 20
    const CommCost simple = cost(Collective::kAllReduce, Algorithm::kRing, Protocol::kSimple);
    CHECK(simple.latency_term.value == doctest::Approx((8.4 + 14 * 3.4) * kUs));  // 56.0 us
    CHECK(simple.bandwidth_term.value == doctest::Approx(1e9 / (231e9 * 8 / 14)));
    CHECK(simple.protocol == Protocol::kSimple);
    // Auto takes the fastest: Simple for 1 GB.
    const CommCost best = cost(Collective::kAllReduce, Algorithm::kRing, Protocol::kAuto);
    CHECK(best.protocol == Protocol::kSimple);
    CHECK(best.time.value == doctest::Approx(simple.time.value));
  }
  SUBCASE("ring broadcast: nsteps = p steps of the ring's NVLink latency (Simple: the tree's)") {
    const CommCost ll = cost(Collective::kBroadcast, Algorithm::kRing, Protocol::kLL);
    CHECK(ll.latency_term.value == doctest::Approx((6.6 + 8 * 0.6) * kUs));
    const CommCost simple = cost(Collective::kBroadcast, Algorithm::kRing, Protocol::kSimple);
    CHECK(simple.latency_term.value == doctest::Approx((8.4 + 8 * 4.0) * kUs));
    CHECK(simple.bandwidth_term.value == doctest::Approx(1e9 / 231e9));  // busBw x p / p
  }
  SUBCASE("one node's tree: the chain's 14 steps, 0.92 of the bus bandwidth, halved") {
    // tree.cc: latency base + 2 x 7 x hwLat[NVLINK][Tree]; busBw min(0.92 x 231, 12 x 24) = 212.52; LL128
    // x 7/9 on one node; algorithm bandwidth half; 1 GB is past the correction table (log2(1e9/64) = 23).
    const CommCost simple = cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Protocol::kSimple);
    CHECK(simple.latency_term.value == doctest::Approx((8.4 + 14 * 4.0) * kUs));
    CHECK(simple.bandwidth_term.value == doctest::Approx(1e9 / (0.5 * 0.92 * 231e9)));
    const CommCost ll128 = cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Protocol::kLL128);
    CHECK(ll128.latency_term.value == doctest::Approx((14.0 + 14 * 1.25) * kUs));
    CHECK(ll128.bandwidth_term.value == doctest::Approx(1e9 / (0.5 * 0.92 * 231e9 * 7 / 9)));
  }
  SUBCASE("the tree at 4 MiB by NCCL's pipeline model (src/tuning/pipeline_model/tree.cc)") {
    // 24 channels launched (4 MiB / (512 threads x 64 B) = 128 >= 2 x 12): 174,763 B each, one chunk (under
    // the 512 KiB step) and one slice; a tree all-reduce sends each slice twice less one: 1 slice, through
    // its 14 chain steps at the graph channel's 20 GB/s. Transfer 174,763 x 14 / 20e9 = 122.3 us: 24 x
    // 174,763 B / 122.3 us = 34.3 GB/s, under the algorithm's 0.5 x 0.92 x 231 = 106.3 GB/s (soft minimum:
    // 34.28). Latency: the classic 8.4 + 14 x 4.0 us. (NCCL's treeCorrectionFactor, 0.7 here, now enters its
    // prediction only.)
    const Bytes mid(4194304.0);
    const CommCost c =
        collective_cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, mid, node, Protocol::kSimple);
    CHECK(c.latency_term.value == doctest::Approx((8.4 + 14 * 4.0) * kUs));
    CHECK(c.bandwidth_term.value == doctest::Approx(122.36 * kUs).epsilon(0.001));
  }
  SUBCASE("direct all-to-all: 7 NVLink peers at the protocol's step; LL128 is not point-to-point's") {
    const CommCost ll = cost(Collective::kAllToAll, Algorithm::kDirect, Protocol::kLL);
    CHECK(ll.latency_term.value == doctest::Approx((6.6 + 7 * 0.6) * kUs));
    CHECK(ll.bandwidth_term.value == doctest::Approx(0.875e9 / 87.7e9));  // min(0.5 x 231, llMaxBw)
    const CommCost simple = cost(Collective::kAllToAll, Algorithm::kDirect, Protocol::kSimple);
    CHECK(simple.latency_term.value == doctest::Approx((8.4 + 7 * 3.4) * kUs));
    CHECK(simple.bandwidth_term.value == doctest::Approx(0.875e9 / 231e9));
    CHECK_FALSE(applicable(Collective::kAllToAll, Algorithm::kDirect, node, Protocol::kLL128));
  }
  SUBCASE("halving-doubling AllReduce: 2 log2(8) ring steps, the ring's volume") {
    const CommCost c = cost(Collective::kAllReduce, Algorithm::kHalvingDoubling, Protocol::kSimple);
    CHECK(c.latency_term.value == doctest::Approx((8.4 + 6 * 3.4) * kUs));
    CHECK(c.bandwidth_term.value == doctest::Approx(1.75e9 / 231e9));
  }
  SUBCASE("one rank costs nothing") {
    const LinkPath p = link_path(dgx_a100(8), Communicator{1, 1, 1});
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, n, p).time.value == 0.0);
  }
}

TEST_CASE("NVLS and NVLSTree (NCCL src/tuning/nvls.cc)") {
  SUBCASE("8x H100: 8 NVLS channels at 40 GB/s (9 x 40 <= 369), x0.85 x 7/8 x 2: busBw 476 GB/s, 25 us") {
    const LinkPath p = link_path(dgx_h100(8), Communicator{8, 1, 1});
    const CommCost c = collective_cost(Collective::kAllReduce, Algorithm::kInNetwork, kLarge, p);
    CHECK(c.protocol == Protocol::kSimple);
    CHECK(c.latency_term.value == doctest::Approx(25 * kUs));
    // 8 GiB: chunks of 128 KiB, a loop of 16 blocks x 8 heads x 128 KiB = 16 MiB; the AllReduce kernel's 3
    // stages (scatter, reduce and broadcast, gather) fill for 2 loops.
    const double loop = 16 * 8 * 131072.0;
    CHECK(c.bandwidth_term.value ==
          doctest::Approx((kLarge.value + 2 * loop) / (8 * 40e9 * 0.85 * 7 / 8 * 2 * 8 / 14)));
    // AllGather: x (L-1)/L instead of x2; algorithm bandwidth busBw x p / (p-1); 2 stages, 1 loop of fill.
    const CommCost ag = collective_cost(Collective::kAllGather, Algorithm::kInNetwork, kLarge, p);
    CHECK(ag.bandwidth_term.value ==
          doctest::Approx((kLarge.value + loop) / (8 * 40e9 * 0.85 * 7 / 8 * 7 / 8 * 8 / 7)));
    CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kInNetwork, p, Protocol::kLL));
  }
  SUBCASE("NVLS's chunk ladder and fill (NCCL src/enqueue.cc, src/device/all_reduce.h)") {
    // 8 H100: 16 blocks x 8 heads = 128 chunks per loop. From 128 KiB NCCL halves to 64 KiB under 64 loops
    // (1 GiB), to 32 KiB under 8 loops of 64 KiB (64 MiB), to 16 KiB under 2 loops of 32 KiB (8 MiB). The
    // bandwidth term is (n + 2 x min(n, a loop)) / B, B the large-message rate.
    const LinkPath node = link_path(dgx_h100(8), Communicator{8, 1, 1});
    const auto bandwidth_term = [](const LinkPath& p, Algorithm a, double n) {
      return collective_cost(Collective::kAllReduce, a, Bytes(n), p).bandwidth_term.value;
    };
    const double kib = 1024.0;
    const double mib = kib * kib;
    const double per_byte = 1.0 / (8 * 40e9 * 0.85 * 7 / 8 * 2 * 8 / 14);
    const auto nvls = [&](double n) { return bandwidth_term(node, Algorithm::kInNetwork, n); };
    CHECK(nvls(kib) == doctest::Approx(3 * kib * per_byte));                       // less than a loop
    CHECK(nvls(4 * mib) == doctest::Approx((4 + 2 * 2) * mib * per_byte));         // 16 KiB: 2 MiB loops
    CHECK(nvls(8 * mib) == doctest::Approx((8 + 2 * 4) * mib * per_byte));         // 32 KiB: 4 MiB
    CHECK(nvls(64 * mib) == doctest::Approx((64 + 2 * 8) * mib * per_byte));       // 64 KiB: 8 MiB
    CHECK(nvls(1024 * mib) == doctest::Approx((1024 + 2 * 16) * mib * per_byte));  // 128 KiB: 16 MiB
    // What NCCL's tuner compares has no fill: Auto still takes NVLS at 4 MiB on one node, as NCCL does.
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(4 * mib), node).algorithm ==
          Algorithm::kInNetwork);
    // NVLSTree on 2 x 8 H100 (4 stages: 3 loops of fill): from 128 KiB to 64 KiB under 4 loops (64 MiB), to
    // 32 KiB under 1 loop of 64 KiB (8 MiB). Its rate: 8 channels x 57.7 GB/s x 16/30.
    const LinkPath two = link_path(dgx_h100(16), Communicator{16, 1, 1});
    const double tree_per_byte = 1.0 / (8 * 57.7e9 * 16 / 30);
    const auto tree = [&](double n) { return bandwidth_term(two, Algorithm::kNvlsTree, n); };
    CHECK(tree(4 * mib) == doctest::Approx((4 + 3 * 4) * mib * tree_per_byte));     // 32 KiB: 4 MiB loops
    CHECK(tree(8 * mib) == doctest::Approx((8 + 3 * 8) * mib * tree_per_byte));     // 64 KiB: 8 MiB
    CHECK(tree(64 * mib) == doctest::Approx((64 + 3 * 16) * mib * tree_per_byte));  // 128 KiB: 16 MiB
    // A 72-GPU domain has 32 heads (NCCL_MAX_NVLS_ARITY): 512 chunks per loop, 64 MiB of 128 KiB chunks
    // from 4 GiB (64 loops x 512 x 128 KiB); below it 64 KiB (32 MiB loops) down to 256 MiB.
    ClusterSpec rack = dgx_h100(72);
    rack.scale_up->domain = 72;
    const LinkPath wide = link_path(rack, Communicator{72, 1, 1});
    const auto wide_nvls = [&](double n) { return bandwidth_term(wide, Algorithm::kInNetwork, n); };
    const double wide_per_byte = wide_nvls(64 * kib * mib) / ((65536 + 2 * 64) * mib);
    CHECK(wide_nvls(2 * kib * mib) == doctest::Approx((2048 + 2 * 32) * mib * wide_per_byte));
    CHECK(wide_nvls(4 * kib * mib) == doctest::Approx((4096 + 2 * 64) * mib * wide_per_byte));
  }
  SUBCASE("NVLS needs more than 2 GPUs in the domain; A100 has none") {
    CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kInNetwork,
                           link_path(dgx_h100(8), Communicator{2, 1, 1})));
    CHECK(applicable(Collective::kAllReduce, Algorithm::kInNetwork,
                     link_path(dgx_h100(8), Communicator{4, 1, 1})));
    CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kInNetwork,
                           link_path(dgx_a100(8), Communicator{8, 1, 1})));
  }
  SUBCASE("2 x 8 H100 on NDR: NVLSTree, per channel min(59.5, 2 x 47, 57.7), 25 + 2 x 14 us") {
    // Per channel: NVLS 40 x 0.85 x 7/8 x 2 = 59.5 GB/s; the NICs 8 x 47 / 8 channels, x2 on two nodes;
    // Hopper's perChMaxNVLSTreeBw for two nodes 57.7. busBw 8 x 57.7; algorithm bandwidth x 16/30.
    const LinkPath p = link_path(dgx_h100(16), Communicator{16, 1, 1});
    const CommCost c = collective_cost(Collective::kAllReduce, Algorithm::kNvlsTree, kLarge, p);
    CHECK(c.latency_term.value == doctest::Approx((25 + 2 * 14) * kUs));
    // 8 GiB: 16 MiB loops (128 KiB chunks), 3 of them fill the kernel's 4 stages.
    CHECK(c.bandwidth_term.value ==
          doctest::Approx((kLarge.value + 3 * 16 * 1048576.0) / (8 * 57.7e9 * 16 / 30)));
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, p).algorithm ==
          Algorithm::kNvlsTree);
    // Beyond two nodes the NICs' per channel and the cap (45.5) bind: 8 x 45.5 GB/s.
    const LinkPath four = link_path(dgx_h100(32), Communicator{32, 1, 1});
    const CommCost c4 = collective_cost(Collective::kAllReduce, Algorithm::kNvlsTree, kLarge, four);
    // From 4 nodes NVLSTree's chunks are at most 64 KiB: 8 MiB loops.
    CHECK(c4.bandwidth_term.value ==
          doctest::Approx((kLarge.value + 3 * 8 * 1048576.0) / (8 * 45.5e9 * 32 / 62)));
    CHECK(c4.latency_term.value == doctest::Approx((25 + 2 * 2 * 14) * kUs));
  }
  SUBCASE("NVLSTree runs across domains only, and needs NVLS") {
    CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kNvlsTree,
                           link_path(dgx_h100(8), Communicator{8, 1, 1})));
    CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kNvlsTree,
                           link_path(dgx_a100(16), Communicator{16, 1, 1})));
    CHECK_FALSE(applicable(Collective::kAllGather, Algorithm::kNvlsTree,
                           link_path(dgx_h100(16), Communicator{16, 1, 1})));
  }
}

TEST_CASE("latency per NCCL: per-step network costs, the intra-node step of a multi-node ring, log2 depth") {
  SUBCASE("one 8-GPU node: ring LL 6.6 + 14 x 0.6 = 15.0 us (NCCL's own worked number)") {
    const CommCost c = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8), 8, 1, dgx_a100(8));
    CHECK(c.algorithm == Algorithm::kRing);
    CHECK(c.protocol == Protocol::kLL);
    CHECK(c.latency_term.value == doctest::Approx(15.0 * kUs));
  }
  SUBCASE("2 nodes x 8 H100: tree LL 6.8 + 2 (7 x 0.6 + 1 x 5.0) = 25.2 us; NCCL issue 1453 logs 25.21 us") {
    // NCCL's log: "128 Bytes -> Algo 0 (Tree) proto 0 (LL) time 25.214764".
    const CommCost c =
        collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(128), 16, 1, dgx_h100(16));
    CHECK(c.algorithm == Algorithm::kDoubleBinaryTree);
    CHECK(c.protocol == Protocol::kLL);
    CHECK(c.latency_term.value == doctest::Approx(25.2 * kUs));
    CHECK(c.time.value == doctest::Approx(25.214764 * kUs).epsilon(0.001));
  }
  SUBCASE("a multi-node ring's intra-node steps cost at least the network post (1 us, 3 us for Simple)") {
    // ring.cc: 6.6 + (30 - 2) x max(0.6, 1.0) + 2 x 2.7 = 40.0 us (LL); Simple 8.4 + 28 x max(3.4, 3) + 2
    // x 14.
    const LinkPath p = link_path(dgx_h100(16), Communicator{16, 1, 1});
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(0), p, Protocol::kLL)
              .latency_term.value == doctest::Approx(40.0 * kUs));
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(0), p, Protocol::kSimple)
              .latency_term.value == doctest::Approx((8.4 + 28 * 3.4 + 2 * 14) * kUs));
    // Ring/Simple AllReduce across nodes: NCCL's prediction takes the latency x1.4 from nBytes / (nChannels x
    // nRanks) >= 64 (8 channels), which makes Auto choose other pairs there; what launches keeps the latency
    // (its slow ramp is the pipeline's).
    const double plateau = 64.0 * 8 * 16;
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(plateau), p, Protocol::kSimple)
              .latency_term.value == doctest::Approx((8.4 + 28 * 3.4 + 2 * 14) * kUs));
  }
  SUBCASE("2 to 1,024 nodes: the tree's depth is floor(log2 nodes)") {
    for (int nodes = 2; nodes <= 1024; nodes *= 2) {
      const double nccl = 6.8 + 2 * (7 * 0.6 + std::floor(std::log2(nodes)) * 5.0);
      const CommCost c = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8), nodes * 8, 1,
                                         dgx_a100(nodes * 8));
      CAPTURE(nodes);
      CHECK(c.algorithm == Algorithm::kDoubleBinaryTree);
      CHECK(c.latency_term.value == doctest::Approx(nccl * kUs));
    }
  }
  SUBCASE("one GPU per node: every step is a network step at the tree's cost (NCCL 2.23-2.26)") {
    // 8 nodes x 1 H100, one NDR each: ring AllGather LL 6.6 + 7 x 5.0 us.
    const ClusterSpec c = cluster(h100(), 8, 1, ndr(), 1, qm9700());
    const CommCost ag =
        collective_cost(Collective::kAllGather, Algorithm::kRing, Bytes(0), 8, 1, c, Protocol::kLL);
    CHECK(ag.latency_term.value == doctest::Approx((6.6 + 7 * 5.0) * kUs));
  }
  SUBCASE("a fabric slower than InfiniBand adds its excess to NCCL's network step (twice for Simple)") {
    // RoCE at 2 us on the same switches: 1 us over InfiniBand's NIC-to-NIC per network step.
    ClusterSpec roce = dgx_h100(16);
    roce.link.latency = Seconds(2e-6);
    const LinkPath p = link_path(roce, Communicator{16, 1, 1});
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(0), p, Protocol::kLL)
              .latency_term.value == doctest::Approx((40.0 + 2 * 1.0) * kUs));
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kNvlsTree, Bytes(0), p).latency_term.value ==
          doctest::Approx((25 + 2 * (14 + 2 * 1.0)) * kUs));
  }
}

TEST_CASE("applicability follows NCCL; misuse is an input error") {
  const LinkPath a100_node = link_path(dgx_a100(8), Communicator{8, 1, 1});
  CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kInNetwork, a100_node));
  CHECK_THROWS_AS((void)collective_cost(Collective::kAllReduce, Algorithm::kInNetwork, Bytes(1e6), a100_node),
                  Error);
  CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kTorusBucket, a100_node));
  CHECK_FALSE(applicable(Collective::kAllToAll, Algorithm::kRing, a100_node));
  CHECK(applicable(Collective::kAllToAll, Algorithm::kDirect, a100_node));
  CHECK_THROWS_AS((void)collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(-1.0), a100_node),
                  Error);
  CHECK_THROWS_AS((void)collective_cost(Collective::kAllReduce, Algorithm::kInNetwork, Bytes(1e6),
                                        link_path(dgx_h100(8), Communicator{8, 1, 1}), Protocol::kLL128),
                  Error);
  const ClusterSpec h100 = dgx_h100(64);
  CHECK(why_not_applicable(Collective::kAllReduce, Algorithm::kInNetwork,
                           link_path(h100, Communicator{64, 1, 1}), h100)
            .find("scale_out.in_network: sharp") != std::string::npos);
  CHECK(why_not_applicable(Collective::kBroadcast, Algorithm::kDoubleBinaryTree,
                           link_path(h100, Communicator{64, 1, 1}), h100)
            .find("rings") != std::string::npos);
}

TEST_CASE("an InfiniBand cluster without in_network: sharp never picks CollNet/in-network across nodes") {
  // The QM9700 can reduce (SHARP), but NCCL keeps CollNet off unless NCCL_COLLNET_ENABLE=1.
  for (int nodes : {2, 8, 64, 512}) {
    const ClusterSpec off = dgx_h100(8 * nodes);
    const LinkPath p = link_path(off, Communicator{8 * nodes, 1, 1});
    CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kInNetwork, p));
    for (double n = 1.0; n <= 1e11; n *= 4) {
      CAPTURE(nodes);
      CAPTURE(n);
      CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(n), p).algorithm !=
            Algorithm::kInNetwork);
    }
    // Switched on, NVLS inside and SHARP across: each rank's n/L slice crosses the network once each way.
    const LinkPath on = link_path(with_sharp(off), Communicator{8 * nodes, 1, 1});
    CHECK(applicable(Collective::kAllReduce, Algorithm::kInNetwork, on));
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, on).algorithm ==
          Algorithm::kInNetwork);
  }
}

TEST_CASE(
    "a network whose NCCL runs only some protocols (LinkSpec::nccl_protocols) restricts multi-node ones") {
  // GPUDirect-TCPXO's NCCL profile sets NCCL_PROTO=Simple (data/links.yaml tcpxo-200g); NCCL_PROTO applies to
  // the whole communicator, so a communicator inside one node keeps LL, one across nodes runs Simple only.
  ClusterSpec simple = dgx_h100(16);
  simple.link.nccl_protocols = 0b100;
  const LinkPath node = link_path(simple, Communicator{8, 1, 1});
  const LinkPath nodes = link_path(simple, Communicator{16, 1, 1});
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8.0), node).protocol ==
        Protocol::kLL);
  const LinkPath all = link_path(dgx_h100(16), Communicator{16, 1, 1});
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8.0), all).protocol !=
        Protocol::kSimple);
  for (Collective op : kAllCollectives) {
    for (double n = 8.0; n <= 1e10; n *= 16) {
      CAPTURE(n);
      CHECK(collective_cost(op, Algorithm::kAuto, Bytes(n), nodes).protocol == Protocol::kSimple);
      CHECK(collective_cost(op, Algorithm::kAuto, Bytes(n), collective_path(nodes)).protocol ==
            Protocol::kSimple);
    }
  }
  // Only Simple left, the 8-byte all-reduce pays Simple's latency: NVLSTree, 25 + 2 x 14 us (NCCL's
  // hwLat NVLINK and NET rows; the link's latency is InfiniBand's, no excess).
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8.0), nodes).time.value ==
        doctest::Approx(53e-6).epsilon(0.01));
  CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kRing, nodes, Protocol::kLL));
  CHECK(applicable(Collective::kAllReduce, Algorithm::kRing, node, Protocol::kLL));
  CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kAuto, nodes, Protocol::kLL128));
  CHECK_THROWS_AS(
      (void)collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(8.0), nodes, Protocol::kLL),
      Error);
  CHECK(why_not_applicable(Collective::kAllReduce, Algorithm::kRing, nodes, simple, Protocol::kLL)
            .find("NCCL runs only simple over this network") != std::string::npos);
  // A network without Simple cannot run the Simple-only algorithms (NVLSTree) across its nodes.
  ClusterSpec ll_only = dgx_h100(16);
  ll_only.link.nccl_protocols = 0b001;
  const LinkPath ll_nodes = link_path(ll_only, Communicator{16, 1, 1});
  CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kNvlsTree, ll_nodes));
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, ll_nodes).protocol ==
        Protocol::kLL);
}

TEST_CASE("a network whose NCCL enables only some algorithms (LinkSpec::nccl_algorithms) restricts Auto") {
  // Google's earlier GPUDirect-TCPXO profile: NCCL_ALGO=Ring,Tree, NVLS off. Across two DGX H100 nodes Auto
  // otherwise takes NVLSTree for a large all-reduce; restricted, ring or tree. Inside one node NCCL_ALGO
  // would apply too, but the link's restriction is the network's: a one-node communicator keeps NVLS.
  ClusterSpec c = dgx_h100(16);
  const LinkPath open_nodes = link_path(c, Communicator{16, 1, 1});
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, open_nodes).algorithm ==
        Algorithm::kNvlsTree);
  c.link.nccl_algorithms = 0b000011;  // ring, tree
  const LinkPath nodes = link_path(c, Communicator{16, 1, 1});
  const LinkPath node = link_path(c, Communicator{8, 1, 1});
  for (double n = 8.0; n <= 1e10; n *= 16) {
    CAPTURE(n);
    const Algorithm a = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(n), nodes).algorithm;
    CHECK((a == Algorithm::kRing || a == Algorithm::kDoubleBinaryTree));
  }
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, node).algorithm ==
        Algorithm::kInNetwork);
  // Point to point is not an NCCL_ALGO algorithm: all-to-all still runs.
  CHECK(collective_cost(Collective::kAllToAll, Algorithm::kAuto, kLarge, nodes).algorithm ==
        Algorithm::kDirect);
}

TEST_CASE("Broadcast and Reduce are never a tree (NCCL runs them on rings)") {
  for (const ClusterSpec& c : {dgx_a100(8), dgx_a100(128), dgx_h100(16), dgx_h100(1024)}) {
    const LinkPath p = link_path(c, Communicator{c.gpus, 1, 1});
    for (Collective op : {Collective::kBroadcast, Collective::kReduce}) {
      CHECK_FALSE(applicable(op, Algorithm::kDoubleBinaryTree, p));
      for (double n = 1.0; n <= 1e10; n *= 8) {
        CAPTURE(c.gpus);
        CAPTURE(n);
        CHECK(collective_cost(op, Algorithm::kAuto, Bytes(n), p).algorithm == Algorithm::kRing);
      }
    }
  }
}

TEST_CASE(
    "all-gather and reduce-scatter are never point to point under Auto (NCCL's are ring, NVLS, CollNet)") {
  // On 1,536 A100 a point-to-point all-gather of 16 KiB would post 1,528 network sends at once (about
  // 1.5 ms), where NCCL's ring pays 1,535 steps; NCCL offers no such algorithm, so Auto must not either,
  // while --algo direct still prices it. Both the path and its prepared table are checked.
  for (const ClusterSpec& c : {dgx_a100(8), dgx_a100(1536), dgx_h100(16), dgx_h100(1024)}) {
    const LinkPath p = link_path(c, Communicator{c.gpus, 1, 1});
    const CollectivePath prepared = collective_path(p);
    for (Collective op : {Collective::kAllGather, Collective::kReduceScatter}) {
      CHECK(applicable(op, Algorithm::kDirect, p));
      for (double n = 8.0; n <= 1e10; n *= 8) {
        CAPTURE(c.gpus);
        CAPTURE(n);
        CHECK(collective_cost(op, Algorithm::kAuto, Bytes(n), p).algorithm != Algorithm::kDirect);
        CHECK(collective_cost(op, Algorithm::kAuto, Bytes(n), prepared).algorithm != Algorithm::kDirect);
      }
    }
  }
  // Small all-gathers across 192 nodes paid the point-to-point latency before; now the ring's.
  const LinkPath wide = link_path(dgx_a100(1536), Communicator{1536, 1, 1});
  const double ring =
      collective_cost(Collective::kAllGather, Algorithm::kRing, Bytes(16384), wide).time.value;
  const double direct =
      collective_cost(Collective::kAllGather, Algorithm::kDirect, Bytes(16384), wide).time.value;
  CHECK(direct < ring);
  CHECK(collective_cost(Collective::kAllGather, Algorithm::kAuto, Bytes(16384), wide).time.value ==
        doctest::Approx(ring));
}

TEST_CASE("Auto picks the fastest (algorithm, protocol) per size") {
  SUBCASE("one A100 node: LL small, LL128 at 4 MiB, Simple from 64 MiB") {
    // Inside one NVLink domain the ring runs the classic model (algorithms/ring.cpp): latency + n / bandwidth
    // per protocol. 4 MiB: LL 15 + 83.7 us, LL128 40.6 + 34.5 us, Simple 56 + 31.8 us; 64 MiB: LL128
    // 40.6 + 552.6 us, Simple 56 + 508.4 us (LL128 moves 120 of every 128 bytes, and its per-channel cap).
    const LinkPath p = link_path(dgx_a100(8), Communicator{8, 1, 1});
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8), p).protocol == Protocol::kLL);
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(4194304), p).protocol ==
          Protocol::kLL128);
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(67108864), p).protocol ==
          Protocol::kSimple);
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, p).protocol == Protocol::kSimple);
  }
  SUBCASE("16 DGX A100 nodes: the tree for small messages, the ring for large ones") {
    const LinkPath p = link_path(dgx_a100(128), Communicator{128, 1, 1});
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(8), p).algorithm ==
          Algorithm::kDoubleBinaryTree);
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, p).algorithm == Algorithm::kRing);
  }
  SUBCASE("8 H100 in one node: NVLS for large messages") {
    CHECK(collective_cost(Collective::kAllReduce, Algorithm::kAuto, kLarge, 8, 1, dgx_h100(8)).algorithm ==
          Algorithm::kInNetwork);
  }
  SUBCASE("Auto is never slower than any pair it may choose") {
    const LinkPath p = link_path(dgx_h100(128), Communicator{128, 1, 1});
    for (double n : {8.0, 65536.0, 4194304.0, 1e8, 8e9}) {
      const CommCost best = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(n), p);
      for (Algorithm a : {Algorithm::kRing, Algorithm::kDoubleBinaryTree, Algorithm::kNvlsTree}) {
        for (Protocol proto : kAllProtocols) {
          if (!applicable(Collective::kAllReduce, a, p, proto)) continue;
          CHECK(best.time <= collective_cost(Collective::kAllReduce, a, Bytes(n), p, proto).time);
        }
      }
    }
  }
}

TEST_CASE("small messages run on fewer channels and threads (NCCL ncclTuningGetChannels), unseen by Auto") {
  // 8x A100: graph 12 channels of 20 GB/s (40, doubled), the communicator runs 24 (src/graph/connect.cc).
  // Ring LL: a channel takes 512 threads x 8 B x 8 ranks = 32 KiB before the next is added; a lone channel
  // halves its 512 threads while n < threads x 64 B (at most 3 times, to 64). One channel moves LL at
  // min(87.7, 20 / 2) = 10 GB/s busbw (algbw x 8/14), in proportion to its threads; all of them together at
  // most the whole, 87.7 GB/s.
  const LinkPath node = link_path(dgx_a100(8), Communicator{8, 1, 1});
  const double ll_algbw = 87.7e9 * 8 / 14;
  const double channel_algbw = 10e9 * 8 / 14;
  const auto ll = [&](double n) {
    return collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(n), node, Protocol::kLL);
  };
  // 64 KiB: 2 channels.
  CHECK(ll(65536).bandwidth_term.value == doctest::Approx(65536 / (2 * channel_algbw)));
  // 16 KiB: 1 channel, 256 threads (16 KiB = 256 x 64 B): the same time as 64 KiB.
  CHECK(ll(16384).bandwidth_term.value == doctest::Approx(16384 / (0.5 * channel_algbw)));
  CHECK(ll(16384).time.value == doctest::Approx(ll(65536).time.value));
  // 1 KiB: 1 channel, 64 threads (three halvings).
  CHECK(ll(1024).bandwidth_term.value == doctest::Approx(1024 / (channel_algbw / 8)));
  // 256 KiB: 8 channels, 8 x 10 < 87.7; from 9 channels on, the whole bandwidth.
  CHECK(ll(262144).bandwidth_term.value == doctest::Approx(262144 / (8 * channel_algbw)));
  CHECK(ll(393216).bandwidth_term.value == doctest::Approx(393216 / ll_algbw));
  CHECK(ll(1048576).bandwidth_term.value == doctest::Approx(1048576 / ll_algbw));
  // The tree launches fewer channels but always all threads (tuning_general.cc: NCCL_MAX_NTHREADS).
  const LinkPath nodes = link_path(dgx_a100(128), Communicator{128, 1, 1});
  const auto tree = [&](double n) {
    return collective_cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Bytes(n), nodes,
                           Protocol::kLL);
  };
  CHECK(tree(1024).bandwidth_term.value / 1024 == doctest::Approx(tree(4096).bandwidth_term.value / 4096));
  // NCCL's tuner chooses on its own prediction, which does not see the channels: Auto's choice for 8 A100
  // at 64 KiB is still ring/LL, at its launched time.
  const CommCost best = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(65536), node);
  CHECK(best.algorithm == Algorithm::kRing);
  CHECK(best.protocol == Protocol::kLL);
  CHECK(best.time.value == doctest::Approx(ll(65536).time.value));
}

TEST_CASE("one GPU per node: NCCL's plain TREE pattern runs the tree at 0.85 (src/tuning/tree.cc)") {
  // 8 nodes x 1 H100, one NDR each: the ring graph is 1 channel at the NIC's speed (under 50 GB/s on Hopper,
  // so not doubled); the tree's bus bandwidth is min(0.92 x the ring's, 1 x perChMaxTreeBw = 36 GB/s) x 0.85,
  // its algorithm bandwidth half of that. 1 GiB is past the correction table (log2(2^30 / 64) = 24). The
  // ring's Simple bandwidth term gives the ring's bus bandwidth: n x 2(p-1)/p / term.
  const ClusterSpec c = cluster(h100(), 8, 1, ndr(), 1, qm9700());
  const LinkPath p = link_path(c, Communicator{8, 1, 1});
  const Bytes n(1024.0 * 1024 * 1024);
  const CommCost ring = collective_cost(Collective::kAllReduce, Algorithm::kRing, n, p, Protocol::kSimple);
  const double ring_busbw = n.value * 14.0 / 8.0 / ring.bandwidth_term.value;
  const CommCost tree =
      collective_cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, n, p, Protocol::kSimple);
  const double expected_busbw = 0.85 * std::min(0.92 * ring_busbw, 36.0e9);
  CHECK(tree.bandwidth_term.value == doctest::Approx(n.value / (0.5 * expected_busbw)));
  // Two GPUs per node spread the network traffic over two (BALANCED_TREE): no 0.85.
  const ClusterSpec c2 = cluster(h100(), 16, 2, ndr(), 2, qm9700());
  const LinkPath p2 = link_path(c2, Communicator{16, 1, 1});
  const CommCost ring2 = collective_cost(Collective::kAllReduce, Algorithm::kRing, n, p2, Protocol::kSimple);
  const double ring2_busbw = n.value * 30.0 / 16.0 / ring2.bandwidth_term.value;
  const CommCost tree2 =
      collective_cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, n, p2, Protocol::kSimple);
  CHECK(tree2.bandwidth_term.value ==
        doctest::Approx(n.value / (0.5 * std::min(0.92 * ring2_busbw, 2.0 * 36.0e9))));
}

TEST_CASE("PAT: all-gather and reduce-scatter with one GPU per node (NCCL src/tuning/pat.cc)") {
  // 128 nodes x 1 H100, one NDR each (InfiniBand: no latency above NCCL's reference hardware). pat.cc:
  // latency 8 + 128 x 2.8 + floor(log2 128) x 14 / 3.5 = 394.4 us; bandwidth 0.75 x the ring graph's bus
  // bandwidth, taken as the algorithm bandwidth. The ring's Simple all-gather term gives that bus bandwidth:
  // n x (p - 1) / p / term.
  const ClusterSpec c = cluster(h100(), 128, 1, ndr(), 1, qm9700());
  const LinkPath p = link_path(c, Communicator{128, 1, 1});
  const Bytes n(64.0 * 1024 * 1024);
  for (Collective op : {Collective::kAllGather, Collective::kReduceScatter}) {
    CAPTURE(to_string(op));
    const CommCost pat = collective_cost(op, Algorithm::kPat, n, p, Protocol::kSimple);
    CHECK(pat.latency_term.value == doctest::Approx(394.4 * kUs));
    // The ring's bus bandwidth from 64 GiB, where its pipeline runs at the ring's cap (soft minimum: 1e-4).
    const Bytes big(64.0 * 1073741824.0);
    const CommCost ring = collective_cost(op, Algorithm::kRing, big, p, Protocol::kSimple);
    const double ring_busbw = big.value * 127.0 / 128.0 / ring.bandwidth_term.value;
    CHECK(pat.bandwidth_term.value == doctest::Approx(n.value / (0.75 * ring_busbw)).epsilon(1e-3));
    CHECK(pat.protocol == Protocol::kSimple);
    // Auto: PAT's latency wins at 1 MiB (the ring's 127 network steps cost 6.6 + 127 x 5.0 us on LL), the
    // ring's full bandwidth at 4 GiB.
    CHECK(collective_cost(op, Algorithm::kAuto, Bytes(1048576), p).algorithm == Algorithm::kPat);
    CHECK(collective_cost(op, Algorithm::kAuto, Bytes(4294967296.0), p).algorithm == Algorithm::kRing);
  }
  SUBCASE("PAT runs Simple only, all-gather and reduce-scatter only, one GPU per node only") {
    CHECK_FALSE(applicable(Collective::kAllGather, Algorithm::kPat, p, Protocol::kLL));
    CHECK_FALSE(applicable(Collective::kAllReduce, Algorithm::kPat, p));
    const LinkPath two = link_path(cluster(h100(), 256, 2, ndr(), 2, qm9700()), Communicator{256, 1, 1});
    CHECK_FALSE(applicable(Collective::kAllGather, Algorithm::kPat, two));
    CHECK(collective_cost(Collective::kAllGather, Algorithm::kAuto, Bytes(1048576), two).algorithm ==
          Algorithm::kRing);
    const LinkPath one_node = link_path(dgx_h100(8), Communicator{8, 1, 1});
    CHECK_FALSE(applicable(Collective::kAllGather, Algorithm::kPat, one_node));
  }
}

TEST_CASE("one H100 alone on a node with 4 NDR NICs stays under its PCIe limit") {
  // 2 nodes x 1 H100 x 4 NDR: the GPU reaches its 4 NICs (188 GB/s) over PCIe Gen5 x16, 48 GB/s (NCCL's
  // figure). Measured 41-50 GB/s busbw (NCCL issue cited in costmodel issue 12).
  const ClusterSpec c = cluster(h100(), 2, 1, ndr(), 4, qm9700());
  const double bus = busbw_gbps(Collective::kAllReduce, Algorithm::kAuto, c, 2);
  CHECK(bus <= 48.0);
  CHECK(bus >= 41.0);
}

TEST_CASE("hierarchical pipelines its phases: the slowest sets the bandwidth") {
  // 8 DGX A100 nodes: reduce-scatter in the node 7/8 n at 231 GB/s, across 7/8 x n/8 at 24 GB/s per rank;
  // AllReduce's two passes, bandwidth term 2 x the slower phase (not their sum); latency base + 2 (7 NVLink
  // + 7 network ring steps).
  const LinkPath p = link_path(dgx_a100(64), Communicator{64, 1, 1});
  const Bytes n(1e9);
  const CommCost c =
      collective_cost(Collective::kAllReduce, Algorithm::kHierarchical, n, p, Protocol::kSimple);
  const double up = 0.875 / 231e9;
  const double out = 0.875 / 8 / 24e9;
  CHECK(c.bandwidth_term.value == doctest::Approx(2 * std::max(up, out) * 1e9));
  CHECK(c.latency_term.value == doctest::Approx((8.4 + 2 * (7 * 3.4 + 7 * 14.0)) * kUs));
}

TEST_CASE("ring/tree crossover") {
  SUBCASE("16 DGX A100 nodes: the tree wins small messages, the ring large ones") {
    const LinkPath p = link_path(dgx_a100(128), Communicator{128, 1, 1});
    const auto crossover =
        crossover_size(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Algorithm::kRing, p);
    REQUIRE(crossover.has_value());
    // Below it the tree is faster, above it the ring.
    CHECK(
        collective_cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Bytes(crossover->value / 2), p)
            .time <
        collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(crossover->value / 2), p).time);
    CHECK(
        collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(crossover->value * 2), p).time <
        collective_cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Bytes(crossover->value * 2), p)
            .time);
  }
  SUBCASE("one node: the ring is never slower, no crossover") {
    // Tree (chain): more latency per protocol and 0.92 x half the bus bandwidth.
    const LinkPath p = link_path(dgx_a100(8), Communicator{8, 1, 1});
    CHECK_FALSE(crossover_size(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, Algorithm::kRing, p)
                    .has_value());
  }
}

namespace {

// Every (collective, algorithm, protocol) applicable on `path`, in one list.
struct Triple {
  Collective c;
  Algorithm a;
  Protocol p;
};
std::vector<Triple> applicable_triples(const LinkPath& path) {
  std::vector<Triple> triples;
  for (Collective c : kAllCollectives) {
    for (Algorithm a : kAllAlgorithms) {
      for (Protocol p : kAllProtocols) {
        if (applicable(c, a, path, p)) triples.push_back({c, a, p});
      }
    }
  }
  return triples;
}

std::vector<ClusterSpec> property_clusters() {
  std::vector<ClusterSpec> clusters{dgx_a100(64),
                                    dgx_a100(1024),
                                    dgx_h100(128),
                                    dgx_h100(4096),
                                    dgx_h100(1024, TopologyKind::kRailOnly),
                                    dgx_h100(4096, TopologyKind::kDragonflyPlus),
                                    dgx_h100(1024, TopologyKind::kTorus3D)};
  ClusterSpec oversubscribed = dgx_h100(1024);
  oversubscribed.oversubscription = 3.0;
  clusters.push_back(oversubscribed);
  clusters.push_back(with_sharp(dgx_h100(128)));
  clusters.push_back(cluster(h100(), 64, 1, ndr(), 4, qm9700()));  // one GPU per node, PCIe-bound
  return clusters;
}

constexpr double kSizes[] = {8.0, 4096.0, 1048576.0, 67108864.0, 8589934592.0};

}  // namespace

TEST_CASE("property: more link bandwidth never slows a collective") {
  for (const ClusterSpec& base : property_clusters()) {
    for (int ranks : {16, 64, 1024}) {
      if (ranks > base.gpus) continue;
      for (double factor : {2.0, 4.0}) {
        ClusterSpec faster_out = base;
        faster_out.link.line_rate = base.link.line_rate * factor;
        faster_out.switch_spec.port_bandwidth = base.switch_spec.port_bandwidth * factor;
        ClusterSpec faster_up = base;
        faster_up.scale_up = base.scale_up_fabric();
        faster_up.scale_up->bandwidth = base.scale_up_fabric().bandwidth * factor;
        const LinkPath slow = link_path(base, Communicator{ranks, 1, 1});
        for (const Triple& triple : applicable_triples(slow)) {
          const Collective c = triple.c;  // clang < 16 cannot capture a structured binding
          const Algorithm a = triple.a;
          const Protocol proto = triple.p;
          for (double n : kSizes) {
            const double t = collective_cost(c, a, Bytes(n), slow, proto).time.value;
            for (const ClusterSpec* faster : {&faster_out, &faster_up}) {
              const double t_fast = collective_cost(c, a, Bytes(n), ranks, 1, *faster, proto).time.value;
              CAPTURE(base.gpus);
              CAPTURE(ranks);
              CAPTURE(to_string(c));
              CAPTURE(to_string(a));
              CAPTURE(to_string(proto));
              CAPTURE(n);
              CHECK(t_fast <= t * (1 + 1e-12));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("property: more ranks never make ring AllReduce's latency term smaller, per protocol") {
  for (const ClusterSpec& c : property_clusters()) {
    for (int stride : {1, 8}) {
      for (Protocol proto : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
        double previous = 0.0;
        for (int ranks = 1; (ranks - 1) * stride < c.gpus; ++ranks) {
          const LinkPath p = link_path(c, Communicator{ranks, stride, 1});
          const double latency = collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(0), p, proto)
                                     .latency_term.value;
          CAPTURE(c.gpus);
          CAPTURE(stride);
          CAPTURE(ranks);
          CAPTURE(to_string(proto));
          CHECK(latency >= previous);
          previous = latency;
        }
      }
    }
  }
}

TEST_CASE("property: the prepared table gives the same costs as the path") {
  for (const ClusterSpec& cl : property_clusters()) {
    for (int ranks : {2, 8, 24, 64, 1024}) {
      if (ranks > cl.gpus) continue;
      const LinkPath p = link_path(cl, Communicator{ranks, 1, 1});
      const CollectivePath prepared = collective_path(p);
      for (Collective c : kAllCollectives) {
        for (Algorithm a : kAllAlgorithms) {
          for (Protocol proto : kAllProtocols) {
            if (a != Algorithm::kAuto && !applicable(c, a, p, proto)) continue;
            for (double n : {0.0, 100.0, 65536.0, 4194304.0, 3e8, 8e9}) {
              CommCost direct{};
              bool runs = true;
              try {
                direct = collective_cost(c, a, Bytes(n), p, proto);
              } catch (const Error&) {
                runs = false;  // Auto with a protocol no algorithm runs for this collective
              }
              CAPTURE(cl.gpus);
              CAPTURE(ranks);
              CAPTURE(to_string(c));
              CAPTURE(to_string(a));
              CAPTURE(to_string(proto));
              CAPTURE(n);
              if (!runs) {
                CHECK_THROWS_AS((void)collective_cost(c, a, Bytes(n), prepared, proto), Error);
                continue;
              }
              const CommCost table = collective_cost(c, a, Bytes(n), prepared, proto);
              CHECK(table.time.value == doctest::Approx(direct.time.value).epsilon(1e-12));
              CHECK(table.latency_term.value == doctest::Approx(direct.latency_term.value).epsilon(1e-12));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("property: busbw never exceeds the bottleneck line rate, except the documented cases") {
  // Bottleneck per rank: min(NVLink line, L x NIC line share) over the levels used. Exceptions: in-network
  // reduction and NVLSTree (each byte crosses a link once, up to 2x; NVLSTree x2 across two nodes);
  // halving-doubling and hierarchical move less than the flat ring's 2(p-1)/p per level, by at most
  // (p-1)/p x max(L/(L-1), N/(N-1)); the torus bucket uses 2D links at once. NCCL's tree is 0.92 x half the
  // ring's bus bandwidth: never above it.
  for (const ClusterSpec& cl : property_clusters()) {
    for (int ranks : {8, 16, 24, 64, 1024}) {
      if (ranks > cl.gpus) continue;
      const LinkPath p = link_path(cl, Communicator{ranks, 1, 1});
      const int local = p.scale_up.ranks;
      const int groups = p.scale_out.ranks;
      double line = 1e30;
      if (local > 1) line = std::min(line, p.scale_up.line_rate.value);
      if (groups > 1) line = std::min(line, local * p.scale_out.line_rate.value);
      for (const Triple& triple : applicable_triples(p)) {
        const Collective c = triple.c;  // clang < 16 cannot capture a structured binding
        const Algorithm a = triple.a;
        const Protocol proto = triple.p;
        if (a == Algorithm::kInNetwork || a == Algorithm::kNvlsTree || a == Algorithm::kAuto ||
            c == Collective::kSendRecv) {
          continue;
        }
        double allowance = 1.0;
        const bool multi_level = local > 1 && groups > 1;
        const bool two_level_algorithm =
            a == Algorithm::kHalvingDoubling || a == Algorithm::kHierarchical || a == Algorithm::kTorusBucket;
        if (two_level_algorithm && (multi_level || groups == 2)) {
          const double pm1 = (ranks - 1.0) / ranks;
          allowance = pm1 * std::max({local > 1 ? local / (local - 1.0) : 1.0,
                                      groups > 1 ? groups / (groups - 1.0) : 1.0, groups == 2 ? 2.0 : 1.0});
        }
        if (a == Algorithm::kTorusBucket) allowance *= 2.0 * p.torus_dimensions;
        const double bus = busbw(c, kLarge, ranks, collective_cost(c, a, kLarge, p, proto).time).value;
        CAPTURE(cl.gpus);
        CAPTURE(ranks);
        CAPTURE(to_string(c));
        CAPTURE(to_string(a));
        CAPTURE(to_string(proto));
        CHECK(bus <= line * allowance * (1 + 1e-9));
      }
    }
  }
}

TEST_CASE("rail-only penalises all-to-all across nodes, not same-rail collectives") {
  // 4,096 H100: rail-only vs rail-optimized, 64 ranks (8 nodes x 8 GPUs). Direct all-to-all on rail-only
  // relays 7/8 of the 56/64 inter-node bytes through NVLink first; ring AllReduce is unchanged.
  const LinkPath only = link_path(dgx_h100(4096, TopologyKind::kRailOnly), Communicator{64, 1, 1});
  const LinkPath optimized = link_path(dgx_h100(4096, TopologyKind::kRailOptimized), Communicator{64, 1, 1});
  const Bytes n(1e9);
  const double a2a_only = collective_cost(Collective::kAllToAll, Algorithm::kDirect, n, only).time.value;
  const double a2a_opt = collective_cost(Collective::kAllToAll, Algorithm::kDirect, n, optimized).time.value;
  CHECK(a2a_only > a2a_opt);
  CHECK(collective_cost(Collective::kAllReduce, Algorithm::kRing, n, only).time.value ==
        doctest::Approx(collective_cost(Collective::kAllReduce, Algorithm::kRing, n, optimized).time.value));
}

}  // namespace costmodel

namespace costmodel {

TEST_CASE("one evaluation allocates nothing, from a path, a prepared table or the cluster") {
  const ClusterSpec cl = with_sharp(dgx_h100(1024, TopologyKind::kRailOptimized));
  const LinkPath path = link_path(cl, Communicator{1024, 1, 1});
  const long before = test::allocations();
  double total = 0.0;
  const CollectivePath prepared = collective_path(path);
  for (Algorithm a : {Algorithm::kRing, Algorithm::kDoubleBinaryTree, Algorithm::kInNetwork,
                      Algorithm::kNvlsTree, Algorithm::kAuto}) {
    total += collective_cost(Collective::kAllReduce, a, Bytes(1e6), path).time.value;
    total += collective_cost(Collective::kAllReduce, a, Bytes(1e6), prepared).time.value;
    total += collective_cost(Collective::kAllReduce, a, Bytes(1e6), prepared, Protocol::kSimple).time.value;
  }
  total += collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(1e6), 64, 1, cl).time.value;
  total += link_path(cl, Communicator{128, 8, 8}).scale_out.bandwidth.value;
  CHECK(test::allocations() == before);
  CHECK(total > 0.0);
  const std::vector<double> witness(16, total);  // the counter does see allocations
  CHECK(test::allocations() > before);
}

}  // namespace costmodel

namespace costmodel {

TEST_CASE("algorithms belong to a library: NCCL on a torus runs its own, a torus library the bucket") {
  // 1,024 H100 on a 3D torus (128 nodes): an 8 GiB all-reduce over all of them. NCCL has no torus
  // algorithm (src/tuning/*.cc: ring, tree, NVLS, NVLSTree, CollNet, PAT), so Auto picks among those (the
  // H100 nodes' NVSwitch gives NVLSTree); a torus library (TPU's ICI) runs the bucket algorithm, which
  // uses every neighbour link at once (Chan et al. 2007 §5) and so beats the ring there.
  ClusterSpec torus = dgx_h100(1024, TopologyKind::kTorus3D);
  REQUIRE(torus.gpu.library == "NCCL");
  const Bytes n(8.0 * 1073741824.0);
  const CommCost nccl = collective_cost(Collective::kAllReduce, Algorithm::kAuto, n, 1024, 1, torus);
  CHECK(nccl.algorithm != Algorithm::kTorusBucket);
  CHECK((nccl.algorithm == Algorithm::kRing || nccl.algorithm == Algorithm::kDoubleBinaryTree ||
         nccl.algorithm == Algorithm::kNvlsTree));
  // Asked for by name it still runs (a what-if, as halving-doubling).
  CHECK(applicable(Collective::kAllReduce, Algorithm::kTorusBucket,
                   link_path(torus, Communicator{1024, 1, 1})));
  torus.gpu.library = "ICI";
  const CommCost ici = collective_cost(Collective::kAllReduce, Algorithm::kAuto, n, 1024, 1, torus);
  CHECK(ici.algorithm == Algorithm::kTorusBucket);
  CHECK(ici.time.value < nccl.time.value);
  CHECK(library_runs_torus_bucket("Neuron"));
  CHECK_FALSE(library_runs_torus_bucket("RCCL"));
}

}  // namespace costmodel

namespace costmodel {

TEST_CASE("remembered costs are the table's own: interleaved communicators, sizes and choices") {
  // collective_cost() on a prepared table remembers recent results per thread under the table's id; a
  // table with id 0 is never remembered. Two communicators priced in turn, at sizes that share their
  // low bits, must each get exactly what a fresh computation gives.
  const CollectivePath a = collective_path(link_path(dgx_a100(8), Communicator{8, 1, 1}));
  const CollectivePath b = collective_path(link_path(dgx_h100(16), Communicator{16, 1, 1}));
  REQUIRE(a.memo_id != 0);
  REQUIRE(b.memo_id != a.memo_id);
  CollectivePath fresh_a = a;
  CollectivePath fresh_b = b;
  fresh_a.memo_id = 0;
  fresh_b.memo_id = 0;
  for (int round = 0; round < 3; ++round) {
    for (double n = 1024; n <= 8.0 * 1073741824.0; n *= 4) {
      for (Collective c : {Collective::kAllReduce, Collective::kAllGather}) {
        for (const auto& [path, fresh] : {std::pair{&a, &fresh_a}, std::pair{&b, &fresh_b}}) {
          const CommCost got = collective_cost(c, Algorithm::kAuto, Bytes(n), *path);
          const CommCost want = collective_cost(c, Algorithm::kAuto, Bytes(n), *fresh);
          CAPTURE(n);
          CHECK(got.time.value == want.time.value);
          CHECK(got.algorithm == want.algorithm);
          CHECK(got.protocol == want.protocol);
          const CommCost ring = collective_cost(c, Algorithm::kRing, Bytes(n), *path, Protocol::kSimple);
          CHECK(ring.time.value ==
                collective_cost(c, Algorithm::kRing, Bytes(n), *fresh, Protocol::kSimple).time.value);
        }
      }
    }
  }
}

}  // namespace costmodel

namespace costmodel {
namespace {

// An AWS p5 node as NCCL sees it through aws-ofi-nccl: 8 H100, 32 x 100 Gb/s EFA at 0.9 (11.25 GB/s each),
// 20 us per network step, the 4 NICs next to a GPU bonded into one NCCL device (`per_gpu`) or not.
ClusterSpec p5(int gpus, NcclDevices devices) {
  LinkSpec efa = test::hdr();
  efa.name = "efa-100g";
  efa.line_rate = BytesPerSecond(12.5e9);
  efa.efficiency = 0.9;
  efa.latency = Seconds(20e-6);
  efa.multipath = Multipath::kSpray;
  efa.nccl_devices = devices;
  return test::cluster(test::h100(), gpus, 8, efa, 32, test::tomahawk5());
}

}  // namespace

TEST_CASE("p5: NCCL's ring runs 8 channels of a GPU's 4 bonded EFA NICs, not 32 of one NIC each") {
  // NCCL sees 8 devices of 4 x 11.25 = 45 GB/s (under the 48 GB/s PCIe Gen5 path): 8 ring channels of
  // 45 GB/s, 16 launched. Ring/LL128's bus bandwidth is then capped at 8 x perChMaxRingLL128Bw 36.7 = 293.6
  // GB/s (NCCL src/graph/tuning.cc), below 0.92 x 8 x 45 = 331; with 32 channels of one NIC the cap is 331.
  const int ranks = 64;
  const CommCost bonded = collective_cost(Collective::kAllReduce, Algorithm::kRing, kLarge, ranks, 1,
                                          p5(ranks, NcclDevices::kPerGpu), Protocol::kLL128);
  const CommCost single = collective_cost(Collective::kAllReduce, Algorithm::kRing, kLarge, ranks, 1,
                                          p5(ranks, NcclDevices::kPerNic), Protocol::kLL128);
  const double bonded_busbw = busbw(Collective::kAllReduce, kLarge, ranks, bonded.time).value / kGB;
  const double single_busbw = busbw(Collective::kAllReduce, kLarge, ranks, single.time).value / kGB;
  CHECK(bonded_busbw < 293.6);
  CHECK(bonded_busbw > 280.0);
  CHECK(single_busbw > 300.0);
}

}  // namespace costmodel
