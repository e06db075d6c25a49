// SPDX-License-Identifier: Apache-2.0
// What the switched fabrics of fabrics/ share: folded-Clos sizing (Al-Fares et al. 2008) and the shares of a
// rank's bandwidth a leaf's uplinks leave to each traffic pattern.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "costmodel/error.hpp"
#include "fabric.hpp"
#include "topology_detail.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

void fabric_error(const std::string& field, const std::string& message) {
  throw Error(ErrorLocation{}, field, message);
}

LeafSplit split_leaf(int radix, double oversubscription) {
  const double r = oversubscription < 1.0 ? 1.0 : oversubscription;
  const int down = std::clamp(static_cast<int>(std::floor(radix * r / (r + 1.0))), 1, radix - 1);
  return {down, radix - down};
}

FatTree single_switch(int radix, double oversubscription) {
  FatTree tree;
  tree.tiers = 1;
  tree.radix = radix;
  tree.leaf_downlinks = radix;
  tree.leaf_uplinks = 0;
  tree.oversubscription = oversubscription;
  tree.leaves = 1;
  return tree;
}

// 2 tiers while one spine can reach every leaf (leaves <= radix), else 3 tiers of pods of radix/2 leaves,
// at most radix pods (Al-Fares et al. 2008 §3).
FatTree clos_over_leaves(int leaves, int radix, LeafSplit split, double oversubscription) {
  FatTree tree;
  tree.radix = radix;
  tree.leaf_downlinks = split.down;
  tree.leaf_uplinks = split.up;
  tree.oversubscription = oversubscription;
  tree.leaves = leaves;
  if (leaves <= radix) {
    tree.tiers = 2;
    return tree;
  }
  tree.tiers = 3;
  tree.pods = ceil_div(leaves, radix / 2);
  if (tree.pods > radix) {
    fabric_error("scale_out.switch", "a 3-tier fat-tree of radix " + std::to_string(radix) +
                                         " holds at most " +
                                         std::to_string(radix * (radix / 2) * split.down) +
                                         " NIC ports; use a larger radix or another topology");
  }
  return tree;
}

// Every leaf spreads its uplinks evenly over the spines, so that equal-cost paths carry equal load: the spine
// count divides a leaf's uplinks and a spine's radix takes leaves x uplinks/spines ports (NVIDIA DGX SuperPOD
// B300 XDR reference architecture: 32 leaves x 72 uplinks on 144-port Q3400 spines -> 18 spines of 4 links
// per leaf, where 2,304 / 144 alone would give 16).
int even_spines(long long leaves, int uplinks, int radix) {
  const int fewest = ceil_div(leaves * uplinks, radix);
  for (int spines = std::max(fewest, 1); spines < uplinks; ++spines) {
    if (uplinks % spines == 0) return spines;
  }
  return uplinks;  // one link from every leaf to each spine (leaves <= radix)
}

