// SPDX-License-Identifier: Apache-2.0
#pragma once
// Data parallelism as the frameworks run it: the gradient and weight exchanges of ZeRO 0-3 / FSDP and
// gradient compression, when each happens in a step, and the optimizer step.
//
// - ZeRO-0 (DDP, Megatron-LM without the distributed optimizer): one all-reduce of the gradients per step,
//   during the last micro-batch's backward (earlier micro-batches only accumulate: Megatron-LM
//   megatron/core/distributed/param_and_grad_buffer.py, _ParamAndGradBucketGroup.register_grad_ready).
// - ZeRO-1 (Megatron-LM's distributed optimizer, DeepSpeed stage 1): one reduce-scatter of the gradients per
//   step, in the same window, and one all-gather of the updated bf16 weights, waited for in the next step's
//   first forward (--overlap-param-gather).
// - ZeRO-2 (DeepSpeed stage 2): gradients reduce-scattered every micro-batch's backward
//   (deepspeed/runtime/zero/stage_1_and_2.py, reduce_ready_partitions_and_remove_grads reduces when
//   partition_gradients), the weights all-gathered once per step. With pipeline parallelism as FSDP runs it
//   (ShardingStrategy.SHARD_GRAD_OP, reshard_after_forward=False: parameters gathered once and kept through
//   the backward, gradients reduce-scattered every micro-batch), which Meta's Llama 3 405B ran with 16
//   pipeline stages (Llama 3 paper, arXiv:2407.21783 §3.3.2); DeepSpeed's PipelineEngine refuses it and
//   Megatron-LM has none, so the planner proposes it only when ZeRO-2 is asked for.
// - ZeRO-3 / FSDP FULL_SHARD: every layer's weights all-gathered before its forward and again before its
//   backward, every micro-batch, prefetched behind the layer before (deepspeed/runtime/zero/
//   partitioned_param_coordinator.py, fetch_sub_module; torch FSDP ShardingStrategy.FULL_SHARD), and its
//   gradients reduce-scattered after its backward, every micro-batch (stage3.py). The first layer's
//   forward gather has nothing to hide behind.
// - ZeRO-3 as DeepSpeed ran it in 2021 (Zero3Gather::kList): one torch.distributed.all_gather per parameter
//   with a list of world_size shards (deepspeed/runtime/zero/partition_parameters.py _allgather_param) and
//   one reduce_scatter per gradient with a list of world_size inputs (_reduce_scatter_gradient, called per
//   parameter by stage3.py average_tensor -> reduce_gradients_at_owner). PyTorch's ProcessGroupNCCL then
//   copies every shard out of (into) a flat buffer with its own copy_ (torch/lib/c10d/ProcessGroupNCCL.cpp,
//   allgather, reduce_scatter): world_size copies per parameter per collective, submitted by the host, while
//   DeepSpeed synchronizes the device before each gather (_allgather_param, _synchronize_communication). The
//   host's time grows with the rank count; nothing hides it (DataParallelStreams::layer_copies). Each
//   tensor's collective pays its own latency, and the hooks that gather a module fire again in the
//   recomputed forward of a checkpointed layer (DataParallelStreams::layer_gather_backward). Read in
//   samyam/DeepSpeed partition_parameters.py (commit 67f957a4d7c433db6446ca14f7bbd13b1c702d3b) and stage3.py
//   (14a775e81a56efa41438727e131f7eb76bbfaa90: fetch_sub_module, _synchronize_communication), and
//   pytorch/pytorch torch/lib/c10d/ProcessGroupNCCL.cpp (00f5dfd57004bacc04db40afa06f100cf2fa33f6).
//   DeepSpeed PR 1188 (June 2021) began gathering without the list ("the async version is not async at
//   all, because each all_gather calls torch.cuda.synchronize()"); PR 4705 (2023) replaced the last lists.
// Gradients travel in fp32 with bf16 training (Megatron-LM forces accumulate_allreduce_grads_in_fp32) and
// fp16 with fp16 (gradient_bytes()); weights in bf16/fp16. When each stream hides behind compute is the
// overlap budget's business (overlap.hpp, step.cpp).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Bytes per gradient element on the wire: gradient_bytes(strategy), at most 2 with fp16 compression, 1 with
/// int8; top-k sends values and indices apart (data_parallel_streams()).
[[nodiscard]] double wire_bytes_per_gradient(const Strategy& strategy) noexcept;

