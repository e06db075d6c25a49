// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstddef>

#include "algorithm.hpp"

namespace costmodel::detail {
namespace {

bool tree_applies(Collective c, const LinkPath& /*path*/, const Why& why) {
  if (c == Collective::kAllReduce) return true;
  return why.fail(
      [] { return std::string("tree implements only allreduce (NCCL runs broadcast and reduce on rings)"); });
}

// NCCL's tree, AllReduce only (src/tuning/tree.cc ncclTuningTreeModelInit): a chain inside the node, a
// double binary tree across nodes (Sanders, Speck & Träff 2009). busBw = min(0.92 x the graph's, nChannels x
// perChMaxTreeBw); LL 1/3.8 of it, LL128 7/9 (one node) or 120/128; algorithm bandwidth half of it, times
// treeCorrectionFactor by message size. Latency base + 2((L-1) intra + ⌊log2 N⌋ inter).
Entry tree(Collective /*c*/, int proto, const Model& m) {
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

}  // namespace

const AlgorithmRule kTreeRule{tree_applies, tree};

}  // namespace costmodel::detail
