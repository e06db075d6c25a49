// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to network/: one collective algorithm per file in this folder, each with NCCL's rule for where it
// runs (`*_applies`) beside its cost (the size-independent entry it adds to a communicator's
// CollectiveTable), as NCCL keeps one algorithm per file (src/tuning/ring.cc, tree.cc, nvls.cc, pat.cc).
// common.cpp holds the communicator as NCCL's tuning model sees it (Model) and the step and protocol terms
// the algorithms share; registry.cpp the table of algorithms; collective.cpp Auto and the public functions.

#include <array>
#include <bit>
#include <string>
#include "costmodel/version.hpp"

#include "costmodel/network/collective.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/units.hpp"
#include "network/nccl_tuning.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

using Entry = CollectiveTable::Entry;

// A bandwidth no level falls below, so an empty level never divides by zero (no NaN, ever).
inline constexpr double kMinBandwidth = 1e-3;

// Protocol indices, NCCL's order (NCCL_PROTO_LL, LL128, SIMPLE).
inline constexpr int kLL = 0;
inline constexpr int kLL128 = 1;
inline constexpr int kSimple = 2;

inline bool is_torus(TopologyKind kind) {
  return traits(kind).torus;
}

// ⌈log2 x⌉ and ⌊log2 x⌋ for x >= 1, without shifting past the width of int.
inline int ceil_log2(int x) {
  return x <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(x - 1)));
}
inline int floor_log2(int x) {
  return x <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(x))) - 1;
}
inline bool is_power_of_two(int x) {
  return x > 0 && (x & (x - 1)) == 0;
}

// The communicator as NCCL's tuning model sees it, everything that does not depend on the message size:
// p ranks, L per NVLink domain, N domains (NCCL's nNodes: a multi-node NVLink domain counts as one node).
struct Model {
  int p = 1;
  int local = 1;
  int groups = 1;
  bool multi = false;
  int arch = 2;         // NCCL compCapIdx: Volta, Ampere, Hopper, Blackwell
  int nodes_index = 0;  // NCCL index2: one node, two, more
  double up_bw = kMinBandwidth;
  double pair_bw = 0.0;               // full-mesh scale-up: one link per direction; 0 when switched
  double out_bw = kMinBandwidth;      // per rank, neighbour traffic
  double out_a2a_bw = kMinBandwidth;  // per rank, all-to-all traffic
  double out_reduction_bw = 0.0;      // SHARP, per rank; 0 when off
  double nvls_efficiency = 0.0;       // NCCL nvlsEfficiency; 0 without NVLS
  double ring_busbw = kMinBandwidth;  // the ring's graph: nChannels x bw, B/s
  int channels = 1;                   // the ring and tree graphs' channels
  double channel_bw = kMinBandwidth;  // their speed each (bwIntra / bwInter), B/s
  int nvls_channels = 0;              // the NVLS graph's channels (one head GPU each)
  double nvls_bw_intra = 0.0;         // its per-channel NVLink bandwidth, B/s
  int nvls_ctas = 0;                  // the thread blocks NVLS and NVLSTree launch (comm->nvlsChannels)
  double nvls_chunk = 0.0;            // comm->nvlsChunkSize, B
  double nvls_tree_chunk = 0.0;       // comm->nvlsTreeMaxChunkSize, B
  double ll_max_bw = 0.0;             // B/s
  double up_excess = 0.0;             // s per scale-up step above NCCL's reference hardware
  double out_excess = 0.0;            // s per network step to a neighbour
  double far_excess = 0.0;            // s per network step to the farthest rank
  bool cross_rail = false;
  // Measured per-protocol constants (ProtocolCalibration): one ring step per level, s (0: NCCL's), and the
  // factor on the protocol's bandwidth of a communicator inside one domain (up) or across domains (out).
  std::array<double, nccl::kProtocols> up_step{};
  std::array<double, nccl::kProtocols> out_step{};
  std::array<double, nccl::kProtocols> up_bw_factor{1.0, 1.0, 1.0};
  std::array<double, nccl::kProtocols> out_bw_factor{1.0, 1.0, 1.0};
  int torus_ring_steps = 0;
  int torus_dimensions = 0;
  bool nccl = true;  // LinkPath::nccl
};

Model model_of(const LinkPath& path);

