// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to network/: what one scale-out fabric is to the rest of the library. Each file of fabrics/ is one
// fabric (or one family: torus.cpp holds torus-2d and torus-3d): its name and traits, how it is sized
// (switches, links, diameter, bisection) and the path a communicator's ranks see across it. The registry
// (fabric_registry.cpp) lists the files CMake finds there; data/topologies.yaml holds each one's entry
// (its sources). Shared Clos sizing and traffic shapes live in clos.cpp.

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include "costmodel/version.hpp"

#include "costmodel/network/topology.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

/// What link_path has worked out before the fabric's own part: the communicator, the ranks' NIC bandwidth
/// and where its ranks sit.
struct PathInputs {
  const Topology& topo;
  const Communicator& comm;
  int span_nodes = 1;             ///< nodes from the first rank's to the last rank's
  int per_domain = 1;             ///< ranks per scale-up domain (NCCL's count)
  double fewest = 1.0;            ///< the fewest ranks one touched domain holds
  double straddle = 1.0;          ///< fewest / per_domain: a straddling group's NIC share
  int sharers = 1;                ///< ranks of this and concurrent communicators on a node
  double nic_share = 1.0;         ///< NIC ports per rank
  BytesPerSecond rank_bandwidth;  ///< one rank's achievable scale-out bandwidth, host link capped
  BytesPerSecond rank_line;       ///< the same at line rate
};

/// One fabric. Built-in fabrics name their public TopologyKind; a fabric added later leaves `builtin`
/// empty and the registry numbers it after them.
struct FabricRule {
  std::optional<TopologyKind> builtin;
  TopologyTraits traits;
  /// Sizes the fabric: sets topo.fabric, topo.inventory's switches and links, diameter and bisection.
  /// build_topology() has set everything else of `topo` (port mode, NIC rates, latencies) before.
  void (*size)(const ClusterSpec& cluster, Topology& topo) = nullptr;
  /// The communicator's scale-out level (path.scale_out, which has its ranks and NCCL's masks set), and
  /// path.torus_extent / torus_dimensions or cross_rail_via_scale_up where the fabric has them.
  void (*path)(const PathInputs& in, LinkPath& path) = nullptr;
  /// A note for the topology table, or empty.
  std::string (*note)(const Topology& topo) = nullptr;
};

/// The rule of `kind`; every TopologyKind value the registry handed out has one.
[[nodiscard]] const FabricRule& fabric_rule(TopologyKind kind);

// Shared by the switched fabrics (clos.cpp).

[[noreturn]] void fabric_error(const std::string& field, const std::string& message);

/// A leaf's ports split down:up = r:1 (oversubscription r at the leaf; r = 1 is a non-blocking folded Clos).
struct LeafSplit {
  int down = 1;
  int up = 1;
};
[[nodiscard]] LeafSplit split_leaf(int radix, double oversubscription);
/// One switch holds everything: every port is a host port.
[[nodiscard]] FatTree single_switch(int radix, double oversubscription);
/// A folded Clos above `leaves` leaves: 2 or 3 tiers.
[[nodiscard]] FatTree clos_over_leaves(int leaves, int radix, LeafSplit split, double oversubscription);
/// Spines of a 2-tier Clos that take every leaf's uplinks evenly.
[[nodiscard]] int even_spines(long long leaves, int uplinks, int radix);
/// Switches and switch links of `copies` copies of `tree`, and the host links, diameter and bisection of a
/// fabric of `ports` NIC ports built of them.
void size_clos(const FatTree& tree, int copies, long long ports, Topology& topo);
/// A fat-tree over every NIC port of the cluster: one switch, or a Clos of leaves of `split`.
[[nodiscard]] FatTree plain_fat_tree(const ClusterSpec& cluster, const Topology& topo, LeafSplit split);

/// What a communicator and its concurrent groups put on the fabric, per node.
struct Traffic {
  int span_nodes = 1;   ///< nodes from the first rank's to the last rank's
  int nodes = 1;        ///< nodes holding ranks
  int node_step = 1;    ///< nodes between consecutive ranks (ring neighbours), at least 1
  double active = 1.0;  ///< share of a node's NIC ports the node's ranks drive
  int ecmp_flows = 0;   ///< flows per port and peer hashed onto uplinks (Topology::ecmp_flows); 0: none
};
[[nodiscard]] Traffic traffic_of(const PathInputs& in, const LinkPath& path);

/// Hops and the shares of a rank's bandwidth left to neighbour and to uniform traffic.
struct ScaleOutShape {
  int hops = 1;
  double neighbour = 1.0;  ///< share of the NIC rate left to ring/tree neighbour traffic
  double uniform = 1.0;    ///< share left to all-to-all (uniform) traffic
};
[[nodiscard]] double cut_share(double capacity, double load);
[[nodiscard]] double leaving_share(const Traffic& t, int block_nodes);
[[nodiscard]] ScaleOutShape tree_shape(const FatTree& tree, const Traffic& t, double uniform_leaving);
/// Distinct rails (local GPU indices) the ranks use.
[[nodiscard]] int rails_used(const Communicator& comm, int gpus_per_node, int nics_per_node);
/// Network bandwidth with a share of the bytes relayed over the scale-up domain first.
[[nodiscard]] BytesPerSecond relayed(BytesPerSecond network, double relayed_share, BytesPerSecond scale_up);
/// Sets a switched fabric's scale-out level from its shape and its all-to-all bandwidth.
/// The scale-out level of a plain fat-tree.
void fat_tree_path(const PathInputs& in, const FatTree& tree, LinkPath& path);
void set_switched_level(const PathInputs& in, const ScaleOutShape& shape, BytesPerSecond all_to_all,
                        LinkPath& path);

}  // namespace costmodel::inline COSTMODEL_ABI::detail
