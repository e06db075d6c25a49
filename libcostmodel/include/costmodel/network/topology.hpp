// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fabrics: the scale-up domain (NVLink/NVSwitch) and the scale-out topologies; their sizing (Inventory),
// diameter and bisection, and the path a communicator of given size and stride sees at each level.

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/nccl_tuner.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

inline constexpr int kMaxSwitchTiers = 3;  ///< leaf, spine, core
inline constexpr int kMaxTorusDims = 3;    ///< torus-2d or torus-3d

/// What it takes to build the scale-out fabric. Scale-up (NVSwitch) hardware is priced with the GPU.
struct Inventory {
  std::array<std::string_view, kMaxSwitchTiers> tier_names{};  ///< "leaf", "spine", "core"; "" if unused
  std::array<int, kMaxSwitchTiers> switches_per_tier{};        ///< switches in each tier, leaf first
  int tiers = 0;                                               ///< switch tiers (0 for a switchless torus)
  int switches = 0;                                            ///< total over tiers
  int host_links = 0;                                          ///< NIC-to-switch links
  int switch_links = 0;          ///< switch-to-switch links, including dragonfly+ global links
  int global_links = 0;          ///< of switch_links: dragonfly+ links between groups
  int direct_links = 0;          ///< NIC-to-NIC links of a switchless torus
  int optical_transceivers = 0;  ///< optical port ends: one per end of every optical cable
  /// Pluggable optical modules: one per optical NIC port; on the switches one per `ports_per_module` optical
  /// ports (an NDR twin-port OSFP serves two 400G ports), so fewer than `optical_transceivers`.
  int optical_modules = 0;
  int node_modules = 0;    ///< of optical_modules: at the nodes' NICs
  int switch_modules = 0;  ///< of optical_modules: in the switches' cages
  int optical_cables = 0;  ///< of cables: fibres between two modules (the rest are copper)
  int nics = 0;
  int cables = 0;
  int scale_up_domains = 0;  ///< NVLink domains (NVL8 boards, NVL72 racks)
  Usd capex;                 ///< switches + NICs + optical modules at catalog prices (cables not priced)
  Watts power;               ///< switches + NICs + optical modules at catalog power
  /// Scale-up switches over all domains (ScaleUpSpec::switches_for); 0 for a full mesh.
  int scale_up_switches = 0;
  Usd scale_up_capex;    ///< those switches at the fabric's catalog price (not in `capex`)
  Watts scale_up_power;  ///< those switches at the fabric's catalog power (not in `power`)
};

/// The NVLink / NVSwitch (or UALink) domain; multi-node when `gpus` > GPUs per node (GB200 NVL72).
struct NvSwitchDomain {
  int gpus = 1;                        ///< GPUs in one domain
  int nodes = 1;                       ///< nodes one domain spans
  BytesPerSecond line_rate;            ///< per GPU, per direction
  BytesPerSecond bandwidth;            ///< line_rate x ScaleUpSpec::efficiency
  BytesPerSecond reduction_bandwidth;  ///< NVLS: bandwidth x NCCL's NVLS efficiency; 0 without NVLS
  Seconds latency;                     ///< one step through the NVSwitch
  /// Full mesh: one point-to-point link per direction x efficiency, the most a pair of GPUs exchanges;
  /// 0 for a switched domain (any pair gets a GPU's whole bandwidth).
  BytesPerSecond pair_bandwidth;
  BytesPerSecond pair_line_rate;  ///< the same at line rate
  ProtocolCalibration protocols;  ///< measured per-protocol constants (ScaleUpSpec::protocols)
};

/// Folded Clos with oversubscription at the leaf only; 1, 2 or 3 tiers chosen by size and radix.
struct FatTree {
  int tiers = 1;
  int radix = 0;
  int leaf_downlinks = 0;  ///< host ports per leaf
  int leaf_uplinks = 0;
  double oversubscription = 1.0;
  int leaves = 0;
  int pods = 1;            ///< 3 tiers: groups of radix/2 leaves under one set of aggregation switches
  int nodes_per_leaf = 1;  ///< nodes whose traffic stays inside one leaf (rail-aligned: one scalable unit)
  int nodes_per_pod = 1;   ///< nodes whose traffic stays below the spine/aggregation tier
  int node_ports_per_leaf = 1;  ///< NIC ports a node has on one leaf: all of them, or one on a rail leaf
};

