// SPDX-License-Identifier: Apache-2.0
#include "costmodel/network/collective.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "costmodel/error.hpp"
#include "network/algorithms/algorithm.hpp"
#include "network/nccl_tuner.hpp"
#include "network/nccl_tuning.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

using detail::evaluate;
using detail::kLL;
using detail::kLL128;
using detail::kSimple;
using detail::Model;
using detail::model_of;

using detail::Entry;

// The protocols each algorithm runs: NVLS, NVLSTree, CollNet and PAT Simple only (cost_model.cc modelMap),
// point-to-point LL or Simple (src/enqueue.cc p2p protocol choice), every other all three.
bool runs_protocol(Algorithm a, int proto) {
  if (a == Algorithm::kInNetwork || a == Algorithm::kNvlsTree || a == Algorithm::kPat)
    return proto == kSimple;
  if (a == Algorithm::kDirect) return proto != kLL128;
  return true;
}

// Whether the communicator's network lets NCCL run `proto`: a net plugin or the vendor's NCCL environment
// restricts the protocols over it (LinkSpec::nccl_protocols, NCCL_PROTO: e.g. aws-ofi-nccl sets Simple when
// EFA cannot deliver 128-byte writes in order, src/platform-aws.cpp platform_config_endpoint; Google's
// GPUDirect-TCPXO profile runs Simple). NCCL_PROTO applies to the whole communicator
// (src/graph/tuning.cc ncclTopoTuneModel, protoEnable), so only one that spans domains is restricted.
bool network_runs(const LinkPath& path, int proto) {
  return path.scale_out.ranks <= 1 || ((path.scale_out.nccl_protocols >> proto) & 1U) != 0;
}

// What Auto chooses from, in NCCL's order for ties (tree, ring, CollNet, NVLS, NVLSTree, PAT): the
// algorithms NCCL implements (ring, tree, NVLS/CollNet, NVLSTree, PAT, p2p for all-to-all and send/recv) and,
// when the cluster's library is a torus library (library_runs_torus_bucket), the bucket algorithm. NCCL,
// RCCL and HCCL on a torus run rings over its links. Halving-doubling, hierarchical and (with NCCL)
// torus-bucket run only when asked for.
constexpr std::array<Algorithm, 7> kAutoCandidates{
    Algorithm::kDoubleBinaryTree, Algorithm::kRing, Algorithm::kInNetwork,
    Algorithm::kNvlsTree,         Algorithm::kPat,  Algorithm::kDirect,
    Algorithm::kTorusBucket};

// Whether Auto may choose `a` for `c`. NCCL runs point-to-point (direct) only for the collectives built
// from grouped sends and receives, all-to-all and send/recv; its all-gather and reduce-scatter are ring,
// NVLS, CollNet or PAT (src/device/all_gather.h and reduce_scatter.h: RunWorkColl per NCCL_ALGO_*).
// `--algo direct` still runs them point to point.
// Across nodes, only the algorithms the network's NCCL environment enables (LinkSpec::nccl_algorithms,
// NCCL_ALGO: e.g. Google's GPUDirect-TCPXO profile sets Ring,Tree); NCCL_ALGO does not restrict p2p.
constexpr bool network_enables(Algorithm a, const LinkPath& path) {
  if (path.scale_out.ranks <= 1) return true;
  const auto on = [&](int i) { return ((path.scale_out.nccl_algorithms >> i) & 1U) != 0; };
  switch (a) {
    case Algorithm::kRing:
      return on(0);
    case Algorithm::kDoubleBinaryTree:
      return on(1);
    case Algorithm::kInNetwork:
      return on(2) || on(3);
    case Algorithm::kNvlsTree:
      return on(4);
    case Algorithm::kPat:
      return on(5);
    default:
      return true;
  }
}

constexpr bool auto_offers(Collective c, Algorithm a, const LinkPath& path) {
  if (a == Algorithm::kTorusBucket) return path.torus_library;
  if (!network_enables(a, path)) return false;
  return a != Algorithm::kDirect || (c != Collective::kAllGather && c != Collective::kReduceScatter);
}