namespace {

// Switches per tier of one Clos: 2 tiers: radix-port spines take every leaf uplink, evenly; 3 tiers: each
// pod has one aggregation switch per leaf uplink, the core takes every aggregation uplink (Al-Fares 2008 §3:
// k pods x k/2 edge + k pods x k/2 aggregation + (k/2)^2 core).
void count_tree(const FatTree& tree, int copies, Inventory& inv) {
  inv.tiers = tree.tiers;
  inv.tier_names = {"leaf", "", ""};
  std::array<int, kMaxSwitchTiers> per_tier{tree.leaves, 0, 0};
  int switch_links = 0;
  const int leaf_uplinks_total = tree.leaves * tree.leaf_uplinks;
  if (tree.tiers >= 2) {
    inv.tier_names[1] = "spine";
    switch_links += leaf_uplinks_total;
  }
  if (tree.tiers == 2) per_tier[1] = even_spines(tree.leaves, tree.leaf_uplinks, tree.radix);
  if (tree.tiers == 3) {
    inv.tier_names[2] = "core";
    per_tier[1] = tree.pods * tree.leaf_uplinks;
    per_tier[2] = ceil_div(leaf_uplinks_total, tree.radix);
    switch_links += leaf_uplinks_total;
  }
  for (int i = 0; i < kMaxSwitchTiers; ++i) inv.switches_per_tier[i] += per_tier[i] * copies;
  inv.switch_links += switch_links * copies;
}

// The share of its port rate a flow keeps when `ports` ports' worth of traffic leaves a leaf over `uplinks`
// uplinks of the same rate, each port's traffic split into `per_port` flows. Balanced or sprayed: the cut
// (cut_share). ECMP: the busiest uplink sets the pace of a synchronous collective, so a flow gets
// per_port / E[flows on the busiest uplink] of a port (expected_busiest_uplink).
double uplink_share(const Traffic& t, double uplinks, double ports, double per_port) {
  if (t.ecmp_flows == 0 || ports <= 0.0) return cut_share(uplinks, ports);
  const int n = std::max(1, static_cast<int>(uplinks));
  return std::min(1.0, per_port / expected_busiest_uplink(ports * per_port, n));
}

}  // namespace

void size_clos(const FatTree& tree, int copies, long long ports, Topology& topo) {
  Inventory& inv = topo.inventory;
  count_tree(tree, copies, inv);
  inv.host_links = static_cast<int>(ports);
  topo.diameter = 2 * tree.tiers - 1;
  // Bisection: half the hosts' ports, limited by the leaves' uplinks above one tier. Several copies (one Clos
  // per rail): halving the rails crosses no network link at all (Wang et al. 2023: rails meet only in the
  // scale-up domain).
  const long long up_ports = static_cast<long long>(tree.leaves) * tree.leaf_uplinks * copies;
  const double crossing = tree.tiers == 1 ? ports / 2.0 : std::min<double>(ports, up_ports) / 2.0;
  topo.bisection = copies > 1 ? BytesPerSecond(0.0) : topo.nic_line_rate * crossing;
}

FatTree plain_fat_tree(const ClusterSpec& cluster, const Topology& topo, LeafSplit split) {
  const int radix = topo.switch_radix;
  const double r = cluster.oversubscription;
  const int nics = cluster.nics_per_node;
  const long long ports = static_cast<long long>(topo.nodes) * nics;
  FatTree t = ports <= radix ? single_switch(radix, r)
                             : clos_over_leaves(ceil_div(ports, split.down), radix, split, r);
  t.nodes_per_leaf = t.tiers == 1 ? topo.nodes : std::max(1, t.leaf_downlinks / nics);
  t.nodes_per_pod = t.tiers == 3 ? t.nodes_per_leaf * (radix / 2) : topo.nodes;
  t.node_ports_per_leaf = nics;
  return t;
}

Traffic traffic_of(const PathInputs& in, const LinkPath& path) {
  Traffic traffic;
  traffic.span_nodes = in.span_nodes;
  traffic.nodes = path.nodes;
  traffic.node_step = std::max(1, ceil_div(in.comm.stride, in.topo.gpus_per_node));
  traffic.active = std::min(1.0, in.sharers * in.nic_share / in.topo.nics_per_node);
  traffic.ecmp_flows = in.topo.ecmp_flows;
  return traffic;
}

// Throughput of a traffic pattern is the capacity of its most loaded channel over the load offered to it
// (Dally & Towles 2004 §3.3.1: Θ = b / γ_max); here a cut of `capacity` ports offered `load` ports' worth.
double cut_share(double capacity, double load) {
  return load <= capacity ? 1.0 : capacity / load;
}

