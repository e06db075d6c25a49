// SPDX-License-Identifier: Apache-2.0
// Properties at scale (issue 8): seeded random valid inputs; every output finite and non-negative;
// monotone in bandwidth, GPU count and HBM; a million GPUs and a 100-trillion-parameter model stay finite.

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
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

TEST_CASE("more GPUs at fixed per-GPU work never means fewer switches") {
  for (const TopologyKind kind : {TopologyKind::kFatTree, TopologyKind::kRailOptimized,
                                  TopologyKind::kRailOnly, TopologyKind::kDragonflyPlus}) {
    int previous = 0;
    for (int gpus = 8; gpus <= 65536; gpus *= 2) {
      ClusterOptions o;
      o.gpus = gpus;
      o.link = "ib-ndr-400g";
      ClusterSpec c = apply_cluster_options(default_cluster(catalog()), o, catalog());
      c.topology = kind;
      const Topology t = build_topology(c);
      CAPTURE(to_string(kind));
      CAPTURE(gpus);
      CHECK(t.inventory.switches >= previous);
      previous = t.inventory.switches;
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