// `visit` on each algorithm Auto may choose for `c` on `path`, in kAutoCandidates' order.
template <typename Visit>
void for_each_auto_candidate(Collective c, const LinkPath& path, Visit&& visit) {
  for (Algorithm a : kAutoCandidates)
    if (auto_offers(c, a, path)) visit(a);
}

// NCCL's treeCorrectionFactor for `n` bytes: index ⌊log2(n / 64)⌋ (tree.cc, nvls.cc), 1 past the table.
double correction(int proto, int entries, double n) {
  if (entries == 0 || n < 64.0) return 1.0;
  const auto chunks = static_cast<unsigned long long>(n / 64.0);
  const int index = static_cast<int>(std::bit_width(chunks)) - 1;
  if (index >= entries) return 1.0;
  return nccl::kTreeCorrection[static_cast<std::size_t>(proto)][static_cast<std::size_t>(index)];
}

// The channels and threads NCCL launches for a message of `n` bytes (NVIDIA/nccl
// @147bc25a6c3e3565a96d8e5393875a3d042cbe0a src/tuning/tuning_general.cc ncclTuningGetChannels;
// @01e6dd915fdd2627a7205f5aa1c7f14d46990226 src/enqueue.cc topoGetAlgoInfo, the same loop): NCCL drops a
// channel while n < nChannels x nThreads x threadThreshold, then halves a lone channel's threads while
// n < nThreads x threadThreshold and nThreads is a multiple of 128.
struct Launched {
  double channels = 1.0;  // channels NCCL launches for n
  double threads = 1.0;   // the share of a lone channel's threads it keeps
};
inline Launched launch_of(const Entry& e, double n) {
  Launched l;
  if (e.channels == 0) return l;
  l.channels = std::clamp(std::floor(n / e.channel_bytes), 1.0, static_cast<double>(e.channels));
  for (int h = 0; h < e.thread_halvings && n < l.channels * l.threads * e.channel_bytes; ++h)
    l.threads *= 0.5;
  return l;
}

// Seconds per byte on them: a launched channel (one thread block) moves at most its graph channel's speed, in
// proportion to its threads; together they move at most the whole (NCCL's pipeline model: nChannels x
// per-channel bandwidth capped by the graph's, @623aa02926e4bbc2a4651d543e6ec131d18c80aa
// src/tuning/pipeline_model/pipeline_model.cc).
inline double launched_seconds_per_byte(const Entry& e, double n) {
  if (e.channels == 0) return e.seconds_per_byte;
  const Launched l = launch_of(e, n);
  return std::max(e.seconds_per_byte, e.channel_seconds_per_byte / (l.channels * l.threads));
}

struct Terms {
  double latency = 0.0;
  double bandwidth = 0.0;
};

// The chunk NCCL's NVLS and NVLSTree kernels move for n bytes (NVIDIA/nccl
// @86fa684d3bd5b6ac3414d6d024fdc6f65441cb81 src/enqueue.cc topoGetAlgoInfo): from the largest, halved while
// n is under a few loops of all channels (nChannels x nHeads chunks), each rule read with the chunk the
// previous one left. NVLS: under 64 loops to 64 KiB, 8 to 32 KiB, 2 to 16 KiB; NVLSTree: under 32 loops to
// 256 KiB, 16 to 128 KiB, 4 to 64 KiB, 1 to 32 KiB.
inline double nvls_chunk_bytes(const Entry& e, double n) {
  double chunk = e.nvls_max_chunk_bytes;
  const auto halve = [&](double loops, double to) {
    if (n < loops * e.nvls_loop_chunks * chunk && chunk > to) chunk = to;
  };
  if (e.nvls_tree) {
    halve(32.0, 256.0 * kKibi);
    halve(16.0, 128.0 * kKibi);
    halve(4.0, 64.0 * kKibi);
    halve(1.0, 32.0 * kKibi);
  } else {
    halve(64.0, 64.0 * kKibi);
    halve(8.0, 32.0 * kKibi);
    halve(2.0, 16.0 * kKibi);
  }
  return chunk;
}

