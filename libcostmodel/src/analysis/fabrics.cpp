// SPDX-License-Identifier: Apache-2.0
#include "costmodel/analysis/fabrics.hpp"

#include "costmodel/error.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::vector<FabricOption> compare_fabrics(const ClusterSpec& base) {
  std::vector<FabricOption> options;
  for (const TopologyKind kind : topology_kinds()) {
    FabricOption option;
    option.kind = kind;
    ClusterSpec cluster = base;
    cluster.topology = option.kind;
    if (const auto reasons = validate(cluster); !reasons.empty()) {
      option.note = reasons.front();
      options.push_back(std::move(option));
      continue;
    }
    try {
      option.topology = build_topology(cluster);
      option.cluster = std::move(cluster);
    } catch (const Error& error) {
      if (error.kind() == ErrorKind::kInternal) throw;
      option.note = error.field().empty() ? error.message() : error.field() + ": " + error.message();
      if (!error.hint().empty()) option.note += "; " + error.hint();
    }
    options.push_back(std::move(option));
  }
  return options;
}

}  // namespace costmodel::inline COSTMODEL_ABI
