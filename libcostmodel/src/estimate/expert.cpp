// SPDX-License-Identifier: Apache-2.0
#include "estimate/expert.hpp"

#include <algorithm>

#include "communication.hpp"

namespace costmodel::inline COSTMODEL_ABI {

double flex_dispatch_share(const StepInputs& in) noexcept {
  const Strategy& st = in.strategy;
  if (in.options.moe_dispatcher == MoeDispatcher::kAllToAll || !in.model.is_moe() || st.ep <= 1) return 1.0;
  // DeepEP (deepseek-ai/DeepEP README, "normal kernels": NVLink and RDMA forwarding; DeepSeek-V3 report
  // §3.2.2: a token crosses InfiniBand once to each target node's GPU of the same in-node index, then
  // NVLink) and HybridEP (Megatron-Core token_dispatcher.py _HybridEPManager, the same hierarchy) send a
  // token once to each of the D units of the expert group that hold any of its k distinct experts: the
  // nodes when the group spans several, its GPUs inside one. With the experts spread evenly (E / D per
  // unit) and routing balanced, a unit holds none of them with probability C(E - E/D, k) / C(E, k), so a
  // token goes to D (1 - that) units instead of the alltoall dispatcher's k copies: the share of its
  // traffic, the bottleneck level's (NVLink carries the forwarding, about 9x a NIC's bandwidth).
  const double experts = static_cast<double>(in.model.moe->experts);
  const int k = in.model.moe->top_k;
  const LinkPath& path = in.paths.ep;
  const double units = path.scale_out.ranks > 1 ? path.scale_out.ranks : path.ranks;
  if (units <= 1.0 || k <= 0) return 1.0;
  const double per_unit = experts / units;
  double none = 1.0;  // C(E - E/D, k) / C(E, k), term by term
  for (int i = 0; i < k; ++i) none *= std::max(0.0, (experts - per_unit - i) / (experts - i));
  return std::min(1.0, units * (1.0 - none) / k);
}

Seconds expert_parallel_layer_time(const StepInputs& in) noexcept {
  const Strategy& st = in.strategy;
  if (!expert_dispatch(st) || !in.model.is_moe()) return Seconds(0.0);
  const double routed = in.model.moe->top_k * in.capacity_factor;
  // Megatron-LM requires sequence parallelism with expert and tensor parallelism: each TP rank dispatches
  // its own T/t tokens (megatron/core/transformer/moe/README.md, "Parallelism").
  const double dispatched = in.tokens / (in.sequence_parallel ? in.tp : 1.0);
  const double bytes = dispatched * routed * in.hidden * kActivationBytes * flex_dispatch_share(in);
  const double all_to_all =
      st.ep > 1 ? detail::comm(Collective::kAllToAll, Algorithm::kAuto, bytes, in.paths.ep).value : 0.0;
  // Experts split over tp (etp = tp): the dispatched tokens of the t ranks are all-gathered over tp, and the
  // outputs reduce-scattered back (the same cost, Thakur et al. 2005 §4). Whole experts (etp 1): neither.
  const double gathered = in.tokens * routed * in.hidden * kActivationBytes;
  const double expert_tp =
      st.expert_tp() > 1
          ? 2.0 *
                detail::comm(Collective::kReduceScatter, in.options.tp_algorithm, gathered, in.paths.tp).value
          : 0.0;
  const double passes = 2.0 + in.moe_recomputed_share;  // forward, backward, and the recomputed forward
  return Seconds(in.moe_share * passes * (2.0 * all_to_all + expert_tp));
}

}  // namespace costmodel::inline COSTMODEL_ABI
