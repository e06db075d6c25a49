// SPDX-License-Identifier: Apache-2.0
// Properties at scale (issue 8): seeded random valid inputs; every output finite and non-negative;
// monotone in bandwidth, GPU count and HBM; a million GPUs and a 100-trillion-parameter model stay finite.

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/search/planner.hpp"

using namespace costmodel;

namespace {

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

bool finite_non_negative(const StepEstimate& e) {
  const auto& b = e.breakdown;
  const double values[] = {e.step_time.value,
                           e.tokens_per_s,
                           e.model_flops_per_gpu.value / 1e12,
                           e.hardware_flops_per_gpu.value / 1e12,
                           e.mfu,
                           e.hfu,
                           b.compute.value,
                           b.tp_comm.value,
                           b.cp_comm.value,
                           b.ep_comm.value,
                           b.pp_comm.value,
                           b.pp_bubble.value,
                           b.dp_comm.value,
                           b.dp_comm_exposed.value,
                           b.optimizer.value,
                           b.host.value,
                           e.memory.total.value,
                           e.network_capex.value,
                           e.power.value};
  for (double v : values) {
    if (!std::isfinite(v) || v < 0) return false;
  }
  return true;
}

// A 100-trillion-parameter dense GPT: 12·l·h² = 12 x 512 x 131072² = 1.06e14 parameters.
ModelSpec hundred_trillion() {
  ModelSpec m = catalog().model("gpt3-175b");
  m.name = "gpt-100t";
  m.layers = 512;
  m.hidden = 131072;
  m.heads = 1024;
  m.kv_heads = 1024;
  m.ffn_hidden = 4 * m.hidden;
  return m;
}

}  // namespace

TEST_CASE("seeded random configurations: finite, non-negative, monotone in bandwidth and HBM") {
  std::mt19937 rng(8);
  const auto& models = catalog().models;
  const char* gpus[] = {"a100-80gb", "h100-sxm", "b200", "gb200", "v100-32gb"};
  const char* links[] = {"ib-edr-100g", "ib-hdr-200g", "ib-ndr-400g", "ib-xdr-800g", "eth-1.6t"};
  const TopologyKind kinds[] = {TopologyKind::kFatTree, TopologyKind::kRailOptimized, TopologyKind::kRailOnly,
                                TopologyKind::kDragonflyPlus, TopologyKind::kTorus3D};
  int evaluated = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const ModelSpec& m = models[rng() % models.size()];
    Strategy s;
    s.tp = 1 << (rng() % 4);
    s.pp = 1 << (rng() % 5);
    s.dp = 1 << (rng() % 8);
    s.cp = 1 << (rng() % 2);
    s.ep = m.is_moe() ? 1 << (rng() % 3) : 1;
    s.micro_batch = 1 << (rng() % 3);
    s.global_batch = s.dp * s.micro_batch * (1 << (rng() % 5));
    s.recompute = static_cast<Recompute>(rng() % 3);
    s.zero = static_cast<int>(rng() % 4);
    s.overlap = rng() % 2;
    s.sequence_parallel = rng() % 2;
    const int total = s.tp * s.pp * s.dp * s.cp;
    if (total < 8) continue;
    ClusterOptions o;
    o.gpu = gpus[rng() % 5];
    o.gpus = total;
    const int link = static_cast<int>(rng() % 5);
    o.link = links[link];
    ClusterSpec c = apply_cluster_options(default_cluster(catalog()), o, catalog());
    c.topology = kinds[rng() % 5];
    std::optional<Estimator> slow;
    try {
      slow.emplace(m, c);
    } catch (const Error&) {
      continue;  // a fabric that cannot be built at this size (e.g. a torus shape): reported, not estimated
    }
    if (slow->check(s) != kValid) continue;
    ++evaluated;
    const StepEstimate a = slow->evaluate(s);
    CAPTURE(m.name);
    CAPTURE(c.gpu.name);
    CAPTURE(total);
    CHECK(finite_non_negative(a));
    // Bandwidth up -> step time not up: the same fabric with twice the link and port rate, or twice the
    // NVLink bandwidth (changing the link *product* also changes latency, switch radix and SHARP support).
    ClusterSpec faster = c;
    faster.link.line_rate = faster.link.line_rate * 2.0;
    faster.switch_spec.port_bandwidth = faster.switch_spec.port_bandwidth * 2.0;
    for (PortMode& mode : faster.switch_spec.breakouts) mode.port_bandwidth = mode.port_bandwidth * 2.0;
    CHECK(Estimator(m, faster).evaluate(s).step_time.value <= a.step_time.value * (1 + 1e-9));
    ClusterSpec faster_up = c;
    faster_up.scale_up = c.scale_up_fabric();
    faster_up.scale_up->bandwidth = faster_up.scale_up->bandwidth * 2.0;
    CHECK(Estimator(m, faster_up).evaluate(s).step_time.value <= a.step_time.value * (1 + 1e-9));
    // Memory fits -> still fits with more HBM.
    if (a.fits_memory) {
      ClusterSpec bigger = c;
      bigger.gpu.hbm = bigger.gpu.hbm * 2.0;
      CHECK(Estimator(m, bigger).evaluate(s).fits_memory);
    }
  }
  CHECK(evaluated > 500);
}

