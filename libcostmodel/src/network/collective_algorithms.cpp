// SPDX-License-Identifier: Apache-2.0
#include "collective_algorithms.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "costmodel/units.hpp"
#include "nccl_tuning.hpp"

namespace costmodel::detail {
namespace {

using Entry = CollectiveTable::Entry;

constexpr double kMicro = 1e-6;
constexpr double kGiga = 1e9;  // NCCL's GB/s
// The hardware NCCL's per-step constants were measured on, whose own latency they already hold: one NVLink /
// NVSwitch step as data/gpus.yaml writes it (0.7 us), an InfiniBand NIC-to-NIC traversal (1 us,
// data/links.yaml) and 130 ns per InfiniBand switch (data/switches.yaml). A fabric's excess over these is
// added to NCCL's per-step constants, as NCCL adds a NIC's reported latency to its network steps
// (src/graph/search.cc graph->latencyInter; src/tuning/ring.cc and tree.cc add it once, twice for Simple).
constexpr double kReferenceScaleUpLatency = 0.7e-6;
constexpr double kReferenceNicLatency = 1.0e-6;
constexpr double kReferenceSwitchLatency = 130e-9;

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

// NCCL's speed lists per generation: sm < 90, sm90, sm100 (src/graph/search.cc).
int speed_list(GpuArchitecture architecture) {
  switch (architecture) {
    case GpuArchitecture::kVolta:
    case GpuArchitecture::kAmpere:
      return 0;
    case GpuArchitecture::kHopper:
      return 1;
    case GpuArchitecture::kBlackwell:
      return 2;
  }
  return 1;
}

// The fastest per-channel speed of `speeds` (GB/s) that is at most `limit` GB/s; the slowest if none is.
double speed_at_most(const nccl::Speeds& speeds, double limit) {
  double slowest = speeds[0];
  for (double s : speeds) {
    if (s <= 0.0) break;
    if (s <= limit) return s;
    slowest = s;
  }
  return slowest;
}

// The latency of a network step of `hops` (switches, or links on a switchless torus) above InfiniBand's.
double network_excess(const LinkPath& path, Seconds latency, int hops) {
  const double reference =
      kReferenceNicLatency + (is_torus(path.kind) ? 0.0 : hops * kReferenceSwitchLatency);
  return latency.value - reference;
}

// The ring and tree graphs' channels (src/graph/search.cc ncclTopoCompute, restated): across domains one
// per NIC the domain's ranks drive (each channel leaves through one NIC at the GPU-to-NIC path's speed),
// inside one domain as many as the GPU's NVLink holds at the generation's fastest listed speed (6 x 60 GB/s
// on an H100); ncclTopoDupChannels then doubles them unless the speed is below 25 GB/s, or below 50 GB/s from
// Hopper on (NCCL also keeps them when there are 4 or fewer; dropped here, so that channels never fall as
// bandwidth rises). NCCL's per-channel caps read it, and the channels launched for small messages run at
// the per-channel speed (halved with the channels when they are doubled).
struct Channels {
  int count = 1;
  double speed = kMinBandwidth;  // B/s
};
Channels ring_channels(const Model& m, const LinkPath& path) {
  double speed = 0.0;
  double count = 0.0;
  if (m.multi) {
    speed = std::max(path.nic_path_bandwidth.value, kMinBandwidth) / kGiga;
    count = m.local * m.out_bw / kGiga / speed;
  } else {
    speed = nccl::kIntraSpeeds[static_cast<std::size_t>(speed_list(path.architecture))][0];
    count = m.up_bw / kGiga / speed;
  }
  const int channels = std::clamp(static_cast<int>(std::lround(count)), 1, nccl::kMaxSearchChannels);
  const bool keep = speed < 25.0 || (m.arch >= 2 && speed < 50.0);
  return keep ? Channels{channels, speed * kGiga} : Channels{2 * channels, speed * kGiga / 2.0};
}

}  // namespace

Model model_of(const LinkPath& path) {
  Model m;
  m.p = path.ranks;
  m.local = path.scale_up.ranks;
  m.groups = path.scale_out.ranks;
  m.multi = m.groups > 1;
  m.arch = static_cast<int>(path.architecture);
  m.nodes_index = std::min(m.groups, 3) - 1;
  m.up_bw = std::max(path.scale_up.bandwidth.value, kMinBandwidth);
  m.pair_bw = path.scale_up.pair_bandwidth.value;
  m.out_bw = std::max(path.scale_out.bandwidth.value, kMinBandwidth);
  m.out_a2a_bw = std::max(path.scale_out.all_to_all_bandwidth.value, kMinBandwidth);
  m.out_reduction_bw = path.scale_out.reduction_bandwidth.value;
  if (path.scale_up.reduction_bandwidth.value > 0.0) {
    m.nvls_efficiency = path.scale_up.reduction_bandwidth.value / m.up_bw;
  }
  // The ring's slowest edge: NVLink inside a domain, the domain's NICs (its L ranks' shares) across.
  double busbw = std::numeric_limits<double>::infinity();
  if (m.local > 1) busbw = m.up_bw;
  if (m.multi) busbw = std::min(busbw, m.local * m.out_bw);
  m.ring_busbw = std::isfinite(busbw) ? busbw : kMinBandwidth;
  const Channels graph = ring_channels(m, path);
  m.channels = graph.count;
  m.channel_bw = graph.speed;
  // NVLS graph (search.cc ncclTopoSearchTryNvls): one channel per head GPU, at most NCCL_MAX_NVLS_ARITY;
  // every channel takes its speed on each GPU's NVLink, the head's twice: (nCh + 1) x speed <= the GPU's.
  if (m.local > 1) {
    m.nvls_channels = std::min(m.local, nccl::kMaxNvlsArity);
    const double per_channel = m.up_bw / kGiga / (m.nvls_channels + 1);
    const double listed = speed_at_most(nccl::kIntraSpeeds[speed_list(path.architecture)], per_channel);
    m.nvls_bw_intra = std::min(listed, per_channel) * kGiga;
  }
  // llMaxBws: by GPU generation on one node, by host CPU across nodes (an Intel x86 host: row 0).
  m.ll_max_bw = (m.multi ? nccl::kLlMaxBw[0][static_cast<std::size_t>(m.nodes_index)]
                         : nccl::kLlMaxBw[static_cast<std::size_t>(m.arch)][0]) *
                kGiga;
  if (m.local > 1) m.up_excess = path.scale_up.latency.value - kReferenceScaleUpLatency;
  if (m.multi) {
    m.out_excess = network_excess(path, path.scale_out.latency, path.scale_out.hops);
    m.far_excess = network_excess(path, path.scale_out.far_latency, path.scale_out.far_hops);
  }
  m.cross_rail = path.cross_rail_via_scale_up;
  for (std::size_t proto = 0; proto < nccl::kProtocols; ++proto) {
    m.up_step[proto] = path.scale_up.protocols.step_latency[proto].value;
    m.out_step[proto] = path.scale_out.protocols.step_latency[proto].value;
    m.up_bw_factor[proto] = path.scale_up.protocols.bandwidth[proto];
    m.out_bw_factor[proto] = path.scale_out.protocols.bandwidth[proto];
  }
  for (int k : path.torus_extent) m.torus_ring_steps += k - 1;
  m.torus_dimensions = path.torus_dimensions;
  return m;
}

namespace {

// NCCL's latency tables in seconds: one NVLink step (plus the scale-up excess), one network step (plus the
// network excess, twice for Simple).
// A measured ring step (calibrate) replaces both, NCCL's other rows scaled by the same ratio to its ring row.
double nvlink_hop(const Model& m, nccl::Row row, int proto) {
  const auto p = static_cast<std::size_t>(proto);
  if (m.up_step[p] > 0.0)
    return m.up_step[p] * nccl::kNvlinkLatency[row][p] / nccl::kNvlinkLatency[nccl::kRingRow][p];
  return nccl::kNvlinkLatency[row][p] * kMicro + m.up_excess;
}
double net_hop(const Model& m, nccl::Row row, int proto, double excess) {
  const auto p = static_cast<std::size_t>(proto);
  if (m.out_step[p] > 0.0)
    return m.out_step[p] * nccl::kNetLatency[row][p] / nccl::kNetLatency[nccl::kRingRow][p];
  return nccl::kNetLatency[row][p] * kMicro + (proto == kSimple ? 2 : 1) * excess;
}
double base_latency(nccl::Row row, int proto) {
  return nccl::kBaseLatency[row][static_cast<std::size_t>(proto)] * kMicro;
}

// NCCL's ring protocol factors (src/tuning/ring.cc) on a bus bandwidth, B/s: LL half of it up to llMaxBw,
// LL128 0.92 of it up to nChannels x perChMaxRingLL128Bw, Simple all of it. The algorithms NCCL does not
// implement take the ring's factors per level.
double ring_protocol_bw(const Model& m, double busbw, int proto) {
  if (proto == kLL) return std::min(m.ll_max_bw, nccl::kRingLlFactor * busbw);
  if (proto == kLL128) {
    const double cap = m.channels *
                       nccl::kPerChannelMaxRingLl128Bw[static_cast<std::size_t>(m.arch)]
                                                      [static_cast<std::size_t>(m.nodes_index)] *
                       kGiga;
    return std::min(nccl::kRingLl128Factor * busbw, cap);
  }
  return busbw;
}

int ring_steps(Collective c, int p) {
  if (c == Collective::kAllReduce) return 2 * (p - 1);
  if (c == Collective::kReduceScatter || c == Collective::kAllGather) return p - 1;
  return p;  // Broadcast, Reduce (src/tuning/tuning_general.cc ncclTuningGetNsteps)
}

Entry make_entry(double latency, double bandwidth) {
  Entry e;
  e.latency = std::max(0.0, latency);
  e.seconds_per_byte = 1.0 / std::max(bandwidth, kMinBandwidth);
  return e;
}

// NCCL's launch on fewer channels for small messages (src/tuning/tuning_general.cc ncclTuningGetChannels,
// src/enqueue.cc topoGetAlgoInfo): the communicator's nChannels (twice the graph's, src/graph/connect.cc),
// each of nThreads x threadThreshold bytes before the next is added, the ring's LL threshold x nRanks. One
// channel alone moves its graph channel's speed at the protocol's factor and cap (`channel_busbw`, B/s),
// turned into the algorithm's bandwidth as the whole (`algbw_per_busbw`).
void launch_channels(Entry& e, bool is_ring, int proto, double channel_busbw, double algbw_per_busbw,
                     const Model& m) {
  const auto p = static_cast<std::size_t>(proto);
  double threshold = nccl::kThreadThreshold[p];
  if (is_ring && proto == kLL) threshold *= m.p;
  e.channels = static_cast<std::uint8_t>(
      std::min(nccl::kMaxChannels, nccl::kRuntimeChannelFactor * std::max(1, m.channels)));
  e.channel_bytes = nccl::kMaxThreads[p] * threshold;
  e.channel_seconds_per_byte = 1.0 / std::max(channel_busbw * algbw_per_busbw, kMinBandwidth);
  e.thread_halvings = static_cast<std::uint8_t>(is_ring ? nccl::kThreadHalvings[p] : 0);
}

// One ring channel's bus bandwidth per protocol, as NCCL's pipeline model clamps a channel's
// (src/tuning/model.h ncclTuningProtoBW): the ring's factors with llMaxBw and perChMaxRingLL128Bw per
// channel.
double ring_channel_busbw(const Model& m, int proto) {
  if (proto == kLL) return std::min(m.ll_max_bw, nccl::kRingLlFactor * m.channel_bw);
  if (proto == kLL128) {
    return std::min(nccl::kRingLl128Factor * m.channel_bw,
                    nccl::kPerChannelMaxRingLl128Bw[static_cast<std::size_t>(m.arch)]
                                                   [static_cast<std::size_t>(m.nodes_index)] *
                        kGiga);
  }
  return m.channel_bw;
}

// Ring (NCCL src/tuning/ring.cc ncclTuningRingModelInit; Thakur, Rabenseifner & Gropp 2005 §4): algorithm
// bandwidth busBw x nRanks / nsteps; latency base + (nsteps - nInterSteps) x max(intra step, network post
// overhead) + nInterSteps x network step, nInterSteps 2(N-1) for AllReduce, N-1 otherwise. With one GPU per
// domain the network step is the tree's (NCCL 2.23-2.26 tuning.cc: "with ppn=1 latencies are fully
// exposed"). Broadcast/Reduce: nsteps x the step (Simple: the tree's NVLink step, "chunk latency"), the steps
// that cross domains at the network's.
Entry ring(Collective c, int proto, const Model& m) {
  const int steps = ring_steps(c, m.p);
  const double bw = ring_protocol_bw(m, m.ring_busbw, proto) * m.p / steps;
  const double out = net_hop(m, m.local == 1 ? nccl::kTreeRow : nccl::kRingRow, proto, m.out_excess);
  // Each step inside a domain costs `intra`, each across domains `out`; `inter` steps cross.
  double intra = 0.0;
  int inter = 0;
  if (c == Collective::kBroadcast || c == Collective::kReduce) {
    inter = m.groups - 1;
    intra = nvlink_hop(m, proto == kSimple ? nccl::kTreeRow : nccl::kRingRow, proto);
  } else {
    const double overhead =
        m.multi ? nccl::kNetOverhead * kMicro * (proto == kSimple ? nccl::kNetOverheadSimpleFactor : 1.0)
                : 0.0;
    intra = std::max(nvlink_hop(m, nccl::kRingRow, proto), overhead);
    inter = m.multi ? (c == Collective::kAllReduce ? 2 : 1) * (m.groups - 1) : 0;
  }
  Entry e = make_entry(base_latency(nccl::kRingRow, proto) + (steps - inter) * intra + inter * out, bw);
  if (c == Collective::kAllReduce && proto == kSimple && m.multi) {
    e.plateau_bytes = nccl::kRingPlateauBytes * m.channels * m.p;
    e.plateau_factor = m.arch == 0 ? nccl::kRingPlateauVolta : nccl::kRingPlateau;
  }
  launch_channels(e, true, proto, ring_channel_busbw(m, proto), static_cast<double>(m.p) / steps, m);
  return e;
}

// NCCL's tree, AllReduce only (src/tuning/tree.cc ncclTuningTreeModelInit): a chain inside the node, a
// double binary tree across nodes (Sanders, Speck & Träff 2009). busBw = min(0.92 x the graph's, nChannels x
// perChMaxTreeBw); LL 1/3.8 of it, LL128 7/9 (one node) or 120/128; algorithm bandwidth half of it, times
// treeCorrectionFactor by message size. Latency base + 2((L-1) intra + ⌊log2 N⌋ inter).
Entry tree(int proto, const Model& m) {
  const auto arch = static_cast<std::size_t>(m.arch);
  const auto nodes = static_cast<std::size_t>(m.nodes_index);
  // The graph's bus bandwidth (channels = m.channels) or one channel's (channels = 1, at its speed).
  const auto tree_busbw = [&](double graph_busbw, double channels) {
    double busbw =
        std::min(nccl::kTreeFactor * graph_busbw, channels * nccl::kPerChannelMaxTreeBw[arch][nodes] * kGiga);
    if (proto == kLL) busbw = std::min(busbw * nccl::kTreeLlFactor, m.ll_max_bw);
    if (proto == kLL128) {
      busbw = std::min(busbw * (m.multi ? nccl::kTreeLl128FactorNodes : nccl::kTreeLl128FactorOneNode),
                       channels * nccl::kPerChannelMaxTreeLl128Bw[arch][nodes] * kGiga);
    }
    return busbw;
  };
  // One rank per node: NCCL's plain TREE pattern (kTreePatternTreeFactor).
  const double pattern = m.local == 1 ? nccl::kTreePatternTreeFactor : 1.0;
  const double busbw = pattern * tree_busbw(m.ring_busbw, m.channels);
  const double latency = base_latency(nccl::kTreeRow, proto) +
                         2.0 * ((m.local - 1) * nvlink_hop(m, nccl::kTreeRow, proto) +
                                floor_log2(m.groups) * net_hop(m, nccl::kTreeRow, proto, m.far_excess));
  Entry e = make_entry(latency, 0.5 * busbw);
  e.correction = nccl::kTreeCorrectionEntries;
  launch_channels(e, false, proto, pattern * tree_busbw(m.channel_bw, 1.0), 0.5, m);
  return e;
}

// NVLS and NVLSTree move each channel's share in loops of one chunk per head GPU (NVIDIA/nccl
// @761454383f0e6cd77e72805cb53517867d3f97f1 src/device/all_reduce.h, RunWorkColl NVLS and NVLS_TREE:
// loopCount = nvls->nHeads x chunkSize; scatter, reduce and gather pipelined loop by loop; nHeads is the
// domain's GPUs up to NCCL_MAX_NVLS_ARITY, 32, src/include/device.h), so the ramp of a domain of H heads at n
// bytes is that of 8 heads at 8n / H. NCCL's correction table, which the model applies to both (below), is
// read at that size: 8-GPU domains as before; a 72-GPU NVL72 rack (32 heads) ramps 4x later (CoreWeave's
// NVL72 all-reduce, tests/fixtures/nccl-holdout.yaml: 586 GB/s at 512 MiB, 839 at 4 GiB).
constexpr double kNvlsReferenceHeads = 8.0;
inline void nvls_ramp(Entry& e, const Model& m) {
  e.correction = nccl::kNvlsTreeCorrectionEntries;
  e.correction_scale = kNvlsReferenceHeads / std::max(1, std::min(m.local, nccl::kMaxNvlsArity));
}

// NVLS inside one NVLink domain (src/tuning/nvls.cc ncclTuningNvlsModelInit): per channel bwIntra x
// nvlsEfficiency x (nCh-1)/nCh, x2 for AllReduce (the switch reduces: each byte crosses a GPU's link once
// each way), x(L-1)/L for AllGather/ReduceScatter; algorithm bandwidth nCh x that x nRanks / nsteps.
double nvls_busbw(Collective c, const Model& m) {
  const double channels = m.nvls_channels;
  double per_channel = m.nvls_bw_intra * m.nvls_efficiency * (channels - 1.0) / channels;
  per_channel *= c == Collective::kAllReduce ? 2.0 : (m.local - 1.0) / m.local;
  return channels * per_channel;
}

// In-network reduction. One domain: NVLS, latency hwLat[NVLINK][NVLS] = 25 us, its bandwidth taken down at
// mid sizes by NCCL's treeCorrectionFactor: NCCL applies it to NVLSTree on Blackwell (nvls.cc); the NVLS
// kernels pipeline their chunks the same way, and measured NVLS curves show the same ramp (8 x H200:
// 140 GB/s busbw at 4 MiB, 242 at 16 MiB, 370 at 64 MiB against 476 at 1 GiB; ../shared/reference/
// nccl-busbw.yaml), so the model applies it on every generation. Across domains with SHARP on: NVLS inside,
// the switches reduce each rank's n/L slice across (NCCL's multi-node NVLS, latency NVLink + network step);
// one GPU per domain: CollNet (CollNetChain latency, 30 us). Across domains the volume is the physical one:
// n/L per rank each way over the NICs (Graham et al. 2016, SHARP).
Entry in_network(Collective c, const Model& m) {
  if (!m.multi) {
    Entry e = make_entry(nvlink_hop(m, nccl::kNvlsRow, kSimple), nvls_busbw(c, m) * m.p / ring_steps(c, m.p));
    nvls_ramp(e, m);
    return e;
  }
  if (m.local == 1) {
    return make_entry(net_hop(m, nccl::kCollNetChainRow, kSimple, m.far_excess), m.out_reduction_bw);
  }
  const double domain_rate = nvls_busbw(c, m) * m.local / ring_steps(c, m.local);
  const double network_rate = m.local * m.out_reduction_bw;
  Entry e =
      make_entry(nvlink_hop(m, nccl::kNvlsRow, kSimple) + net_hop(m, nccl::kNvlsRow, kSimple, m.far_excess),
                 std::min(domain_rate, network_rate));
  nvls_ramp(e, m);
  return e;
}

// NVLSTree, AllReduce across domains (src/tuning/nvls.cc): NVLS inside each domain, a tree across them; per
// channel min(NVLS's intra bandwidth, the NICs' per channel x2 on up to two nodes, perChMaxNVLSTreeBw);
// latency NVLink NVLS step + 2⌊log2 N⌋ network steps. NCCL applies the tree correction on Blackwell (x86
// hosts); the model on every generation, as for NVLS.
Entry nvls_tree(const Model& m) {
  const double channels = m.nvls_channels;
  const double intra = nvls_busbw(Collective::kAllReduce, m) / channels;
  const double inter = m.local * m.out_bw / channels * (m.groups <= 2 ? 2.0 : 1.0);
  const double cap = nccl::kPerChannelMaxNvlsTreeBw[static_cast<std::size_t>(m.arch)]
                                                   [static_cast<std::size_t>(m.nodes_index)] *
                     kGiga;
  const double busbw = channels * std::min({intra, inter, cap});
  const double latency = nvlink_hop(m, nccl::kNvlsTreeRow, kSimple) +
                         2.0 * floor_log2(m.groups) * net_hop(m, nccl::kNvlsTreeRow, kSimple, m.far_excess);
  Entry e = make_entry(latency, busbw * m.p / ring_steps(Collective::kAllReduce, m.p));
  nvls_ramp(e, m);
  return e;
}

// Fractions of the data that cross each level in a two-level reduce-scatter: (L-1)/L inside the domain,
// then (N-1)/N of the remaining n/L across domains on every rail at once; seconds per byte of each.
struct LevelTimes {
  double up = 0.0;
  double out = 0.0;
};
LevelTimes two_level_rs(const Model& m, double up_bw, double out_bw) {
  return {(m.local - 1.0) / m.local / up_bw, (m.groups - 1.0) / m.groups / m.local / out_bw};
}

// Recursive halving + doubling (Rabenseifner; Thakur et al. 2005 §4.4: log2 p steps per pass; a
// non-power-of-two p adds one exchange of n per pass). AllToAll: Bruck et al. 1997, ⌈log2 p⌉ steps of n/2.
// Per step NCCL's ring step costs for the protocol.
Entry halving_doubling(Collective c, int proto, const Model& m) {
  const double up_bw = ring_protocol_bw(m, m.up_bw, proto);
  const double out_bw = ring_protocol_bw(m, m.out_bw, proto);
  const int log_local = ceil_log2(m.local);
  const int log_groups = ceil_log2(m.groups);
  const double up_hop = nvlink_hop(m, nccl::kRingRow, proto);
  const double far_hop = net_hop(m, nccl::kRingRow, proto, m.far_excess);
  const double step_latency = log_local * up_hop + log_groups * far_hop;
  const double base = base_latency(nccl::kRingRow, proto);
  if (c == Collective::kAllToAll) {
    const double a2a_bw = ring_protocol_bw(m, m.out_a2a_bw, proto);
    return make_entry(base + step_latency, 1.0 / (log_local * 0.5 / up_bw + log_groups * 0.5 / a2a_bw));
  }
  const double passes = (c == Collective::kReduceScatter || c == Collective::kAllGather) ? 1.0 : 2.0;
  double latency = base + passes * step_latency;
  const LevelTimes t = two_level_rs(m, up_bw, out_bw);
  double seconds_per_byte = passes * (t.up + t.out);
  if (!is_power_of_two(m.p)) {
    latency += passes * (m.multi ? far_hop : up_hop);
    seconds_per_byte += passes / (m.multi ? out_bw : up_bw);
  }
  return make_entry(latency, 1.0 / seconds_per_byte);
}

// Reduce-scatter inside the domain, the collective on n/L across domains on every rail at once, all-gather
// back (NCCL "ring of rings"; Jia et al. 2018 hierarchical AllReduce), its phases pipelined over chunks as
// NCCL pipelines its tree: the slowest phase sets the bandwidth, every phase's steps the latency. AllToAll:
// intra-domain shuffle, then one rail-aligned exchange (Rajbhandari et al. 2022, DeepSpeed-MoE).
Entry hierarchical(Collective c, int proto, const Model& m) {
  const double up_bw = ring_protocol_bw(m, m.up_bw, proto);
  const double base = base_latency(nccl::kRingRow, proto);
  const double up_hop = nvlink_hop(m, nccl::kRingRow, proto);
  if (c == Collective::kAllToAll) {
    const double a2a_bw = ring_protocol_bw(m, m.out_a2a_bw, proto);
    const double up = (m.local - 1.0) / m.local / up_bw;
    const double out = (m.groups - 1.0) / m.groups / a2a_bw;
    return make_entry(
        base + (m.local - 1) * up_hop + (m.groups - 1) * net_hop(m, nccl::kRingRow, proto, m.far_excess),
        1.0 / std::max(up, out));
  }
  const double out_bw = ring_protocol_bw(m, m.out_bw, proto);
  const double passes = c == Collective::kAllReduce ? 2.0 : 1.0;
  const LevelTimes t = two_level_rs(m, up_bw, out_bw);
  return make_entry(base + passes * ((m.local - 1) * up_hop +
                                     (m.groups - 1) * net_hop(m, nccl::kRingRow, proto, m.out_excess)),
                    1.0 / (passes * std::max(t.up, t.out)));
}

// Point to point (NCCL p2p: grouped sends and receives, LL or Simple). Every rank exchanges n/p with every
// peer at once (pairwise exchange, Thakur et al. 2005 §3); intra- and inter-domain peers proceed
// concurrently. Each remote peer costs one network post (NCCL ring.cc's net overhead, x3 for Simple) and the
// last one a network step; rail-only relays traffic to other rails through NVLink first (Wang et al. 2023).
Entry direct(Collective c, int proto, const Model& m) {
  const double base = base_latency(nccl::kRingRow, proto);
  const double up_hop = nvlink_hop(m, nccl::kRingRow, proto);
  const double far_hop = net_hop(m, nccl::kRingRow, proto, m.far_excess);
  const double up_bw = ring_protocol_bw(m, m.up_bw, proto);
  if (c == Collective::kSendRecv) {
    const double pair = m.pair_bw > 0.0 ? ring_protocol_bw(m, m.pair_bw, proto) : up_bw;
    return make_entry(base + (m.multi ? far_hop : up_hop),
                      m.multi ? ring_protocol_bw(m, m.out_bw, proto) : pair);
  }
  if (c == Collective::kAllReduce) {
    // One-shot all-reduce on a full mesh, inside one domain: every rank sends its whole buffer to each peer
    // over their own link at once and reduces what it receives (one step; the small-message all-reduce
    // RCCL runs through MSCCL++ on MI300X, and vLLM's custom all-reduce). n crosses every link: n / pair.
    return make_entry(base + up_hop, ring_protocol_bw(m, m.pair_bw, proto));
  }
  const double a2a_bw = ring_protocol_bw(m, m.out_a2a_bw, proto);
  const double remote_peers = m.p - m.local;
  const double post = nccl::kNetOverhead * kMicro * (proto == kSimple ? nccl::kNetOverheadSimpleFactor : 1.0);
  double latency = base + (m.local - 1) * up_hop + (remote_peers > 0 ? remote_peers * post + far_hop : 0.0);
  double intra = (m.local - 1.0) / m.p / up_bw;
  const double inter = remote_peers / m.p / a2a_bw;
  if (m.cross_rail && remote_peers > 0) {
    intra += remote_peers / m.p * (m.local - 1.0) / m.local / up_bw;
    latency += up_hop;
  }
  return make_entry(latency, 1.0 / std::max(intra, inter));
}

// Multi-dimensional bucket algorithm (Chan, Heimlich, Purkayastha & van de Geijn 2007 §5): one ring phase
// per torus dimension, sum (k_i - 1) steps; 2D concurrent buckets use every neighbour link of the node.
Entry torus_bucket(Collective c, int proto, const Model& m) {
  const double passes = c == Collective::kAllReduce ? 2.0 : 1.0;
  const double links = 2.0 * std::max(1, m.torus_dimensions);
  const LevelTimes t =
      two_level_rs(m, ring_protocol_bw(m, m.up_bw, proto), links * ring_protocol_bw(m, m.out_bw, proto));
  return make_entry(base_latency(nccl::kRingRow, proto) +
                        passes * ((m.local - 1) * nvlink_hop(m, nccl::kRingRow, proto) +
                                  m.torus_ring_steps * net_hop(m, nccl::kRingRow, proto, m.out_excess)),
                    1.0 / (passes * (t.up + t.out)));
}

// PAT, Parallel Aggregated Trees (NCCL src/tuning/pat.cc; src/device/all_gather.h and reduce_scatter.h
// RunWorkColl NCCL_ALGO_PAT): all-gather and reduce-scatter over one GPU per node, Simple only. Latency
// logarithmic in the nodes plus a part linear in the ranks; bandwidth 0.75 of the ring graph's bus bandwidth,
// as the algorithm's (NCCL divides the whole message by it). A fabric's excess latency is added once to the
// network step, as NCCL adds the NIC's reported latency once for PAT.
Entry pat(const Model& m) {
  const double net = nccl::kPatNetLatency * kMicro + m.far_excess;
  const double latency = (nccl::kPatBaseLatency + nccl::kPatPerRankLatency * m.p) * kMicro +
                         floor_log2(m.groups) * net / nccl::kPatLogDivisor;
  return make_entry(latency, nccl::kPatBandwidthFactor * m.ring_busbw);
}

Entry evaluate_uncalibrated(Collective c, Algorithm a, int proto, const Model& m) {
  switch (a) {
    case Algorithm::kRing:
      return ring(c, proto, m);
    case Algorithm::kDoubleBinaryTree:
      return tree(proto, m);
    case Algorithm::kHalvingDoubling:
      return halving_doubling(c, proto, m);
    case Algorithm::kHierarchical:
      return hierarchical(c, proto, m);
    case Algorithm::kDirect:
      return direct(c, proto, m);
    case Algorithm::kInNetwork:
      return in_network(c, m);
    case Algorithm::kNvlsTree:
      return nvls_tree(m);
    case Algorithm::kTorusBucket:
      return torus_bucket(c, proto, m);
    case Algorithm::kPat:
      return pat(m);
    case Algorithm::kAuto:
      break;
  }
  return {};
}

}  // namespace

// A measured factor on the protocol's bandwidth (ProtocolCalibration) of the level the communicator spans.
Entry evaluate(Collective c, Algorithm a, int proto, const Model& m) {
  Entry e = evaluate_uncalibrated(c, a, proto, m);
  const double factor = (m.multi ? m.out_bw_factor : m.up_bw_factor)[static_cast<std::size_t>(proto)];
  if (e.runs() && factor != 1.0) {
    e.seconds_per_byte /= factor;
    e.channel_seconds_per_byte /= factor;
  }
  return e;
}

}  // namespace costmodel::detail
