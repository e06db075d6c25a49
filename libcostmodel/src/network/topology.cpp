// SPDX-License-Identifier: Apache-2.0
#include "costmodel/network/topology.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "costmodel/error.hpp"

namespace costmodel {
namespace {

constexpr int ceil_div(long long a, long long b) {
  return static_cast<int>((a + b - 1) / b);
}

struct LeafSplit {
  int down = 1;
  int up = 1;
};

// Leaf ports split down:up = r:1 (oversubscription r at the leaf; r = 1 is a non-blocking folded Clos).
LeafSplit split_leaf(int radix, double oversubscription) {
  const double r = oversubscription < 1.0 ? 1.0 : oversubscription;
  const int down = std::clamp(static_cast<int>(std::floor(radix * r / (r + 1.0))), 1, radix - 1);
  return {down, radix - down};
}

[[noreturn]] void fail(const std::string& field, const std::string& message) {
  throw Error(ErrorLocation{}, field, message);
}

// One switch holds everything: every port is a host port.
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

// Folded Clos above `leaves` leaves: 2 tiers while one spine can reach every leaf (leaves <= radix),
// else 3 tiers of pods of radix/2 leaves, at most radix pods (Al-Fares et al. 2008 §3).
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
    fail("scale_out.switch", "a 3-tier fat-tree of radix " + std::to_string(radix) + " holds at most " +
                                 std::to_string(radix * (radix / 2) * split.down) +
                                 " NIC ports; use a larger radix or another topology");
  }
  return tree;
}

// Spines of a 2-tier Clos: every leaf spreads its uplinks evenly over the spines, so that equal-cost paths
// carry equal load: the spine count divides a leaf's uplinks and a spine's radix takes leaves x
// uplinks/spines ports (NVIDIA DGX SuperPOD B300 XDR reference architecture: 32 leaves x 72 uplinks on
// 144-port Q3400 spines -> 18 spines of 4 links per leaf, where 2,304 / 144 alone would give 16).
int even_spines(long long leaves, int uplinks, int radix) {
  const int fewest = ceil_div(leaves * uplinks, radix);
  for (int spines = std::max(fewest, 1); spines < uplinks; ++spines) {
    if (uplinks % spines == 0) return spines;
  }
  return uplinks;  // one link from every leaf to each spine (leaves <= radix)
}

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

bool is_optical(const LinkSpec& link) {
  return link.media.rfind("optical", 0) == 0;
}

// Prices and power at catalog values: switches, one NIC per port, one transceiver per optical cable end (the
// catalog prices a twin-port module per port it serves). Modules: one per optical NIC port, and on the
// switches one per `ports_per_module` optical ports, the switches' ports assumed filled cage by cage.
void price(const ClusterSpec& cluster, int ports_per_module, Inventory& inv) {
  inv.switches = 0;
  for (int n : inv.switches_per_tier) inv.switches += n;
  inv.cables = inv.host_links + inv.switch_links + inv.direct_links;
  // Host and direct links follow the link's media; switch-to-switch links leave the rack: optical.
  const bool optical = is_optical(cluster.link);
  const int optical_cables = (optical ? inv.host_links + inv.direct_links : 0) + inv.switch_links;
  inv.optical_transceivers = 2 * optical_cables;
  const long long nic_ends = optical ? inv.host_links + 2LL * inv.direct_links : 0;
  const long long switch_ends = (optical ? inv.host_links : 0) + 2LL * inv.switch_links;
  inv.optical_modules = static_cast<int>(nic_ends + ceil_div(switch_ends, ports_per_module));
  const SwitchSpec& sw = cluster.switch_spec;
  const LinkSpec& link = cluster.link;
  inv.capex =
      sw.price * inv.switches + link.nic_price * inv.nics + link.transceiver_price * inv.optical_transceivers;
  inv.power =
      sw.power * inv.switches + link.nic_power * inv.nics + link.transceiver_power * inv.optical_transceivers;
}

