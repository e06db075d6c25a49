// SPDX-License-Identifier: Apache-2.0
#include "costmodel/network/collective.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "costmodel/error.hpp"

namespace costmodel {
namespace {

// NCCL src/graph/tuning.cc baseLat, LL protocol (NCCL 2.30): Ring 6.6 us, Tree 6.8 us; the catalog's
// per-step latencies (scale_up.latency ~ hwLat NVLink LL 0.6 us) are LL-like, so the base is LL's too.
constexpr double kRingBaseLatency = 6.6e-6;
constexpr double kTreeBaseLatency = 6.8e-6;
// NCCL src/graph/tuning.cc: tree busBw = min(busBw x 0.9, maxTreeBw) -- trees reach 90% of the ring's links.
constexpr double kTreeBandwidthEfficiency = 0.9;
// NCCL src/graph/tuning.cc hwLat[NVLINK][NVLS][Simple] = 25 us, baseLat 0 (NVLS runs Simple only).
constexpr double kNvlsLatency = 25e-6;
// A bandwidth no level falls below, so an empty level never divides by zero (no NaN, ever).
constexpr double kMinBandwidth = 1e-3;

struct Terms {
  double latency = 0.0;    // s
  double bandwidth = 0.0;  // s
};

// The path as plain doubles: p ranks, L per scale-up domain, N domains.
struct Shape {
  int p = 1;
  int local = 1;
  int groups = 1;
  double up_latency = 0.0;
  double out_latency = 0.0;
  double out_far_latency = 0.0;
  double up_bw = kMinBandwidth;
  double out_bw = kMinBandwidth;
  double out_a2a_bw = kMinBandwidth;
  double up_reduction_bw = 0.0;
  double out_reduction_bw = 0.0;
  bool cross_rail = false;
};

Shape shape_of(const LinkPath& path) {
  Shape s;
  s.p = path.ranks;
  s.local = path.scale_up.ranks;
  s.groups = path.scale_out.ranks;
  s.up_latency = path.scale_up.latency.value;
  s.out_latency = path.scale_out.latency.value;
  s.out_far_latency = path.scale_out.far_latency.value;
  s.up_bw = std::max(path.scale_up.bandwidth.value, kMinBandwidth);
  s.out_bw = std::max(path.scale_out.bandwidth.value, kMinBandwidth);
  s.out_a2a_bw = std::max(path.scale_out.all_to_all_bandwidth.value, kMinBandwidth);
  s.up_reduction_bw = path.scale_up.reduction_bandwidth.value;
  s.out_reduction_bw = path.scale_out.reduction_bandwidth.value;
  s.cross_rail = path.cross_rail_via_scale_up;
  return s;
}

// ⌈log2 x⌉ and ⌊log2 x⌋ for x >= 1, without shifting past the width of int.
int ceil_log2(int x) {
  return x <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(x - 1)));
}
int floor_log2(int x) {
  return x <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(x))) - 1;
}
bool is_power_of_two(int x) {
  return x > 0 && (x & (x - 1)) == 0;
}

// Fractions of the data that cross each level in a two-level reduce-scatter: (L-1)/L inside the domain,
// then (N-1)/N of the remaining n/L across domains on every rail at once.
double two_level_rs_time(const Shape& s, double n) {
  return (s.local - 1.0) / s.local * n / s.up_bw + (s.groups - 1.0) / s.groups * (n / s.local) / s.out_bw;
}

