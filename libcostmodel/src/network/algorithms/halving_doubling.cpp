// SPDX-License-Identifier: Apache-2.0
#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

bool halving_doubling_applies(Collective c, const LinkPath& /*path*/, const Why& why) {
  if (c != Collective::kSendRecv) return true;
  return why.fail([&] { return "halving-doubling does not implement " + std::string(to_string(c)); });
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

}  // namespace

const AlgorithmRule kHalvingDoublingRule{halving_doubling_applies, halving_doubling};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