// NCCL's predicted time (src/tuning/tuning.cc, what its tuner compares; `launched` false) or the time of
// what it then launches (`launched` true: on fewer channels below nChannels x nThreads x threshold, which the
// prediction does not see).
inline Terms terms_of(const Entry& e, int proto, double n, bool launched) {
  const double latency =
      e.plateau_bytes > 0.0 && n >= e.plateau_bytes ? e.latency * e.plateau_factor : e.latency;
  double bandwidth = n * (launched ? launched_seconds_per_byte(e, n) : e.seconds_per_byte);
  if (e.correction > 0) bandwidth /= correction(proto, e.correction, n);
  if (launched && e.nvls_loop_chunks > 0.0) {
    const double loop = e.nvls_loop_chunks * nvls_chunk_bytes(e, n);
    bandwidth += e.nvls_fill_loops * std::min(n, loop) * e.seconds_per_byte;
  }
  return {latency, bandwidth};
}

// ncclSoftMin (NVIDIA/nccl @539478940fa87bcc0393d5a71e15fd0d09fccee3 src/tuning/model.h): a smooth min(x, m),
// never above either: m - s log(1 + (e^(m/s) - 1) e^(-x/s)) with s = 0.1 m, i.e. m g(x / m) with
// g(r) = r - 0.1 log(1 + e^-10 (e^(10 r) - 1)) below 1 (the same value without cancelling two large terms)
// and 1 - 0.1 log(1 + (e^10 - 1) e^(-10 r)) above. g is read from a table of 4,096 steps over [0, 4]
// (linear between points: monotonic, within 3e-7 of g); past 4 it is 1 to within 1e-18.
double soft_min_ratio(double r) {
  const double a = 1.0 / nccl::kSoftMinSmoothness;
  if (r < 1.0) return r - nccl::kSoftMinSmoothness * std::log1p(std::exp(-a) * std::expm1(a * r));
  return 1.0 - nccl::kSoftMinSmoothness * std::log1p(std::expm1(a) * std::exp(-a * r));
}

constexpr int kSoftMinSteps = 4096;
constexpr double kSoftMinRange = 4.0;

double soft_min(double x, double m) {
  static const std::array<double, kSoftMinSteps + 1> table = [] {
    std::array<double, kSoftMinSteps + 1> t{};
    for (int i = 0; i <= kSoftMinSteps; ++i)
      t[static_cast<std::size_t>(i)] = soft_min_ratio(kSoftMinRange * i / kSoftMinSteps);
    return t;
  }();
  const double r = x / m;
  if (!(r < kSoftMinRange)) return m;
  const double at = r * (kSoftMinSteps / kSoftMinRange);
  const auto i = static_cast<std::size_t>(at);
  const double f = at - static_cast<double>(i);
  return m * (table[i] + f * (table[i + 1] - table[i]));
}

