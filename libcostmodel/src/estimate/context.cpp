// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/context.hpp"

#include "communication.hpp"

namespace costmodel {

// Ring attention (Liu et al. 2023): cp - 1 K/V block exchanges forward, and K/V plus their gradients
// backward; overlapped with the attention core they feed.
Seconds context_parallel_layer_time(const StepInputs& in, Seconds attention_core) noexcept {
  const Strategy& st = in.strategy;
  if (st.cp <= 1) return Seconds(0.0);
  const CollectivePath& cp_path = in.paths.cp;
  const double block = 2.0 * in.tokens * in.kv_dim / in.tp * kActivationBytes;
  const double forward =
      (st.cp - 1) * detail::comm(Collective::kSendRecv, Algorithm::kAuto, block, cp_path).value;
  return Seconds(
      detail::exposed_after_overlap(3.0 * forward, 3.0 * attention_core.value, in.gpu.efficiency.overlap));
}

}  // namespace costmodel
