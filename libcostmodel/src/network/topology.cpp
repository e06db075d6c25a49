// SPDX-License-Identifier: Apache-2.0
#include "costmodel/network/topology.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "costmodel/error.hpp"
#include "topology_detail.hpp"

namespace costmodel {
namespace {

using detail::ceil_div;

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

// NIC ports per module at the node: the GPU's typical node's (NodeSpec::nic_ports_per_module) when the
// cluster is built of it (same GPUs, link and NICs per node), else one module per port.
int nic_ports_per_module(const ClusterSpec& cluster) {
  const NodeSpec& node = cluster.gpu.node;
  const bool typical = cluster.link.name == node.link && cluster.nics_per_node == node.nics &&
                       cluster.gpus_per_node == node.gpus;
  return typical ? std::max(1, node.nic_ports_per_module) : 1;
}

// Prices and power at catalog values: switches, one NIC per port, and the pluggable modules of the optical
// links, each priced as the ports it serves (the catalog prices a port end: a twin-port module is two).
// Modules: at the nodes, one per `nic_ports_per_module` optical NIC ports of a node (DGX H100: 8 ports in
// 4 twin-port cages); in the switches, one per `ports_per_module` optical ports, the switches' ports assumed
// filled cage by cage. Fibres join two modules; host and direct links follow the link's media, and
// switch-to-switch links leave the rack: optical.
void price(const ClusterSpec& cluster, int ports_per_module, Inventory& inv) {
  inv.switches = 0;
  for (int n : inv.switches_per_tier) inv.switches += n;
  inv.cables = inv.host_links + inv.direct_links + inv.switch_links;
  // Copper host links (scale_out.host_cables): the leaf in the nodes' rack, no module at either end.
  const bool optical = is_optical(cluster.link) && !cluster.copper_host_links;
  inv.optical_cables = (optical ? inv.host_links + inv.direct_links : 0) + inv.switch_links;
  inv.optical_transceivers = 2 * inv.optical_cables;
  const long long nic_ends = optical ? inv.host_links + 2LL * inv.direct_links : 0;
  const long long switch_ends = (optical ? inv.host_links : 0) + 2LL * inv.switch_links;
  const int nodes = std::max(1, cluster.nodes());
  const int per_module = nic_ports_per_module(cluster);
  // NIC ends spread evenly over the nodes; each node fills its cages in turn.
  inv.node_modules =
      static_cast<int>(nodes * static_cast<long long>(ceil_div(ceil_div(nic_ends, nodes), per_module)));
  inv.switch_modules = static_cast<int>(ceil_div(switch_ends, ports_per_module));
  inv.optical_modules = inv.node_modules + inv.switch_modules;
  const SwitchSpec& sw = cluster.switch_spec;
  const LinkSpec& link = cluster.link;
  const double node_ports = per_module;
  const double switch_ports = ports_per_module;
  inv.capex = sw.price * inv.switches + link.nic_price * inv.nics +
              link.transceiver_price * (node_ports * inv.node_modules + switch_ports * inv.switch_modules);
  inv.power = sw.power * inv.switches + link.nic_power * inv.nics +
              link.transceiver_power * (node_ports * inv.node_modules + switch_ports * inv.switch_modules) +
              link.copper_power * (inv.cables - inv.optical_cables);
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

bool library_runs_torus_bucket(std::string_view library) {
  return library == "ICI" || library == "Neuron";
}

std::vector<BomLine> bill_of_materials(const Topology& topology, const ClusterSpec& cluster) {
  const Inventory& inv = topology.inventory;
  const LinkSpec& link = cluster.link;
  const auto module = [&](int ports) {
    return std::to_string(ports) + " x " + format_number(topology.nic_line_rate.value * 8.0 / 1e9) +
           " Gb/s module";
  };
  const int node_ports = nic_ports_per_module(cluster);
  std::vector<BomLine> lines;
  if (inv.switches > 0)
    lines.push_back({"switches", cluster.switch_spec.name, inv.switches, cluster.switch_spec.price,
                     cluster.switch_spec.power});
  lines.push_back({"NICs", link.name + " port", inv.nics, link.nic_price, link.nic_power});
  if (inv.node_modules > 0)
    lines.push_back({"node modules", module(node_ports), inv.node_modules,
                     link.transceiver_price * node_ports, link.transceiver_power * node_ports});
  if (inv.switch_modules > 0)
    lines.push_back({"switch modules", module(topology.ports_per_module), inv.switch_modules,
                     link.transceiver_price * topology.ports_per_module,
                     link.transceiver_power * topology.ports_per_module});
  if (inv.optical_cables > 0)
    lines.push_back({"fibres", "optical cable", inv.optical_cables, Usd(0), Watts(0)});
  if (inv.cables > inv.optical_cables)
    lines.push_back(
        {"copper cables", "copper cable", inv.cables - inv.optical_cables, Usd(0), link.copper_power});
  return lines;
}

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
  topo.link_nccl_protocols = cluster.link.nccl_protocols;
  topo.link_nccl_algorithms = cluster.link.nccl_algorithms;
  topo.link_nccl_devices = cluster.link.nccl_devices;
  topo.nccl_tuner = cluster.nccl_tuner();
  topo.ecmp_flows = cluster.link.multipath == Multipath::kEcmp ? cluster.link.ecmp_flows : 0;
  topo.switch_latency = switched ? cluster.switch_spec.latency : Seconds(0.0);
  topo.sharp = switched && cluster.switch_spec.in_network_reduction == InNetworkReduction::kSharp &&
               cluster.in_network == InNetworkReduction::kSharp;
  topo.host_link = cluster.gpu.host_link;
  topo.architecture = cluster.gpu.architecture;
  topo.torus_library = library_runs_torus_bucket(cluster.gpu.library);
  topo.nccl = cluster.gpu.library == "NCCL";

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

}  // namespace costmodel
