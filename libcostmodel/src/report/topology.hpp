// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel topology` prints: one fabric's inventory, capex, power, diameter and bisection, or every
// fabric side by side (analysis/fabrics.hpp).

#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/analysis/fabrics.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/spec/cluster.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One fabric in detail for people: switches per tier, links, optics, NICs, cables, capex, power, diameter,
/// bisection, titled with the cluster.
[[nodiscard]] Table topology_table(const Topology& topology, const ClusterSpec& cluster);
/// One fabric as one row of the comparison's columns (for CSV).
[[nodiscard]] Table topology_rows_table(const Topology& topology, const ClusterSpec& cluster);
/// The fabric's bill of materials (network/topology.hpp bill_of_materials()), one row per line: item, part,
/// count, unit_price_usd, price_usd, unit_power_w, power_w, kind (switch, nic, optics, cable) and total_usd
/// (= price_usd; DESIGN.md §5's name): the `bill_of_materials` of topology_json().
[[nodiscard]] Table bill_table(const Topology& topology, const ClusterSpec& cluster);
/// One fabric as the comparison row's object: topology, gpus, nodes, tiers, ..., bisection_Bps, note.
[[nodiscard]] Json topology_json(const Topology& topology, const ClusterSpec& cluster);

/// Every fabric, one row each (a fabric that cannot be built has nulls and its reason in `note`).
[[nodiscard]] Table fabrics_table(const std::vector<FabricOption>& options, const ClusterSpec& base);
/// {"gpus", "gpu", "link", "switch", "topologies": [rows as topology_json()]}.
[[nodiscard]] Json fabrics_json(const std::vector<FabricOption>& options, const ClusterSpec& base);

}  // namespace costmodel::inline COSTMODEL_ABI