// The terms the algorithms share (common.cpp). NCCL's latency tables in seconds: one NVLink step (plus the
// scale-up excess), one network step (plus the network excess, twice for Simple); a measured ring step
// (calibrate) replaces both, NCCL's other rows scaled by the same ratio to its ring row.
double nvlink_hop(const Model& m, nccl::Row row, int proto);
double net_hop(const Model& m, nccl::Row row, int proto, double excess);
double base_latency(nccl::Row row, int proto);
// NCCL's ring protocol factors on a bus bandwidth (B/s); the algorithms NCCL lacks take them per level.
double ring_protocol_bw(const Model& m, double busbw, int proto);
// The ring's steps: 2(p-1) for AllReduce, p-1 for ReduceScatter and AllGather, p for Broadcast and Reduce.
int ring_steps(Collective c, int p);
Entry make_entry(double latency, double bandwidth);
// NCCL's launch on fewer channels and threads for small messages.
void launch_channels(Entry& e, bool is_ring, int proto, double channel_busbw, double algbw_per_busbw,
                     const Model& m);
// NCCL's pipeline model of what a ring or tree launches (`slices`: how NCCL counts a link's slices): its
// `steps` steps, each at NCCL's ncclTuningProtoBWFactor (LL half, LL128 120/128) of the graph channel's
// speed. e.latency and e.seconds_per_byte (the algorithm's most) must be set.
void set_pipeline(Entry& e, Collective c, int proto, Entry::Pipeline::Slices slices, int steps,
                  const Model& m);
// Whether NCCL's pipeline model prices what the (ring or tree, `proto`) launches: NCCL's own, not RCCL's or
// HCCL's (RCCL keeps NCCL's classic tuning model, ROCm/rccl src/graph/tuning.cc; HCCL publishes none; their
// published curves, tests/vendors_test.cpp, hold with it). LL stores a flag with every 8 bytes
// (src/device/prims_ll.h), so its data flows on without waiting for a slice per step: it keeps the classic
// model (and the channels launched for n).
inline bool pipelined(const Model& m, int proto) {
  return m.nccl && proto != kLL;
}
// One ring channel's bus bandwidth per protocol, B/s.
double ring_channel_busbw(const Model& m, int proto);
// Fractions of the data that cross each level in a two-level reduce-scatter: (L-1)/L inside the domain,
// then (N-1)/N of the remaining n/L across domains on every rail at once; seconds per byte of each.
struct LevelTimes {
  double up = 0.0;
  double out = 0.0;
};
LevelTimes two_level_rs(const Model& m, double up_bw, double out_bw);

// Where an applicability rule reports the one it found broken: `fail(describe)` returns false and, when
// the caller asked why (`reason`), stores describe()'s words; describe is called only then, so the
// planner's hot path allocates nothing.
struct Why {
  const ClusterSpec* cluster = nullptr;  // names the GPU, switch or setting at fault, when known
  std::string* reason = nullptr;
  template <class Describe>
  bool fail(Describe&& describe) const {
    if (reason != nullptr) *reason = describe();
    return false;
  }
  [[nodiscard]] std::string gpu() const {
    return cluster != nullptr ? cluster->gpu.name + " " : std::string();
  }
};

// One algorithm: whether it implements collective `c` on `path` (every protocol aside), and its entry for
// (c, protocol) on `m` (the caller checked the rule).
struct AlgorithmRule {
  bool (*applies)(Collective c, const LinkPath& path, const Why& why);
  Entry (*entry)(Collective c, int proto, const Model& m);
};

// Each algorithm's rule and entry, defined in its own file (ring.cpp, tree.cpp, nvls.cpp: in-network and
// nvls-tree, ...); registry.cpp indexes them by Algorithm.
extern const AlgorithmRule kRingRule;
extern const AlgorithmRule kTreeRule;
extern const AlgorithmRule kHalvingDoublingRule;
extern const AlgorithmRule kHierarchicalRule;
extern const AlgorithmRule kDirectRule;
extern const AlgorithmRule kInNetworkRule;
extern const AlgorithmRule kNvlsTreeRule;
extern const AlgorithmRule kTorusBucketRule;
extern const AlgorithmRule kPatRule;

// The rule of `a` (not Auto), registry.cpp.
const AlgorithmRule& rule_of(Algorithm a);

// The (time-independent) entry of collective `c` run by algorithm `a` with protocol `proto` on `m`, with the
// measured bandwidth factor of the level (ProtocolCalibration); the caller checks that the pair applies.
Entry evaluate(Collective c, Algorithm a, int proto, const Model& m);

}  // namespace costmodel::inline COSTMODEL_ABI::detail
