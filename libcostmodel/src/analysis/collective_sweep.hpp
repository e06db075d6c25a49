// SPDX-License-Identifier: Apache-2.0
#pragma once
// One collective over a sweep of message sizes (`costmodel collective`, nccl-tests' -b/-e/-f): time, algbw
// and busbw per size on one communicator, and where the ring overtakes the tree.

#include <optional>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One message size of the sweep.
struct CollectivePoint {
  Bytes size;            ///< nccl-tests' message size, whole bytes
  CommCost cost;         ///< time, its latency and bandwidth terms, the algorithm chosen
  BytesPerSecond algbw;  ///< size / time
  BytesPerSecond busbw;  ///< algbw x bus_factor (nccl-tests)
};

/// The sweep of one collective on one communicator.
struct CollectiveSweep {
  Collective collective = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kAuto;  ///< as asked for (each point says what Auto chose)
  Protocol protocol = Protocol::kAuto;     ///< as asked for (each point says what Auto chose)
  int ranks = 0;
  int stride = 1;
  int first = 0;  ///< GPU of rank 0
  LinkPath path;  ///< what the communicator sees
  std::vector<CollectivePoint> points;
  /// The smallest size from which the ring is no slower than the tree (both applicable), else nullopt.
  std::optional<Bytes> ring_tree_crossover;
  /// AllReduce with a tree but no crossover between 1 B and 1 TiB: true when the ring is never slower.
  std::optional<bool> ring_always_wins;
};

/// min, min·f, min·f², ... up to max (nccl-tests' -b/-e/-f), rounded to whole bytes, without repeats.
/// Throws Error (kInput) for min < 1 B, min > max, f <= 1 or more than `max_sizes` sizes.
[[nodiscard]] std::vector<Bytes> message_sizes(Bytes min, Bytes max, double factor, int max_sizes = 10000);

/// `collective` with `algorithm` and `protocol` at each size on `ranks` GPUs `stride` apart on `cluster`,
/// rank 0 on GPU `first`. Throws Error (kInput) when the communicator does not fit the cluster or the
/// algorithm or protocol does not apply (with why; field "algorithm").
[[nodiscard]] CollectiveSweep sweep_collective(const ClusterSpec& cluster, Collective collective,
                                               Algorithm algorithm, int ranks, int stride,
                                               const std::vector<Bytes>& sizes,
                                               Protocol protocol = Protocol::kAuto, int first = 0);

}  // namespace costmodel::inline COSTMODEL_ABI
