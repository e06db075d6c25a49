// SPDX-License-Identifier: Apache-2.0
#include "costmodel/network/topology.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "costmodel/error.hpp"
#include "fabric.hpp"
#include "topology_detail.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

using detail::ceil_div;
using detail::fabric_error;

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
                     cluster.switch_spec.power, "switch"});
  lines.push_back({"NICs", link.name + " port", inv.nics, link.nic_price, link.nic_power, "nic"});
  if (inv.node_modules > 0)
    lines.push_back({"node modules", module(node_ports), inv.node_modules,
                     link.transceiver_price * node_ports, link.transceiver_power * node_ports, "optics"});
  if (inv.switch_modules > 0)
    lines.push_back({"switch modules", module(topology.ports_per_module), inv.switch_modules,
                     link.transceiver_price * topology.ports_per_module,
                     link.transceiver_power * topology.ports_per_module, "optics"});
  if (inv.optical_cables > 0)
    lines.push_back({"fibres", "optical cable", inv.optical_cables, Usd(0), Watts(0), "cable"});
  if (inv.cables > inv.optical_cables)
    lines.push_back({"copper cables", "copper cable", inv.cables - inv.optical_cables, Usd(0),
                     link.copper_power, "cable"});
  return lines;
}

Topology build_topology(const ClusterSpec& cluster) {
  if (cluster.gpus < 1) fabric_error("gpus", "must be at least 1");
  if (cluster.gpus_per_node < 1) fabric_error("gpus_per_node", "must be at least 1");
  if (cluster.nics_per_node < 1) fabric_error("scale_out.nics_per_node", "must be at least 1");
  const detail::FabricRule& rule = detail::fabric_rule(cluster.topology);
  const bool switched = rule.traits.switched;
  if (switched && cluster.switch_spec.radix < 4) fabric_error("scale_out.switch.radix", "must be at least 4");

  Topology topo;
  topo.kind = cluster.topology;
  topo.gpus = cluster.gpus;
  topo.gpus_per_node = cluster.gpus_per_node;
  topo.nodes = cluster.nodes();
  topo.nics_per_node = cluster.nics_per_node;
  topo.scale_up = size_scale_up(cluster);
  const PortMode mode = port_mode(cluster.switch_spec, cluster.link.line_rate);
  if (switched) {
    if (mode.radix < 4) fabric_error("scale_out.switch.radix", "must be at least 4");
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

  rule.size(cluster, topo);
  topo.inventory.nics = topo.nodes * cluster.nics_per_node;
  topo.inventory.scale_up_domains = ceil_div(cluster.gpus, topo.scale_up.gpus);
  price(cluster, topo.ports_per_module, topo.inventory);
  price_scale_up(cluster, topo.scale_up, topo.inventory);
  return topo;
}

}  // namespace costmodel::inline COSTMODEL_ABI