// Ring (Thakur, Rabenseifner & Gropp 2005 §4; NCCL tuning.cc steps): nsteps = 2(p-1) for AllReduce, p-1
// otherwise, 2(N-1) resp. N-1 of them across domains; the ring's slowest edge is min(B_up, L·b_out).
Terms ring(Collective c, const Shape& s, double n) {
  const bool all_reduce = c == Collective::kAllReduce;
  const int steps = (all_reduce ? 2 : 1) * (s.p - 1);
  const int inter = (all_reduce ? 2 : 1) * (s.groups - 1);
  double bottleneck = std::numeric_limits<double>::infinity();
  if (s.local > 1) bottleneck = s.up_bw;
  if (s.groups > 1) bottleneck = std::min(bottleneck, s.local * s.out_bw);
  const double pm1 = (s.p - 1.0) / s.p;
  const double volume = all_reduce                                                  ? 2.0 * pm1 * n
                        : (c == Collective::kBroadcast || c == Collective::kReduce) ? n
                                                                                    : pm1 * n;
  return {kRingBaseLatency + (steps - inter) * s.up_latency + inter * s.out_latency, volume / bottleneck};
}

// NCCL's tree: a chain inside the node, a double binary tree across nodes (Sanders, Speck & Träff 2009);
// latency base + 2((L-1)·intra + ⌊log2 N⌋·inter) (NCCL tuning.cc). Per node and direction a DBT AllReduce
// moves 2n (n between two nodes, where each node is the other's only child: the documented 2-node case).
Terms double_binary_tree(Collective c, const Shape& s, double n) {
  const double passes = c == Collective::kAllReduce ? 2.0 : 1.0;
  const double latency =
      kTreeBaseLatency + passes * ((s.local - 1) * s.up_latency + floor_log2(s.groups) * s.out_far_latency);
  double time = 0.0;
  if (s.local > 1) time = passes * n / s.up_bw;
  if (s.groups > 1) {
    const double inter_volume = c == Collective::kAllReduce && s.groups > 2 ? 2.0 : 1.0;
    time = std::max(time, inter_volume * n / (s.local * s.out_bw));
  }
  return {latency, time / kTreeBandwidthEfficiency};
}

// Recursive halving + doubling (Rabenseifner; Thakur et al. 2005 §4.4: log2 p steps per pass; a
// non-power-of-two p adds one exchange of n per pass). AllToAll: Bruck et al. 1997, ⌈log2 p⌉ steps of n/2.
Terms halving_doubling(Collective c, const Shape& s, double n) {
  const int log_local = ceil_log2(s.local);
  const int log_groups = ceil_log2(s.groups);
  const double step_latency = log_local * s.up_latency + log_groups * s.out_far_latency;
  if (c == Collective::kAllToAll) {
    const double up_a2a = s.up_bw;
    return {kRingBaseLatency + step_latency,
            log_local * (n / 2) / up_a2a + log_groups * (n / 2) / s.out_a2a_bw};
  }
  const double passes = (c == Collective::kReduceScatter || c == Collective::kAllGather) ? 1.0 : 2.0;
  double latency = kRingBaseLatency + passes * step_latency;
  double time = passes * two_level_rs_time(s, n);
  if (!is_power_of_two(s.p)) {
    const bool across = s.groups > 1;
    latency += passes * (across ? s.out_far_latency : s.up_latency);
    time += passes * n / (across ? s.out_bw : s.up_bw);
  }
  return {latency, time};
}

// Reduce-scatter inside the domain, the collective on n/L across domains on every rail at once, all-gather
// back (NCCL "ring of rings"; Jia et al. 2018 hierarchical AllReduce). AllToAll: intra-domain shuffle, then
// one rail-aligned exchange (Rajbhandari et al. 2022, DeepSpeed-MoE hierarchical all-to-all).
Terms hierarchical(Collective c, const Shape& s, double n) {
  if (c == Collective::kAllToAll) {
    return {kRingBaseLatency + (s.local - 1) * s.up_latency + (s.groups - 1) * s.out_far_latency,
            (s.local - 1.0) / s.local * n / s.up_bw + (s.groups - 1.0) / s.groups * n / s.out_a2a_bw};
  }
  const double passes = c == Collective::kAllReduce ? 2.0 : 1.0;
  return {kRingBaseLatency + passes * ((s.local - 1) * s.up_latency + (s.groups - 1) * s.out_latency),
          passes * two_level_rs_time(s, n)};
}