// What NCCL launches for a ring or tree, by its pipeline model (NVIDIA/nccl
// @623aa02926e4bbc2a4651d543e6ec131d18c80aa src/tuning/pipeline_model/pipeline_model.cc
// ncclTuningPipelineModelSim; sizes @10354992f6bec255684752fcae615e03a933e145 pipeline_model.h; slice counts
// @539478940fa87bcc0393d5a71e15fd0d09fccee3 ring.cc, tree.cc): on the channels launched for n (launch_of),
// each moves n / channels in chunks of min(nominal chunk, its share) and slices
// of them; the first slice crosses every step, each further one follows at the slowest step; the channels
// together move at most the algorithm's bandwidth (ncclSoftMin). The latency is the classic model's, NCCL's
// base latency and every step's once (NCCL's pipeline counts the steps' inside its rate, with half a round
// trip each on Rubin's constants; the same at mid sizes, and at large sizes this keeps the classic model's
// latency + n / the algorithm's bandwidth).
Terms pipelined_terms(const Entry& e, double n) {
  const Entry::Pipeline& q = e.pipeline;
  const auto [active, threads] = launch_of(e, n);
  const double channel = std::ceil(n / active);
  if (channel <= 0.0) return {e.latency, 0.0};
  // NCCL's newest ring model (@10354992f6bec255684752fcae615e03a933e145 src/tuning/pipeline_model/ring.cc,
  // chunkWorkSize) caps a ring's chunk at one rank's part of the channel, as its ring kernels move it; then
  // the fill is small at mid sizes and rings inside one NVLink domain need no exception. Not taken yet:
  // with it the held-out 4 x 8 H100 all-gather goes from -53..+19% to +29..+107% at 1-64 MiB, Meta's 2 x 8
  // A100 all-reduce from +8..+12% to +20..+41% at 32-128 MiB (the ring then beats the tree), and DeepSpeed's
  // ZeRO-3 runs at 384-2240 A100 (Narayanan et al. 2021) from -35..+24% to +6..+45%, which lifts ZeRO-3 at
  // DP 2048 into the planner's top rows; 3 x 8 A100 (-20% -> -7%) and AWS p5 at 128 MiB (-36% -> +15%)
  // improve. The whole channel as the first slice stands in for a cost of long rings neither NCCL model
  // has; a long ring's nccl-tests curve with NCCL_DEBUG=INFO (chosen algorithm, protocol, channels) decides.
  const double chunk = std::min(q.nominal_chunk, channel);
  double slice = std::min(chunk, q.nominal_slice);
  if (q.slices_per_chunk > 0) {  // ncclSimpleSliceSize
    const double grains = std::ceil(chunk / (nccl::kSliceGrainBytes * q.slices_per_chunk));
    slice =
        std::min(chunk, std::max(grains * nccl::kSliceGrainBytes, q.nominal_slice * nccl::kMinSliceFraction));
  }
  const double count = std::ceil(channel / slice);
  double slices = q.slices == Entry::Pipeline::Slices::kTree
                      ? 2.0 * count - 1.0
                      : std::ceil(count * q.steps / q.ranks) - (q.ghost ? 1.0 : 0.0);
  slices = std::max(slices, 1.0);
  // The pipeline's transfer time (its steps' latencies are the latency term, once).
  const double transfer = slice * q.first_seconds_per_byte / threads +
                          (slices - 1.0) * slice * q.delay_seconds_per_byte / threads;
  const double rate = active * channel / transfer;
  return {e.latency, n / soft_min(rate, 1.0 / q.seconds_per_byte)};
}

// What Auto compares: NCCL's pipeline model for the pairs it prices (as NCCL's tuner does where the model is
// on, src/tuning/platforms/rubin.h: it both predicts and prices), NCCL's classic prediction for the others.
double predicted_time(const Entry& e, int proto, double n) {
  const Terms t = e.pipelined() ? pipelined_terms(e, n) : terms_of(e, proto, n, false);
  return t.latency + t.bandwidth;
}

CommCost cost_from(const Terms& t, Algorithm a, int proto) {
  return CommCost{Seconds(t.latency + t.bandwidth), Seconds(t.latency), Seconds(t.bandwidth), a,
                  static_cast<Protocol>(proto)};
}

