// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel collective` prints: nccl-tests' columns (size, count, time_us, algbw_GBps, busbw_GBps)
// plus the algorithm chosen and the latency and bandwidth terms, so it lies beside real nccl-tests output.

#include "analysis/collective_sweep.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One row per size, titled with the communicator and its path, the ring/tree crossover and the
/// nccl-tests conventions below.
[[nodiscard]] Table collective_table(const CollectiveSweep& sweep, const ClusterSpec& cluster);

/// {"op", "algo", "ranks", "stride", "nodes", "topology", "ring_tree_crossover_bytes", "rows": [...]}.
[[nodiscard]] Json collective_json(const CollectiveSweep& sweep, const ClusterSpec& cluster);

}  // namespace costmodel::inline COSTMODEL_ABI