// The port mode a fabric of `nic`-rate NICs runs: of the switch's modes at least as fast as the NIC, the one
// with the most ports (a 51.2 Tb/s switch serves 400G NICs as 128 x 400G, not 64 x 800G: Broadcom Tomahawk 5
// BCM78900 press release, 2022); the fastest when none is, and the NIC then runs at the port's rate. Every
// port of the fabric, switch-to-switch ones included, runs that mode.
PortMode port_mode(const SwitchSpec& sw, BytesPerSecond nic) {
  const PortMode native{sw.radix, sw.port_bandwidth};
  if (!(sw.port_bandwidth.value > 0.0)) return {sw.radix, nic};  // a switch that states no port speed
  PortMode best = native;
  bool fast_enough = native.port_bandwidth >= nic;
  for (const PortMode& mode : sw.breakouts) {
    const bool fits = mode.port_bandwidth >= nic;
    const bool better = fits ? (!fast_enough || mode.radix > best.radix)
                             : (!fast_enough && mode.port_bandwidth > best.port_bandwidth);
    if (better) {
      best = mode;
      fast_enough = fits;
    }
  }
  return best;
}

NvSwitchDomain size_scale_up(const ClusterSpec& cluster) {
  NvSwitchDomain domain;
  domain.gpus = std::max(1, cluster.scale_up_domain());
  domain.nodes = std::max(1, domain.gpus / cluster.gpus_per_node);
  const ScaleUpSpec scale_up = cluster.scale_up_fabric();
  domain.line_rate = scale_up.bandwidth;
  domain.bandwidth = scale_up.bandwidth * scale_up.efficiency;
  if (scale_up.in_network_reduction) {
    domain.reduction_bandwidth = domain.bandwidth * scale_up.in_network_efficiency;
  }
  domain.latency = scale_up.latency;
  if (scale_up.topology == ScaleUpTopology::kFullMesh) {
    domain.pair_line_rate = std::min(scale_up.per_link(), scale_up.bandwidth);
    domain.pair_bandwidth = domain.pair_line_rate * scale_up.efficiency;
  }
  domain.protocols = scale_up.protocols;
  return domain;
}

// The scale-up fabric's switches over every domain, at its catalog price and power.
void price_scale_up(const ClusterSpec& cluster, const NvSwitchDomain& domain, Inventory& inv) {
  const ScaleUpSpec fabric = cluster.scale_up_fabric();
  const int full_domains = cluster.gpus / domain.gpus;
  const int rest = cluster.gpus % domain.gpus;
  inv.scale_up_switches = full_domains * fabric.switches_for(domain.gpus) + fabric.switches_for(rest);
  inv.scale_up_capex = fabric.switch_price * inv.scale_up_switches;
  inv.scale_up_power = fabric.switch_power * inv.scale_up_switches;
}

