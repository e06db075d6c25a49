// SPDX-License-Identifier: Apache-2.0
// Topology sizing (inventory, diameter, bisection) and the paths communicators see.
// Every expected number is derived by hand in the comment above it.
#include <doctest/doctest.h>

#include "network_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <variant>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "network/topology_detail.hpp"

namespace costmodel {
namespace {

using namespace costmodel::test;

// Datasheet numbers (the catalog entries are loaded elsewhere; these tests stand alone).
void check_tiers(const Inventory& inv, int leaf, int spine, int core) {
  CHECK(inv.switches_per_tier[0] == leaf);
  CHECK(inv.switches_per_tier[1] == spine);
  CHECK(inv.switches_per_tier[2] == core);
  CHECK(inv.switches == leaf + spine + core);
}

}  // namespace

TEST_CASE("k-ary fat-tree of k=64 holds 65,536 hosts with 5,120 switches (Al-Fares et al. 2008)") {
  // k^3/4 = 65,536 hosts; k pods x (k/2 edge + k/2 aggregation) = 4,096; (k/2)^2 = 1,024 core; total 5,120.
  const Topology t = build_topology(cluster(a100(), 65536, 1, ndr(), 1, qm9700(), TopologyKind::kFatTree));
  const Inventory& inv = t.inventory;
  check_tiers(inv, 2048, 2048, 1024);
  CHECK(inv.switches == 5120);
  CHECK(inv.tiers == 3);
  CHECK(inv.tier_names[2] == "core");
  CHECK(inv.host_links == 65536);
  // k^3/4 edge-aggregation links + k^3/4 aggregation-core links.
  CHECK(inv.switch_links == 131072);
  CHECK(t.diameter == 5);
  // Non-blocking: half the hosts at 50 GB/s each.
  CHECK(t.bisection.value == doctest::Approx(32768 * 50e9));
}

TEST_CASE("DGX SuperPOD of 64 scalable units: 512 leaf + 512 spine + 256 core (rail-optimized)") {
  // 2,048 nodes x 8 rails, 64-port switches, 32 down / 32 up per leaf: a scalable unit is 32 nodes;
  // leaves = 8 rails x 64 units = 512; pods of 32 leaves: 16 pods x 32 spines = 512; core = 512 x 32 / 64 =
  // 256.
  const Topology t = build_topology(dgx_h100(16384, TopologyKind::kRailOptimized));
  const Inventory& inv = t.inventory;
  check_tiers(inv, 512, 512, 256);
  const auto& rail = std::get<RailOptimized>(t.fabric);
  CHECK(rail.rails == 8);
  CHECK(rail.nodes_per_unit == 32);
  CHECK(inv.host_links == 16384);
  CHECK(inv.switch_links == 32768);  // 512 x 32 leaf uplinks + the same again spine -> core
  CHECK(inv.nics == 16384);
  // Optical end to end: 2 x (16,384 + 32,768) = 98,304 transceivers (port ends). Modules: one per NIC
  // (16,384) and one twin-port OSFP per 2 switch ports: (16,384 + 2 x 32,768) / 2 = 40,960; 57,344 in all.
  CHECK(inv.optical_transceivers == 98304);
  CHECK(inv.optical_modules == 57344);
  CHECK(t.switch_radix == 64);
  CHECK(t.ports_per_module == 2);
  // 1,280 x $30,000 + 16,384 x $2,200 + 98,304 x $1,000 = $172,748,800.
  CHECK(inv.capex.value == doctest::Approx(172748800.0));
  // 1,280 x 750 W + 16,384 x 25 W + 98,304 x 8.5 W = 2,205,184 W.
  CHECK(inv.power.value == doctest::Approx(2205184.0));
  // As NVIDIA builds it (DGX SuperPOD H100 reference architecture; the B200 RA's table for 64 SU: 512 leaf,
  // 512 spine, 256 core, 16,384 cables per tier): a DGX H100 pairs its 8 ConnectX-7 ports into 4 twin-port
  // OSFP cages, so 2,048 x 4 = 8,192 node modules and 40,960 switch modules: 49,152 twin-port modules for
  // 3 x 16,384 = 49,152 fibres, one module per GPU per tier. The same money: a module is priced as its 2
  // ports (2 x $1,000), so capex and power are unchanged.
  ClusterSpec dgx = dgx_h100(16384, TopologyKind::kRailOptimized);
  dgx.gpu.node.link = dgx.link.name;
  dgx.gpu.node.nics = 8;
  dgx.gpu.node.gpus = 8;
  dgx.gpu.node.nic_ports_per_module = 2;
  const Topology built = build_topology(dgx);
  CHECK(built.inventory.cables == 3 * 16384);
  CHECK(built.inventory.optical_cables == 3 * 16384);
  CHECK(built.inventory.node_modules == 8192);
  CHECK(built.inventory.switch_modules == 40960);
  CHECK(built.inventory.optical_modules == 49152);
  CHECK(built.inventory.capex.value == doctest::Approx(172748800.0));
  // The bill of materials adds up to the inventory's capex and power, line by line.
  double price = 0.0;
  double power = 0.0;
  long long modules = 0;
  for (const BomLine& line : bill_of_materials(built, dgx)) {
    price += line.price().value;
    power += line.power().value;
    // Each line's kind is the price-book item that prices it (data/prices.yaml's form).
    const bool modules_line = line.item == "node modules" || line.item == "switch modules";
    CHECK(line.kind == (line.item == "switches" ? "switch"
                        : line.item == "NICs"   ? "nic"
                        : modules_line          ? "optics"
                                                : "cable"));
    if (modules_line) {
      modules += line.count;
      CHECK(line.unit_price.value == doctest::Approx(2000.0));
      CHECK(line.unit_power.value == doctest::Approx(17.0));  // a twin-port OSFP, 2 x 8.5 W
    }
  }
  CHECK(modules == 49152);
  CHECK(price == doctest::Approx(built.inventory.capex.value));
  CHECK(power == doctest::Approx(built.inventory.power.value));
  // Copper from the nodes to leaves in their racks (scale_out.host_cables: copper, a DAC at 0.2 W): the
  // 16,384 host links need no module, the 8,192 node modules and 16,384 / 2 = 8,192 of the switch modules
  // go, 32,768 remain for the 32,768 switch links' fibres. Capex falls by 16,384 modules x $2,000.
  dgx.copper_host_links = true;
  dgx.link.copper_reach_m = 3.0;
  dgx.link.copper_power = Watts(0.2);
  const Topology copper = build_topology(dgx);
  CHECK(copper.inventory.optical_cables == 32768);
  CHECK(copper.inventory.node_modules == 0);
  CHECK(copper.inventory.switch_modules == 32768);
  CHECK(copper.inventory.capex.value == doctest::Approx(172748800.0 - 16384 * 2000.0));
  CHECK(copper.inventory.power.value ==
        doctest::Approx(built.inventory.power.value - 16384 * 17.0 + 16384 * 0.2));
  CHECK(t.diameter == 5);
}

TEST_CASE("fat-tree inventory at three sizes, 40-port HDR switches") {
  SUBCASE("32 GPUs: 32 NIC ports fit one 40-port switch") {
    const Topology t = build_topology(dgx_a100(32));
    check_tiers(t.inventory, 1, 0, 0);
    CHECK(t.inventory.tiers == 1);
    CHECK(t.inventory.switch_links == 0);
    CHECK(t.inventory.optical_transceivers == 64);
    // $18,000 + 32 x $1,500 + 64 x $700 = $110,800; 253 + 32 x 20 + 64 x 4.5 = 1,181 W.
    CHECK(t.inventory.capex.value == doctest::Approx(110800.0));
    CHECK(t.inventory.power.value == doctest::Approx(1181.0));
    CHECK(t.diameter == 1);
    CHECK(t.bisection.value == doctest::Approx(16 * 25e9));
  }
  SUBCASE("512 GPUs: 2 tiers") {
    // 512 ports / 20 down per leaf = 25.6 -> 26 leaves <= 40: 2 tiers. 26 x 20 / 40 = 13 spines would take
    // 20/13 links from each leaf; the spine count must divide a leaf's 20 uplinks: 20 spines of one link
    // per leaf (26 of 40 ports used); 10 spines of 2 links would need 52 ports.
    const Topology t = build_topology(dgx_a100(512));
    check_tiers(t.inventory, 26, 20, 0);
    CHECK(t.inventory.switch_links == 520);
    CHECK(t.diameter == 3);
    CHECK(t.bisection.value == doctest::Approx(256 * 25e9));
  }
  SUBCASE("1,024 GPUs: 3 tiers with a partial pod") {
    // 1,024 / 20 -> 52 leaves > 40: 3 tiers; pods of 20 leaves: 3 pods (20, 20, 12 leaves); 3 x 20
    // aggregation; core = 52 x 20 / 40 = 26. Links: 1,040 leaf-aggregation + 1,040 aggregation-core.
    const Topology t = build_topology(dgx_a100(1024));
    check_tiers(t.inventory, 52, 60, 26);
    CHECK(t.inventory.switch_links == 2080);
    CHECK(t.inventory.optical_transceivers == 2 * (1024 + 2080));
    CHECK(std::get<FatTree>(t.fabric).pods == 3);
    CHECK(t.diameter == 5);
  }
  SUBCASE("3:1 oversubscription trades spines for bisection") {
    // 64-port leaves split 48 down / 16 up; 1,024 / 48 -> 22 leaves; 22 x 16 / 64 = 5.5 -> at least 6 spines,
    // a divisor of 16: 8 spines of 2 links per leaf (44 of 64 ports); bisection limited by 22 x 16 = 352
    // uplinks: 176 x 50 GB/s.
    const Topology t =
        build_topology(cluster(h100(), 1024, 8, ndr(), 8, qm9700(), TopologyKind::kFatTree, 3.0));
    check_tiers(t.inventory, 22, 8, 0);
    CHECK(t.bisection.value == doctest::Approx(176 * 50e9));
  }
  SUBCASE("a GPU count that fills no node: nodes and leaves round up") {
    // 1,001 GPUs -> 126 nodes -> 1,008 ports -> 51 leaves; 3 tiers; 3 pods; core = 51 x 20 / 40 -> 26.
    const Topology t = build_topology(dgx_a100(1001));
    CHECK(t.nodes == 126);
    check_tiers(t.inventory, 51, 60, 26);
  }
}

TEST_CASE("rail-optimized inventory at three sizes, 64-port NDR switches") {
  SUBCASE("one scalable unit, 256 GPUs: rail leaves joined by a spine") {
    // 32 nodes: 8 rail leaves; spines = 8 x 32 / 64 = 4.
    const Topology t = build_topology(dgx_h100(256, TopologyKind::kRailOptimized));
    check_tiers(t.inventory, 8, 4, 0);
    CHECK(t.diameter == 3);
  }
  SUBCASE("1,000 GPUs: partial scalable unit") {
    // 125 nodes -> 4 units -> 32 leaves; spines = 32 x 32 / 64 = 16.
    const Topology t = build_topology(dgx_h100(1000, TopologyKind::kRailOptimized));
    check_tiers(t.inventory, 32, 16, 0);
  }
  SUBCASE("4,096 GPUs: 3 tiers") {
    // 512 nodes = 16 units -> 128 leaves > 64; 4 pods x 32 spines = 128; core = 128 x 32 / 64 = 64.
    const Topology t = build_topology(dgx_h100(4096, TopologyKind::kRailOptimized));
    check_tiers(t.inventory, 128, 128, 64);
    CHECK(t.inventory.switch_links == 2 * 128 * 32);
  }
}

TEST_CASE("rail-only inventory at three sizes: no spine joins the rails (Wang et al. 2023)") {
  SUBCASE("256 GPUs: one switch per rail") {
    const Topology t = build_topology(dgx_h100(256, TopologyKind::kRailOnly));
    check_tiers(t.inventory, 8, 0, 0);
    CHECK(t.inventory.switch_links == 0);
    CHECK(t.diameter == 1);
  }
  SUBCASE("rails never meet in the network: bisection 0") {
    // A cut between rails 0-3 and 4-7 crosses no switch link; rail-optimized joins them at the spine.
    CHECK(build_topology(dgx_h100(4096, TopologyKind::kRailOnly)).bisection.value == 0.0);
    CHECK(build_topology(dgx_h100(4096, TopologyKind::kRailOptimized)).bisection.value ==
          doctest::Approx(2048 * 50e9));
  }
  SUBCASE("4,096 GPUs: each rail a 2-tier Clos") {
    // Per rail 512 nodes: 16 leaves + 16 x 32 / 64 = 8 spines = 24; 8 rails: 128 + 64 = 192 (rail-optimized:
    // 320).
    const Topology t = build_topology(dgx_h100(4096, TopologyKind::kRailOnly));
    check_tiers(t.inventory, 128, 64, 0);
    CHECK(t.inventory.switch_links == 8 * 16 * 32);
    CHECK(t.diameter == 3);
  }
  SUBCASE("16,384 GPUs: 768 switches where the rail-optimized SuperPOD needs 1,280") {
    // Per rail 2,048 nodes: 64 leaves (<= 64: 2 tiers) + 64 x 32 / 64 = 32 spines; x 8 rails.
    const Topology only = build_topology(dgx_h100(16384, TopologyKind::kRailOnly));
    const Topology optimized = build_topology(dgx_h100(16384, TopologyKind::kRailOptimized));
    check_tiers(only.inventory, 512, 256, 0);
    CHECK(only.inventory.switches < optimized.inventory.switches);
    CHECK(only.inventory.capex < optimized.inventory.capex);
  }
}

TEST_CASE("dragonfly+ inventory at three sizes (Shpiner et al. 2017)") {
  // 64-port switches: a group is 32 leaves (32 down, 32 up) x 32 spines (32 down, 32 global):
  // 1,024 host ports and 1,024 global ports per group.
  SUBCASE("512 GPUs: one group, a leaf/spine Clos") {
    // 512 ports -> 16 leaves; one group has no global links, so its spines face down only:
    // 16 leaves x 32 uplinks / 64 ports = 8 spines.
    const Topology t = build_topology(dgx_h100(512, TopologyKind::kDragonflyPlus));
    check_tiers(t.inventory, 16, 8, 0);
    CHECK(t.inventory.global_links == 0);
    CHECK(t.diameter == 3);
  }
  SUBCASE("4,096 GPUs: 4 groups") {
    // 4,096 ports -> 4 groups, 128 leaves, 128 spines; global = 4 x 1,024 / 2 = 2,048 (341.3 per group pair);
    // bisection: 2 x 2 group pairs x 341.3 = 1,365.3 links < 2,048 local.
    const Topology t = build_topology(dgx_h100(4096, TopologyKind::kDragonflyPlus));
    check_tiers(t.inventory, 128, 128, 0);
    CHECK(t.inventory.global_links == 2048);
    CHECK(t.inventory.switch_links == 128 * 32 + 2048);
    CHECK(t.diameter == 4);
    CHECK(t.bisection.value == doctest::Approx(4.0 * 1024.0 / 3.0 * 50e9));
  }
  SUBCASE("65,536 GPUs: 64 groups") {
    // 65,536 ports -> 64 groups; 2,048 leaves + 2,048 spines; global = 64 x 1,024 / 2 = 32,768;
    // bisection 32 x 32 pairs x 1,024/63 links = 16,644.06 links.
    const Topology t = build_topology(dgx_h100(65536, TopologyKind::kDragonflyPlus));
    check_tiers(t.inventory, 2048, 2048, 0);
    CHECK(t.inventory.global_links == 32768);
    CHECK(t.bisection.value == doctest::Approx(32.0 * 32.0 * 1024.0 / 63.0 * 50e9));
  }
  SUBCASE("too large for the radix") {
    // 8-port switches: 4 leaves x 4 down = 16 ports per group, 16 global ports: at most 17 groups = 272
    // ports.
    SwitchSpec tiny = qm9700();
    tiny.radix = 8;
    CHECK_THROWS_AS(
        (void)build_topology(cluster(h100(), 300, 1, ndr(), 1, tiny, TopologyKind::kDragonflyPlus)), Error);
    CHECK_NOTHROW(
        (void)build_topology(cluster(h100(), 272, 1, ndr(), 1, tiny, TopologyKind::kDragonflyPlus)));
  }
}

TEST_CASE(
    "dragonfly+ all-to-all: more groups reach more direct links, so per-rank bandwidth is not monotone") {
  // 64 groups of 128 nodes, 1,024 global ports per group, lpp = 1,024/63 = 16.25 links to each other group;
  // every group runs the same exchange. Adaptive: direct + (1,024 - direct)/2 links for the traffic that
  // leaves a group. 2 groups: (16.25 + 1,024)/2 = 520 links for 1,024 x 128/255 = 514 ports' worth: full.
  // 32 groups: direct 31 x 16.25 = 503.9, (503.9 + 1,024)/2 = 763.9 links for 1,024 x 3,968/4,095 = 992.2:
  // 0.770. 64 groups: every link direct, 1,024 for 1,008.2: full. Minimal: the direct links only,
  // 503.9/992.2.
  ClusterSpec c = dgx_h100(65536, TopologyKind::kDragonflyPlus);
  const double lpp = 1024.0 / 63.0;
  const auto all_to_all = [&](int ranks) {
    return link_path(build_topology(c), Communicator{ranks, 1, 1}).scale_out.all_to_all_bandwidth.value;
  };
  CHECK(all_to_all(2048) == doctest::Approx(47e9));
  CHECK(all_to_all(32768) == doctest::Approx(47e9 * (31 * lpp + 1024.0) / 2.0 / (1024.0 * 3968.0 / 4095.0)));
  CHECK(all_to_all(65536) == doctest::Approx(47e9));
  c.routing = Routing::kMinimal;
  CHECK(all_to_all(32768) == doctest::Approx(47e9 * 31 * lpp / (1024.0 * 3968.0 / 4095.0)));
}

TEST_CASE("torus inventory at three sizes: no switches, diameter Σ⌊k/2⌋") {
  SUBCASE("2D 4x4, one accelerator per node with 4 ports") {
    // 16 nodes x 4 ports / 2 = 32 links; diameter 2 + 2; bisection 2 x 16/4 bundles of 1 port.
    const Topology t = build_topology(cluster(h100(), 16, 1, ndr(), 4, qm9700(), TopologyKind::kTorus2D));
    const auto& torus = std::get<Torus>(t.fabric);
    CHECK(torus.dims[0] == 4);
    CHECK(torus.dims[1] == 4);
    CHECK(t.inventory.switches == 0);
    CHECK(t.inventory.direct_links == 32);
    CHECK(t.inventory.optical_transceivers == 64);
    CHECK(t.diameter == 4);
    CHECK(t.bisection.value == doctest::Approx(8 * 50e9));
    // 16 nodes x 4 NIC ports = 64 NICs x $2,200 + 64 transceivers x $1,000 = $204,800.
    CHECK(t.inventory.nics == 64);
    CHECK(t.inventory.capex.value == doctest::Approx(204800.0));
  }
  SUBCASE("3D 4x4x4 (TPU v4 block), 6 ports") {
    // 64 x 6 / 2 = 192 links; diameter 6; bisection 2 x 64/4 = 32 ports.
    const Topology t = build_topology(cluster(h100(), 64, 1, ndr(), 6, qm9700(), TopologyKind::kTorus3D));
    const auto& torus = std::get<Torus>(t.fabric);
    CHECK(torus.dims == std::array<int, 3>{4, 4, 4});
    CHECK(t.inventory.direct_links == 192);
    CHECK(t.diameter == 6);
    CHECK(t.bisection.value == doctest::Approx(32 * 50e9));
  }
  SUBCASE("3D of 8-GPU nodes with given sides 16x8x8") {
    // 1,024 nodes; diameter 8 + 4 + 4 = 16; 8 NICs over 6 directions = 4/3 port each;
    // bisection 2 x 1,024/16 x 4/3 = 170.67 ports.
    ClusterSpec c = dgx_h100(8192, TopologyKind::kTorus3D);
    c.torus_dims = {16, 8, 8};
    const Topology t = build_topology(c);
    CHECK(t.diameter == 16);
    CHECK(t.bisection.value == doctest::Approx(2.0 * 64.0 * 8.0 / 6.0 * 50e9));
    c.torus_dims = {16, 8, 4};
    CHECK_THROWS_AS((void)build_topology(c), Error);
  }
  SUBCASE("sides chosen for the smallest diameter") {
    // 128 nodes in 3D: 8x4x4 (diameter 8) beats 16x8x1 (12) and 32x2x2 (18).
    const Topology t = build_topology(dgx_h100(1024, TopologyKind::kTorus3D));
    CHECK(std::get<Torus>(t.fabric).dims == std::array<int, 3>{8, 4, 4});
    CHECK(t.diameter == 8);
  }
}

TEST_CASE("scale-up domain: NVL8 boards and multi-node NVL72 racks") {
  ClusterSpec c = dgx_h100(144, TopologyKind::kFatTree);
  c.gpus_per_node = 4;
  c.scale_up->domain = 72;
  c.nics_per_node = 4;
  const Topology t = build_topology(c);
  CHECK(t.scale_up.gpus == 72);
  CHECK(t.scale_up.nodes == 18);
  CHECK(t.inventory.scale_up_domains == 2);
  // 72 ranks stay inside one NVLink domain across 18 nodes; 144 span two domains.
  const LinkPath one = link_path(t, Communicator{72, 1, 1});
  CHECK(one.scale_up.ranks == 72);
  CHECK(one.scale_out.ranks == 1);
  const LinkPath two = link_path(t, Communicator{144, 1, 1});
  CHECK(two.scale_up.ranks == 72);
  CHECK(two.scale_out.ranks == 2);
  CHECK(two.ranks_per_node == 4);
  // NVLS: the NVLink bandwidth (450 GB/s x 0.82) x NCCL's NVLS efficiency 0.85 (src/tuning/nvls.cc, Hopper).
  CHECK(two.scale_up.reduction_bandwidth.value == doctest::Approx(450e9 * 0.82 * 0.85));
}

TEST_CASE("paths: per-rank bandwidth, hops, latency and in-network reduction") {
  SUBCASE("DGX A100, 64 ranks, 8 per node, non-blocking HDR") {
    // 64 ports: 2 tiers (4 leaves of 20 ports: 2 nodes each); 8 nodes span 4 leaves: 3 switches.
    // Per rank: 8 NICs x 25 GB/s x 0.96 / 8 ranks = 24 GB/s; latency 1 us + 3 x 130 ns = 1.39 us.
    const LinkPath p = link_path(dgx_a100(64), Communicator{64, 1, 1});
    CHECK(p.ranks_per_node == 8);
    CHECK(p.nodes == 8);
    CHECK(p.scale_up.ranks == 8);
    CHECK(p.scale_up.bandwidth.value == doctest::Approx(231e9));  // 300 x 0.77
    CHECK(p.scale_out.ranks == 8);
    CHECK(p.scale_out.bandwidth.value == doctest::Approx(24e9));
    CHECK(p.scale_out.line_rate.value == doctest::Approx(24e9));  // 25 GB/s NIC behind PCIe Gen4 x16 (24)
    CHECK(p.scale_out.hops == 3);
    CHECK(p.scale_out.latency.value == doctest::Approx(1.39e-6));
    CHECK(p.scale_up.reduction_bandwidth.value == 0.0);  // A100: no NVLS
    // The QM8700 can reduce (SHARP), but NCCL keeps CollNet off unless the cluster turns it on.
    CHECK(p.scale_out.reduction_bandwidth.value == 0.0);
    ClusterSpec sharp = dgx_a100(64);
    sharp.in_network = InNetworkReduction::kSharp;
    CHECK(link_path(sharp, Communicator{64, 1, 1}).scale_out.reduction_bandwidth.value ==
          doctest::Approx(24e9));
  }
  SUBCASE("one GPU drives its NICs through its PCIe link: 2 nodes x 1 H100 x 4 NDR") {
    // Alone on its node, the H100 owns all 4 NDR NICs (4 x 47 GB/s) but reaches them over PCIe Gen5 x16:
    // 48 GB/s per direction (NCCL src/graph/topo.cc). Measured: 41-50 GB/s busbw (NCCL issue cited in
    // costmodel issue 12).
    const ClusterSpec c = cluster(h100(), 2, 1, ndr(), 4, qm9700());
    const LinkPath p = link_path(c, Communicator{2, 1, 1});
    CHECK(p.scale_out.bandwidth.value == doctest::Approx(48e9));
    CHECK(p.scale_out.line_rate.value == doctest::Approx(48e9));
    CHECK(p.nic_path_bandwidth.value == doctest::Approx(47e9));
    ClusterSpec no_limit = c;
    no_limit.gpu.host_link = BytesPerSecond(0.0);  // unknown host link: the NICs alone
    CHECK(link_path(no_limit, Communicator{2, 1, 1}).scale_out.bandwidth.value == doctest::Approx(4 * 47e9));
  }
  SUBCASE("a rank drives its own NIC; concurrent groups share the node's NICs") {
    // 16 ranks, one per node: alone a rank still drives only its own NIC (8 NICs / 8 GPUs: 24 GB/s); with
    // the 8 TP-offset DP groups all-reducing at once, 24 GB/s each as well. With 2 GPUs per node and 8
    // NICs, a rank owns 4 NICs (96 GB/s) but reaches them over PCIe Gen4 x16: 24 GB/s.
    const ClusterSpec c = dgx_a100(128);
    const LinkPath alone = link_path(c, Communicator{16, 8, 1});
    const LinkPath together = link_path(c, Communicator{16, 8, 8});
    CHECK(alone.ranks_per_node == 1);
    CHECK(alone.scale_up.ranks == 1);
    CHECK(alone.scale_out.bandwidth.value == doctest::Approx(24e9));
    CHECK(together.scale_out.bandwidth.value == doctest::Approx(24e9));
    ClusterSpec wide = c;
    wide.gpus_per_node = 2;
    wide.scale_up->domain = 2;
    const LinkPath owns_four = link_path(wide, Communicator{16, 2, 1});
    CHECK(owns_four.scale_out.bandwidth.value == doctest::Approx(24e9));
  }
  SUBCASE("oversubscription caps the traffic that leaves the leaf, not the ring's few flows") {
    // 3:1, 64-port leaves: 48 down (6 nodes x 8 NICs), 16 up. 6 nodes stay (1 hop, 47 GB/s per rank).
    // 7 nodes leave (3 hops): the ring leaves a leaf from its last node only, 8 ports on 16 uplinks: 47 GB/s.
    // All-to-all over 7 nodes: the full leaf sends 1/6 of its traffic out (48 x 1/6 = 8 ports on 16): 47;
    // over all 128 nodes 122/127 of it: 48 x 122/127 = 46.1 ports on 16 uplinks -> 47 x 0.347 = 16.3 GB/s
    // (Dally & Towles 2004 §3.3.1: the cut's capacity over the load offered to it).
    const ClusterSpec c = cluster(h100(), 1024, 8, ndr(), 8, qm9700(), TopologyKind::kFatTree, 3.0);
    const LinkPath inside = link_path(c, Communicator{48, 1, 1});
    const LinkPath outside = link_path(c, Communicator{56, 1, 1});
    const LinkPath all = link_path(c, Communicator{1024, 1, 1});
    CHECK(inside.scale_out.hops == 1);
    CHECK(inside.scale_out.bandwidth.value == doctest::Approx(47e9));
    CHECK(outside.scale_out.hops == 3);
    CHECK(outside.scale_out.bandwidth.value == doctest::Approx(47e9));
    CHECK(outside.scale_out.all_to_all_bandwidth.value == doctest::Approx(47e9));
    CHECK(all.scale_out.bandwidth.value == doctest::Approx(47e9));
    CHECK(all.scale_out.all_to_all_bandwidth.value == doctest::Approx(47e9 * 16.0 / (48.0 * 122.0 / 127.0)));
    // Pipeline stages of 64 nodes (stride 512 GPUs): every node of a leaf sends across, 48 ports on 16
    // uplinks: the full 3:1 taper, 47/3 GB/s.
    const LinkPath stages = link_path(c, Communicator{2, 512, 512});
    CHECK(stages.scale_out.bandwidth.value == doctest::Approx(47e9 / 3.0));
  }
  SUBCASE("rail-optimized: one switch within a scalable unit, five beyond a pod") {
    const Topology t = build_topology(dgx_h100(16384, TopologyKind::kRailOptimized));
    CHECK(link_path(t, Communicator{256, 1, 1}).scale_out.hops == 1);   // 32 nodes = 1 unit
    CHECK(link_path(t, Communicator{1024, 1, 1}).scale_out.hops == 3);  // 128 nodes = 1 pod (4 units)
    CHECK(link_path(t, Communicator{2048, 1, 1}).scale_out.hops == 5);  // 256 nodes: 2 pods
    CHECK_FALSE(link_path(t, Communicator{2048, 1, 1}).cross_rail_via_scale_up);
  }
  SUBCASE("rail-only: cross-rail traffic relays over NVLink") {
    const Topology t = build_topology(dgx_h100(4096, TopologyKind::kRailOnly));
    CHECK(link_path(t, Communicator{64, 1, 1}).cross_rail_via_scale_up);  // 8 ranks per node, 8 rails
    CHECK_FALSE(
        link_path(t, Communicator{64, 8, 8}).cross_rail_via_scale_up);     // one rail (GPU 0 of each node)
    CHECK(link_path(t, Communicator{64, 12, 1}).cross_rail_via_scale_up);  // GPUs 0, 12, 24: rails 0, 4, 0
  }
  SUBCASE("dragonfly+: the global links bind uniform and adversarial traffic, by routing") {
    // 4 groups of 128 nodes (1,024 ports each); 1,024 global ports per group, lpp = 341.3 to each other
    // group. A ring crosses a group boundary from one node: 8 ports on >= 341.3 links: 47 GB/s either way.
    ClusterSpec c = dgx_h100(4096, TopologyKind::kDragonflyPlus);
    for (const Routing routing : {Routing::kMinimal, Routing::kAdaptive}) {
      c.routing = routing;
      const Topology t = build_topology(c);
      const LinkPath two = link_path(t, Communicator{2048, 1, 1});
      CHECK(two.scale_out.hops == 4);
      CHECK(two.scale_out.bandwidth.value == doctest::Approx(47e9));
      CHECK(link_path(t, Communicator{1024, 1, 1}).scale_out.hops == 3);  // one group
    }
    // All-to-all over 2 groups: a group sends 128/255 of its 1,024 ports' traffic out = 514 ports' worth.
    // Minimal: the 341.3 direct links: 47 x 341.3/514 = 31.2 GB/s; adaptive detours the rest at half
    // efficiency: (341.3 + 1,024)/2 = 682.7 links >= 514: 47 GB/s.
    const double leaving = 1024.0 * 128.0 / 255.0;
    c.routing = Routing::kMinimal;
    CHECK(link_path(build_topology(c), Communicator{2048, 1, 1}).scale_out.all_to_all_bandwidth.value ==
          doctest::Approx(47e9 * (1024.0 / 3.0) / leaving));
    c.routing = Routing::kAdaptive;
    CHECK(link_path(build_topology(c), Communicator{2048, 1, 1}).scale_out.all_to_all_bandwidth.value ==
          doctest::Approx(47e9));
    // Adversarial: pipeline stages of 2 groups (stride 2,048 GPUs); every node of a group sends to the
    // paired group, 1,024 ports' worth. Minimal: 341.3 direct links, 1/3; adaptive (Valiant): (341.3 +
    // 1,024)/2 = 682.7 links, 2/3 (Kim et al. 2008 §4.2: about half the global bandwidth at scale).
    const Communicator stages{2, 2048, 2048};
    c.routing = Routing::kMinimal;
    CHECK(link_path(build_topology(c), stages).scale_out.bandwidth.value == doctest::Approx(47e9 / 3.0));
    c.routing = Routing::kAdaptive;
    CHECK(link_path(build_topology(c), stages).scale_out.bandwidth.value ==
          doctest::Approx(47e9 * (1024.0 / 3.0 + 1024.0) / 2.0 / 1024.0));
  }
  SUBCASE("torus: neighbour links, sub-torus extent, bisection-bound all-to-all") {
    // 4x4x4 of single-accelerator nodes with 6 ports: neighbour 1 port = 47 GB/s; 16 ranks fill a 4x4 plane
    // (extent 4, 4, 1; far hops 2 + 2). All-to-all: injection 4 x 47; bisection of the plane 2 x 16/4 ports
    // -> 4 x 8 x 47 / 16 = 94 GB/s per rank.
    // The accelerator's ports are on the package here (no PCIe link to share: host_link 0).
    GpuSpec accelerator = h100();
    accelerator.host_link = BytesPerSecond(0.0);
    const Topology t =
        build_topology(cluster(accelerator, 64, 1, ndr(), 6, qm9700(), TopologyKind::kTorus3D));
    const LinkPath p = link_path(t, Communicator{16, 1, 1});
    CHECK(p.torus_extent == std::array<int, 3>{4, 4, 1});
    CHECK(p.torus_dimensions == 2);
    CHECK(p.scale_out.bandwidth.value == doctest::Approx(47e9));
    CHECK(p.scale_out.far_hops == 4);
    CHECK(p.scale_out.all_to_all_bandwidth.value == doctest::Approx(94e9));
    CHECK(p.scale_out.reduction_bandwidth.value == 0.0);
  }
  SUBCASE("a communicator beyond the cluster is an input error") {
    CHECK_THROWS_AS((void)link_path(dgx_a100(64), Communicator{65, 1, 1}), Error);
    CHECK_THROWS_AS((void)link_path(dgx_a100(64), Communicator{9, 8, 1}), Error);
    CHECK_THROWS_AS((void)link_path(dgx_a100(64), Communicator{0, 1, 1}), Error);
  }
}

namespace {

// E[max] of k balls in n bins, exactly: the bins fill in turn, bin b taking j of the r balls left with
// probability C(r, j) q^j (1-q)^(r-j), q = 1/(n - b); E[max] = Σ_{m≥1} 1 - P(every bin holds < m).
double exact_busiest(int k, int n) {
  const auto all_below = [&](int m) {
    std::vector<double> left(k + 1, 0.0);  // probability that r balls remain
    left[k] = 1.0;
    for (int b = 0; b < n; ++b) {
      std::vector<double> next(k + 1, 0.0);
      const double q = 1.0 / (n - b);
      for (int r = 0; r <= k; ++r) {
        if (left[r] == 0.0) continue;
        for (int j = 0; j <= std::min(r, m - 1); ++j) {
          if (b == n - 1 && j != r) continue;  // the last bin takes what is left
          const double p =
              b == n - 1 ? 1.0
                         : std::exp(std::lgamma(r + 1.0) - std::lgamma(j + 1.0) - std::lgamma(r - j + 1.0) +
                                    j * std::log(q) + (r - j) * std::log1p(-q));
          next[r - j] += left[r] * p;
        }
      }
      left = next;
    }
    return left[0];
  };
  double expected = 0.0;
  for (int m = 1; m <= k; ++m) expected += 1.0 - all_below(m);
  return expected;
}

}  // namespace

TEST_CASE("ECMP: the busiest of n uplinks under k hashed flows, and what it costs a ring") {
  SUBCASE("the closed form (Poisson approximation) against exact balls into bins") {
    // Two flows on two uplinks share one with probability 1/2: E[max] = 1.5 exactly. The Poisson form
    // is meant for many bins; from 4 bins on it is within 4% of the exact expectation.
    CHECK(exact_busiest(2, 2) == doctest::Approx(1.5));
    CHECK(detail::expected_busiest_uplink(1, 8) == 1.0);
    CHECK(detail::expected_busiest_uplink(40, 1) == 40.0);
    for (const auto& flows :
         std::vector<std::pair<int, int>>{{4, 4}, {16, 32}, {32, 32}, {96, 13}, {128, 32}}) {
      const int k = flows.first;  // clang < 16 cannot capture a structured binding
      const int n = flows.second;
      CAPTURE(k);
      CAPTURE(n);
      CHECK(detail::expected_busiest_uplink(k, n) == doctest::Approx(exact_busiest(k, n)).epsilon(0.04));
    }
    // 16 flows on 32 uplinks: 2.392 on the busiest (exact); 96 on 13: 12.23 (7.4 flows each on average).
    CHECK(detail::expected_busiest_uplink(16, 32) == doctest::Approx(2.392).epsilon(0.01));
    CHECK(detail::expected_busiest_uplink(96, 13) == doctest::Approx(12.23).epsilon(0.01));
    // Above 100 flows per uplink the loads are normal: λ + √λ·z_n, z_30 = 2.0427 the expected largest of 30
    // standard normals (Tippett 1925's table); λ = 10^5: 10^5 + 316.23 x 2.0427. The two forms meet at
    // λ = 100 within 1%.
    CHECK(detail::expected_busiest_uplink(3e6, 30) == doctest::Approx(1e5 + std::sqrt(1e5) * 2.0427));
    CHECK(detail::expected_busiest_uplink(3000, 30) ==
          doctest::Approx(detail::expected_busiest_uplink(3001, 30)).epsilon(0.01));
  }
  ClusterSpec c = cluster(h100(), 1024, 8, ndr(), 8, qm9700(), TopologyKind::kFatTree, 4.0);
  const Topology tapered = build_topology(c);
  const auto& tree = std::get<FatTree>(tapered.fabric);
  // 4:1 on 64 ports: 51 down (6 nodes, 48 ports used), 13 up, one to each of 13 spines.
  REQUIRE(tree.nodes_per_leaf == 6);
  REQUIRE(tree.leaf_uplinks == 13);
  // Pipeline stages 64 nodes apart (stride 512 GPUs, every GPU's group at once): all 6 nodes of a leaf
  // send across it, 48 ports on 13 uplinks. Balanced routing: the taper's cut, 13/48 of 47 GB/s.
  const Communicator stages{2, 512, 512};
  CHECK(link_path(c, stages).scale_out.bandwidth.value == doctest::Approx(47e9 * 13.0 / 48.0));
  SUBCASE("a ring across a 4:1 taper under ECMP") {
    // NCCL's 2 flows per port (ecmp_flows): 96 flows hash onto 13 uplinks, 12.23 on the busiest (above),
    // so a flow gets 2/12.23 of a port, not 13/48: 47 x 0.1635 = 7.69 GB/s, 40% below the cut.
    c.link.multipath = Multipath::kEcmp;
    c.link.ecmp_flows = 2;
    CHECK(link_path(c, stages).scale_out.bandwidth.value ==
          doctest::Approx(47e9 * 2.0 / 12.23).epsilon(0.01));
    // Packet spraying is the cut again.
    c.link.multipath = Multipath::kSpray;
    CHECK(link_path(c, stages).scale_out.bandwidth.value == doctest::Approx(47e9 * 13.0 / 48.0));
  }
  SUBCASE("a ring's few large flows on a 1:1 fabric lose to collisions; more queue pairs win it back") {
    // 1:1: 32 down (4 nodes), 32 up. A ring over all 128 nodes leaves each leaf from its last node: 8 ports,
    // 16 flows on 32 uplinks, 2.392 on the busiest: 2/2.392 = 0.836 of a port. With 16 queue pairs per
    // connection (Meta's E-ECMP, SIGCOMM 2024) 128 flows: 8.65 on the busiest, 16/8.65 > 1: the full port.
    ClusterSpec flat = cluster(h100(), 1024, 8, ndr(), 8, qm9700());
    flat.link.multipath = Multipath::kEcmp;
    flat.link.ecmp_flows = 2;
    const Communicator ring{1024, 1, 1};
    CHECK(link_path(flat, ring).scale_out.bandwidth.value ==
          doctest::Approx(47e9 * 2.0 / 2.392).epsilon(0.01));
    flat.link.ecmp_flows = 16;
    CHECK(link_path(flat, ring).scale_out.bandwidth.value == doctest::Approx(47e9));
  }
}

TEST_CASE("a group that straddles two nodes leaves the emptier one through its own ranks' NICs") {
  // DGX A100 x 8 nodes, 24 GB/s of NIC per rank (the test above). Tensor-parallel groups of 6 ranks tile
  // 8-GPU nodes as GPUs 0-5, 6-11, 12-17, ...: the second puts 2 ranks on node 0 and 4 on node 1, so its
  // ring crosses between nodes through 2 NICs (2 x 24 GB/s), not 6. worst_placed finds it: first GPU 6.
  const Topology t = build_topology(dgx_a100(64));
  const Communicator tp6 = worst_placed(t, Communicator{6, 1, 1}, 6);
  CHECK(tp6.first == 6);
  const LinkPath p = link_path(t, tp6);
  CHECK(p.nodes == 2);
  CHECK(p.scale_up.ranks == 3);  // NCCL's ranks per node: nRanks / nNodes
  CHECK(p.scale_out.ranks == 2);
  // Per rank 24 GB/s x 2/3: a ring's node-to-node rate, 3 ranks' worth, is 48 GB/s, the two NICs of node
  // 0's side.
  CHECK(p.scale_out.bandwidth.value == doctest::Approx(24e9 * 2.0 / 3.0));
  // All-to-all: a rank on node 0 sends 4/6 of its data out through its own NIC, where 3 ranks per node
  // would send 3/6: the model's (6 - 3)/6 share at 24 x 3/4 GB/s takes the same time.
  CHECK(p.scale_out.all_to_all_bandwidth.value == doctest::Approx(24e9 * 3.0 / 4.0));
  // Groups that tile nodes stay where they were: tp 4 and tp 8 in one node, tp 16 over two full nodes.
  CHECK(worst_placed(t, Communicator{4, 1, 2}, 4).first == 0);
  CHECK(link_path(t, worst_placed(t, Communicator{4, 1, 2}, 4)).nodes == 1);
  CHECK(worst_placed(t, Communicator{16, 1, 1}, 16).first == 0);
  // Pipeline neighbours of 4-GPU stages: stages 1 and 2 (GPUs 4 and 8) sit on different nodes.
  const Communicator pp = worst_placed(t, Communicator{2, 4, 4}, 4);
  CHECK(link_path(t, pp).nodes == 2);
  CHECK(link_path(t, Communicator{2, 4, 4}).nodes == 1);  // stages 0 and 1 share node 0
  // 12 ranks from GPU 0 fill node 0 and half of node 1: the ring leaves node 1 through 4 NICs, half what
  // 16 ranks over two full nodes use (6 ranks per node in NCCL's count, each 4/6 of a NIC).
  const LinkPath twelve = link_path(t, Communicator{12, 1, 1});
  CHECK(twelve.nodes == 2);
  CHECK(twelve.ranks_per_node == 6);
  CHECK(twelve.scale_out.bandwidth.value * twelve.scale_up.ranks == doctest::Approx(4 * 24e9));
  CHECK(link_path(t, Communicator{16, 1, 1}).scale_out.bandwidth.value == doctest::Approx(24e9));
  // A group starting beyond the cluster is refused.
  CHECK_THROWS_AS((void)link_path(t, Communicator{8, 1, 1, 60}), Error);
}

TEST_CASE("breakout: a 51.2T switch serves 400G NICs as 128 x 400G (4,096 GPUs: 2 tiers, 96 switches)") {
  // Tomahawk 5 at 400G: 128 ports, 64 down / 64 up. 4,096 NIC ports / 64 = 64 leaves <= 128: 2 tiers;
  // 64 x 64 / 128 = 32 spines (a divisor of 64: 2 links per leaf); 96 switches. At its native 64 x 800G the
  // same NICs need 128 leaves > 64: 3 tiers, 4 pods x 32 + 64 core = 320 switches.
  const ClusterSpec c = cluster(h100(), 4096, 8, ndr(), 8, tomahawk5(), TopologyKind::kFatTree);
  const Topology t = build_topology(c);
  CHECK(t.switch_radix == 128);
  CHECK(t.nic_line_rate.value == doctest::Approx(50e9));
  CHECK(t.inventory.tiers == 2);
  check_tiers(t.inventory, 64, 32, 0);
  CHECK(t.inventory.switches == 96);
  // Optics: 2 x (4,096 host + 4,096 leaf-spine links) = 16,384 port ends; modules: 4,096 at the NICs and one
  // 2 x 400G module per 800G cage for the 4,096 + 8,192 switch ports: 6,144; 10,240 in all.
  CHECK(t.inventory.optical_transceivers == 16384);
  CHECK(t.inventory.optical_modules == 10240);
  CHECK(t.ports_per_module == 2);
  ClusterSpec native = c;
  native.switch_spec.breakouts.clear();
  const Topology n = build_topology(native);
  CHECK(n.switch_radix == 64);
  check_tiers(n.inventory, 128, 128, 64);
  CHECK(n.inventory.switches == 320);
  // 800G NICs run the native mode; 200G NICs the 256-port one; 1.6T NICs are held to 800G ports.
  CHECK(build_topology(cluster(h100(), 4096, 8, xdr(), 8, tomahawk5())).switch_radix == 64);
  CHECK(build_topology(cluster(h100(), 4096, 8, hdr(), 8, tomahawk5())).switch_radix == 256);
  LinkSpec fast = xdr();
  fast.line_rate = BytesPerSecond(200e9);
  const Topology capped = build_topology(cluster(h100(), 4096, 8, fast, 8, tomahawk5()));
  CHECK(capped.switch_radix == 64);
  CHECK(capped.nic_line_rate.value == doctest::Approx(100e9));
}

TEST_CASE(
    "100,000 GPUs at 400G on Tomahawk 5: 3 tiers of 128-port switches; at 64 ports it cannot be built") {
  // 100,000 NIC ports / 64 down = 1,563 leaves > 128: 3 tiers, pods of 64 leaves: 25 pods <= 128.
  // Without breakout a 3-tier fat-tree of 64 ports holds 64^3/4 = 65,536 ports.
  const ClusterSpec c = cluster(h100(), 100000, 8, ndr(), 8, tomahawk5(), TopologyKind::kFatTree);
  const Topology t = build_topology(c);
  CHECK(t.inventory.tiers == 3);
  CHECK(t.inventory.switches_per_tier[0] == 1563);
  CHECK(std::get<FatTree>(t.fabric).pods == 25);
  ClusterSpec native = c;
  native.switch_spec.breakouts.clear();
  CHECK_THROWS_AS((void)build_topology(native), Error);
}

TEST_CASE("even uplink split: NVIDIA's B300 XDR SuperPOD, 4 SU -> 32 leaves + 18 spines, 8 SU -> 36 spines") {
  // 72 nodes per scalable unit, 8 x 800G XDR NICs each, 144-port Q3400: a rail leaf has 72 down, 72 up.
  // 4 SU: 8 rails x 4 = 32 leaves; 32 x 72 = 2,304 uplinks need >= 16 spines, and the spine count must
  // divide 72: 18 spines of 4 links per leaf (128 of 144 ports). 8 SU: 64 leaves, >= 32 -> 36 spines of 2.
  // (NVIDIA DGX SuperPOD B300 XDR reference architecture; the GPU does not enter the sizing.)
  const Topology four =
      build_topology(cluster(h100(), 4 * 72 * 8, 8, xdr(), 8, q3400(), TopologyKind::kRailOptimized));
  check_tiers(four.inventory, 32, 18, 0);
  CHECK(std::get<RailOptimized>(four.fabric).nodes_per_unit == 72);
  const Topology eight =
      build_topology(cluster(h100(), 8 * 72 * 8, 8, xdr(), 8, q3400(), TopologyKind::kRailOptimized));
  check_tiers(eight.inventory, 64, 36, 0);
  // Q3400 optics are twin-port: 72 cages for 144 ports. 4 SU: 2,304 NIC modules + (2,304 + 2 x 2,304) / 2.
  CHECK(four.inventory.optical_transceivers == 2 * (2304 + 2304));
  CHECK(four.inventory.optical_modules == 2304 + (2304 + 2 * 2304) / 2);
}

TEST_CASE(
    "traffic patterns on a 2:1 taper: a ring keeps >= 85% of its 1:1 bandwidth, an all-to-all does not") {
  // 1,024 H100 (128 nodes x 8 NDR NICs), 64-port leaves: 1:1 is 32 down / 32 up, 2:1 is 42 down / 22 up (5
  // nodes, 40 ports per leaf). A ring leaves each leaf from one node: 8 ports on 22 uplinks, no slowdown.
  // A uniform all-to-all sends 123/127 of every node's remote traffic out: 40 x 123/127 = 38.7 ports' worth
  // on 22 uplinks: 0.568 of the 1:1 bandwidth (Dally & Towles 2004 §3.3.1).
  const ClusterSpec full = cluster(h100(), 1024, 8, ndr(), 8, qm9700(), TopologyKind::kFatTree, 1.0);
  const ClusterSpec tapered = cluster(h100(), 1024, 8, ndr(), 8, qm9700(), TopologyKind::kFatTree, 2.0);
  const Bytes n(1 << 30);
  const auto time = [&](const ClusterSpec& c, Collective op, Algorithm a) {
    return collective_cost(op, a, n, 1024, 1, c).time.value;
  };
  const double ring = time(full, Collective::kAllReduce, Algorithm::kRing) /
                      time(tapered, Collective::kAllReduce, Algorithm::kRing);
  const double all_to_all = time(full, Collective::kAllToAll, Algorithm::kDirect) /
                            time(tapered, Collective::kAllToAll, Algorithm::kDirect);
  CHECK(ring >= 0.85);
  CHECK(ring == doctest::Approx(1.0));
  CHECK(all_to_all < 0.85);
  const LinkPath path = link_path(tapered, Communicator{1024, 1, 1});
  CHECK(path.scale_out.all_to_all_bandwidth.value == doctest::Approx(47e9 * 22.0 / (40.0 * 123.0 / 127.0)));
}

TEST_CASE("rail-only relays cross-rail traffic over NVLink: its all-to-all is slower than rail-optimized") {
  // 2,048 H100, 8 rails. Rail-optimized (1:1) crosses rails at the spine: 47 GB/s per rank. Rail-only first
  // moves the 7/8 of remote bytes bound for another rail over NVLink (369 GB/s), then the network:
  // 1 / (1/47 + 0.875/369) = 42.3 GB/s, 11% slower (Wang et al. 2023: 8.2-11.2% on all-to-all).
  const Topology optimized = build_topology(dgx_h100(2048, TopologyKind::kRailOptimized));
  const Topology only = build_topology(dgx_h100(2048, TopologyKind::kRailOnly));
  const Communicator all{2048, 1, 1};
  const LinkPath a = link_path(optimized, all);
  const LinkPath b = link_path(only, all);
  CHECK(a.scale_out.all_to_all_bandwidth.value == doctest::Approx(47e9));
  CHECK(b.scale_out.all_to_all_bandwidth.value == doctest::Approx(1.0 / (1.0 / 47e9 + 0.875 / 369e9)));
  CHECK_FALSE(a.cross_rail_via_scale_up);
  CHECK(b.cross_rail_via_scale_up);
  // Rings stay on their rail: the same neighbour bandwidth on both.
  CHECK(a.scale_out.bandwidth.value == doctest::Approx(b.scale_out.bandwidth.value));
  // 32 MiB: 16 KiB per peer, latency-bound under LL on both. Each of the 2,040 remote peers' messages that
  // goes to another rail (7/8: 1,785) takes one more NVLink send first: 1,785 x 0.6 us (NCCL's NVLink LL
  // step, src/graph/tuning.cc hwLat) = 1.071 ms more.
  const Bytes mid(32 << 20);
  const CommCost mid_optimized = collective_cost(Collective::kAllToAll, Algorithm::kAuto, mid, a);
  const CommCost mid_only = collective_cost(Collective::kAllToAll, Algorithm::kAuto, mid, b);
  CHECK(mid_only.latency_term.value - mid_optimized.latency_term.value ==
        doctest::Approx(2040.0 * 7.0 / 8.0 * 0.6e-6));
  CHECK(mid_only.time > mid_optimized.time);
  // 1 GiB: the relay's bytes and its per-message steps.
  const Bytes n(1 << 30);
  const double t_optimized = collective_cost(Collective::kAllToAll, Algorithm::kAuto, n, a).time.value;
  const double t_only = collective_cost(Collective::kAllToAll, Algorithm::kAuto, n, b).time.value;
  CHECK(t_only > 1.11 * t_optimized);
}

TEST_CASE("more GPUs never cut the switch count") {
  for (TopologyKind kind : {TopologyKind::kFatTree, TopologyKind::kRailOptimized, TopologyKind::kRailOnly,
                            TopologyKind::kDragonflyPlus}) {
    int previous = 0;
    for (int gpus = 8; gpus <= 32768; gpus += 392) {
      const int switches = build_topology(dgx_h100(gpus, kind)).inventory.switches;
      CHECK(switches >= previous);
      previous = switches;
    }
  }
}

}  // namespace costmodel
