// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/expert.hpp"

#include "communication.hpp"

namespace costmodel {

// Dispatch and combine all-to-alls forward and backward per MoE layer (Lepikhin et al. 2020), two more under
// full recompute.
Seconds expert_parallel_layer_time(const StepInputs& in) noexcept {
  const Strategy& st = in.strategy;
  if (st.ep <= 1 || !in.model.is_moe()) return Seconds(0.0);
  const CollectivePath& ep_path = in.paths.ep;
  const double n = in.tokens * in.model.moe->top_k * in.hidden * kActivationBytes;
  return Seconds(in.moe_share * detail::comm(Collective::kAllToAll, Algorithm::kAuto, n, ep_path).value *
                 (st.recompute == Recompute::kFull ? 6.0 : 4.0));
}

}  // namespace costmodel