// Every rank exchanges n/p with every peer at once (pairwise exchange, Thakur et al. 2005 §3: (p-1)·alpha
// + (p-1)/p·n·beta); intra- and inter-domain peers proceed concurrently. Rail-only: traffic to other nodes
// first crosses NVLink to the GPU on the destination's rail (Wang et al. 2023 §4).
Terms direct(Collective c, const Shape& s, double n) {
  if (c == Collective::kSendRecv) {
    const bool across = s.groups > 1;
    return {kRingBaseLatency + (across ? s.out_far_latency : s.up_latency),
            n / (across ? s.out_bw : s.up_bw)};
  }
  const double remote_peers = s.p - s.local;
  double latency = kRingBaseLatency + (s.local - 1) * s.up_latency + remote_peers * s.out_far_latency;
  double intra = (s.local - 1.0) / s.p * n / s.up_bw;
  const double inter = remote_peers / s.p * n / s.out_a2a_bw;
  if (s.cross_rail && remote_peers > 0) {
    intra += remote_peers / s.p * n * (s.local - 1.0) / s.local / s.up_bw;
    latency += s.up_latency;
  }
  return {latency, std::max(intra, inter)};
}

// NVLS (the NVSwitch reduces: each GPU sends and receives n once) and SHARP (the IB switches reduce n/L per
// rank), pipelined as NCCL's NVLS-tree does. NCCL tuning.cc: NVLS latency 25 us.
Terms in_network(Collective c, const Shape& s, double n) {
  if (c != Collective::kAllReduce) return {kNvlsLatency, (s.p - 1.0) / s.p * n / s.up_reduction_bw};
  const double latency =
      (s.local > 1 ? kNvlsLatency : kRingBaseLatency) + (s.groups > 1 ? 2 * s.out_far_latency : 0);
  double time = 0.0;
  if (s.local > 1) time = n / s.up_reduction_bw;
  if (s.groups > 1) time = std::max(time, n / s.local / s.out_reduction_bw);
  return {latency, time};
}

// Multi-dimensional bucket algorithm (Chan, Heimlich, Purkayastha & van de Geijn 2007 §5): one ring phase
// per torus dimension, sum (k_i - 1) steps; 2D concurrent buckets use every neighbour link of the node.
Terms torus_bucket(Collective c, const LinkPath& path, const Shape& s, double n) {
  const double passes = c == Collective::kAllReduce ? 2.0 : 1.0;
  int ring_steps = 0;
  for (int k : path.torus_extent) ring_steps += k - 1;
  const double links = 2.0 * std::max(1, path.torus_dimensions);
  const double time = (s.local - 1.0) / s.local * n / s.up_bw +
                      (s.groups - 1.0) / s.groups * (n / s.local) / (links * s.out_bw);
  return {kRingBaseLatency + passes * ((s.local - 1) * s.up_latency + ring_steps * s.out_latency),
          passes * time};
}

bool is_torus(TopologyKind kind) {
  return kind == TopologyKind::kTorus2D || kind == TopologyKind::kTorus3D;
}

Terms evaluate(Collective c, Algorithm a, const LinkPath& path, const Shape& s, double n) {
  switch (a) {
    case Algorithm::kRing:
      return ring(c, s, n);
    case Algorithm::kDoubleBinaryTree:
      return double_binary_tree(c, s, n);
    case Algorithm::kHalvingDoubling:
      return halving_doubling(c, s, n);
    case Algorithm::kHierarchical:
      return hierarchical(c, s, n);
    case Algorithm::kDirect:
      return direct(c, s, n);
    case Algorithm::kInNetwork:
      return in_network(c, s, n);
    case Algorithm::kTorusBucket:
      return torus_bucket(c, path, s, n);
    case Algorithm::kAuto:
      break;
  }
  return {};
}

