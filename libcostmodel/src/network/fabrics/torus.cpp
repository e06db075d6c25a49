// SPDX-License-Identifier: Apache-2.0
// torus-2d and torus-3d: switchless k1 x k2 (x k3) tori with wrap-around, a node linked to its 2·D
// neighbours by an equal share of its NIC ports (Dally & Towles, "Principles and Practices of
// Interconnection Networks", 2004, §5; TPU v4: Jouppi et al. ISCA 2023). Rings and buckets talk to
// neighbours only; a torus library runs the bucket algorithm, NCCL rings over the torus links.
#include <algorithm>
#include <functional>
#include <string>

#include "../fabric.hpp"
#include "../topology_detail.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

// Torus sides whose product is `nodes`, with the smallest diameter Σ⌊kᵢ/2⌋ (ties: the most even).
std::array<int, kMaxTorusDims> choose_torus_dims(int nodes, int dimensions) {
  std::array<int, kMaxTorusDims> best{nodes, 1, 1};
  int best_diameter = nodes / 2;
  int best_max = nodes;
  auto consider = [&](int a, int b, int c) {
    const int diameter = a / 2 + b / 2 + c / 2;
    const int largest = std::max({a, b, c});
    if (diameter < best_diameter || (diameter == best_diameter && largest < best_max)) {
      best_diameter = diameter;
      best_max = largest;
      best = {a, b, c};
      std::sort(best.begin(), best.end(), std::greater<>());
    }
  };
  for (int a = 1; static_cast<long long>(a) * a <= nodes; ++a) {
    if (nodes % a != 0) continue;
    const int rest = nodes / a;
    if (dimensions == 2) {
      consider(rest, a, 1);
      continue;
    }
    for (int b = a; static_cast<long long>(b) * b <= rest; ++b) {
      if (rest % b == 0) consider(rest / b, b, a);
    }
  }
  return best;
}

void size_torus(const ClusterSpec& cluster, Topology& topo) {
  Torus torus;
  torus.dimensions = topo.kind == TopologyKind::kTorus2D ? 2 : 3;
  const int nics = cluster.nics_per_node;
  if (nics < 2 * torus.dimensions) {
    fabric_error("scale_out.nics_per_node",
                 "a " + std::to_string(torus.dimensions) + "D torus needs at least " +
                     std::to_string(2 * torus.dimensions) + " NIC ports per node, one per neighbour");
  }
  if (cluster.torus_dims.empty()) {
    torus.dims = choose_torus_dims(topo.nodes, torus.dimensions);
  } else {
    if (static_cast<int>(cluster.torus_dims.size()) != torus.dimensions) {
      fabric_error("scale_out.torus_dims", "needs " + std::to_string(torus.dimensions) + " sizes");
    }
    long long product = 1;
    for (int i = 0; i < torus.dimensions; ++i) {
      if (cluster.torus_dims[i] < 1) fabric_error("scale_out.torus_dims", "sizes must be positive");
      torus.dims[i] = cluster.torus_dims[i];
      product *= cluster.torus_dims[i];
    }
    if (product != topo.nodes) {
      fabric_error("scale_out.torus_dims", "sizes multiply to " + std::to_string(product) + ", not the " +
                                               std::to_string(topo.nodes) + " nodes");
    }
  }
  torus.ports_per_direction = static_cast<double>(nics) / (2.0 * torus.dimensions);
  topo.fabric = torus;

  Inventory& inv = topo.inventory;
  inv.tiers = 0;
  inv.direct_links = ceil_div(static_cast<long long>(topo.nodes) * nics, 2);
  // Diameter Σ⌊kᵢ/2⌋ with wrap-around (Dally & Towles 2004 §5.2).
  int kmax = 1;
  topo.diameter = 0;
  for (int k : torus.dims) {
    topo.diameter += k / 2;
    kmax = std::max(kmax, k);
  }
  // Bisection: cutting the longest ring twice (wrap-around) crosses 2·N/kmax neighbour bundles.
  topo.bisection = kmax > 1 ? topo.nic_line_rate * (2.0 * topo.nodes / kmax * torus.ports_per_direction)
                            : BytesPerSecond(0.0);
}

// Ranks fill dimension 0 first; rings and buckets talk to neighbours only (Chan et al. 2007 §3).
void torus_level(const PathInputs& in, LinkPath& path) {
  const Topology& topo = in.topo;
  const auto& torus = std::get<Torus>(topo.fabric);
  const int span_nodes = in.span_nodes;
  LevelPath& out = path.scale_out;
  const auto& dims = torus.dims;
  const long long plane = static_cast<long long>(dims[0]) * dims[1];
  path.torus_extent = {std::min(span_nodes, dims[0]), std::min(ceil_div(span_nodes, dims[0]), dims[1]),
                       std::min(ceil_div(span_nodes, plane), dims[2])};
  int far_hops = 0;
  int kmax = 1;
  for (int i = 0; i < kMaxTorusDims; ++i) {
    const int k = path.torus_extent[i];
    if (k > 1) ++path.torus_dimensions;
    far_hops += k == dims[i] ? k / 2 : k - 1;
    kmax = std::max(kmax, k);
  }
  const double per_neighbour = torus.ports_per_direction;
  out.bandwidth = in.rank_bandwidth * (per_neighbour / topo.nics_per_node * in.straddle);
  out.line_rate = in.rank_line * (per_neighbour / topo.nics_per_node * in.straddle);
  out.hops = 1;
  out.far_hops = far_hops;
  out.latency = topo.link_latency;
  out.far_latency = topo.link_latency * far_hops;
  // All-to-all: injection over all 2D neighbours, or the sub-torus bisection: half of every node's
  // traffic crosses it, 2·N/kmax neighbour bundles wide (Dally & Towles 2004 §3.3).
  const BytesPerSecond injection = out.bandwidth * (2.0 * path.torus_dimensions);
  const int longest = [&] {
    for (int i = 0; i < kMaxTorusDims; ++i) {
      if (path.torus_extent[i] == kmax) return i;
    }
    return 0;
  }();
  const double bundles = (kmax == dims[longest] ? 2.0 : 1.0) * span_nodes / kmax;
  const BytesPerSecond bisection = topo.nic_bandwidth * (bundles * per_neighbour);
  const BytesPerSecond bisection_share = bisection * (4.0 / (static_cast<double>(span_nodes) * in.sharers));
  out.all_to_all_bandwidth = std::min(injection, bisection_share);
}

constexpr std::array<FabricRule, 2> kTorusRules{{
    {.builtin = TopologyKind::kTorus2D,
     .traits = {.name = "torus-2d",
                .description = "switchless 2D torus: each node linked to its 4 neighbours with wraparound",
                .switched = false,
                .torus = true},
     .size = size_torus,
     .path = torus_level},
    {.builtin = TopologyKind::kTorus3D,
     .traits =
         {.name = "torus-3d",
          .description =
              "switchless 3D torus: each node linked to its 6 neighbours with wraparound (TPU v4 style)",
          .switched = false,
          .torus = true,
          .auto_oversubscriptions = {1.0}},
     .size = size_torus,
     .path = torus_level},
}};

}  // namespace

std::span<const FabricRule> fabric_rules_torus() {
  return kTorusRules;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
