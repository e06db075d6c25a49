// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

bool torus_bucket_applies(Collective c, const LinkPath& path, const Why& why) {
  if (!is_torus(path.kind)) {
    return why.fail([&] {
      return "torus-bucket needs a torus-2d or torus-3d topology, this cluster is " +
             std::string(to_string(path.kind));
    });
  }
  if (path.scale_out.ranks <= 1) {
    return why.fail([] {
      return std::string("torus-bucket runs across torus nodes; this communicator stays inside one node");
    });
  }
  if (c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kAllGather)
    return true;
  return why.fail(
      [] { return std::string("torus-bucket implements only allreduce, reducescatter and allgather"); });
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

}  // namespace

const AlgorithmRule kTorusBucketRule{torus_bucket_applies, torus_bucket};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
