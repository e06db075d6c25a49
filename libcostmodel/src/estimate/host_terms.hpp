// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host (CPU) time per micro-batch: the framework ops Python dispatches and the kernels C++ issues for each
// layer, and the host synchronisations of a dropless MoE dispatcher. The GPU runs ahead of the host only as
// far as the host has issued work, so a micro-batch takes max(host, GPU) between two synchronisations, and a
// synchronisation adds its own wait and refill (the GPU idles while the host catches up).
//
// The counts are read from Megatron-Core's and Transformer Engine's code paths (NVIDIA/Megatron-LM
// @d98e8a64ddf34856e74b24714e3bedb2f5a39553, NVIDIA/TransformerEngine
// @d0067d0da6cb01811b8072a7d304f0e00344ce2b), per transformer layer and micro-batch, to about +-30%:
// - a dense layer (TE LayerNormLinear, fused attention, RoPE, row-parallel projection, LayerNormMLP,
//   bias-dropout-add fusions): ~35 Python-dispatched ops forward and ~26 backward (TE's custom autograd
//   functions run Python in the backward too); ~18 kernels forward and ~36 backward in BF16;
// - a MoE layer (attention half, router with its fused top-k and aux loss, the all-to-all dispatcher's
//   bookkeeping, permute, all-to-alls, TE GroupedLinear, unpermute): ~86 ops forward, ~58 backward; ~56
//   kernels forward and ~72 backward besides its experts, whose legacy GroupedLinear issues one cuBLASLt GEMM
//   per local expert from C++ (transformer_engine/common/gemm/cublaslt_gemm.cu multi_stream_cublas_gemm):
//   2 per expert forward (fc1, fc2), 4 backward (dgrad, wgrad);
// - FP8 quantises every GEMM input: 4 kernels each under current scaling (zero amax, amax, scale, cast:
//   transformer_engine/pytorch/csrc/quantizer.cpp Float8CurrentScalingQuantizer, the H100 FP8 recipes of
//   NVIDIA's tables) and 1 under MXFP8 (Blackwell's recipes); per expert under GroupedLinear's
//   split_quantize, whose weight-quantise loop also costs one Python call per expert and GroupedLinear call;
// - the all-to-all dispatcher (megatron/core/transformer/moe/token_dispatcher.py
//   MoEAlltoAllTokenDispatcher._maybe_dtoh_and_synchronize) synchronises the host once per MoE layer forward,
//   before its expert all-to-all, when routing is dropless; the backward reuses the split sizes it holds.
// CUDA graphs (Megatron-Core --cuda-graph-impl; TransformerConfig.cuda_graph_scope): per-layer graphs replay
// a dense layer, and a MoE layer's attention, router and dispatch preprocessing, as one call each; the whole
// iteration's graph leaves nothing per layer and needs a dispatcher that never synchronises.

#include <algorithm>
#include "costmodel/version.hpp"

#include "costmodel/estimate/inputs.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

// Per layer and micro-batch: Python-dispatched ops and C++-issued kernels, forward and backward.
struct HostCounts {
  double ops_forward = 0, ops_backward = 0;
  double kernels_forward = 0, kernels_backward = 0;
};

inline constexpr HostCounts kDenseLayer{35, 26, 18, 36};
inline constexpr HostCounts kMoeLayer{86, 58, 56, 72};  // without its experts' GEMMs and quantisation
// Of kMoeLayer, what per-layer graphs capture (attention, router, dispatch preprocessing): the attention
// half's 28 + 20 ops and 12 + 24 kernels, the router's and preprocessing's ~20 ops and ~18 kernels each way.
inline constexpr HostCounts kMoeLayerCaptured{48, 40, 30, 42};
inline constexpr double kExpertGemmsForward = 2, kExpertGemmsBackward = 4;
// GEMM inputs FP8 quantises: a dense layer's 4 forward (QKV, projection, fc1, fc2) and ~6 backward (the 4
// output gradients and the cached inputs' transposes); the attention half's 2 and 3; an expert's 2 and 2.
inline constexpr double kDenseQuantForward = 4, kDenseQuantBackward = 6;
inline constexpr double kAttentionQuantForward = 2, kAttentionQuantBackward = 3;
inline constexpr double kExpertQuantForward = 2, kExpertQuantBackward = 2;
inline constexpr double kGroupedLinearCalls = 2;  // fc1 and fc2: GroupedLinear's per-expert Python loop

// Kernels per quantised FP8 GEMM input: current scaling on Hopper (4), MXFP8 on Blackwell (1).
inline double quantise_kernels(const StepInputs& in) {
  if (in.strategy.dtype != Dtype::kFp8) return 0.0;
  return in.gpu.architecture == GpuArchitecture::kBlackwell ? 1.0 : 4.0;
}

// Host seconds of one layer's forward and backward for one micro-batch, and its host synchronisations.
struct HostLayer {
  double forward = 0, backward = 0;
  double syncs = 0;  // per forward pass
};

struct HostTerms {
  HostLayer dense, moe;
  double sync_s = 0;  // one synchronisation's wait and refill
};

inline HostLayer host_layer(const HostCounts& c, double extra_ops_forward, double extra_kernels_forward,
                            double extra_kernels_backward, const NodeSpec& node) {
  const double op = node.host_op.value, launch = node.host_launch.value;
  return {(c.ops_forward + extra_ops_forward) * op + (c.kernels_forward + extra_kernels_forward) * launch,
          c.ops_backward * op + (c.kernels_backward + extra_kernels_backward) * launch, 0.0};
}

inline HostTerms host_terms(const StepInputs& in) {
  HostTerms t;
  const NodeSpec& node = in.gpu.node;
  const CudaGraphs graphs = in.options.cuda_graphs;
  if (graphs == CudaGraphs::kFull) return t;  // one graph per iteration, no synchronisation
  const double q = quantise_kernels(in);
  t.sync_s = node.host_sync.value;
  if (graphs == CudaGraphs::kLayer) {
    t.dense = host_layer(HostCounts{1, 1, 0, 0}, 0, 0, 0, node);  // one graph replay each way
  } else {
    t.dense = host_layer(kDenseLayer, 0, kDenseQuantForward * q, kDenseQuantBackward * q, node);
  }
  if (in.moe_share > 0.0) {
    const double experts = static_cast<double>(in.model.moe->experts) / in.strategy.ep;
    const double weight_loop = q > 0.0 ? kGroupedLinearCalls * experts : 0.0;
    HostCounts moe = kMoeLayer;
    double attention_f = kAttentionQuantForward * q, attention_b = kAttentionQuantBackward * q;
    if (graphs == CudaGraphs::kLayer) {  // two replays (attention; router and preprocessing) each way
      moe = {kMoeLayer.ops_forward - kMoeLayerCaptured.ops_forward + 2,
             kMoeLayer.ops_backward - kMoeLayerCaptured.ops_backward + 2,
             kMoeLayer.kernels_forward - kMoeLayerCaptured.kernels_forward,
             kMoeLayer.kernels_backward - kMoeLayerCaptured.kernels_backward};
      attention_f = attention_b = 0.0;
    }
    t.moe =
        host_layer(moe, weight_loop, attention_f + experts * (kExpertGemmsForward + kExpertQuantForward * q),
                   attention_b + experts * (kExpertGemmsBackward + kExpertQuantBackward * q), node);
    t.moe.syncs = 1.0;
  }
  return t;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