// Of a node's traffic to the other nodes of a uniform exchange, the share bound outside its block of
// `block_nodes` nodes (leaf, group): the communicator holds min(N, ⌈block/step⌉) nodes of a block.
double leaving_share(const Traffic& t, int block_nodes) {
  if (t.nodes <= 1) return 0.0;
  const int inside = std::min(t.nodes, ceil_div(block_nodes, t.node_step));
  return static_cast<double>(t.nodes - inside) / (t.nodes - 1);
}

// A leaf's uplinks under each pattern: a ring (or tree) crosses a leaf boundary only from the last
// min(step, nodes per leaf) nodes of the leaf, while uniform traffic leaves from every node in proportion
// to the destinations outside the leaf. Every host of the leaf runs the same pattern (concurrent groups).
ScaleOutShape tree_shape(const FatTree& tree, const Traffic& t, double uniform_leaving) {
  if (tree.tiers == 1 || t.span_nodes <= tree.nodes_per_leaf) return {1, 1.0, 1.0};
  const int hops = t.span_nodes <= tree.nodes_per_pod || tree.tiers < 3 ? 3 : 5;
  const double node_ports = tree.node_ports_per_leaf * t.active;
  const double uplinks = tree.leaf_uplinks;
  const int crossing_nodes = std::min(t.node_step, tree.nodes_per_leaf);
  // A ring or tree port sends to one peer; uniform traffic to every node outside the leaf, a flow each.
  const double remote_nodes = std::max(1.0, uniform_leaving * (t.nodes - 1));
  return {hops, uplink_share(t, uplinks, crossing_nodes * node_ports, t.ecmp_flows),
          uplink_share(t, uplinks, tree.nodes_per_leaf * node_ports * uniform_leaving,
                       t.ecmp_flows * remote_nodes)};
}

// The GPUs i·stride mod gpus_per_node.
int rails_used(const Communicator& comm, int gpus_per_node, int nics_per_node) {
  const int indices = gpus_per_node / std::gcd(comm.stride, gpus_per_node);
  return std::max(1, std::min({indices, comm.ranks, nics_per_node}));
}

// Cross-rail traffic relayed through the scale-up domain to the GPU on the destination's rail, then over
// the network: the two transfers follow each other, 1/b = 1/b_net + f/b_up for a share f of relayed bytes
// (Wang et al. 2023 §5: forwarding costs all-to-all 8.2-11.2% on H100 = 0.875 x 47/369 GB/s here).
BytesPerSecond relayed(BytesPerSecond network, double relayed_share, BytesPerSecond scale_up) {
  if (relayed_share <= 0.0 || !(scale_up.value > 0.0)) return network;
  return BytesPerSecond(1.0 / (1.0 / network.value + relayed_share / scale_up.value));
}

void fat_tree_path(const PathInputs& in, const FatTree& tree, LinkPath& path) {
  const Traffic traffic = traffic_of(in, path);
  const ScaleOutShape shape = tree_shape(tree, traffic, leaving_share(traffic, tree.nodes_per_leaf));
  set_switched_level(in, shape, in.rank_bandwidth * shape.uniform, path);
}

void set_switched_level(const PathInputs& in, const ScaleOutShape& shape, BytesPerSecond all_to_all,
                        LinkPath& path) {
  LevelPath& out = path.scale_out;
  const int ranks = in.comm.ranks;
  // Uniform traffic leaves through each rank's own NICs, and a rank of the emptiest domain sends
  // (ranks - f) / ranks of it out, not (ranks - per_domain) / ranks.
  out.bandwidth = in.rank_bandwidth * (shape.neighbour * in.straddle);
  out.all_to_all_bandwidth =
      ranks > in.fewest ? all_to_all * ((ranks - in.per_domain) / (ranks - in.fewest)) : all_to_all;
  out.line_rate = in.rank_line * (shape.neighbour * in.straddle);
  out.hops = out.far_hops = shape.hops;
  out.latency = out.far_latency = in.topo.link_latency + in.topo.switch_latency * shape.hops;
  if (in.topo.sharp) out.reduction_bandwidth = out.bandwidth;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
