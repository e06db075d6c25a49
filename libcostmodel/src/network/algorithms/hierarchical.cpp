// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

bool hierarchical_applies(Collective c, const LinkPath& /*path*/, const Why& why) {
  if (c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kAllGather ||
      c == Collective::kAllToAll) {
    return true;
  }
  return why.fail([] {
    return std::string("hierarchical implements only allreduce, reducescatter, allgather and alltoall");
  });
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

}  // namespace

const AlgorithmRule kHierarchicalRule{hierarchical_applies, hierarchical};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