TEST_CASE("more GPUs at fixed per-GPU work never means fewer switches, modules or a smaller radix") {
  // Links on switches that run them natively and through a breakout (400G on Tomahawk 5's 128 x 400G, 100G
  // EDR on the QM8700's 80 x 100G), at 1:1 and 2:1, with spines that must divide a leaf's uplinks.
  const std::pair<const char*, const char*> fabrics[] = {{"ib-ndr-400g", "qm9700"},
                                                         {"roce-400g", "tomahawk5"},
                                                         {"ib-xdr-800g", "q3400"},
                                                         {"ib-edr-100g", "qm8700"}};
  for (const auto& fabric : fabrics) {
    const char* link = fabric.first;  // clang < 16 cannot capture a structured binding
    const char* switch_name = fabric.second;
    for (const double oversubscription : {1.0, 2.0}) {
      for (const TopologyKind kind : {TopologyKind::kFatTree, TopologyKind::kRailOptimized,
                                      TopologyKind::kRailOnly, TopologyKind::kDragonflyPlus}) {
        int previous = 0;
        int previous_modules = 0;
        for (int gpus = 8; gpus <= 131072; gpus = gpus * 3 / 2 / 8 * 8 + 8) {
          ClusterOptions o;
          o.gpus = gpus;
          o.link = link;
          o.switch_name = switch_name;
          o.oversubscription = oversubscription;
          ClusterSpec c = apply_cluster_options(default_cluster(catalog()), o, catalog());
          c.topology = kind;
          Topology t;
          try {
            t = build_topology(c);
          } catch (const Error&) {
            break;  // beyond what three tiers (or a dragonfly+) of this radix hold: so is every larger size
          }
          CAPTURE(link);
          CAPTURE(oversubscription);
          CAPTURE(to_string(kind));
          CAPTURE(gpus);
          CHECK(t.inventory.switches >= previous);
          CHECK(t.inventory.optical_modules >= previous_modules);
          CHECK(t.inventory.optical_modules <= t.inventory.optical_transceivers);
          previous = t.inventory.switches;
          previous_modules = t.inventory.optical_modules;
        }
      }
    }
  }
}

TEST_CASE("more ranks never raise a rank's bandwidth or shorten its path, on every switched fabric") {
  // Per-rank neighbour and all-to-all bandwidth are non-increasing and hops non-decreasing in the ranks of a
  // communicator that fills its nodes (a ring over more nodes crosses no more than the same few leaf/group
  // links; uniform traffic sends a growing share out of the leaf). Dragonfly+ all-to-all is the exception
  // physics allows: over more groups a communicator reaches more direct global links (topology_test pins
  // it). A communicator that fills its last node only partly leaves that node through fewer NICs, so
  // filling it speeds its ring up (the next test).
  const std::pair<const char*, const char*> fabrics[] = {{"ib-ndr-400g", "qm9700"},
                                                         {"roce-400g", "tomahawk5"}};
  for (const auto& fabric : fabrics) {
    const char* link = fabric.first;  // clang < 16 cannot capture a structured binding
    const char* switch_name = fabric.second;
    for (const double oversubscription : {1.0, 2.0, 4.0}) {
      for (const TopologyKind kind : {TopologyKind::kFatTree, TopologyKind::kRailOptimized,
                                      TopologyKind::kRailOnly, TopologyKind::kDragonflyPlus}) {
        for (const Routing routing : {Routing::kAdaptive, Routing::kMinimal}) {
          ClusterOptions o;
          o.gpus = 65536;
          o.link = link;
          o.switch_name = switch_name;
          o.oversubscription = oversubscription;
          ClusterSpec c = apply_cluster_options(default_cluster(catalog(), "h100-sxm"), o, catalog());
          c.topology = kind;
          c.routing = routing;
          const Topology t = build_topology(c);
          // Under ECMP (roce-400g) more flows hash more evenly, so a wider all-to-all may gain a little;
          // the monotone laws hold for balanced routing, and ECMP never beats it.
          ClusterSpec balanced_spec = c;
          balanced_spec.link.multipath = Multipath::kBalanced;
          const Topology balanced = build_topology(balanced_spec);
          for (const int stride : {1, 8, 64}) {
            double neighbour = 1e30;
            double all_to_all = 1e30;
            int hops = 0;
            const int per_node = stride < 8 ? 8 / stride : 1;
            for (int units = 1; static_cast<long long>(units * per_node - 1) * stride < c.gpus;
                 units += units / 4 + 1) {
              const int ranks = units * per_node;
              const Communicator comm{ranks, stride, std::min(stride, 8)};
              const LinkPath hashed = link_path(t, comm);
              const LinkPath p = link_path(balanced, comm);
              CAPTURE(link);
              CAPTURE(oversubscription);
              CAPTURE(to_string(kind));
              CAPTURE(to_string(routing));
              CAPTURE(stride);
              CAPTURE(ranks);
              if (p.scale_out.ranks < 2) continue;
              CHECK(hashed.scale_out.bandwidth.value <= p.scale_out.bandwidth.value * (1 + 1e-12));
              CHECK(hashed.scale_out.all_to_all_bandwidth.value <=
                    p.scale_out.all_to_all_bandwidth.value * (1 + 1e-12));
              CHECK(p.scale_out.bandwidth.value <= neighbour * (1 + 1e-12));
              CHECK(p.scale_out.hops >= hops);
              if (kind != TopologyKind::kDragonflyPlus) {
                CHECK(p.scale_out.all_to_all_bandwidth.value <= all_to_all * (1 + 1e-12));
              }
              neighbour = p.scale_out.bandwidth.value;
              all_to_all = p.scale_out.all_to_all_bandwidth.value;
              hops = p.scale_out.hops;
            }
          }
        }
      }
    }
  }
}