/// NIC k of every node on rail leaf k of its scalable unit; one Clos above all rail leaves.
struct RailOptimized {
  FatTree tree;
  int rails = 1;
  int nodes_per_unit = 1;  ///< scalable unit: nodes sharing one set of rail leaves
};

/// Wang et al. 2023: one independent Clos per rail, no spine joining rails; cross-rail via NVLink only.
struct RailOnly {
  FatTree rail_tree;  ///< one rail's fabric (repeated `rails` times)
  int rails = 1;
};

/// Shpiner et al. 2017: groups of leaf/spine bipartite graphs, spines joined by global links.
struct DragonflyPlus {
  int radix = 0;
  int groups = 1;
  int leaves = 0;
  int leaves_per_group = 0;
  int spines_per_group = 0;
  int leaf_downlinks = 0;
  int leaf_uplinks = 0;
  double oversubscription = 1.0;
  int global_ports_per_group = 0;
  int nodes_per_leaf = 1;
  int nodes_per_group = 1;
  Routing routing = Routing::kAdaptive;  ///< between groups: direct global links only, or also detours
};

/// Direct k1 x k2 (x k3) torus with wrap-around; a vertex is a node, its NICs split over 2·D directions.
struct Torus {
  std::array<int, kMaxTorusDims> dims{1, 1, 1};
  int dimensions = 2;
  double ports_per_direction = 1.0;  ///< NIC ports towards one neighbour (nics_per_node / 2D)
};

/// The sizing of a fabric added as a file of network/fabrics/ whose state none of the structs above holds:
/// the file derives its own struct from this one and reads it back with dynamic_cast.
struct FabricState {
  FabricState() = default;
  FabricState(const FabricState&) = default;
  FabricState& operator=(const FabricState&) = default;
  FabricState(FabricState&&) = default;
  FabricState& operator=(FabricState&&) = default;
  virtual ~FabricState() = default;
};

/// One cluster's fabric, sized once; every query afterwards is plain arithmetic.
struct Topology {
  TopologyKind kind = TopologyKind::kFatTree;
  std::variant<FatTree, RailOptimized, RailOnly, DragonflyPlus, Torus, std::shared_ptr<const FabricState>>
      fabric;
  NvSwitchDomain scale_up;
  Inventory inventory;
  int diameter = 0;  ///< switches on the longest minimal NIC-to-NIC path; torus: link hops Σ⌊kᵢ/2⌋
  /// Per direction, at line rate: the smallest capacity of the network links (scale-out) a cut into two
  /// halves of the NICs crosses. Rail-only: 0, since a cut between rails crosses no network link (cross-rail
  /// traffic relays over the scale-up domain).
  BytesPerSecond bisection;
  int switch_radix = 0;      ///< switch ports at the port speed the fabric runs (native, or a breakout)
  int ports_per_module = 1;  ///< switch ports one pluggable module (cage) serves at that speed

  int gpus = 0;
  int gpus_per_node = 1;
  int nodes = 0;
  int nics_per_node = 1;
  BytesPerSecond nic_line_rate;  ///< per NIC port: min(link line rate, switch port rate)
  BytesPerSecond nic_bandwidth;  ///< nic_line_rate x LinkSpec::efficiency
  Seconds link_latency;
  ProtocolCalibration link_protocols;  ///< measured per-protocol constants (LinkSpec::protocols)
  NcclProtocolMask link_nccl_protocols = kAllNcclProtocols;     ///< LinkSpec::nccl_protocols
  NcclAlgorithmMask link_nccl_algorithms = kAllNcclAlgorithms;  ///< LinkSpec::nccl_algorithms
  NcclDevices link_nccl_devices = NcclDevices::kPerNic;         ///< LinkSpec::nccl_devices
  /// The tuner plug-in that overrides NCCL's choice on this cluster: the link's (LinkSpec::nccl_tuners)
  /// that lists the cluster's GPU; null: NCCL's own tuner.
  std::shared_ptr<const NcclTuner> nccl_tuner;
  /// Flows per NIC port and peer that hash onto a leaf's uplinks independently (LinkSpec::ecmp_flows under
  /// ECMP); 0: flows do not collide (balanced routing or packet spraying).
  int ecmp_flows = 0;
  Seconds switch_latency;
  bool sharp = false;  ///< switches reduce in-network (SHARP) and the cluster has it on (in_network: sharp)
  BytesPerSecond host_link;  ///< one GPU's PCIe link per direction (GpuSpec::host_link); 0: no limit
  GpuArchitecture architecture = GpuArchitecture::kHopper;  ///< the GPUs' generation
  bool torus_library = false;  ///< the collective library runs torus algorithms (library_runs_torus_bucket)
  bool nccl = true;            ///< the collective library is NCCL (its pipeline model prices rings and trees)
};

