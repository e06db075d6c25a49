// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstddef>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

bool tree_applies(Collective c, const LinkPath& /*path*/, const Why& why) {
  if (c == Collective::kAllReduce) return true;
  return why.fail(
      [] { return std::string("tree implements only allreduce (NCCL runs broadcast and reduce on rings)"); });
}

// NCCL's tree, AllReduce only (src/tuning/tree.cc ncclTuningTreeModelInit): a chain inside the node, a
// double binary tree across nodes (Sanders, Speck & Träff 2009). busBw = min(0.92 x the graph's, nChannels x
// perChMaxTreeBw); LL 1/3.8 of it, LL128 7/9 (one node) or 120/128; algorithm bandwidth half of it. Latency
// base + 2((L-1) intra + ⌊log2 N⌋ inter). NCCL's prediction (which Auto compares for LL) divides the
// bandwidth by treeCorrectionFactor by message size; what LL128 and Simple launch is NCCL's pipeline model
// (set_pipeline, collective.cpp pipelined_terms), which has its own ramp.
Entry tree(Collective c, int proto, const Model& m) {
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
  // Two nodes of one rank each (NCCL's plain TREE pattern): each tree's reduction and broadcast cross the
  // one pair of node links in opposite directions at once, n each way over each link, as a ring of two
  // does; what launches moves twice the halved bus bandwidth NCCL predicts with (src/tuning/tree.cc
  // ncclTuningTreeModelInit; NCCL's older tuner raised the tree's bwIntra to twice bwInter on two nodes for
  // this, src/graph/search.cc "increase bwIntra for trees (2 nodes or collnet)"). 2 x H100, one GPU each,
  // over 400G RoCE: 41.3 GB/s measured (tests/fixtures/nccl-holdout.yaml), NCCL's prediction 17.6. With a
  // chain inside each node the measured 2-node curves (AWS p5, OCI H100) stay near the prediction.
  const double two_nodes = m.groups == 2 && m.local == 1 ? 2.0 : 1.0;
  const double busbw = pattern * tree_busbw(m.ring_busbw, m.channels);
  // Pipeline (tree.cc getTreeNsteps): 2(L-1) steps inside the node, 2⌊log2 N⌋ across.
  const int intra_steps = 2 * (m.local - 1);
  const int inter_steps = 2 * floor_log2(m.groups);
  const double step_latency = intra_steps * nvlink_hop(m, nccl::kTreeRow, proto) +
                              inter_steps * net_hop(m, nccl::kTreeRow, proto, m.far_excess);
  Entry e = make_entry(base_latency(nccl::kTreeRow, proto) + step_latency, 0.5 * busbw);
  if (pipelined(m, proto)) {
    set_pipeline(e, c, proto, Entry::Pipeline::Slices::kTree, intra_steps + inter_steps, m);
    e.pipeline.seconds_per_byte /= two_nodes;
  }
  e.correction = nccl::kTreeCorrectionEntries;
  launch_channels(e, false, proto, pattern * tree_busbw(m.channel_bw, 1.0), 0.5, m);
  return e;
}

}  // namespace

const AlgorithmRule kTreeRule{tree_applies, tree};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
