// SPDX-License-Identifier: Apache-2.0
// rail-only: every rail its own Clos over the nodes' NIC k, no switch joining two rails; cross-rail traffic
// relays over the scale-up domain (Wang et al., "How to build low-cost networks for large language models
// (without sacrificing performance)", 2023).
#include <algorithm>
#include <string>

#include "../fabric.hpp"
#include "../topology_detail.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

void size_rail_only(const ClusterSpec& cluster, Topology& topo) {
  const int radix = topo.switch_radix;
  const double r = cluster.oversubscription;
  const LeafSplit split = split_leaf(radix, r);
  const int nodes = topo.nodes;
  const int nics = cluster.nics_per_node;
  RailOnly rail;
  rail.rails = nics;
  rail.rail_tree = nodes <= radix ? single_switch(radix, r)
                                  : clos_over_leaves(ceil_div(nodes, split.down), radix, split, r);
  rail.rail_tree.nodes_per_leaf = rail.rail_tree.tiers == 1 ? nodes : split.down;
  rail.rail_tree.nodes_per_pod = rail.rail_tree.tiers == 3 ? split.down * (radix / 2) : nodes;
  topo.fabric = rail;
  size_clos(rail.rail_tree, nics, static_cast<long long>(nodes) * nics, topo);
}

void rail_only_level(const PathInputs& in, LinkPath& path) {
  const auto& rail = std::get<RailOnly>(in.topo.fabric);
  const Topology& topo = in.topo;
  const Traffic traffic = traffic_of(in, path);
  const int rails = rails_used(in.comm, topo.gpus_per_node, topo.nics_per_node);
  const double cross_rail = (rails - 1.0) / rails;
  const ScaleOutShape shape =
      tree_shape(rail.rail_tree, traffic, leaving_share(traffic, rail.rail_tree.nodes_per_leaf));
  path.cross_rail_via_scale_up = rails > 1;
  set_switched_level(in, shape,
                     relayed(in.rank_bandwidth * shape.uniform, cross_rail, topo.scale_up.bandwidth), path);
}

std::string rail_only_note(const Topology& topo) {
  if (topo.nics_per_node <= 1) return {};
  return "rail-only: no network link joins two rails, so a cut between rails crosses none (bisection 0); "
         "cross-rail traffic relays over the scale-up domain";
}

constexpr FabricRule kRailOnlyRule{
    .builtin = TopologyKind::kRailOnly,
    .traits = {.name = "rail-only",
               .description =
                   "one switch network per rail and none between rails; cross-rail traffic goes over "
                   "NVLink (Wang et al. 2023)",
               .auto_oversubscriptions = {1.0}},
    .size = size_rail_only,
    .path = rail_only_level,
    .note = rail_only_note,
};

}  // namespace

std::span<const FabricRule> fabric_rules_rail_only() {
  return {&kRailOnlyRule, 1};
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