/// One line of a fabric's bill of materials: `count` of `part` at a unit price and power.
struct BomLine {
  std::string item;  ///< "switches", "NICs", "node modules", "switch modules", "fibres", "copper cables"
  std::string part;  ///< the catalog entry or what it is, e.g. "qm9700", "2 x 400 Gb/s module"
  long long count = 0;
  Usd unit_price;    ///< 0 where the catalog has no price (cables)
  Watts unit_power;  ///< 0 for passive parts
  /// What it is, as a price book names it (io/catalog.hpp load_price_book()): switch, nic, optics, cable.
  std::string kind;
  [[nodiscard]] Usd price() const { return unit_price * static_cast<double>(count); }
  [[nodiscard]] Watts power() const { return unit_power * static_cast<double>(count); }
};

/// The scale-out fabric's bill of materials: switches, NICs, pluggable modules at the nodes and in the
/// switches (each priced as the ports it serves: LinkSpec's price per port end x ports per module), fibres
/// and copper cables. Its prices and power add up to Inventory::capex and power.
[[nodiscard]] std::vector<BomLine> bill_of_materials(const Topology& topology, const ClusterSpec& cluster);

/// What the fabric's own file says of it beside its inventory (rail-only: why its bisection is 0), or empty.
[[nodiscard]] std::string fabric_note(const Topology& topology);

/// Whether collective library `library` (GpuSpec::library) runs the multi-dimensional bucket algorithm
/// over a torus: the torus libraries of TPUs (ICI: XLA's collectives over the 3D torus, Jouppi et al.
/// ISCA 2023 §2) and Trainium (Neuron's collectives over its NeuronLink torus). NCCL, RCCL and HCCL have
/// rings, trees, NVLS and PAT only (NCCL src/tuning/*.cc): on a torus they run rings over its links.
[[nodiscard]] bool library_runs_torus_bucket(std::string_view library);

/// Sizes the cluster's scale-up domain and scale-out fabric. Throws Error (kInput) when the cluster
/// cannot be built: no GPUs, no NICs, a radix below 4, more hosts than three tiers (or a dragonfly+)
/// of that radix hold, torus dimensions that do not multiply to the node count.
[[nodiscard]] Topology build_topology(const ClusterSpec& cluster);

/// Where a communicator's ranks sit: rank i is global GPU first + i·stride (TP innermost: stride 1; a DP
/// group has stride tp·cp). `concurrent_groups` communicators of the same shape, offset by one GPU each,
/// run at the same time and share the nodes' NICs (e.g. all tp·cp DP groups all-reduce together). A group
/// that does not start on a node's first GPU may straddle two nodes (tp 6 on 8-GPU nodes: GPUs 6-11).
struct Communicator {
  int ranks = 1;
  int stride = 1;
  int concurrent_groups = 1;
  int first = 0;  ///< global index of rank 0's GPU
};

/// Of the groups first = k·block + t (k >= 0, 0 <= t < group.stride) that fit the cluster, the one the
/// fabric serves worst: most scale-up domains touched while holding the fewest ranks in one of them (its
/// NICs bound a ring), then most nodes. A parallel split's groups run in lockstep, so the slowest sets the
/// pace. `block` is the GPUs one group and its stride-interleaved siblings cover (tp for TP groups, tp·cp
/// for CP groups, a pipeline stage for DP groups). Returns `group` with `first` set.
[[nodiscard]] Communicator worst_placed(const Topology& topology, Communicator group, int block);

