// SPDX-License-Identifier: Apache-2.0
// fat-tree: a folded Clos of leaf, spine (and core) switches over every NIC port, oversubscribed at the leaf
// only (Al-Fares et al. 2008).
#include "../fabric.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

void size_fat_tree(const ClusterSpec& cluster, Topology& topo) {
  const FatTree tree = plain_fat_tree(cluster, topo, split_leaf(topo.switch_radix, cluster.oversubscription));
  topo.fabric = tree;
  size_clos(tree, 1, static_cast<long long>(topo.nodes) * cluster.nics_per_node, topo);
}

void fat_tree_level(const PathInputs& in, LinkPath& path) {
  fat_tree_path(in, std::get<FatTree>(in.topo.fabric), path);
}

constexpr FabricRule kFatTreeRule{
    .builtin = TopologyKind::kFatTree,
    .traits = {.name = "fat-tree",
               .description =
                   "folded Clos of leaf/spine(/core) switches; full bisection unless oversubscribed",
               .auto_oversubscriptions = {1.0, 2.0, 4.0}},
    .size = size_fat_tree,
    .path = fat_tree_level,
};

}  // namespace

std::span<const FabricRule> fabric_rules_fat_tree() {
  return {&kFatTreeRule, 1};
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
