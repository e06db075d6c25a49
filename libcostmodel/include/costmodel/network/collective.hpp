// SPDX-License-Identifier: Apache-2.0
#pragma once
// The cost of every collective LLM training issues, per algorithm and protocol, on a LinkPath: NCCL's own
// model (src/tuning/*.cc) of a latency and a bandwidth per (algorithm, protocol), with the bandwidth each
// communicator sees on its fabric.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include "costmodel/version.hpp"

#include "costmodel/network/topology.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/collective.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Time of one collective: latency_term + bandwidth_term.
struct CommCost {
  Seconds time;                            ///< latency_term + bandwidth_term, s
  Seconds latency_term;                    ///< the (algorithm, protocol)'s latency, s
  Seconds bandwidth_term;                  ///< n / its algorithm bandwidth, s
  Algorithm algorithm = Algorithm::kRing;  ///< the one chosen when Auto was asked for
  Protocol protocol = Protocol::kSimple;   ///< the one chosen when Auto was asked for
  /// Auto took the cluster's NCCL tuner plug-in's pick (LinkPath::nccl_tuner), not NCCL's own choice.
  bool tuned = false;
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

/// Whether `algorithm` implements `collective` on `path` with `protocol` (Auto: with at least one). As NCCL:
/// tree runs AllReduce only, Broadcast and Reduce run on rings; in-network needs NVLS inside an NVLink
/// domain of more than 2 GPUs and, across domains, SHARP switches the cluster has switched on
/// (`scale_out.in_network: sharp`); nvls-tree needs NVLS and more than one domain; pat runs AllGather and
/// ReduceScatter with one GPU per node; NVLS, NVLSTree, CollNet and PAT run Simple only, point-to-point LL
/// or Simple; torus-bucket needs a torus.
[[nodiscard]] bool applicable(Collective collective, Algorithm algorithm, const LinkPath& path,
                              Protocol protocol = Protocol::kAuto);
/// Why `algorithm` (with `protocol`) does not implement `collective` on `path` of `cluster` (the rule
/// applicable() found broken, in words naming the GPU, switch or setting at fault), or "" when it does.
[[nodiscard]] std::string why_not_applicable(Collective collective, Algorithm algorithm, const LinkPath& path,
                                             const ClusterSpec& cluster, Protocol protocol = Protocol::kAuto);

/// The cost of `collective` on `n` bytes over `path` with `algorithm` and `protocol`. Auto keeps the fastest
/// applicable choice among those NCCL makes (ring, tree, in-network, nvls-tree, pat, direct for all-to-all
/// and send/recv; torus-bucket on a torus whose library runs it, library_runs_torus_bucket) and over LL,
/// LL128 and Simple, as NCCL's tuner does (src/tuning/tuning.cc ncclTuningSelectBestTuning): by NCCL's
/// pipeline model for ring and tree with LL128 or Simple under NCCL, by its classic model otherwise.
/// Allocates nothing. Throws Error (kInput) if the pair is not applicable, or n is negative.
[[nodiscard]] CommCost collective_cost(Collective collective, Algorithm algorithm, Bytes n,
                                       const LinkPath& path, Protocol protocol = Protocol::kAuto);

/// Convenience: the path of `ranks` GPUs with `stride` (one group, no concurrent groups) on `cluster`.
[[nodiscard]] CommCost collective_cost(Collective collective, Algorithm algorithm, Bytes n, int ranks,
                                       int stride, const ClusterSpec& cluster,
                                       Protocol protocol = Protocol::kAuto);

/// What one communicator's collectives cost apart from the message size, as NCCL tabulates it once per
/// communicator (src/tuning/cost_model.cc ncclTuningCostModelInit): per (collective, algorithm, protocol) a
/// latency and seconds per byte, and the Auto candidates that can ever win. A cost is then a few
/// multiply-adds.
struct CollectiveTable {
  static constexpr int kAlgorithms = kAlgorithmCount - 1;  ///< every algorithm but Auto
  static constexpr int kProtocols = kProtocolCount - 1;    ///< LL, LL128, Simple
  static constexpr int kMaxCandidates = 12;                ///< Auto's choices kept per collective

