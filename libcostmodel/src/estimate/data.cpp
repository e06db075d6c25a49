// SPDX-License-Identifier: Apache-2.0
#include "estimate/data.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "estimate/compute.hpp"

#include "communication.hpp"
#include "zero3_modules.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// HBM traffic of one Adam step per parameter: read the states (master weight, m, v) and the fp32 gradient,
// write the states and the half-precision copy; with the gradient-norm pass 2 x states + 8 B: 32 B with fp32
// states (apex FusedAdam), 20 B with bf16 ones.
constexpr double optimizer_traffic_bytes(double state_bytes) {
  return 2.0 * state_bytes + 8.0;
}

// Casting a weight to FP8 with its transpose once a step: read 2 B, write 1 + 1 B (Transformer Engine caches
// the FP8 weights over a step's micro-batches: is_first_microbatch). With FP8 weights (fp8_weights()) the
// optimizer writes them in FP8 and only the transpose is rebuilt after the gather: read 1 B, write 1 B.
constexpr double fp8_weight_cast_bytes(const Strategy& st) {
  return fp8_weights(st) ? 2.0 : 4.0;
}

inline double wire_bytes(const Strategy& st) {
  const double grad_b = gradient_bytes(st);
  double wire = grad_b;
  if (st.compression.kind == CompressionKind::kFp16) wire = std::min(grad_b, 2.0);
  if (st.compression.kind == CompressionKind::kInt8) wire = 1.0;
  return wire;
}

// One group's gradient reduction of `params` over `path`: an all-reduce (ZeRO-0) or a reduce-scatter
// (ZeRO >= 1); with top-k sparsification an all-gather of every rank's values and int32 indices (4 + 4 B),
// which cannot be summed in flight and grows with the group (Shi et al. 2019 §3).
inline double reduce(const StepInputs& in, double params, const CollectivePath& path) {
  const Strategy& st = in.strategy;
  if (params <= 0.0 || path.ranks <= 1) return 0.0;
  if (st.compression.kind == CompressionKind::kTopK) {
    return detail::comm(Collective::kAllGather, Algorithm::kAuto,
                        path.ranks * st.compression.topk_fraction * params * 8.0, path)
        .value;
  }
  const Collective c = st.zero == 0 ? Collective::kAllReduce : Collective::kReduceScatter;
  return detail::comm(c, in.options.dp_algorithm, params * wire_bytes(st), path).value;
}

inline double gather(const StepInputs& in, double params, const CollectivePath& path) {
  if (params <= 0.0 || path.ranks <= 1) return 0.0;
  return detail::comm(Collective::kAllGather, in.options.dp_algorithm,
                      params * gathered_weight_bytes(in.strategy), path)
      .value;
}

// The host's submission of one cudaMemcpyAsync of a small chunk: 5-7 us per call measured (Wu et al. 2026,
// DualPath, arXiv 2602.21548 §5.2), the midpoint. PyTorch's dispatch of copy_ and recordStream come on top
// and are not counted.
constexpr double kCopySubmission = 6e-6;

// DeepSpeed's Python loop building the world_size shard views of each list collective: one narrow() per
// rank for a gather (partition_parameters.py _allgather_param at 67f957a4), view(-1) then narrow() for a
// reduce-scatter (_reduce_scatter_gradient). An eager view op from Python costs 3.3 us (PyTorch's operator
// micro-benchmark of split, pytorch/pytorch PR 32194, 2020).
constexpr double kShardView = 3.3e-6;

// One layer's list collectives (Zero3Gather::kList) in one micro-batch, tensor by tensor (layer_modules()).
// Forward: every partitioned tensor is gathered, one collective each. The recompute gathers them again (the
// forward released them: the rest of the model lies between). Backward: a module is gathered again unless
// its recomputed forward is within kMaxReuseDistance (module k of the layer: the forward and backward of the
// modules after it, 2 x their elements); without recompute the rest of the model lies between. Every
// tensor's gradient is reduce-scattered, one list collective each. `gather` and `reduce` price one tensor.
struct ListCollectives {
  double forward_gather = 0, backward_gather = 0, reduce = 0;
  double gathers = 0, reduces = 0;  // list collectives, each world_size copies
  double backward_passes = 0;       // elements gathered in the backward per element gathered in the forward
};

