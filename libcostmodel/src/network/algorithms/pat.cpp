// SPDX-License-Identifier: Apache-2.0
#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

// pat.cc ncclPatEnable: compute capability >= 6.0 (every catalog GPU), nNodes == nRanks, the host driving
// the network (not a device-offload net plugin).
bool pat_applies(Collective c, const LinkPath& path, const Why& why) {
  if (c != Collective::kAllGather && c != Collective::kReduceScatter) {
    return why.fail([] { return std::string("pat implements only allgather and reducescatter"); });
  }
  const bool up = path.scale_up.ranks > 1;
  if (path.scale_out.ranks <= 1 || up) {
    return why.fail([up] {
      return std::string(
                 "pat runs with one GPU of the communicator per node (NCCL), and across nodes; this "
                 "communicator has ") +
             (up ? "more than one per node" : "one node");
    });
  }
  return true;
}

// PAT, Parallel Aggregated Trees (NCCL src/tuning/pat.cc; src/device/all_gather.h and reduce_scatter.h
// RunWorkColl NCCL_ALGO_PAT): all-gather and reduce-scatter over one GPU per node, Simple only. Latency
// logarithmic in the nodes plus a part linear in the ranks; bandwidth 0.75 of the ring graph's bus bandwidth,
// as the algorithm's (NCCL divides the whole message by it). A fabric's excess latency is added once to the
// network step, as NCCL adds the NIC's reported latency once for PAT.
Entry pat(Collective /*c*/, int /*proto*/, const Model& m) {
  const double net = nccl::kPatNetLatency * kMicro + m.far_excess;
  const double latency = (nccl::kPatBaseLatency + nccl::kPatPerRankLatency * m.p) * kMicro +
                         floor_log2(m.groups) * net / nccl::kPatLogDivisor;
  return make_entry(latency, nccl::kPatBandwidthFactor * m.ring_busbw);
}

}  // namespace

const AlgorithmRule kPatRule{pat_applies, pat};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
