// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

bool direct_applies(Collective c, const LinkPath& path, const Why& why) {
  if (c == Collective::kAllToAll || c == Collective::kAllGather || c == Collective::kReduceScatter ||
      c == Collective::kSendRecv) {
    return true;
  }
  if (c == Collective::kAllReduce) {
    if (path.scale_up.pair_bandwidth.value > 0.0 && path.scale_up.ranks > 1 && path.scale_out.ranks <= 1)
      return true;
    return why.fail([] {
      return std::string(
          "direct (one-shot) allreduce needs a full-mesh scale-up domain holding the whole "
          "communicator");
    });
  }
  return why.fail([] {
    return std::string(
        "direct implements only alltoall, allgather, reducescatter, sendrecv and (on a full mesh) "
        "allreduce");
  });
}

// Point to point (NCCL p2p: grouped sends and receives, LL or Simple). Every rank exchanges n/p with every
// peer at once (pairwise exchange, Thakur et al. 2005 §3); intra- and inter-domain peers proceed
// concurrently. Each remote peer costs one network post (NCCL ring.cc's net overhead, x3 for Simple) and the
// last one a network step; traffic to other rails relays through NVLink first (Wang et al. 2023).
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
    // A remote peer on another rail is reached through the GPU on its rail: one more NVLink send, bytes
    // and latency, per relayed message (NCCL's PXN: the intermediate GPU's proxy posts it; rail-only has no
    // other way, Wang et al. 2023 §5). (local - 1) / local of the remote peers sit on other rails.
    const double relayed_share = (m.local - 1.0) / m.local;
    intra += remote_peers / m.p * relayed_share / up_bw;
    latency += remote_peers * relayed_share * up_hop;
  }
  return make_entry(latency, 1.0 / std::max(intra, inter));
}

}  // namespace

const AlgorithmRule kDirectRule{direct_applies, direct};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