template <typename Gather, typename Reduce>
ListCollectives list_collectives_per_layer(const StepInputs& in, Gather&& gather_one, Reduce&& reduce_one) {
  const detail::LayerModules mods = detail::layer_modules(in.model, in.terms, in.tp);
  double forward = 0.0, again = 0.0, n_forward = 0.0, n_again = 0.0, e_forward = 0.0, e_again = 0.0;
  double after = 0.0;
  ListCollectives c;
  // From fc2 back to QKV: `after` holds the elements of the modules that follow module k.
  for (std::size_t k = 4; k-- > 0;) {
    const bool beyond_reuse = 2.0 * after >= detail::kMaxReuseDistance;
    for (const double elements : {mods.weights.at(k), mods.biases.at(k)}) {
      if (elements <= 0.0) continue;
      c.reduce += reduce_one(elements);
      c.reduces += 1.0;
      if (!detail::LayerModules::gathered(elements)) continue;
      const double g = gather_one(elements);
      forward += g;
      n_forward += 1.0;
      e_forward += elements;
      if (beyond_reuse) {
        again += g;
        n_again += 1.0;
        e_again += elements;
      }
    }
    after += mods.weights.at(k) + mods.biases.at(k);
  }
  c.reduce += mods.norm_tensors * reduce_one(in.hidden);
  c.reduces += mods.norm_tensors;
  const double recomputed = in.strategy.recompute == Recompute::kFull ? in.recomputed_share : 0.0;
  c.forward_gather = forward;
  c.backward_gather = recomputed * (forward + again) + (1.0 - recomputed) * forward;
  c.gathers = n_forward + recomputed * (n_forward + n_again) + (1.0 - recomputed) * n_forward;
  c.backward_passes = e_forward > 0.0 ? 1.0 + recomputed * e_again / e_forward : 1.0;
  return c;
}

}  // namespace

double wire_bytes_per_gradient(const Strategy& st) noexcept {
  return wire_bytes(st);
}

DataParallelStreams data_parallel_streams(const StepInputs& in) noexcept {
  DataParallelStreams s;
  const Strategy& st = in.strategy;
  const ModelTerms& terms = in.terms;
  const CollectivePath& dense = in.paths.dp;
  const CollectivePath& experts = in.paths.expert_dp;
  // Per GPU: dense weights split over tp, experts over etp and ep (stage_parameters()).
  const double t = st.tp;
  const StageParameters one_layer = stage_parameters(in.model, terms, st, 1.0, false, false);
  const double dense_layer = one_layer.dense, expert_layer = one_layer.experts;
  const double embedding = terms.params_embedding / t;
  const double output = terms.params_output / t;
  const bool one_stage = st.pp == 1;
  const bool output_here = !one_stage || !in.model.tied_embeddings;  // Megatron's copy on the last stage
  if (st.zero >= 2) {
    s.layer_reduce = Seconds(reduce(in, dense_layer, dense) + reduce(in, expert_layer, experts));
    s.first_end_reduce = Seconds(reduce(in, embedding, dense));
    s.last_end_reduce = Seconds(output_here ? reduce(in, output, dense) : 0.0);
  }
  if (st.zero >= 3) {
    s.layer_gather = Seconds(gather(in, dense_layer, dense) + gather(in, expert_layer, experts));
    s.layer_gather_backward = s.layer_gather;
    s.first_end_gather = Seconds(gather(in, embedding, dense));
    s.last_end_gather = Seconds(output_here ? gather(in, output, dense) : 0.0);
    if (in.options.zero3_gather == Zero3Gather::kList && dense.ranks > 1) {
      // One collective per tensor, each paying its own latency (the experts stay one gather).
      const ListCollectives list = list_collectives_per_layer(
          in, [&](double elements) { return gather(in, elements, dense); },
          [&](double elements) { return reduce(in, elements, dense); });
      const double expert_gather = gather(in, expert_layer, experts);
      s.layer_gather = Seconds(list.forward_gather + expert_gather);
      s.layer_gather_backward = Seconds(list.backward_gather + expert_gather);
      s.layer_reduce = Seconds(list.reduce + reduce(in, expert_layer, experts));
      s.layer_copies = Seconds(dense.ranks * (list.gathers * (kCopySubmission + kShardView) +
                                              list.reduces * (kCopySubmission + 2.0 * kShardView)));
      s.reduce_serialized = true;
      // On the GPU, in the collectives' streams: DeepSpeed zero-fills each gathered buffer (_allgather_param,
      // torch.zeros) and PyTorch copies the shards out of its flat buffer (read and write): 3 x its bytes per
      // weight element; a gradient's shards are copied in (read and write) before the reduce-scatter.
      const auto copied = [&](double params, double bytes_per_param) {
        return memory_bound_time(in.gpu, Bytes(params * bytes_per_param)).value;
      };
      const double gathered_copy = 3.0 * gathered_weight_bytes(st);
      s.layer_gather += Seconds(copied(dense_layer, gathered_copy));
      s.layer_gather_backward += Seconds(list.backward_passes * copied(dense_layer, gathered_copy));
      s.layer_reduce += Seconds(copied(dense_layer, 2.0 * wire_bytes(st)));
      s.first_end_gather += Seconds(copied(embedding, gathered_copy));
      s.first_end_reduce += Seconds(copied(embedding, 2.0 * wire_bytes(st)));
      if (output_here) {
        s.last_end_gather += Seconds(copied(output, gathered_copy));
        s.last_end_reduce += Seconds(copied(output, 2.0 * wire_bytes(st)));
      }
    }
  }
  if (st.zero <= 2) {
    // The first stage's parameters (with one stage: every one of them).
    const double layers = in.stages.first;
    const double dense_stage = layers * dense_layer + embedding + (one_stage && output_here ? output : 0.0);
    const double expert_stage = layers * expert_layer;
    // Megatron-Core's DDP buckets each buffer (dense, experts) in backward order: the last bucket holds the
    // first layers and the embedding, the first gathered bucket the same (EstimateOptions::dp_bucket).
    // Only an overlapped exchange has a tail to single out (without overlap all of it is exposed).
    const DataParallelBucket& bucket = in.options.dp_bucket;
    const auto bucketed = [&](double params, const CollectivePath& path) {
      const double size = st.overlap ? bucket.size(path.ranks) : 0.0;
      return size > 0.0 ? std::min(size, params) : 0.0;
    };
    if (st.zero <= 1) {
      s.step_reduce = Seconds(reduce(in, dense_stage, dense) + reduce(in, expert_stage, experts));
      s.step_reduce_tail = Seconds(reduce(in, bucketed(dense_stage, dense), dense) +
                                   reduce(in, bucketed(expert_stage, experts), experts));
    }
    if (st.zero >= 1) {
      s.step_gather = Seconds(gather(in, dense_stage, dense) + gather(in, expert_stage, experts));
      if (st.zero == 1) {
        s.step_gather_head = Seconds(gather(in, bucketed(dense_stage, dense), dense) +
                                     gather(in, bucketed(expert_stage, experts), experts));
      }
    }
    s.step_reduce_tail = std::min(s.step_reduce_tail, s.step_reduce);
    s.step_gather_head = std::min(s.step_gather_head, s.step_gather);
  }
  if (in.model.tied_embeddings && !one_stage && in.paths.embedding.ranks > 1) {
    s.tied_embedding = detail::comm(Collective::kAllReduce, Algorithm::kAuto, embedding * gradient_bytes(st),
                                    in.paths.embedding);
  }
  return s;
}