  /// One (collective, algorithm, protocol): NCCL's classic prediction latency x (n >= plateau_bytes ?
  /// plateau_factor : 1) + n x seconds_per_byte / correction(n); what launches is that with
  /// max(seconds_per_byte, channel_seconds_per_byte / the channels NCCL launches for n) and, for NVLS and
  /// NVLSTree, the loops that fill their kernel's stages (nvls_*); for a pipelined pair (pipelined()) latency
  /// + n / NCCL's pipeline model's bandwidth, which is also what Auto compares.
  struct Entry {
    double latency = -1.0;  ///< s; negative: the pair does not run on this communicator
    double seconds_per_byte = 0.0;
    double plateau_bytes = 0.0;   ///< NCCL's ring plateau: from this size on (0: never)
    double plateau_factor = 1.0;  ///< the latency's factor from plateau_bytes on
    double channel_bytes = 0.0;   ///< bytes one channel takes before NCCL adds the next (0: all always run)
    double channel_seconds_per_byte = 0.0;  ///< one launched channel (all its threads) alone
    std::uint8_t channels = 0;              ///< NCCL's channels (comm->nChannels)
    std::uint8_t thread_halvings = 0;       ///< times NCCL may halve a lone channel's threads
    std::uint8_t correction = 0;  ///< size-dependent bandwidth (NCCL treeCorrectionFactor): entries, 0 none
    /// NVLS and NVLSTree (zero for the others): each launched channel moves its share in loops of one
    /// chunk per head GPU, the chunk NCCL's for n (nvls_max_chunk_bytes halved by NCCL's ladder, the
    /// NVLSTree one when nvls_tree); a loop passes through the kernel's warp groups in turn (scatter, reduce,
    /// [network,] broadcast, gather), so the first crosses nvls_fill_loops more stages before the loops
    /// stream. What launches adds nvls_fill_loops x min(n, one loop of all channels) x seconds_per_byte.
    std::uint8_t nvls_fill_loops = 0;  ///< the kernel's stages a loop passes through, less one
    bool nvls_tree = false;            ///< NVLSTree's chunk ladder (else NVLS's)
    double nvls_loop_chunks = 0.0;  ///< chunks per loop of all channels: nvlsChannels x nHeads; 0: not NVLS
    double nvls_max_chunk_bytes = 0.0;  ///< the chunk NCCL starts from (nvlsChunkSize, NVLSTree's maximum)
    /// What NCCL launches, by its pipeline model (trees, and rings across domains, LL128 and Simple; zero
    /// for the others, which keep the classic time): `latency` (NCCL's base latency and every step's, once),
    /// then the first slice crosses every step and one slice follows per slowest step; the channels together
    /// move at most 1 / seconds_per_byte.
    struct Pipeline {
      enum class Slices : std::uint8_t { kRing, kTree };  ///< how NCCL counts a link's slices
      double first_seconds_per_byte = 0.0;  ///< the first slice: sum over steps of 1 / the step's channel bw
      double delay_seconds_per_byte = 0.0;  ///< each further slice: 1 / the slowest step's channel bw
      double seconds_per_byte = 0.0;        ///< 1 / the most the channels together move (the algbw cap)
      double nominal_chunk = 0.0;           ///< bytes: stepSize x chunkSteps (LL128: 15/16)
      double nominal_slice = 0.0;           ///< bytes: nominal_chunk / chunkSteps x sliceSteps
      int steps = 0;                        ///< ring: the steps (2(p-1) AllReduce)
      int ranks = 0;                        ///< ring: p
      std::uint8_t slices_per_chunk = 0;    ///< Simple's chunkSteps / sliceSteps; 0: a slice is a chunk
      Slices slices = Slices::kRing;
      bool ghost = false;  ///< ring AllReduce on more than 2 ranks: one slice less
    };
    Pipeline pipeline{};
    [[nodiscard]] bool pipelined() const { return pipeline.first_seconds_per_byte > 0.0; }
    [[nodiscard]] bool runs() const { return latency >= 0.0; }
  };

  std::array<Entry, static_cast<std::size_t>(kCollectiveCount* kAlgorithms* kProtocols)> entries{};
  /// Per collective: indices into `entries` Auto compares, in NCCL's tie order, dominated ones left out.
  std::array<std::array<std::uint8_t, kMaxCandidates>, kCollectiveCount> candidates{};
  std::array<std::uint8_t, kCollectiveCount> candidate_count{};
};

/// A communicator's path with its collectives' size-independent costs prepared (collective_path()).
struct CollectivePath : LinkPath {
  CollectiveTable table;
  /// Names this table (unique per collective_path() call, copies share it): collective_cost() remembers
  /// recent costs per thread under it. 0: never remembered. A prepared table is not to be modified.
  std::uint64_t memo_id = 0;
};

/// `path` with its table. Allocates nothing.
[[nodiscard]] CollectivePath collective_path(const LinkPath& path);

/// collective_cost() from the prepared table: the same numbers, without recomputing the size-independent
/// part. Allocates nothing. Throws Error (kInput) as collective_cost() on a LinkPath.
[[nodiscard]] CommCost collective_cost(Collective collective, Algorithm algorithm, Bytes n,
                                       const CollectivePath& path, Protocol protocol = Protocol::kAuto);

/// The smallest message size in [lo, hi] from which `large` is no slower than `small` (to within 1%
/// of the size), both with the fastest protocol, or nullopt if `large` is slower across the whole range or
/// faster across it all.
[[nodiscard]] std::optional<Bytes> crossover_size(Collective collective, Algorithm small, Algorithm large,
                                                  const LinkPath& path, Bytes lo = Bytes(1.0),
                                                  Bytes hi = Bytes(1099511627776.0));

}  // namespace costmodel::inline COSTMODEL_ABI
