// SPDX-License-Identifier: Apache-2.0
// rail-optimized: NIC k of every node of a scalable unit on that unit's rail leaf k, one Clos above all rail
// leaves (NVIDIA DGX SuperPOD reference architectures). Uniform traffic between rails may relay over the
// scale-up domain first (PXN) when that keeps it below a tapered leaf.
#include <algorithm>

#include "../fabric.hpp"
#include "../topology_detail.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

void size_rail_optimized(const ClusterSpec& cluster, Topology& topo) {
  const int radix = topo.switch_radix;
  const double r = cluster.oversubscription;
  const LeafSplit split = split_leaf(radix, r);
  const int nodes = topo.nodes;
  const int nics = cluster.nics_per_node;
  const long long ports = static_cast<long long>(nodes) * nics;
  if (nics == 1) {  // one rail: a plain fat-tree
    const FatTree tree = plain_fat_tree(cluster, topo, split);
    topo.fabric = tree;
    size_clos(tree, 1, ports, topo);
    return;
  }
  // A scalable unit = one leaf's downlinks worth of nodes, one leaf per rail per unit; the spine/core above
  // joins rails and units.
  RailOptimized rail;
  rail.rails = nics;
  rail.nodes_per_unit = split.down;
  rail.tree = clos_over_leaves(nics * ceil_div(nodes, split.down), radix, split, r);
  rail.tree.nodes_per_leaf = split.down;
  rail.tree.nodes_per_pod =
      rail.tree.tiers == 3 ? std::max(split.down, split.down * (radix / 2) / nics) : nodes;
  topo.fabric = rail;
  size_clos(rail.tree, 1, ports, topo);
}

void rail_optimized_level(const PathInputs& in, LinkPath& path) {
  const auto* rail = std::get_if<RailOptimized>(&in.topo.fabric);
  if (rail == nullptr) {
    fat_tree_path(in, std::get<FatTree>(in.topo.fabric), path);
    return;
  }
  const Topology& topo = in.topo;
  const Traffic traffic = traffic_of(in, path);
  const int rails = rails_used(in.comm, topo.gpus_per_node, topo.nics_per_node);
  const double cross_rail = (rails - 1.0) / rails;
  // Direct: a NIC's traffic stays on its rail leaf only for the same rail in the same scalable unit.
  const int unit_nodes = std::min(traffic.nodes, ceil_div(rail->nodes_per_unit, traffic.node_step));
  const double direct_leaving =
      traffic.nodes > 1 ? 1.0 - (unit_nodes - 1.0) / ((traffic.nodes - 1.0) * rails) : 0.0;
  const ScaleOutShape shape = tree_shape(rail->tree, traffic, direct_leaving);
  const ScaleOutShape rail_aligned =
      tree_shape(rail->tree, traffic, leaving_share(traffic, rail->nodes_per_unit));
  const BytesPerSecond direct = in.rank_bandwidth * shape.uniform;
  // Or cross-rail traffic relays over the scale-up domain and stays on its rail, whichever is faster.
  const BytesPerSecond via_scale_up =
      relayed(in.rank_bandwidth * rail_aligned.uniform, cross_rail, topo.scale_up.bandwidth);
  path.cross_rail_via_scale_up = via_scale_up > direct;
  set_switched_level(in, shape, std::max(direct, via_scale_up), path);
}

constexpr FabricRule kRailOptimizedRule{
    .builtin = TopologyKind::kRailOptimized,
    .traits =
        {.name = "rail-optimized",
         .description =
             "fat-tree whose leaves each join the same-index NIC of every node (one rail per GPU index)",
         .auto_oversubscriptions = {1.0}},
    .size = size_rail_optimized,
    .path = rail_optimized_level,
};

}  // namespace

std::span<const FabricRule> fabric_rules_rail_optimized() {
  return {&kRailOptimizedRule, 1};
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