// The optimizer step (memory bound), the compression pass with error feedback and the FP8 weight casts.
Seconds optimizer_time(const StepInputs& in, const MemoryBreakdown& memory) noexcept {
  const GpuSpec& gpu = in.gpu;
  const Strategy& st = in.strategy;
  const double state = optimizer_state_bytes(st);
  const double local_params = memory.optimizer.value / state;  // what this GPU updates
  double optimizer = memory_bound_time(gpu, Bytes(local_params * optimizer_traffic_bytes(state))).value;
  const double stage_params = memory.dense_parameters + memory.expert_parameters;
  if (st.compression.kind != CompressionKind::kNone) {
    // Read the gradient, write its compressed copy; int8 and top-k also read and write the fp32 residual of
    // error feedback (Seide et al. 2014; Karimireddy et al. 2019), a plain fp16 cast keeps none.
    const double feedback = has_error_feedback(st.compression) ? 8.0 : 0.0;
    optimizer +=
        memory_bound_time(gpu, Bytes(stage_params * (gradient_bytes(st) + wire_bytes(st) + feedback))).value;
  }
  if (st.dtype == Dtype::kFp8)
    optimizer += memory_bound_time(gpu, Bytes(stage_params * fp8_weight_cast_bytes(st))).value;
  return Seconds(optimizer);
}

GradAccumulation grad_accumulation_time(const StepInputs& in) noexcept {
  if (in.options.grad_accumulation_fusion) return {};
  const Strategy& st = in.strategy;
  // Read the micro-batch's bf16/fp16 gradient (2 B), read and write the main gradient; the accumulation is
  // one mixed-precision add_ (DeepSpeed's bf16 optimizer first materialises the fp32 cast, 8 B more per
  // element, not counted).
  const double bytes = 2.0 + 2.0 * gradient_bytes(st);
  const ParameterReplicas replicas = st.zero >= 2 ? parameter_replicas(st) : ParameterReplicas{};
  const auto seconds = [&](const StageParameters& p) {
    return memory_bound_time(in.gpu, Bytes(bytes * sharded_parameters(p, replicas)));
  };
  const StageParameters layer = stage_parameters(in.model, in.terms, st, 1.0, false, false);
  const StageParameters first = stage_parameters(in.model, in.terms, st, 0.0, true, false);
  const StageParameters last = stage_parameters(in.model, in.terms, st, 0.0, false, true);
  return {seconds(layer), seconds(first), seconds(last)};
}

}  // namespace costmodel::inline COSTMODEL_ABI
