// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/data.hpp"

#include <algorithm>

#include "costmodel/estimate/compute.hpp"

#include "communication.hpp"

namespace costmodel {
namespace {

// HBM traffic of one Adam step per parameter: read fp32 weight, m, v and gradient (16 B), write weight, m, v
// (12 B) and the half-precision copy (2 B); rounded to 32 B with the gradient-norm pass (apex FusedAdam).
constexpr double kOptimizerTrafficBytes = 32.0;

inline double wire_bytes(const Strategy& st) {
  const double grad_b = gradient_bytes(st.dtype);
  double wire = grad_b;
  if (st.compression.kind == CompressionKind::kFp16) wire = std::min(grad_b, 2.0);
  if (st.compression.kind == CompressionKind::kInt8) wire = 1.0;
  return wire;
}

// A group exchanges nothing when it is one rank or holds no parameters.
inline bool exchanges(double params, int ranks) {
  return ranks > 1 && params > 0.0;
}

// The exchange of a group that exchanges(). Inline here so that data_parallel_time() is one call;
// gradient_exchange_time() returns the same numbers.
inline GradientExchange exchange(const StepInputs& in, double params, int ranks, const CollectivePath& path,
                                 double layer_forward) {
  GradientExchange g;
  const Strategy& st = in.strategy;
  const Algorithm algorithm = in.options.dp_algorithm;
  const double hidden = in.gpu.efficiency.overlap;
  const double layers_per_stage = in.layers_per_stage;
  double reduce = 0.0, gather = 0.0;
  if (st.compression.kind == CompressionKind::kTopK) {
    // Top-k sparsified gradients cannot be summed in flight: every rank all-gathers everyone's values and
    // int32 indices (4 + 4 bytes each), a volume that grows with the group (Shi et al. 2019 §3).
    reduce = detail::comm(Collective::kAllGather, Algorithm::kAuto,
                          ranks * st.compression.topk_fraction * params * 8.0, path)
                 .value;
  } else if (st.zero == 0) {
    reduce = detail::comm(Collective::kAllReduce, algorithm, params * wire_bytes(st), path).value;
  } else {
    // Distributed optimizer / ZeRO-1/2: reduce-scatter gradients, all-gather the updated weights once.
    reduce = detail::comm(Collective::kReduceScatter, algorithm, params * wire_bytes(st), path).value;
    if (st.zero <= 2) gather = detail::comm(Collective::kAllGather, algorithm, params * 2.0, path).value;
  }
  if (st.zero >= 3) {
    // ZeRO-3 / FSDP gathers the weights for every micro-batch's forward and again for its backward,
    // prefetched behind that micro-batch's compute.
    const double m = in.micro_batches;
    const double per_mb =
        2.0 * detail::comm(Collective::kAllGather, Algorithm::kAuto, params * 2.0, path).value;
    g.weight_gathers = Seconds(m * per_mb);
    g.weight_gathers_exposed = Seconds(
        st.overlap ? m * detail::exposed_after_overlap(per_mb, 3.0 * layers_per_stage * layer_forward, hidden)
                   : m * per_mb);
  }
  g.reduce = Seconds(reduce);
  g.gather = Seconds(gather);
  // Bucketed overlap: gradient reduction hides behind the last micro-batch's backward, the weight
  // all-gather behind the next step's first forward (Megatron-LM --overlap-grad-reduce and
  // --overlap-param-gather).
  const double backward_window = 2.0 * layers_per_stage * layer_forward;
  const double forward_window = layers_per_stage * layer_forward;
  g.exposed = Seconds(st.overlap ? detail::exposed_after_overlap(reduce, backward_window, hidden) +
                                       detail::exposed_after_overlap(gather, forward_window, hidden)
                                 : reduce + gather);
  return g;
}

}  // namespace

double wire_bytes_per_gradient(const Strategy& st) noexcept {
  return wire_bytes(st);
}

GradientExchange gradient_exchange_time(const StepInputs& in, double params, int ranks, const LinkPath& path,
                                        Seconds layer_forward) noexcept {
  if (!exchanges(params, ranks)) return {};
  return exchange(in, params, ranks, collective_path(path), layer_forward.value);
}

// Gradients of the stage's parameters across dp·cp (expert parameters across dp·cp/ep).
DataParallelComm data_parallel_time(const StepInputs& in, const MemoryBreakdown& memory,
                                    Seconds layer_forward) noexcept {
  const Strategy& st = in.strategy;
  const int replicas = st.dp * st.cp;
  // Summed as the exchanges happen, only the terms there are (a sum of fewer terms is a shorter chain).
  double total = 0.0, exposed = 0.0;
  const auto add = [&](double params, int ranks, const CollectivePath& path) {
    if (!exchanges(params, ranks)) return;
    const GradientExchange g = exchange(in, params, ranks, path, layer_forward.value);
    if (st.zero >= 3) {
      total += g.weight_gathers.value;
      exposed += g.weight_gathers_exposed.value;
    }
    total += g.reduce.value + g.gather.value;
    exposed += g.exposed.value;
  };
  add(memory.dense_parameters, replicas, in.paths.dp);
  add(memory.expert_parameters, replicas / st.ep, in.paths.expert_dp);
  return {Seconds(total), Seconds(exposed)};
}

// The optimizer step (memory bound) and the compression pass with error feedback.
Seconds optimizer_time(const StepInputs& in, const MemoryBreakdown& memory) noexcept {
  const GpuSpec& gpu = in.gpu;
  const Strategy& st = in.strategy;
  const double local_params = memory.optimizer.value / kOptimizerStateBytes;  // what this GPU updates
  double optimizer = memory_bound_time(gpu, Bytes(local_params * kOptimizerTrafficBytes)).value;
  if (st.compression.kind != CompressionKind::kNone) {
    const double stage_params = memory.dense_parameters + memory.expert_parameters;
    optimizer +=
        memory_bound_time(gpu, Bytes(stage_params * (gradient_bytes(st.dtype) + wire_bytes(st) + 8.0))).value;
  }
  return Seconds(optimizer);
}

}  // namespace costmodel
