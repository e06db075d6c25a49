// SPDX-License-Identifier: Apache-2.0
#include "estimate/expert.hpp"

#include "communication.hpp"

namespace costmodel::inline COSTMODEL_ABI {

Seconds expert_parallel_layer_time(const StepInputs& in) noexcept {
  const Strategy& st = in.strategy;
  if (!expert_dispatch(st) || !in.model.is_moe()) return Seconds(0.0);
  const double routed = in.model.moe->top_k * in.capacity_factor;
  // Megatron-LM requires sequence parallelism with expert and tensor parallelism: each TP rank dispatches
  // its own T/t tokens (megatron/core/transformer/moe/README.md, "Parallelism").
  const double dispatched = in.tokens / (in.sequence_parallel ? in.tp : 1.0);
  const double bytes = dispatched * routed * in.hidden * kActivationBytes;
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