CommCost cost_of(const Entry& e, Algorithm a, int proto, double n) {
  return cost_from(e.pipelined() ? pipelined_terms(e, n) : terms_of(e, proto, n, true), a, proto);
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

// Every algorithm's rule, in its own file (algorithms/*.cpp): false for the first rule `a` breaks for `c` on
// `path`, with its words in why.reason when asked; allocates nothing otherwise (the planner's hot path).
inline bool walk_applicability(Collective c, Algorithm a, const LinkPath& path, const detail::Why& why) {
  if (a == Algorithm::kAuto) return true;
  return detail::rule_of(a).applies(c, path, why);
}

inline bool applicable_inline(Collective c, Algorithm a, const LinkPath& path) {
  return walk_applicability(c, a, path, detail::Why{});
}

std::string protocol_reason(Algorithm a, Protocol p) {
  if (a == Algorithm::kDirect)
    return "direct (NCCL's point-to-point) runs ll or simple, not " + std::string(to_string(p));
  return std::string(to_string(a)) + " runs the simple protocol only (NCCL), not " +
         std::string(to_string(p));
}

bool protocol_applicable(Algorithm a, Protocol p) {
  return p == Protocol::kAuto || a == Algorithm::kAuto || runs_protocol(a, static_cast<int>(p));
}

// Whether algorithm `a` (not Auto) runs protocol `p` (or, for Auto, one of its protocols) over the network.
bool network_applicable(Algorithm a, const LinkPath& path, Protocol p) {
  if (p != Protocol::kAuto) return network_runs(path, static_cast<int>(p));
  for (int proto = kLL; proto <= kSimple; ++proto) {
    if (runs_protocol(a, proto) && network_runs(path, proto)) return true;
  }
  return false;
}

std::string network_reason(const LinkPath& path, Algorithm a, Protocol p) {
  std::string reason = "NCCL runs only ";
  bool first = true;
  for (int proto = kLL; proto <= kSimple; ++proto) {
    if (!network_runs(path, proto)) continue;
    if (!first) reason.append(", ");
    reason.append(to_string(static_cast<Protocol>(proto)));
    first = false;
  }
  reason.append(" over this network (the link's nccl_protocols), so ");
  reason.append(to_string(a));
  reason.append(" cannot run");
  if (p != Protocol::kAuto) reason.append(" ").append(to_string(p));
  reason.append(" across its nodes");
  return reason;
}

// Auto with a pinned protocol needs one of its candidates to run that protocol here.
// (Unpinned, the ring runs every protocol, and a network allows at least one.)
bool auto_runs(Collective c, const LinkPath& path, Protocol p) {
  if (p == Protocol::kAuto) return true;
  return std::any_of(kAutoCandidates.begin(), kAutoCandidates.end(), [&](Algorithm a) {
    return auto_offers(c, a, path) && runs_protocol(a, static_cast<int>(p)) &&
           network_runs(path, static_cast<int>(p)) && applicable_inline(c, a, path);
  });
}

constexpr std::size_t entry_index(Collective c, Algorithm a, int proto) {
  return (static_cast<std::size_t>(c) * CollectiveTable::kAlgorithms + static_cast<std::size_t>(a)) *
             CollectiveTable::kProtocols +
         static_cast<std::size_t>(proto);
}

// The entry of (c, a, proto) on `m`, or one that does not run.
Entry entry_of(Collective c, Algorithm a, int proto, const LinkPath& path, const Model& m) {
  if (!runs_protocol(a, proto) || !network_runs(path, proto) || !applicable_inline(c, a, path)) return {};
  return evaluate(c, a, proto, m);
}

[[noreturn]] void not_applicable(Collective c, Algorithm a, Protocol p) {
  throw Error("algorithm '" + std::string(to_string(a)) + "'" +
              (p == Protocol::kAuto ? std::string() : " with protocol '" + std::string(to_string(p)) + "'") +
              " does not implement " + std::string(to_string(c)) + " on this communicator");
}

void check_size(Bytes n) {
  if (!(n.value >= 0.0) || !std::isfinite(n.value)) throw Error("message size must be a finite size >= 0");
}

CommCost single_rank(Algorithm a, Protocol p) {
  return CommCost{Seconds(0.0), Seconds(0.0), Seconds(0.0), a == Algorithm::kAuto ? Algorithm::kRing : a,
                  p == Protocol::kAuto ? Protocol::kSimple : p};
}

// The cluster's tuner plug-in's pick for Auto (algorithm and protocol both), when one applies: the first of
// its regions holding (n, the ranks) whose pair `runs` here (tuner_pick); null: NCCL's own choice stands.
// NCCL then runs what the plug-in picked (src/enqueue.cc ncclGetAlgoInfo: the plug-in zeroes that pair's
// time in the cost table, topoGetAlgoInfo takes the smallest).
template <class Runs>
const TunerRegion* plugin_pick(Collective c, Algorithm a, Protocol p, double n, const LinkPath& path,
                               Runs&& runs) {
  if (a != Algorithm::kAuto || p != Protocol::kAuto || !path.nccl_tuner) return nullptr;
  return detail::tuner_pick(*path.nccl_tuner, c, n, path.ranks, path.nodes, runs);
}

// The protocols to try: the one asked for, or all three.
struct ProtocolRange {
  int first = kLL;
  int last = kSimple;
};
ProtocolRange protocols(Protocol p) {
  if (p == Protocol::kAuto) return {};
  return {static_cast<int>(p), static_cast<int>(p)};
}

}  // namespace

std::string why_not_applicable(Collective c, Algorithm a, const LinkPath& path, const ClusterSpec& cluster,
                               Protocol p) {
  std::string reason;
  walk_applicability(c, a, path, detail::Why{&cluster, &reason});
  if (reason.empty() && !protocol_applicable(a, p)) reason = protocol_reason(a, p);
  if (reason.empty() && a != Algorithm::kAuto && !network_applicable(a, path, p))
    reason = network_reason(path, a, p);
  if (reason.empty() && a == Algorithm::kAuto && !auto_runs(c, path, p)) {
    reason = "no algorithm runs " + std::string(to_string(c)) + " with protocol " +
             std::string(to_string(p)) + " here";
  }
  return reason;
}