void size_tree_fabric(const ClusterSpec& cluster, Topology& topo) {
  const int radix = topo.switch_radix;
  const double r = cluster.oversubscription;
  const LeafSplit split = split_leaf(radix, r);
  const int nodes = topo.nodes;
  const int nics = cluster.nics_per_node;
  const long long ports = static_cast<long long>(nodes) * nics;
  Inventory& inv = topo.inventory;
  const FatTree* tree = nullptr;
  int copies = 1;

  if (topo.kind == TopologyKind::kFatTree || (topo.kind == TopologyKind::kRailOptimized && nics == 1)) {
    FatTree t = ports <= radix ? single_switch(radix, r)
                               : clos_over_leaves(ceil_div(ports, split.down), radix, split, r);
    t.nodes_per_leaf = t.tiers == 1 ? nodes : std::max(1, t.leaf_downlinks / nics);
    t.nodes_per_pod = t.tiers == 3 ? t.nodes_per_leaf * (radix / 2) : nodes;
    t.node_ports_per_leaf = nics;
    topo.fabric = t;
    tree = &std::get<FatTree>(topo.fabric);
  } else if (topo.kind == TopologyKind::kRailOptimized) {
    // NVIDIA DGX SuperPOD reference architecture: a scalable unit = one leaf's downlinks worth of nodes,
    // one leaf per rail per unit; the spine/core above joins rails and units.
    RailOptimized rail;
    rail.rails = nics;
    rail.nodes_per_unit = split.down;
    rail.tree = clos_over_leaves(nics * ceil_div(nodes, split.down), radix, split, r);
    rail.tree.nodes_per_leaf = split.down;
    rail.tree.nodes_per_pod =
        rail.tree.tiers == 3 ? std::max(split.down, split.down * (radix / 2) / nics) : nodes;
    topo.fabric = rail;
    tree = &std::get<RailOptimized>(topo.fabric).tree;
  } else {
    // Wang et al. 2023: every rail its own Clos over the nodes' NIC k; no switch joins two rails.
    RailOnly rail;
    rail.rails = nics;
    rail.rail_tree = nodes <= radix ? single_switch(radix, r)
                                    : clos_over_leaves(ceil_div(nodes, split.down), radix, split, r);
    rail.rail_tree.nodes_per_leaf = rail.rail_tree.tiers == 1 ? nodes : split.down;
    rail.rail_tree.nodes_per_pod = rail.rail_tree.tiers == 3 ? split.down * (radix / 2) : nodes;
    topo.fabric = rail;
    tree = &std::get<RailOnly>(topo.fabric).rail_tree;
    copies = nics;
  }

  count_tree(*tree, copies, inv);
  inv.host_links = static_cast<int>(ports);
  topo.diameter = 2 * tree->tiers - 1;
  // Bisection: half the hosts' ports, limited by the leaves' uplinks above one tier. Rail-only: halving the
  // rails crosses no network link at all (Wang et al. 2023: rails meet only in the scale-up domain).
  const long long up_ports = static_cast<long long>(tree->leaves) * tree->leaf_uplinks * copies;
  const double crossing = tree->tiers == 1 ? ports / 2.0 : std::min<double>(ports, up_ports) / 2.0;
  topo.bisection = copies > 1 ? BytesPerSecond(0.0) : topo.nic_line_rate * crossing;
}

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
    fail("scale_out.switch", "a dragonfly+ of radix " + std::to_string(radix) + " holds at most " +
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

void size_torus(const ClusterSpec& cluster, Topology& topo) {
  Torus torus;
  torus.dimensions = topo.kind == TopologyKind::kTorus2D ? 2 : 3;
  const int nics = cluster.nics_per_node;
  if (nics < 2 * torus.dimensions) {
    fail("scale_out.nics_per_node", "a " + std::to_string(torus.dimensions) + "D torus needs at least " +
                                        std::to_string(2 * torus.dimensions) +
                                        " NIC ports per node, one per neighbour");
  }
  if (cluster.torus_dims.empty()) {
    torus.dims = choose_torus_dims(topo.nodes, torus.dimensions);
  } else {
    if (static_cast<int>(cluster.torus_dims.size()) != torus.dimensions) {
      fail("scale_out.torus_dims", "needs " + std::to_string(torus.dimensions) + " sizes");
    }
    long long product = 1;
    for (int i = 0; i < torus.dimensions; ++i) {
      if (cluster.torus_dims[i] < 1) fail("scale_out.torus_dims", "sizes must be positive");
      torus.dims[i] = cluster.torus_dims[i];
      product *= cluster.torus_dims[i];
    }
    if (product != topo.nodes) {
      fail("scale_out.torus_dims", "sizes multiply to " + std::to_string(product) + ", not the " +
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

}  // namespace

Topology build_topology(const ClusterSpec& cluster) {
  if (cluster.gpus < 1) fail("gpus", "must be at least 1");
  if (cluster.gpus_per_node < 1) fail("gpus_per_node", "must be at least 1");
  if (cluster.nics_per_node < 1) fail("scale_out.nics_per_node", "must be at least 1");
  const bool switched =
      cluster.topology != TopologyKind::kTorus2D && cluster.topology != TopologyKind::kTorus3D;
  if (switched && cluster.switch_spec.radix < 4) fail("scale_out.switch.radix", "must be at least 4");

  Topology topo;
  topo.kind = cluster.topology;
  topo.gpus = cluster.gpus;
  topo.gpus_per_node = cluster.gpus_per_node;
  topo.nodes = cluster.nodes();
  topo.nics_per_node = cluster.nics_per_node;
  topo.scale_up = size_scale_up(cluster);
  const PortMode mode = port_mode(cluster.switch_spec, cluster.link.line_rate);
  if (switched) {
    if (mode.radix < 4) fail("scale_out.switch.radix", "must be at least 4");
    topo.switch_radix = mode.radix;
    const int cages = cluster.switch_spec.cages > 0 ? cluster.switch_spec.cages : cluster.switch_spec.radix;
    topo.ports_per_module = std::max(1, ceil_div(mode.radix, std::max(1, cages)));
  }
  const bool port_limited = switched && mode.port_bandwidth < cluster.link.line_rate;
  topo.nic_line_rate = port_limited ? mode.port_bandwidth : cluster.link.line_rate;
  topo.nic_bandwidth = topo.nic_line_rate * cluster.link.efficiency;
  topo.link_latency = cluster.link.latency;
  topo.link_protocols = cluster.link.protocols;
  topo.switch_latency = switched ? cluster.switch_spec.latency : Seconds(0.0);
  topo.sharp = switched && cluster.switch_spec.in_network_reduction == InNetworkReduction::kSharp &&
               cluster.in_network == InNetworkReduction::kSharp;
  topo.host_link = cluster.gpu.host_link;
  topo.architecture = cluster.gpu.architecture;

  switch (cluster.topology) {
    case TopologyKind::kFatTree:
    case TopologyKind::kRailOptimized:
    case TopologyKind::kRailOnly:
      size_tree_fabric(cluster, topo);
      break;
    case TopologyKind::kDragonflyPlus:
      size_dragonfly(cluster, topo);
      break;
    case TopologyKind::kTorus2D:
    case TopologyKind::kTorus3D:
      size_torus(cluster, topo);
      break;
  }
  topo.inventory.nics = topo.nodes * cluster.nics_per_node;
  topo.inventory.scale_up_domains = ceil_div(cluster.gpus, topo.scale_up.gpus);
  price(cluster, topo.ports_per_module, topo.inventory);
  price_scale_up(cluster, topo.scale_up, topo.inventory);
  return topo;
}

namespace {

// Ranks of the communicator inside one block of `block` consecutive GPUs (a node or a domain).
int ranks_per_block(const Communicator& comm, int block) {
  if (comm.stride >= block) return 1;
  return std::min(comm.ranks, ceil_div(block, comm.stride));
}

// What a communicator and its concurrent groups put on the fabric, per node.
struct Traffic {
  int span_nodes = 1;   ///< nodes from the first rank's to the last rank's
  int nodes = 1;        ///< nodes holding ranks
  int node_step = 1;    ///< nodes between consecutive ranks (ring neighbours), at least 1
  double active = 1.0;  ///< share of a node's NIC ports the node's ranks drive
};

struct ScaleOutShape {
  int hops = 1;
  double neighbour = 1.0;  ///< share of the NIC rate left to ring/tree neighbour traffic
  double uniform = 1.0;    ///< share left to all-to-all (uniform) traffic
};

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
  return {hops, cut_share(uplinks, crossing_nodes * node_ports),
          cut_share(uplinks, tree.nodes_per_leaf * node_ports * uniform_leaving)};
}

// Dragonfly+ global links, per group, for G groups spanned (Kim et al. 2008 §4; Shpiner et al. 2017 §3).
// Minimal routing uses the direct links only, lpp = global ports/(g-1) to each other group: uniform traffic
// over G groups has lpp(G-1), a permutation (group i -> i+1: ring neighbours across groups, pipeline
// stages) lpp. Adaptive routing (UGAL) also detours through an intermediate group. Every group runs the same
// pattern (a step runs all its DP, EP and PP groups at once), so a link out of this group carries its own
// detours and, as much, the detours other groups send through it: detoured traffic gets half of the links
// minimal traffic leaves, direct + (global - direct)/2; a permutation thus gets (global + lpp)/2, about half
// the global bandwidth (Valiant's worst case, Kim et al. 2008 §4.2), uniform traffic over all groups all of
// it.
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

// Distinct rails (local GPU indices) the ranks use: the GPUs i·stride mod gpus_per_node.
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

}  // namespace

LinkPath link_path(const Topology& topo, const Communicator& comm) {
  if (comm.ranks < 1 || comm.stride < 1 || comm.concurrent_groups < 1) {
    throw Error("communicator: ranks, stride and concurrent groups must be at least 1");
  }
  const long long last_gpu = static_cast<long long>(comm.ranks - 1) * comm.stride;
  if (last_gpu >= topo.gpus) {
    throw Error("communicator of " + std::to_string(comm.ranks) + " ranks with stride " +
                std::to_string(comm.stride) + " needs GPU " + std::to_string(last_gpu) + " of a " +
                std::to_string(topo.gpus) + "-GPU cluster");
  }
  LinkPath path;
  path.kind = topo.kind;
  path.architecture = topo.architecture;
  path.ranks = comm.ranks;
  path.ranks_per_node = ranks_per_block(comm, topo.gpus_per_node);
  path.nodes = ceil_div(comm.ranks, path.ranks_per_node);
  const int per_domain = ranks_per_block(comm, topo.scale_up.gpus);
  const int span_nodes = static_cast<int>(last_gpu / topo.gpus_per_node) + 1;

  LevelPath& up = path.scale_up;
  up.ranks = per_domain;
  if (per_domain > 1) {
    up.bandwidth = topo.scale_up.bandwidth;
    up.all_to_all_bandwidth = topo.scale_up.bandwidth;
    up.line_rate = topo.scale_up.line_rate;
    up.reduction_bandwidth = topo.scale_up.reduction_bandwidth;
    up.latency = up.far_latency = topo.scale_up.latency;
    up.hops = up.far_hops = 1;
    if (topo.scale_up.pair_bandwidth.value > 0.0) {
      // A full mesh gives a rank one link to each peer: a communicator of L ranks drives L-1 of the GPU's
      // links, its rings one link each (RCCL builds as many rings as there are peer links, and 8 x MI300X
      // reach 317 of 7 x 64 = 448 GB/s all-reduce busbw only with all 7: Azure ND MI300X v5 rccl-tests).
      const double peers = per_domain - 1.0;
      up.bandwidth = std::min(up.bandwidth, topo.scale_up.pair_bandwidth * peers);
      up.all_to_all_bandwidth = up.bandwidth;
      up.line_rate = std::min(up.line_rate, topo.scale_up.pair_line_rate * peers);
      up.pair_bandwidth = topo.scale_up.pair_bandwidth;
      up.hops = up.far_hops = 0;  // no switch between a pair
    }
    up.protocols = topo.scale_up.protocols;
  }

  LevelPath& out = path.scale_out;
  out.ranks = ceil_div(comm.ranks, per_domain);
  if (out.ranks == 1) return path;
  out.protocols = topo.link_protocols;

  // The node's NICs are shared by its ranks of this and of the concurrent communicators.
  const int sharers = std::min(topo.gpus_per_node, path.ranks_per_node * comm.concurrent_groups);
  // A rank drives at most its own NICs (nics / GPUs per node, rounded up), even when it is alone on its node:
  // NCCL's rings leave through the NIC nearest each GPU (PXN only re-routes between rails).
  const double own_nics = std::ceil(static_cast<double>(topo.nics_per_node) / topo.gpus_per_node);
  const double nic_share = std::min(static_cast<double>(topo.nics_per_node) / sharers, own_nics);
  // Whatever its NIC share, a GPU reaches its NICs through its own PCIe link (NCCL's GPU-to-NIC path
  // bandwidth is the smallest link on it, src/graph/topo.cc / paths.cc).
  const auto host_capped = [&](BytesPerSecond b) {
    return topo.host_link.value > 0.0 ? std::min(b, topo.host_link) : b;
  };
  const BytesPerSecond rank_bandwidth = host_capped(topo.nic_bandwidth * nic_share);
  const BytesPerSecond rank_line = host_capped(topo.nic_line_rate * nic_share);
  path.nic_path_bandwidth = host_capped(topo.nic_bandwidth);

  if (const auto* torus = std::get_if<Torus>(&topo.fabric)) {
    // Ranks fill dimension 0 first; rings and buckets talk to neighbours only (Chan et al. 2007 §3).
    const auto& dims = torus->dims;
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
    const double per_neighbour = torus->ports_per_direction;
    out.bandwidth = rank_bandwidth * (per_neighbour / topo.nics_per_node);
    out.line_rate = rank_line * (per_neighbour / topo.nics_per_node);
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
    const BytesPerSecond bisection_share = bisection * (4.0 / (static_cast<double>(span_nodes) * sharers));
    out.all_to_all_bandwidth = std::min(injection, bisection_share);
    return path;
  }

  Traffic traffic;
  traffic.span_nodes = span_nodes;
  traffic.nodes = path.nodes;
  traffic.node_step = std::max(1, ceil_div(comm.stride, topo.gpus_per_node));
  traffic.active = std::min(1.0, sharers * nic_share / topo.nics_per_node);
  // Uniform traffic between different rails of different nodes: on rail-only it must relay through the
  // scale-up domain (no switch joins two rails); rail-optimized may relay too when that keeps it below a
  // tapered leaf, or cross the spine, whichever is faster.
  const int rails = rails_used(comm, topo.gpus_per_node, topo.nics_per_node);
  const double cross_rail = (rails - 1.0) / rails;
  ScaleOutShape shape;
  BytesPerSecond all_to_all;
  if (const auto* tree = std::get_if<FatTree>(&topo.fabric)) {
    shape = tree_shape(*tree, traffic, leaving_share(traffic, tree->nodes_per_leaf));
    all_to_all = rank_bandwidth * shape.uniform;
  } else if (const auto* rail = std::get_if<RailOptimized>(&topo.fabric)) {
    // Direct: a NIC's traffic stays on its rail leaf only for the same rail in the same scalable unit.
    const int unit_nodes = std::min(traffic.nodes, ceil_div(rail->nodes_per_unit, traffic.node_step));
    const double direct_leaving =
        traffic.nodes > 1 ? 1.0 - (unit_nodes - 1.0) / ((traffic.nodes - 1.0) * rails) : 0.0;
    shape = tree_shape(rail->tree, traffic, direct_leaving);
    const ScaleOutShape rail_aligned =
        tree_shape(rail->tree, traffic, leaving_share(traffic, rail->nodes_per_unit));
    const BytesPerSecond direct = rank_bandwidth * shape.uniform;
    const BytesPerSecond via_scale_up =
        relayed(rank_bandwidth * rail_aligned.uniform, cross_rail, topo.scale_up.bandwidth);
    path.cross_rail_via_scale_up = via_scale_up > direct;
    all_to_all = std::max(direct, via_scale_up);
  } else if (const auto* rail_only = std::get_if<RailOnly>(&topo.fabric)) {
    shape = tree_shape(rail_only->rail_tree, traffic,
                       leaving_share(traffic, rail_only->rail_tree.nodes_per_leaf));
    path.cross_rail_via_scale_up = rails > 1;
    all_to_all = relayed(rank_bandwidth * shape.uniform, cross_rail, topo.scale_up.bandwidth);
  } else if (const auto* df = std::get_if<DragonflyPlus>(&topo.fabric)) {
    shape = dragonfly_shape(*df, traffic, topo.nics_per_node);
    all_to_all = rank_bandwidth * shape.uniform;
  }
  out.bandwidth = rank_bandwidth * shape.neighbour;
  out.all_to_all_bandwidth = all_to_all;
  out.line_rate = rank_line * shape.neighbour;
  out.hops = out.far_hops = shape.hops;
  out.latency = out.far_latency = topo.link_latency + topo.switch_latency * shape.hops;
  if (topo.sharp) out.reduction_bandwidth = out.bandwidth;
  return path;
}

LinkPath link_path(const ClusterSpec& cluster, const Communicator& comm) {
  return link_path(build_topology(cluster), comm);
}

}  // namespace costmodel