// What Auto chooses from: the algorithms NCCL implements (ring, tree, NVLS/CollNet, p2p for all-to-all and
// send/recv) and, on a torus that NCCL does not drive, the bucket algorithm. Halving-doubling and
// hierarchical are evaluated only when asked for.
constexpr std::array<Algorithm, 5> kAutoCandidates{Algorithm::kRing, Algorithm::kDoubleBinaryTree,
                                                   Algorithm::kDirect, Algorithm::kInNetwork,
                                                   Algorithm::kTorusBucket};

CommCost make_cost(Terms t, Algorithm a) {
  return CommCost{Seconds(t.latency + t.bandwidth), Seconds(t.latency), Seconds(t.bandwidth), a};
}

}  // namespace

double bus_factor(Collective collective, int ranks) {
  const double n = ranks;
  switch (collective) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1.0) / n;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return (n - 1.0) / n;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

BytesPerSecond algbw(Bytes n, Seconds time) {
  return time.value > 0.0 ? BytesPerSecond(n.value / time.value) : BytesPerSecond(0.0);
}

BytesPerSecond busbw(Collective collective, Bytes n, int ranks, Seconds time) {
  return algbw(n, time) * bus_factor(collective, ranks);
}

namespace {

// Every applicability rule once: `fail(describe)` is called for the first rule `a` breaks for `c` on `path`;
// `describe` builds its words only when called, so applicable() allocates nothing (the planner's hot path)
// and why_not_applicable() says which rule.
template <class Fail>
inline bool walk_applicability(Collective c, Algorithm a, const LinkPath& path, const ClusterSpec* cluster,
                               Fail&& fail) {
  const bool up = path.scale_up.ranks > 1;
  const bool out = path.scale_out.ranks > 1;
  const auto op = [c] { return std::string(to_string(c)); };
  switch (a) {
    case Algorithm::kAuto:
      return true;
    case Algorithm::kRing:
      if (c != Collective::kAllToAll && c != Collective::kSendRecv) return true;
      return fail([&] { return "ring does not implement " + op() + " (use direct or halving-doubling)"; });
    case Algorithm::kDoubleBinaryTree:
      if (c == Collective::kAllReduce || c == Collective::kBroadcast || c == Collective::kReduce) return true;
      return fail([] { return std::string("tree implements only allreduce, broadcast and reduce"); });
    case Algorithm::kHalvingDoubling:
      if (c != Collective::kSendRecv) return true;
      return fail([&] { return "halving-doubling does not implement " + op(); });
    case Algorithm::kHierarchical:
      if (c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kAllGather ||
          c == Collective::kAllToAll) {
        return true;
      }
      return fail([] {
        return std::string("hierarchical implements only allreduce, reducescatter, allgather and alltoall");
      });
    case Algorithm::kDirect:
      if (c == Collective::kAllToAll || c == Collective::kAllGather || c == Collective::kReduceScatter ||
          c == Collective::kSendRecv) {
        return true;
      }
      return fail([] {
        return std::string("direct implements only alltoall, allgather, reducescatter and sendrecv");
      });
    case Algorithm::kInNetwork: {
      if (c != Collective::kAllReduce && c != Collective::kReduceScatter && c != Collective::kAllGather) {
        return fail([&] {
          return "in-network reduction implements allreduce (and reducescatter/allgather inside one NVLink "
                 "domain), not " +
                 op();
        });
      }
      // NVLS reduce-scatter / all-gather: inside one NVLink domain only.
      if (c != Collective::kAllReduce && out) {
        return fail([&] {
          return "in-network " + op() + " runs inside one NVLink domain only; this communicator spans " +
                 std::to_string(path.scale_out.ranks) + " domains";
        });
      }
      if (up && path.scale_up.reduction_bandwidth.value <= 0.0) {
        return fail([&] {
          return "the " + (cluster ? cluster->gpu.name + " " : std::string()) +
                 "NVLink domain has no in-network reduction (NVLS)";
        });
      }
      if (out && path.scale_out.reduction_bandwidth.value <= 0.0) {
        return fail([&] {
          if (is_torus(path.kind))
            return "a " + std::string(to_string(path.kind)) + " has no switches to reduce in";
          return "switch " + (cluster ? "'" + cluster->switch_spec.name + "' " : std::string()) +
                 "has no in-network reduction (SHARP)";
        });
      }
      if (!up && !out) {
        return fail([] { return std::string("in-network reduction is not available on this communicator"); });
      }
      return true;
    }
    case Algorithm::kTorusBucket:
      if (!is_torus(path.kind)) {
        return fail([&] {
          return "torus-bucket needs a torus-2d or torus-3d topology, this cluster is " +
                 std::string(to_string(path.kind));
        });
      }
      if (!out) {
        return fail([] {
          return std::string("torus-bucket runs across torus nodes; this communicator stays inside one node");
        });
      }
      if (c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kAllGather)
        return true;
      return fail(
          [] { return std::string("torus-bucket implements only allreduce, reducescatter and allgather"); });
  }
  return fail(
      [&] { return std::string(to_string(a)) + " does not implement " + op() + " on this communicator"; });
}

inline bool applicable_inline(Collective c, Algorithm a, const LinkPath& path) {
  return walk_applicability(c, a, path, nullptr, [](auto&&) { return false; });
}

}  // namespace