bool applicable(Collective c, Algorithm a, const LinkPath& path, Protocol p) {
  if (a == Algorithm::kAuto) return auto_runs(c, path, p);
  return protocol_applicable(a, p) && network_applicable(a, path, p) && applicable_inline(c, a, path);
}

CommCost collective_cost(Collective c, Algorithm a, Bytes n, const LinkPath& path, Protocol p) {
  check_size(n);
  if (path.ranks <= 1) return single_rank(a, p);
  if (!applicable(c, a, path, p)) not_applicable(c, a, p);
  const Model m = model_of(path);
  const auto runs = [&](Algorithm x, Protocol q) {
    return entry_of(c, x, static_cast<int>(q), path, m).runs();
  };
  if (const TunerRegion* pick = plugin_pick(c, a, p, n.value, path, runs)) {
    const int proto = static_cast<int>(pick->protocol);
    CommCost cost = cost_of(entry_of(c, pick->algorithm, proto, path, m), pick->algorithm, proto, n.value);
    cost.tuned = true;
    return cost;
  }
  const ProtocolRange range = protocols(p);
  CommCost best{Seconds(std::numeric_limits<double>::infinity()), Seconds(0.0), Seconds(0.0),
                Algorithm::kRing, Protocol::kSimple};
  bool found = false;
  double best_predicted = std::numeric_limits<double>::infinity();
  const auto consider = [&](Algorithm candidate) {
    for (int proto = range.first; proto <= range.last; ++proto) {
      const Entry e = entry_of(c, candidate, proto, path, m);
      if (!e.runs()) continue;
      const double predicted = predicted_time(e, proto, n.value);
      if (!found || predicted < best_predicted) {
        best = cost_of(e, candidate, proto, n.value);
        best_predicted = predicted;
      }
      found = true;
    }
  };
  if (a != Algorithm::kAuto) {
    consider(a);
  } else {
    // NCCL's tuner: the applicable (algorithm, protocol) with the smallest predicted time.
    for_each_auto_candidate(c, path, consider);
  }
  if (!found) not_applicable(c, a, p);
  return best;
}

CommCost collective_cost(Collective c, Algorithm a, Bytes n, int ranks, int stride,
                         const ClusterSpec& cluster, Protocol p) {
  return collective_cost(c, a, n, link_path(cluster, Communicator{ranks, stride, 1}), p);
}