/// The data-parallel streams of one GPU, each the time of its collectives (not yet overlapped), s. Dense
/// parameters travel over SplitPaths::dp (dp·cp ranks), experts over SplitPaths::expert_dp (dp·cp/ep ranks,
/// every ep included); the two are summed (they share the NICs).
struct DataParallelStreams {
  Seconds layer_gather;  ///< ZeRO-3: one layer's weights all-gathered before its forward, every micro-batch
  /// ZeRO-3: one layer's weights all-gathered again in its backward: once (FSDP, whose checkpointed layer
  /// recomputes inside the gathered unit), or, as DeepSpeed's hooks run (Zero3Gather::kList), once for the
  /// recomputed forward and again for the modules beyond the reuse distance.
  Seconds layer_gather_backward;
  Seconds layer_reduce;      ///< ZeRO-2/3: one layer's gradients reduce-scattered, every micro-batch
  Seconds first_end_gather;  ///< ZeRO-3: the embedding's all-gather on the first stage, each pass
  Seconds first_end_reduce;  ///< ZeRO-2/3: the embedding's reduce-scatter, every micro-batch
  Seconds last_end_gather;   ///< ZeRO-3: the output layer's all-gather on the last stage, each pass
  Seconds last_end_reduce;   ///< ZeRO-2/3: the output layer's reduce-scatter, every micro-batch
  /// ZeRO-3 with Zero3Gather::kList: the host's work per shard (DeepSpeed's Python views, PyTorch's copy) for
  /// one layer's per-parameter gathers and reduce-scatters in one micro-batch (forward, recompute and
  /// backward), which nothing hides: DeepSpeed of 2021 calls torch.cuda.synchronize() before every gather.
  Seconds layer_copies;
  /// ZeRO-3 with Zero3Gather::kList: the reduce-scatters are on the critical path. Each starts once its
  /// module's backward has produced the gradient, and the next module's fetch synchronizes the whole device
  /// (stage3.py _synchronize_communication: torch.cuda.synchronize()) before that module's compute is queued.
  bool reduce_serialized = false;
  Seconds step_reduce;  ///< ZeRO-0/1: the first stage's gradients all-reduced / reduce-scattered, once a step
  Seconds step_gather;  ///< ZeRO-1/2: the first stage's updated weights all-gathered, once a step
  /// Of step_reduce, the last gradient bucket's reduction (EstimateOptions::dp_bucket): it starts after the
  /// last backward, so nothing hides it; 0 without buckets or without overlap (all of it exposed then).
  Seconds step_reduce_tail;
  /// Of step_gather, the first bucket's gather, which the next forward waits for (Megatron-Core
  /// param_and_grad_buffer.py: dispatched in the first forward pre-hook); 0 without buckets or overlap.
  Seconds step_gather_head;
  /// Tied embeddings with pp > 1: the embedding's gradients all-reduced between the first and the last stage
  /// once a step after the data-parallel reduction (Megatron-LM megatron/core/distributed/
  /// finalize_model_grads.py, _allreduce_word_embedding_grads); never overlapped.
  Seconds tied_embedding;
};

/// The streams of `in`'s strategy. The once-a-step streams carry the first stage's parameters: it finishes
/// the step's backward last, so its exchange is the one the step waits for (the other stages' hide in the
/// pipeline's drain).
[[nodiscard]] DataParallelStreams data_parallel_streams(const StepInputs& in) noexcept;

/// The optimizer step on the parameters this GPU updates (memory bound), the compression pass with error
/// feedback over the stage's gradients when compressed, and, under fp8, the once-a-step cast of the stage's
/// weights to FP8 with their transposes, s.
[[nodiscard]] Seconds optimizer_time(const StepInputs& in, const MemoryBreakdown& memory) noexcept;

/// Gradient accumulation outside the GEMMs, once per micro-batch on one GPU, s: zero with
/// EstimateOptions::grad_accumulation_fusion (the weight-gradient GEMM adds into the main gradients).
struct GradAccumulation {
  Seconds layer;      ///< one layer's weights
  Seconds first_end;  ///< the input embedding, on the first stage
  Seconds last_end;   ///< the output layer (or the tied embedding's copy), on the last stage
};

/// Without gradient-accumulation fusion each micro-batch's backward also runs main_grad += grad over the
/// gradients the GPU keeps (memory bound): Megatron-LM's DDP hook without --gradient-accumulation-fusion
/// (megatron/core/distributed/distributed_data_parallel.py, _make_backward_post_hook), PyTorch's
/// AccumulateGrad, DeepSpeed's BF16_Optimizer.update_hp_grads after every micro-batch's backward
/// (deepspeed/runtime/pipe/engine.py, _exec_backward_pass). ZeRO-2/3 accumulate only their shard.
[[nodiscard]] GradAccumulation grad_accumulation_time(const StepInputs& in) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
