// SPDX-License-Identifier: Apache-2.0
#include "estimate/tensor.hpp"

#include "estimate/expert.hpp"

#include "communication.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// One f or g operator of Shoeybi et al. 2019 §3 on one micro-batch's activations: an AllReduce of T·h, or
// with sequence parallelism a reduce-scatter + all-gather pair (Korthikanti et al. 2022 §4.2.2). A
// reduce-scatter and an all-gather of the same buffer cost the same under every algorithm modelled (Thakur
// et al. 2005 §4.1, §4.3: the same steps in reverse), so the pair is twice the reduce-scatter.
double one_operator(const StepInputs& in) {
  const CollectivePath& tp_path = in.paths.tp;
  const double n = in.tokens * in.hidden * kActivationBytes;
  const Algorithm algorithm = in.options.tp_algorithm;
  return in.sequence_parallel ? 2.0 * detail::comm(Collective::kReduceScatter, algorithm, n, tp_path).value
                              : detail::comm(Collective::kAllReduce, algorithm, n, tp_path).value;
}

// One layer's operators: each one's collectives (`op`, s) and the MLP's share of them (a MoE layer with
// ep > 1 replaces its MLP's operator with the alltoall dispatcher's gathers: expert.cpp).
struct LayerOperators {
  double op = 0;
  double mlp = 1;
  // Forward, backward and the recomputed forward: 2 + recomputed share passes of 1 + mlp operators.
  [[nodiscard]] double total(const StepInputs& in) const {
    return op * (2.0 + in.recomputed_share) * (1.0 + mlp);
  }
};

LayerOperators layer_operators(const StepInputs& in) {
  const Strategy& st = in.strategy;
  if (!expert_dispatch(st)) return {one_operator(in), 1.0};
  // Shared experts run on the TP group like a dense MLP: with whole routed experts (etp < tp) the dispatcher
  // gathers nothing over tp, so a MoE layer with shared experts keeps its MLP's pair for them.
  const bool shared = in.model.is_moe() && in.model.moe->shared_experts > 0 && st.expert_tp() < st.tp;
  return {one_operator(in), shared ? 1.0 : 1.0 - in.moe_share};
}

}  // namespace

// Per layer one operator for attention and one for the MLP, in the forward and the backward pass and again
// under full recompute (of the recomputed layers). A MoE layer with ep > 1 replaces its MLP's operator with
// the alltoall dispatcher's gathers over the expert-tensor-parallel group (expert.cpp).
Seconds tensor_parallel_layer_time(const StepInputs& in) noexcept {
  if (in.strategy.tp <= 1) return Seconds(0.0);
  return Seconds(layer_operators(in).total(in));
}

TensorParallelLayer tensor_parallel_layer(const StepInputs& in, const LayerForward& forward,
                                          double efficiency) noexcept {
  if (in.strategy.tp <= 1) return {};
  const LayerOperators ops = layer_operators(in);
  const Seconds total(ops.total(in));
  // The TP group is inside one scale-up domain when its path never leaves it.
  if (!tp_comm_overlapped(in.strategy, in.options, in.paths.tp.scale_out.ranks <= 1))
    return {total, total, Seconds(0.0), Seconds(0.0)};
  const double t = in.strategy.tp;
  const double c = ops.op;
  const auto exposed_of = [&](double gemm) {
    return c / t + detail::exposed_after_overlap(c * (t - 1.0) / t, gemm, efficiency);
  };
  // (share of the layers, GEMM time in forward units): forward, backward, recomputed forward.
  const double passes[3][2] = {{1.0, 1.0}, {1.0, 2.0}, {in.recomputed_share, 1.0}};
  double exposed[3] = {0.0, 0.0, 0.0};
  for (int p = 0; p < 3; ++p) {
    const double share = passes[p][0], g = passes[p][1];
    exposed[p] =
        share * (exposed_of(g * forward.attention_gemms.value) + ops.mlp * exposed_of(g * forward.mlp.value));
  }
  // Each pass carries c per operator: 1 + mlp operators, times its share of the layers.
  const double per_pass = c * (1.0 + ops.mlp);
  const double hidden_f = per_pass - exposed[0];
  const double hidden_b = per_pass * (1.0 + in.recomputed_share) - exposed[1] - exposed[2];
  return {total, Seconds(total.value - hidden_f - hidden_b), Seconds(hidden_f), Seconds(hidden_b)};
}

// The embedding's all-reduce (reduce-scatter under sequence parallelism) in the forward pass, or the output
// layer's input gather and its gradient's reduction (Megatron-LM VocabParallelEmbedding and the output
// ColumnParallelLinear): one operator per micro-batch at each end.
Seconds tensor_parallel_end_time(const StepInputs& in) noexcept {
  if (in.strategy.tp <= 1) return Seconds(0.0);
  return Seconds(one_operator(in));
}

}  // namespace costmodel::inline COSTMODEL_ABI