CollectivePath collective_path(const LinkPath& path) {
  // Relaxed: the id only has to differ between tables; nothing is published through it.
  static std::atomic<std::uint64_t> next_memo_id{1};
  CollectivePath prepared{path, {}, next_memo_id.fetch_add(1, std::memory_order_relaxed)};
  CollectiveTable& table = prepared.table;
  if (path.ranks <= 1) return prepared;
  const Model m = model_of(path);
  for (int ci = 0; ci < kCollectiveCount; ++ci) {
    const auto c = static_cast<Collective>(ci);
    for (int ai = 0; ai < CollectiveTable::kAlgorithms; ++ai) {
      const auto a = static_cast<Algorithm>(ai);
      for (int proto = kLL; proto <= kSimple; ++proto)
        table.entries[entry_index(c, a, proto)] = entry_of(c, a, proto, path, m);
    }
    // Auto's candidates: every pair that runs, less those another pair beats at every size (its slowest
    // case, with the plateau and the smallest size correction, no slower than this one's fastest).
    std::array<std::size_t, static_cast<std::size_t>(CollectiveTable::kMaxCandidates) * 2> runs{};
    int count = 0;
    for_each_auto_candidate(c, path, [&](Algorithm a) {
      for (int proto = kLL; proto <= kSimple; ++proto) {
        const std::size_t index = entry_index(c, a, proto);
        if (table.entries[index].runs() && count < static_cast<int>(runs.size()))
          runs[static_cast<std::size_t>(count++)] = index;
      }
    });
    int kept = 0;
    for (int i = 0; i < count; ++i) {
      const Entry& x = table.entries[runs[static_cast<std::size_t>(i)]];
      bool dominated = false;
      for (int j = 0; j < count && !dominated; ++j) {
        if (j == i) continue;
        const std::size_t yi = runs[static_cast<std::size_t>(j)];
        const Entry& y = table.entries[yi];
        const double y_latency = y.plateau_bytes > 0.0 ? y.latency * y.plateau_factor : y.latency;
        const double y_slowest =
            y.correction > 0 ? nccl::kTreeCorrectionMin[yi % CollectiveTable::kProtocols] : 1.0;
        const double y_spb = y.seconds_per_byte / y_slowest;
        // x's fastest: latency + n x its seconds per byte (a pipelined pair: its cap's, which a two-node tree
        // of one GPU per node doubles).
        const double x_spb = x.pipelined() ? x.pipeline.seconds_per_byte : x.seconds_per_byte;
        const bool no_worse = y_latency <= x.latency && y_spb <= x_spb;
        // Strictly better by more than rounding (a pair that ties NCCL's prediction is kept, the first in
        // NCCL's order then wins, as in collective_cost on a path; their launched costs may differ).
        const bool better = y_latency < x.latency * (1.0 - 1e-9) || y_spb < x_spb * (1.0 - 1e-9) || j < i;
        // A pipelined pair is never faster than its latency + n / its cap (the soft minimum stays under
        // it), so a classic pair no slower than that dominates it; a pipelined y has no slowest case.
        dominated = no_worse && better && !y.pipelined();
      }
      if (!dominated && kept < CollectiveTable::kMaxCandidates) {
        table.candidates[static_cast<std::size_t>(ci)][static_cast<std::size_t>(kept++)] =
            static_cast<std::uint8_t>(runs[static_cast<std::size_t>(i)]);
      }
    }
    table.candidate_count[static_cast<std::size_t>(ci)] = static_cast<std::uint8_t>(kept);
  }
  return prepared;
}

namespace {

// The costs collective_cost() on a prepared table computed last, per thread (the planner's workers price
// the same communicator at the same sizes for many configurations of one split; NCCL tabulates per
// communicator too). Direct-mapped: a slot holds the last (table, collective, algorithm, protocol, size).
struct MemoSlot {
  std::uint64_t id = 0;
  double bytes = -1.0;
  std::uint32_t key = 0;
  CommCost cost{};
};
constexpr std::size_t kMemoSlots = 512;  // memo_slot() takes the top 9 bits
thread_local std::array<MemoSlot, kMemoSlots> memo_slots;

std::uint32_t memo_key(Collective c, Algorithm a, Protocol p) {
  return (static_cast<std::uint32_t>(c) << 16U) | (static_cast<std::uint32_t>(a) << 8U) |
         static_cast<std::uint32_t>(p);
}

MemoSlot& memo_slot(std::uint64_t id, std::uint32_t key, double bytes) {
  // A multiply-xorshift mix of the three (splitmix64's finaliser), its top bits the slot.
  std::uint64_t h = id * 0x9E3779B97F4A7C15ULL + key * 0xBF58476D1CE4E5B9ULL +
                    std::bit_cast<std::uint64_t>(bytes) * 0x94D049BB133111EBULL;
  h = (h ^ (h >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27U)) * 0x94D049BB133111EBULL;
  h ^= h >> 31U;
  return memo_slots[static_cast<std::size_t>(h >> 55U)];  // 2^9 = kMemoSlots
}

CommCost compute_cost(Collective c, Algorithm a, Bytes n, const CollectivePath& path, Protocol p);

}  // namespace

CommCost collective_cost(Collective c, Algorithm a, Bytes n, const CollectivePath& path, Protocol p) {
  check_size(n);
  if (path.ranks <= 1) return single_rank(a, p);
  if (path.memo_id == 0) return compute_cost(c, a, n, path, p);
  const std::uint32_t key = memo_key(c, a, p);
  MemoSlot& slot = memo_slot(path.memo_id, key, n.value);
  if (slot.id == path.memo_id && slot.key == key && slot.bytes == n.value) return slot.cost;
  const CommCost cost = compute_cost(c, a, n, path, p);
  slot = MemoSlot{path.memo_id, n.value, key, cost};
  return cost;
}

