// SPDX-License-Identifier: Apache-2.0
#pragma once
// ClusterSpec: GPUs, their scale-up domain and the scale-out fabric; and where each rank lands.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/hardware.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The scale-out fabric's shape. The enumerators name the built-in fabrics; a fabric added as a file of
/// libcostmodel/src/network/fabrics/ gets the next value (topology_kinds() lists them all).
enum class TopologyKind { kFatTree, kRailOptimized, kRailOnly, kDragonflyPlus, kTorus2D, kTorus3D };
inline constexpr int kTopologyKindCount = 6;  ///< the built-in values of TopologyKind
/// Every fabric the library builds, the built-in ones first (network/fabrics/, one file each).
[[nodiscard]] std::vector<TopologyKind> topology_kinds();
/// Their names, in the same order.
[[nodiscard]] std::vector<std::string> topology_names();

/// What the rest of the library asks of a fabric, whichever it is.
struct TopologyTraits {
  std::string_view name;  ///< "fat-tree", "rail-optimized", "rail-only", "dragonfly-plus", "torus-2d", ...
  std::string_view description;  ///< one line on what it is, with its source
  bool switched = true;          ///< built of switches (radix, price, SHARP); false: direct NIC-to-NIC links
  bool routed = false;           ///< takes `routing` (minimal | adaptive) between its groups
  bool torus = false;            ///< a torus: torus libraries run buckets over it, NCCL rings
  /// Oversubscriptions `plan --topology auto` tries (auto_topologies()); 0: unused; all 0: auto skips it.
  std::array<double, 3> auto_oversubscriptions{};
};
/// The traits of `kind`.
[[nodiscard]] const TopologyTraits& traits(TopologyKind kind);
/// traits(kind).name.
[[nodiscard]] std::string_view to_string(TopologyKind kind);
/// traits(kind).description.
[[nodiscard]] std::string_view describe(TopologyKind kind);
/// The kind named `name` (as to_string spells it), or nullopt.
[[nodiscard]] std::optional<TopologyKind> parse_topology_kind(std::string_view name);

/// How a Dragonfly+ routes between groups: only over the direct global links (minimal), or also through an
/// intermediate group when the direct links are busy (adaptive: UGAL/Valiant, Kim et al. 2008 §4).
enum class Routing { kMinimal, kAdaptive };
/// Every Routing, in the order messages list them.
inline constexpr std::array kRoutings{Routing::kMinimal, Routing::kAdaptive};
/// "minimal", "adaptive".
[[nodiscard]] std::string_view to_string(Routing routing);
/// The routing named `name`, or nullopt.
[[nodiscard]] std::optional<Routing> parse_routing(std::string_view name);

/// One training cluster: every field SI; catalog entries are copied in, so the spec stands alone.
struct ClusterSpec {
  GpuSpec gpu;            ///< the GPU model (a catalog entry or one built in code)
  int gpus = 0;           ///< GPUs in the cluster (a multiple of gpus_per_node)
  int gpus_per_node = 8;  ///< GPUs per node (server)
  /// The software stack the cluster runs (a cluster file's `stack:`, data/stacks.yaml), for a training that
  /// names none; empty: kDefaultStack (resolve_stack()).
  std::string stack;
  /// The scale-up fabric when the cluster sets its own (a cluster file's `scale_up:`, a calibration);
  /// nullopt: the GPU entry's, which then follows `gpu` and `gpus_per_node` (scale_up_fabric()).
  std::optional<ScaleUpSpec> scale_up;
  TopologyKind topology = TopologyKind::kFatTree;  ///< the scale-out fabric's shape
  LinkSpec link;                                   ///< one scale-out NIC and its cable/optics
  int nics_per_node = 8;                           ///< scale-out NICs per node
  SwitchSpec switch_spec;                          ///< the scale-out switch model
  double oversubscription = 1.0;  ///< downlink : uplink bandwidth at the leaf (1 = non-blocking)
  /// NIC-to-leaf cables (`scale_out.host_cables`): false (optical, default) as NVIDIA's SuperPODs, whose
  /// leaves sit in their own racks; true: copper (DAC/ACC), the leaf in the nodes' rack within the link's
  /// copper reach (LinkSpec::copper_reach), as Meta's RoCE racks. Switch-to-switch links stay optical.
  bool copper_host_links = false;
  std::vector<int> torus_dims;  ///< torus sizes per dimension; empty = chosen from the GPU count
  /// Whether the scale-out switches' in-network reduction is in use (`scale_out.in_network: sharp`): the
  /// switch says whether it can (SwitchSpec::in_network_reduction), the cluster whether it is on. NCCL keeps
  /// CollNet/SHARP off unless NCCL_COLLNET_ENABLE=1 (src/tuning/nvls.cc, collnet.cc), so kNone by default.
  InNetworkReduction in_network = InNetworkReduction::kNone;

  /// Dragonfly+ inter-group routing; adaptive by default, as InfiniBand Dragonfly+ runs it (Shpiner et al.
  /// 2017). Other fabrics route over equal-cost paths only and ignore it.
  Routing routing = Routing::kAdaptive;

  /// Number of nodes (servers), rounded up.
  [[nodiscard]] int nodes() const { return (gpus + gpus_per_node - 1) / gpus_per_node; }
  /// The scale-up fabric in use: `scale_up` when set, else the GPU entry's, whose baseboard domain (8 GPUs or
  /// fewer, an HGX board) shrinks to the node when a node holds fewer GPUs; rack-scale domains (GB200 NVL72)
  /// span nodes by design.
  [[nodiscard]] ScaleUpSpec scale_up_fabric() const;
  /// GPUs in one scale-up domain, never more than the cluster.
  [[nodiscard]] int scale_up_domain() const;
  /// True when the scale-up fabric is the GPU entry's own (its name, or none set), whose switches the GPU's
  /// and its server's prices and power already carry (an HGX baseboard's NVSwitches, an NVL72 rack's switch
  /// trays); false when the cluster swaps in another fabric, whose switches are then bought and powered too.
  [[nodiscard]] bool scale_up_priced_with_gpu() const;
  /// The NCCL tuner plug-in that overrides NCCL's own (algorithm, protocol) choice on this cluster: the one
  /// of the link's (LinkSpec::nccl_tuners) that lists the GPU, as the plug-in picks its platform from the
  /// instance type (aws-ofi-nccl include/tuner/nccl_ofi_tuner_process_config.h); null when none does.
  [[nodiscard]] std::shared_ptr<const NcclTuner> nccl_tuner() const;
};

/// Every reason `cluster` is not a usable cluster (empty when it is).
[[nodiscard]] std::vector<std::string> validate(const ClusterSpec& cluster);

}  // namespace costmodel::inline COSTMODEL_ABI
