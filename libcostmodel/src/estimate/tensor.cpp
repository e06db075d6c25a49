// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/tensor.hpp"

#include "communication.hpp"

namespace costmodel {

// Per layer 2 collectives forward and 2 backward (f and g of Shoeybi et al. 2019 §3), 2 more under full
// recompute; sequence parallelism turns each AllReduce into a reduce-scatter + all-gather pair (Korthikanti
// et al. 2022 §4.2.2).
Seconds tensor_parallel_layer_time(const StepInputs& in) noexcept {
  const Strategy& st = in.strategy;
  if (st.tp <= 1) return Seconds(0.0);
  const CollectivePath& tp_path = in.paths.tp;
  const double n = in.tokens * in.hidden * kActivationBytes;
  const Algorithm algorithm = in.options.tp_algorithm;
  // A reduce-scatter and an all-gather of the same buffer cost the same under every algorithm modelled
  // (Thakur et al. 2005 §4.1, §4.3: the same steps in reverse), so the pair is twice the reduce-scatter.
  const double one = in.sequence_parallel
                         ? 2.0 * detail::comm(Collective::kReduceScatter, algorithm, n, tp_path).value
                         : detail::comm(Collective::kAllReduce, algorithm, n, tp_path).value;
  return Seconds(one * (st.recompute == Recompute::kFull ? 6.0 : 4.0));
}

}  // namespace costmodel