std::string why_not_applicable(Collective c, Algorithm a, const LinkPath& path, const ClusterSpec& cluster) {
  std::string reason;
  walk_applicability(c, a, path, &cluster, [&](auto&& describe) {
    reason = describe();
    return false;
  });
  return reason;
}

bool applicable(Collective c, Algorithm a, const LinkPath& path) {
  return applicable_inline(c, a, path);
}

CommCost collective_cost(Collective c, Algorithm a, Bytes n, const LinkPath& path) {
  if (!(n.value >= 0.0) || !std::isfinite(n.value)) throw Error("message size must be a finite size >= 0");
  if (path.ranks <= 1)
    return CommCost{Seconds(0.0), Seconds(0.0), Seconds(0.0), a == Algorithm::kAuto ? Algorithm::kRing : a};
  const Shape s = shape_of(path);
  if (a != Algorithm::kAuto) {
    if (!applicable(c, a, path)) {
      throw Error("algorithm '" + std::string(to_string(a)) + "' does not implement " +
                  std::string(to_string(c)) + " on this communicator");
    }
    return make_cost(evaluate(c, a, path, s, n.value), a);
  }
  // NCCL's tuner: the applicable algorithm with the smallest predicted time (enqueue.cc topoGetAlgoInfo).
  CommCost best{Seconds(std::numeric_limits<double>::infinity()), Seconds(0.0), Seconds(0.0),
                Algorithm::kRing};
  for (Algorithm candidate : kAutoCandidates) {
    if (!applicable_inline(c, candidate, path)) continue;
    const CommCost cost = make_cost(evaluate(c, candidate, path, s, n.value), candidate);
    if (cost.time < best.time) best = cost;
  }
  return best;
}

CommCost collective_cost(Collective c, Algorithm a, Bytes n, int ranks, int stride,
                         const ClusterSpec& cluster) {
  return collective_cost(c, a, n, link_path(cluster, Communicator{ranks, stride, 1}));
}

std::optional<Bytes> crossover_size(Collective c, Algorithm small, Algorithm large, const LinkPath& path,
                                    Bytes lo, Bytes hi) {
  auto large_wins = [&](double n) {
    return collective_cost(c, large, Bytes(n), path).time <= collective_cost(c, small, Bytes(n), path).time;
  };
  double below = std::max(lo.value, 1.0);
  double above = hi.value;
  if (large_wins(below) || !large_wins(above)) return std::nullopt;
  // Both times are affine in n, so they cross at most once: bisect on a log scale.
  while (above / below > 1.01) {
    const double mid = std::sqrt(below * above);
    (large_wins(mid) ? above : below) = mid;
  }
  return Bytes(above);
}

}  // namespace costmodel