TEST_CASE("Dragonfly+: a collective over more ranks never takes less time, under either routing") {
  // nccl-tests sizes (AllReduce: the buffer; AllGather: the gathered output): a ring's bus volume grows with
  // p and a rank's bandwidth never rises, so the time never falls, from one leaf to every group of a
  // 64-group machine (65,536 H100, 64-port NDR switches: 1,024 NIC ports per group).
  for (const Routing routing : {Routing::kAdaptive, Routing::kMinimal}) {
    ClusterOptions o;
    o.gpus = 65536;
    o.topology = "dragonfly-plus";
    ClusterSpec c = apply_cluster_options(default_cluster(catalog(), "h100-sxm"), o, catalog());
    c.routing = routing;
    const Topology t = build_topology(c);
    for (const Collective op : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                                Collective::kBroadcast}) {
      for (const double bytes : {1e6, 1e9}) {
        double previous = 0.0;
        for (int ranks = 16; ranks <= c.gpus; ranks *= 2) {
          const LinkPath p = link_path(t, Communicator{ranks, 1, 1});
          const double time = collective_cost(op, Algorithm::kAuto, Bytes(bytes), p).time.value;
          CAPTURE(to_string(routing));
          CAPTURE(to_string(op));
          CAPTURE(bytes);
          CAPTURE(ranks);
          CHECK(time >= previous * (1 - 1e-9));
          previous = time;
        }
      }
    }
  }
}

TEST_CASE("a million GPUs and a 100-trillion-parameter model give finite answers") {
  const ModelSpec m = hundred_trillion();
  CHECK(count_parameters(m).total == doctest::Approx(1.0555e14).epsilon(0.01));
  ClusterOptions o;
  o.gpu = "gb200";
  o.gpus = 1048576;
  o.gpus_per_node = 4;
  o.link = "ib-xdr-800g";
  o.switch_name = "q3400";
  o.nics_per_node = 4;
  // A 3-tier fat-tree of radix 144 holds 144³/4 = 746,496 ports: a million NICs need a Dragonfly+.
  o.topology = "dragonfly-plus";
  const ClusterSpec c = apply_cluster_options(default_cluster(catalog()), o, catalog());
  const Estimator est(m, c);
  Strategy s;
  s.tp = 64;   // inside the 72-GPU NVLink domain
  s.pp = 128;  // 4 layers per stage
  s.dp = 128;
  s.global_batch = 16384;
  s.micro_batch = 1;
  s.recompute = Recompute::kFull;
  s.zero = 1;
  REQUIRE(est.check(s) == kValid);
  const StepEstimate e = est.evaluate(s);
  CHECK(finite_non_negative(e));
  CHECK(e.step_time.value > 0);
  CHECK(e.switches > 0);
  CHECK(e.memory.total.value > 0);

  // The planner still answers over the whole space.
  PlanRequest request;
  request.model = m;
  request.cluster = c;
  request.training.global_batch = 16384;
  request.top_k = 3;
  const PlanResult result = plan(request);
  CHECK(result.evaluated > 0);
  for (const auto& top : result.top) CHECK(finite_non_negative(top));
}