namespace {

CommCost compute_cost(Collective c, Algorithm a, Bytes n, const CollectivePath& path, Protocol p) {
  const CollectiveTable& table = path.table;
  const auto runs = [&](Algorithm x, Protocol q) {
    return table.entries[entry_index(c, x, static_cast<int>(q))].runs();
  };
  if (const TunerRegion* pick = plugin_pick(c, a, p, n.value, path, runs)) {
    const int proto = static_cast<int>(pick->protocol);
    CommCost cost =
        cost_of(table.entries[entry_index(c, pick->algorithm, proto)], pick->algorithm, proto, n.value);
    cost.tuned = true;
    return cost;
  }
  // `visit(index)` on each entry to compare, in NCCL's order (the first of equal times wins).
  const auto for_each_choice = [&](auto&& visit) {
    if (a == Algorithm::kAuto && p == Protocol::kAuto) {
      const auto ci = static_cast<std::size_t>(c);
      for (int k = 0; k < table.candidate_count[ci]; ++k)
        visit(table.candidates[ci][static_cast<std::size_t>(k)]);
    } else if (a == Algorithm::kAuto) {
      for_each_auto_candidate(c, path, [&](Algorithm x) { visit(entry_index(c, x, static_cast<int>(p))); });
    } else {
      const ProtocolRange range = protocols(p);
      for (int proto = range.first; proto <= range.last; ++proto) visit(entry_index(c, a, proto));
    }
  };
  const auto proto_of = [](std::size_t index) {
    return static_cast<int>(index % CollectiveTable::kProtocols);
  };
  // The classic pairs first (a few multiply-adds): a pipelined pair is never faster than its latency + n /
  // its cap, so one whose bound exceeds the fastest classic pair is not evaluated (same result, fewer soft
  // minima).
  double classic_best = std::numeric_limits<double>::infinity();
  for_each_choice([&](std::size_t index) {
    const Entry& e = table.entries[index];
    if (e.runs() && !e.pipelined())
      classic_best = std::min(classic_best, predicted_time(e, proto_of(index), n.value));
  });
  std::size_t best = table.entries.size();
  double best_time = std::numeric_limits<double>::infinity();
  Terms best_terms;
  for_each_choice([&](std::size_t index) {
    const Entry& e = table.entries[index];
    if (!e.runs()) return;
    Terms t;
    double time = 0.0;
    if (e.pipelined()) {
      const double bound = e.latency + n.value * e.pipeline.seconds_per_byte;
      if (bound > classic_best || bound >= best_time) return;
      t = pipelined_terms(e, n.value);
      time = t.latency + t.bandwidth;
    } else {
      time = predicted_time(e, proto_of(index), n.value);
    }
    if (best == table.entries.size() || time < best_time) {
      best = index;
      best_time = time;
      best_terms = t;
    }
  });
  if (best == table.entries.size()) not_applicable(c, a, p);
  const int proto = proto_of(best);
  const auto algorithm =
      static_cast<Algorithm>(best / CollectiveTable::kProtocols % CollectiveTable::kAlgorithms);
  const Entry& chosen = table.entries[best];
  // A pipelined pair's terms are what launches (computed above); a classic pair's launch differs from the
  // prediction compared.
  return chosen.pipelined() ? cost_from(best_terms, algorithm, proto)
                            : cost_of(chosen, algorithm, proto, n.value);
}

}  // namespace

std::optional<Bytes> crossover_size(Collective c, Algorithm small, Algorithm large, const LinkPath& path,
                                    Bytes lo, Bytes hi) {
  auto large_wins = [&](double n) {
    return collective_cost(c, large, Bytes(n), path).time <= collective_cost(c, small, Bytes(n), path).time;
  };
  double below = std::max(lo.value, 1.0);
  double above = hi.value;
  if (large_wins(below) || !large_wins(above)) return std::nullopt;
  // Bisect on a log scale (the first crossing from below when the times cross more than once).
  while (above / below > 1.01) {
    const double mid = std::sqrt(below * above);
    (large_wins(mid) ? above : below) = mid;
  }
  return Bytes(above);
}

}  // namespace costmodel::inline COSTMODEL_ABI
