// SPDX-License-Identifier: Apache-2.0
#pragma once
// Closed-form alpha-beta cost of every collective LLM training issues, per algorithm, on a LinkPath.

#include <optional>
#include <string>
#include <string_view>

#include "costmodel/network/topology.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/collective.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Time of one collective under the alpha-beta model: latency_term + bandwidth_term.
struct CommCost {
  Seconds time;                            ///< latency_term + bandwidth_term, s
  Seconds latency_term;                    ///< steps x per-step latency (alpha), s
  Seconds bandwidth_term;                  ///< bytes on the slowest link / its bandwidth (n x beta), s
  Algorithm algorithm = Algorithm::kRing;  // the one chosen when Auto was asked for
};

/// Message size `n` follows nccl-tests: the whole buffer (AllGather: the gathered output, ReduceScatter:
/// the input, AllToAll: one rank's send buffer, SendRecv: the bytes sent).
///
/// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md): AllReduce 2(n-1)/n; ReduceScatter, AllGather,
/// AllToAll (n-1)/n; Broadcast, Reduce, SendRecv 1.
[[nodiscard]] double bus_factor(Collective collective, int ranks);
/// algbw = n / time (nccl-tests), B/s.
[[nodiscard]] BytesPerSecond algbw(Bytes n, Seconds time);
/// busbw = algbw x bus_factor (nccl-tests), B/s.
[[nodiscard]] BytesPerSecond busbw(Collective collective, Bytes n, int ranks, Seconds time);

/// Whether `algorithm` implements `collective` on `path` (e.g. in-network needs NVLS/SHARP on every level
/// the communicator uses; torus-bucket needs a torus). Auto is always applicable.
[[nodiscard]] bool applicable(Collective collective, Algorithm algorithm, const LinkPath& path);
/// Why `algorithm` does not implement `collective` on `path` of `cluster` (the rule applicable() found
/// broken, in words naming the GPU or switch at fault), or "" when it does.
[[nodiscard]] std::string why_not_applicable(Collective collective, Algorithm algorithm, const LinkPath& path,
                                             const ClusterSpec& cluster);

/// The cost of `collective` on `n` bytes over `path`. Auto keeps the fastest applicable algorithm among
/// those NCCL implements (ring, tree, in-network, direct; torus-bucket on a torus), as NCCL's tuner does:
/// small messages go to trees, large ones to rings or in-network reduction. Allocates nothing. Throws Error
/// (kInput) if `algorithm` is not applicable, or n is negative.
[[nodiscard]] CommCost collective_cost(Collective collective, Algorithm algorithm, Bytes n,
                                       const LinkPath& path);

/// Convenience: the path of `ranks` GPUs with `stride` (one group, no concurrent groups) on `cluster`.
[[nodiscard]] CommCost collective_cost(Collective collective, Algorithm algorithm, Bytes n, int ranks,
                                       int stride, const ClusterSpec& cluster);

/// The smallest message size in [lo, hi] from which `large` is no slower than `small` (to within 1%
/// of the size), or nullopt if `large` is slower across the whole range or faster across it all.
[[nodiscard]] std::optional<Bytes> crossover_size(Collective collective, Algorithm small, Algorithm large,
                                                  const LinkPath& path, Bytes lo = Bytes(1.0),
                                                  Bytes hi = Bytes(1099511627776.0));

}  // namespace costmodel
