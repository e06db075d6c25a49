// SPDX-License-Identifier: Apache-2.0
// One collective-cost evaluation (fixed algorithm and Auto), and the path query, on a 1,024-GPU H100 cluster.
#include <benchmark/benchmark.h>

#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"

namespace {

using namespace costmodel;

ClusterSpec h100_cluster() {
  ClusterSpec c;
  c.gpus = 1024;
  c.gpus_per_node = 8;
  ScaleUpSpec& up = c.scale_up.emplace();
  up.bandwidth = BytesPerSecond(450e9);
  up.domain = 8;
  up.latency = Seconds(0.7e-6);
  up.in_network_reduction = true;
  up.efficiency = 0.82;
  up.in_network_efficiency = 0.61;
  c.topology = TopologyKind::kRailOptimized;
  c.link.line_rate = BytesPerSecond(50e9);
  c.link.efficiency = 0.94;
  c.link.latency = Seconds(1e-6);
  c.nics_per_node = 8;
  c.switch_spec.radix = 64;
  c.switch_spec.port_bandwidth = BytesPerSecond(50e9);
  c.switch_spec.latency = Seconds(130e-9);
  c.switch_spec.in_network_reduction = InNetworkReduction::kSharp;
  return c;
}

void BM_RingAllReduce(benchmark::State& state) {
  const LinkPath path = link_path(h100_cluster(), Communicator{1024, 1, 1});
  double bytes = 1e6;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes);
    const CommCost cost = collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(bytes), path);
    benchmark::DoNotOptimize(cost);
  }
}
BENCHMARK(BM_RingAllReduce);

void BM_AutoAllReduce(benchmark::State& state) {
  const LinkPath path = link_path(h100_cluster(), Communicator{1024, 1, 1});
  double bytes = 1e6;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes);
    const CommCost cost = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(bytes), path);
    benchmark::DoNotOptimize(cost);
  }
}
BENCHMARK(BM_AutoAllReduce);

void BM_LinkPath(benchmark::State& state) {
  const Topology topology = build_topology(h100_cluster());
  Communicator comm{128, 8, 8};
  for (auto _ : state) {
    benchmark::DoNotOptimize(comm);
    const LinkPath path = link_path(topology, comm);
    benchmark::DoNotOptimize(path);
  }
}
BENCHMARK(BM_LinkPath);

void BM_AutoFromCluster(benchmark::State& state) {
  const ClusterSpec cluster = h100_cluster();
  double bytes = 1e6;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes);
    const CommCost cost =
        collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(bytes), 128, 8, cluster);
    benchmark::DoNotOptimize(cost);
  }
}
BENCHMARK(BM_AutoFromCluster);

}  // namespace
