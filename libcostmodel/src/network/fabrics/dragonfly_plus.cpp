// SPDX-License-Identifier: Apache-2.0
// dragonfly-plus: groups of leaf/spine bipartite graphs whose spines join every other group by global links
// (Shpiner et al., "Dragonfly+: Low Cost Topology for Scaling Datacenters", HiPINEB 2017), routed minimal or
// adaptive between groups (Kim et al., "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008).
#include <algorithm>
#include <string>

#include "../fabric.hpp"
#include "../topology_detail.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

void size_dragonfly(const ClusterSpec& cluster, Topology& topo) {
  const int radix = topo.switch_radix;
  const LeafSplit split = split_leaf(radix, cluster.oversubscription);
  const long long ports = static_cast<long long>(topo.nodes) * cluster.nics_per_node;
  DragonflyPlus df;
  df.radix = radix;
  df.oversubscription = cluster.oversubscription;
  df.leaf_downlinks = split.down;
  df.leaf_uplinks = split.up;
  // Shpiner et al. 2017 §3: a group is radix/2 leaves x (leaf uplinks) spines, complete bipartite; every
  // spine spends its other radix/2 ports on global links, one to each other group at full scale.
  df.leaves_per_group = radix / 2;
  df.spines_per_group = split.up;
  df.global_ports_per_group = df.spines_per_group * (radix - radix / 2);
  const long long ports_per_group = static_cast<long long>(df.leaves_per_group) * split.down;
  df.groups = ceil_div(ports, ports_per_group);
  if (df.groups - 1 > df.global_ports_per_group) {
    fabric_error("scale_out.switch", "a dragonfly+ of radix " + std::to_string(radix) + " holds at most " +
                                         std::to_string((df.global_ports_per_group + 1) * ports_per_group) +
                                         " NIC ports");
  }
  df.leaves = ceil_div(ports, split.down);
  if (df.groups == 1) {
    // One group has no global links: its spines only join its leaves, all radix ports facing down, so
    // ceil(leaves x uplinks / radix) of them suffice; a single leaf needs none.
    df.spines_per_group = df.leaves > 1 ? even_spines(df.leaves, split.up, radix) : 0;
    df.global_ports_per_group = 0;
  }
  df.nodes_per_leaf = std::max(1, split.down / cluster.nics_per_node);
  df.nodes_per_group = df.nodes_per_leaf * df.leaves_per_group;
  df.routing = cluster.routing;
  topo.fabric = df;

  Inventory& inv = topo.inventory;
  inv.tiers = df.spines_per_group > 0 ? 2 : 1;
  inv.tier_names = {"leaf", df.spines_per_group > 0 ? "spine" : "", ""};
  inv.switches_per_tier = {df.leaves, df.groups * df.spines_per_group, 0};
  inv.host_links = static_cast<int>(ports);
  inv.global_links = df.groups > 1 ? df.groups * df.global_ports_per_group / 2 : 0;
  inv.switch_links = (df.spines_per_group > 0 ? df.leaves * split.up : 0) + inv.global_links;
  // Minimal route: leaf, spine, (global link), spine, leaf.
  topo.diameter = df.groups > 1 ? 4 : (df.leaves > 1 ? 3 : 1);
  const double local = std::min<double>(ports, static_cast<double>(df.leaves) * split.up) / 2.0;
  double crossing = local;
  if (df.groups > 1) {
    const double links_per_pair = static_cast<double>(df.global_ports_per_group) / (df.groups - 1);
    // Halving the groups cuts ⌊g/2⌋·⌈g/2⌉ group pairs, each joined by links_per_pair global links.
    const long long pairs = static_cast<long long>(df.groups / 2) * ((df.groups + 1) / 2);
    crossing = std::min(local, static_cast<double>(pairs) * links_per_pair);
  }
  topo.bisection = topo.nic_line_rate * crossing;
}

// Global links, per group, for G groups spanned (Kim et al. 2008 §4; Shpiner et al. 2017 §3). Minimal
// routing uses the direct links only, lpp = global ports/(g-1) to each other group: uniform traffic over G
// groups has lpp(G-1), a permutation (group i -> i+1: ring neighbours across groups, pipeline stages) lpp.
// Adaptive routing (UGAL) also detours through an intermediate group. Every group runs the same pattern (a
// step runs all its DP, EP and PP groups at once), so a link out of this group carries its own detours and,
// as much, the detours other groups send through it: detoured traffic gets half of the links minimal
// traffic leaves, direct + (global - direct)/2; a permutation thus gets (global + lpp)/2, about half the
// global bandwidth (Valiant's worst case, Kim et al. 2008 §4.2), uniform traffic over all groups all of it.
ScaleOutShape dragonfly_shape(const DragonflyPlus& df, const Traffic& t, int nics_per_node) {
  FatTree leaf;
  leaf.tiers = df.leaves > 1 ? 2 : 1;
  leaf.leaf_uplinks = df.leaf_uplinks;
  leaf.nodes_per_leaf = df.nodes_per_leaf;
  leaf.nodes_per_pod = df.nodes_per_group;
  leaf.node_ports_per_leaf = nics_per_node;
  ScaleOutShape shape = tree_shape(leaf, t, leaving_share(t, df.nodes_per_leaf));
  if (t.span_nodes <= df.nodes_per_group || df.groups == 1) return shape;
  const int groups = std::min(df.groups, ceil_div(t.span_nodes, df.nodes_per_group));
  const double global = df.global_ports_per_group;
  const double per_pair = global / (df.groups - 1);
  const bool adaptive = df.routing == Routing::kAdaptive;
  // Minimal routes over the direct links; adaptive routing detours the rest at half efficiency.
  const auto usable = [&](double direct) { return adaptive ? (direct + global) / 2.0 : direct; };
  const double uniform_links = usable(per_pair * (groups - 1));
  const double permutation_links = usable(per_pair);
  const double node_ports = nics_per_node * t.active;
  const int crossing_nodes = std::min(t.node_step, df.nodes_per_group);
  shape.hops = 4;
  shape.neighbour = std::min(shape.neighbour, cut_share(permutation_links, crossing_nodes * node_ports));
  shape.uniform = std::min(shape.uniform, cut_share(uniform_links, df.nodes_per_group * node_ports *
                                                                       leaving_share(t, df.nodes_per_group)));
  return shape;
}

void dragonfly_level(const PathInputs& in, LinkPath& path) {
  const ScaleOutShape shape =
      dragonfly_shape(std::get<DragonflyPlus>(in.topo.fabric), traffic_of(in, path), in.topo.nics_per_node);
  set_switched_level(in, shape, in.rank_bandwidth * shape.uniform, path);
}

constexpr FabricRule kDragonflyPlusRule{
    .builtin = TopologyKind::kDragonflyPlus,
    .traits = {.name = "dragonfly-plus",
               .description =
                   "groups of leaf/spine switches with all-to-all global links between groups, routed "
                   "adaptive (default) or minimal (Shpiner et al. 2017)",
               .routed = true,
               .auto_oversubscriptions = {1.0}},
    .size = size_dragonfly,
    .path = dragonfly_level,
};

}  // namespace

std::span<const FabricRule> fabric_rules_dragonfly_plus() {
  return {&kDragonflyPlusRule, 1};
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
