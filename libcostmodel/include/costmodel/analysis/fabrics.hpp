// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every scale-out fabric for the same GPUs, link and switch: each sized, or the reason it cannot be built at
// that size (`costmodel topology --topology all`).

#include <optional>
#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/network/topology.hpp"
#include "costmodel/spec/cluster.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One fabric of the comparison: its cluster and sized topology, or why it cannot be built.
struct FabricOption {
  TopologyKind kind = TopologyKind::kFatTree;
  std::optional<ClusterSpec> cluster;  ///< `base` with this topology
  std::optional<Topology> topology;    ///< sized; nullopt when it cannot be built
  std::string note;                    ///< why not (the field and the reason), else ""
};

/// Every TopologyKind in enum order for `base`'s GPUs, link and switch. Never throws for a fabric that cannot
/// be built: its note says why.
[[nodiscard]] std::vector<FabricOption> compare_fabrics(const ClusterSpec& base);

}  // namespace costmodel::inline COSTMODEL_ABI
