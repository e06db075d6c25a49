// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

// The hardware NCCL's per-step constants were measured on, whose own latency they already hold: one NVLink /
// NVSwitch step as data/gpus.yaml writes it (0.7 us), an InfiniBand NIC-to-NIC traversal (1 us,
// data/links.yaml) and 130 ns per InfiniBand switch (data/switches.yaml). A fabric's excess over these is
// added to NCCL's per-step constants, as NCCL adds a NIC's reported latency to its network steps
// (src/graph/search.cc graph->latencyInter; src/tuning/ring.cc and tree.cc add it once, twice for Simple).
constexpr double kReferenceScaleUpLatency = 0.7e-6;
constexpr double kReferenceNicLatency = 1.0e-6;
constexpr double kReferenceSwitchLatency = 130e-9;

namespace {

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

// What NCCL's NVLS and NVLSTree launch (NVIDIA/nccl @86fa684d3bd5b6ac3414d6d024fdc6f65441cb81
// src/transport/nvls.cc ncclNvlsTuning, ncclNvlsTreeSm100Tuning): 16 thread blocks on Hopper, 32 on Blackwell
// across nodes and 24 inside one; chunks of 128 KiB, NVLSTree's at most 64 KiB from 4 nodes. Blackwell across
// nodes is tuned by the NIC's speed (NCCL's minNetBw, GB/s) and the GPUs per node, with each GPU's NIC taken
// behind its PCIe switch (PATH_PXB, as in NVIDIA's HGX and DGX nodes).
void nvls_launch(Model& m, const LinkPath& path) {
  constexpr double kChunk = 128.0 * kKibi;
  const bool blackwell = m.arch >= static_cast<int>(GpuArchitecture::kBlackwell);
  m.nvls_ctas = blackwell ? (m.multi ? 32 : 24) : 16;
  m.nvls_chunk = kChunk;
  double tree = 0.0;
  if (blackwell && m.multi) {
    const double nic = path.scale_out.line_rate.value / kGiga;
    const int ppn = m.local;
    if (m.groups == 2 && nic >= 48.0) {
      m.nvls_ctas = 32;
      tree = kChunk;
      if (ppn <= 4) {
        m.nvls_chunk = tree = 2.0 * kChunk;
      } else if (ppn >= 16 || (ppn <= 8 && nic < 96.0)) {
        tree = kChunk / 2.0;
      }
    } else if (nic >= 96.0) {
      if (ppn <= 8) {
        m.nvls_ctas = 24;
        m.nvls_chunk = tree = 2.0 * kChunk;
      } else {
        m.nvls_ctas = 32;
        tree = ppn < 32 ? kChunk : kChunk / 2.0;
      }
    } else if (nic >= 48.0) {
      m.nvls_ctas = 24;
      tree = kChunk / 2.0;
    }
  }
  m.nvls_tree_chunk = tree > 0.0 ? tree : (m.groups >= 4 ? kChunk / 2.0 : m.nvls_chunk);
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
    nvls_launch(m, path);
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
  m.nccl = path.nccl;
  return m;
}

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

// NCCL's pipeline model (nccl_tuning.hpp kSteps, pipeline_model.h ncclTuningPreComputePipeline): the
// nominal chunk of the protocol (stepSize x chunkSteps; Simple on a ring: chunkSteps 4 and slices of 2 steps
// for all-reduce, all-gather and reduce-scatter, one step otherwise) and the steps: the first slice crosses
// every step at one channel's step bandwidth, each further one follows one step behind.
void set_pipeline(Entry& e, Collective c, int proto, Entry::Pipeline::Slices slices, int steps,
                  const Model& m) {
  const auto p = static_cast<std::size_t>(proto);
  Entry::Pipeline& q = e.pipeline;
  const bool ring = slices == Entry::Pipeline::Slices::kRing;
  const bool chunked = ring && proto == kSimple && c != Collective::kBroadcast && c != Collective::kReduce;
  const int chunk_steps = chunked ? nccl::kRingChunkSteps : 1;
  const int slice_steps = chunked ? nccl::kRingSliceSteps : 1;
  const double step_bw = std::max(nccl::kPipelineProtocolFactor[p] * m.channel_bw, kMinBandwidth);
  q.seconds_per_byte = e.seconds_per_byte;
  q.first_seconds_per_byte = steps / step_bw;
  q.delay_seconds_per_byte = 1.0 / step_bw;
  q.nominal_chunk = nccl::kBufferBytes[p] / nccl::kSteps * chunk_steps * nccl::kChunkDataFraction[p];
  q.nominal_slice = q.nominal_chunk / chunk_steps * slice_steps;
  q.slices_per_chunk = static_cast<std::uint8_t>(proto == kSimple ? chunk_steps / slice_steps : 0);
  q.slices = slices;
  q.steps = ring ? ring_steps(c, m.p) : 0;
  q.ranks = ring ? m.p : 0;
  q.ghost = ring && c == Collective::kAllReduce && m.p > 2;
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

LevelTimes two_level_rs(const Model& m, double up_bw, double out_bw) {
  return {(m.local - 1.0) / m.local / up_bw, (m.groups - 1.0) / m.groups / m.local / out_bw};
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