/// One level of a communicator's path, per rank and per direction.
struct LevelPath {
  int ranks = 1;  ///< scale-up: ranks per domain (rounded up); scale-out: domains spanned
  /// Achievable, neighbour traffic (ring, tree, halving-doubling, send/recv): few flows cross a leaf's
  /// uplinks or a Dragonfly+ group's global links, so a taper binds only when they outnumber those links.
  BytesPerSecond bandwidth;
  /// Achievable when every rank sends to every other: takes a taper in proportion to the traffic that
  /// crosses it. Rail-only: includes the serialized NVLink relay of cross-rail traffic (Wang et al. 2023 §5).
  BytesPerSecond all_to_all_bandwidth;
  BytesPerSecond line_rate;            ///< `bandwidth` at line rate, the bound for busbw
  BytesPerSecond reduction_bandwidth;  ///< in-network reduction (NVLS / SHARP); 0 if unavailable
  Seconds latency;                     ///< one step to a neighbour: link + switch latency x hops
  Seconds far_latency;                 ///< one step to the farthest rank
  int hops = 0;                        ///< switches to a neighbour (torus: links)
  int far_hops = 0;                    ///< switches to the farthest rank (torus: links)
  /// Scale-up full mesh: one link per direction, the most a pair of ranks exchanges (and what a one-shot
  /// all-reduce moves its whole buffer over); 0 on a switched level.
  BytesPerSecond pair_bandwidth;
  ProtocolCalibration protocols;  ///< measured per-protocol constants of the level; empty: NCCL's
  /// NCCL's protocols over the level (LinkSpec::nccl_protocols for the scale-out network; all inside a
  /// domain).
  NcclProtocolMask nccl_protocols = kAllNcclProtocols;
  /// NCCL's algorithms over the level (LinkSpec::nccl_algorithms for the scale-out network; all inside).
  NcclAlgorithmMask nccl_algorithms = kAllNcclAlgorithms;
};

/// What a communicator sees: plain numbers, no allocation.
struct LinkPath {
  TopologyKind kind = TopologyKind::kFatTree;
  int ranks = 1;
  int ranks_per_node = 1;                                ///< NCCL's nRanks / nNodes (rounded up)
  int nodes = 1;                                         ///< nodes holding at least one rank
  LevelPath scale_up;                                    ///< used when scale_up.ranks > 1
  LevelPath scale_out;                                   ///< used when scale_out.ranks > 1
  std::array<int, kMaxTorusDims> torus_extent{1, 1, 1};  ///< torus: nodes spanned per dimension
  int torus_dimensions = 0;                              ///< torus dimensions with extent > 1
  /// Rail-only: traffic between different rails of different nodes relays through the scale-up domain
  /// first, which all-to-all pays for (Wang et al. 2023 §4).
  bool cross_rail_via_scale_up = false;
  /// One GPU-to-NIC path, per direction: min(NCCL's network device, the GPU's host link), the per-channel
  /// speed NCCL's graph search starts from (src/graph/search.cc ncclTopoCompute, maxBw); the device is a NIC,
  /// or the GPU's NICs together (LinkSpec::nccl_devices); 0 when the path stays in one domain.
  BytesPerSecond nic_path_bandwidth;
  GpuArchitecture architecture = GpuArchitecture::kHopper;  ///< selects NCCL's per-generation constants
  bool torus_library = false;  ///< Topology::torus_library: Auto may choose torus-bucket on a torus
  bool nccl = true;            ///< Topology::nccl
  std::shared_ptr<const NcclTuner> nccl_tuner;  ///< Topology::nccl_tuner
};

/// The path `comm` sees on `topology`. Throws Error (kInput) if ranks or stride < 1, or the last rank
/// lies beyond the cluster.
[[nodiscard]] LinkPath link_path(const Topology& topology, const Communicator& comm);

/// Convenience: build_topology(cluster) then link_path; no allocation.
[[nodiscard]] LinkPath link_path(const ClusterSpec& cluster, const Communicator& comm);

}  // namespace costmodel::inline COSTMODEL_ABI
