// SPDX-License-Identifier: Apache-2.0
#pragma once
// Writing a cluster back as a cluster file (DESIGN.md §4), e.g. after calibration.

#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/cluster.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// `cluster` as a cluster file (DESIGN.md §4) that load_cluster_file() reads back: catalog names for the
/// GPU and switch, the link inline (`name` plus line rate, latency and efficiency), scale_up explicit.
/// `comment` lines are written first, each prefixed with "# ".
[[nodiscard]] std::string cluster_yaml(const ClusterSpec& cluster,
                                       const std::vector<std::string>& comment = {});

/// The efficiencies of `gpu` as a GPU entry over its catalog entry (`name` plus `efficiency:`), which a
/// cluster file's or a runs file's `gpu:` reads as an override of the catalog's. `comment` lines first.
[[nodiscard]] std::string gpu_efficiency_yaml(const GpuSpec& gpu,
                                              const std::vector<std::string>& comment = {});

}  // namespace costmodel::inline COSTMODEL_ABI
