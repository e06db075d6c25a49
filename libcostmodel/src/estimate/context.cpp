// SPDX-License-Identifier: Apache-2.0
#include "estimate/context.hpp"

#include "communication.hpp"

namespace costmodel::inline COSTMODEL_ABI {

// Ring attention (Liu et al. 2023; Megatron-LM's context parallelism, cp_comm_type p2p): cp - 1 exchanges
// of the local K and V blocks forward; K, V and their gradients dK, dV travel the ring backward; recompute
// (full, or selective's attention core) runs the forward ring again.
ContextParallelComm context_parallel_layer_comm(const StepInputs& in) noexcept {
  const Strategy& st = in.strategy;
  if (st.cp <= 1) return {};
  const double block = 2.0 * in.tokens * in.kv_per_rank * kActivationBytes;
  const double forward =
      (st.cp - 1) * detail::comm(Collective::kSendRecv, Algorithm::kAuto, block, in.paths.cp).value;
  const double recompute = attention_recompute_share(in) * forward;
  return {Seconds(forward), Seconds(2.0 * forward + recompute)};
}

}  // namespace costmodel::inline COSTMODEL_ABI
