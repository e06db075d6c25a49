// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/memory.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>

#include "costmodel/estimate/step.hpp"

namespace costmodel {
namespace {

// Parameters of the most loaded stage held by one GPU, before ZeRO sharding.
struct StageParameters {
  double dense = 0;
  double experts = 0;
};

StageParameters stage_parameters(const ModelSpec& model, const ModelTerms& terms, const Strategy& st,
                                 double layers_per_stage) {
  const double t = st.tp, p = st.pp, ep = st.ep;
  // Parameters on the first stage (embedding) and on the last (output layer or Megatron's tied copy).
  const double expert_params_per_layer = terms.expert_params_per_layer;
  const double dense_per_layer = terms.params_per_layer - expert_params_per_layer;
  // The first stage holds the input embedding, the last the output layer (Megatron-LM keeps a copy of a
  // tied embedding there); a single stage holds both, the output layer only when untied.
  const double first_extra = terms.params_embedding / t;
  const double last_extra = terms.params_output / t;
  const double single_extra =
      (terms.params_embedding + (model.tied_embeddings ? 0.0 : terms.params_output)) / t;
  const double stage_extra = p > 1 ? std::max(first_extra, last_extra) : single_extra;
  const double dense = layers_per_stage * dense_per_layer / t + stage_extra;
  const double experts = layers_per_stage * expert_params_per_layer / (t * ep);
  return {dense, experts};
}

// Weights, gradients, optimizer states and error feedback of `mem`'s stage parameters.
void shard_model_states(MemoryBreakdown& mem, const Strategy& st) {
  const double d = st.dp, ep = st.ep;
  const double dense = mem.dense_parameters, experts = mem.expert_parameters;
  // ZeRO stage 1 shards optimizer states over the replicas, 2 also gradients, 3 also weights (Rajbhandari et
  // al. 2020 §5). Dense weights are replicated over dp·cp ranks, experts over dp·cp/ep (EP is carved out of
  // DP).
  const double replicas = d * st.cp;
  const double expert_replicas = std::max(1.0, replicas / ep);
  const auto sharded = [&](double bytes_per_parameter, int from_stage) {
    return st.zero >= from_stage ? bytes_per_parameter * (dense / replicas + experts / expert_replicas)
                                 : bytes_per_parameter * (dense + experts);
  };
  const double grad_b = gradient_bytes(st.dtype);
  mem.weights = Bytes(sharded(2.0, 3));
  mem.gradients = Bytes(sharded(grad_b, 2));
  mem.optimizer = Bytes(sharded(kOptimizerStateBytes, 1));
  if (st.compression.kind != CompressionKind::kNone) mem.error_feedback = Bytes((dense + experts) * 4.0);
}

// Activation bytes of one GPU's stage: the micro-batches in flight on the first stage, one layer's on the
// last, and what the layer being recomputed rebuilds.
struct StageActivations {
  double in_flight = 0;  // the first stage's stored activations, rebuilt included
  double per_layer = 0;  // one layer of one micro-batch, as stored
  double rebuilt = 0;    // rebuilt on top by the layer being recomputed
};

StageActivations stage_activations(const ModelSpec& model, const EstimateOptions& options, const Strategy& st,
                                   double layers_per_stage, std::int64_t seq) {
  const double p = st.pp;
  // Activations: 1F1B keeps min(p, m) micro-batches in flight on the first stage; interleaving adds
  // (p - 1)/(p·v) (Korthikanti et al. 2022 §4.2.3 / Narayanan et al. 2021 §2.2). Under recompute, the
  // backward pass of one layer rebuilds its full activations on top (Korthikanti et al. 2022 §4.3).
  const double m = std::max(1, st.micro_batches());
  double in_flight = std::min(p, m);
  if (st.vpp > 1) in_flight *= 1.0 + (p - 1.0) / (p * st.vpp);
  const bool sp = st.sequence_parallel && st.tp > 1;
  // Flash attention never stores the s x s scores (Dao et al. 2022 §3.1): without recompute it keeps what
  // selective recompute keeps.
  const Recompute stored =
      options.flash_attention && st.recompute == Recompute::kNone ? Recompute::kSelective : st.recompute;
  const double per_layer = activation_bytes_per_layer(model, seq, st.micro_batch, st.tp, sp, stored);
  // The layer being recomputed holds what recompute rebuilds on top: full recompute the layer's activations,
  // selective the attention scores (nothing with flash attention, whose kernel recomputes them itself).
  const Recompute layer_full = options.flash_attention ? Recompute::kSelective : Recompute::kNone;
  const double full_layer = activation_bytes_per_layer(model, seq, st.micro_batch, st.tp, sp, layer_full);
  const double rebuilt = st.recompute == Recompute::kFull        ? full_layer
                         : st.recompute == Recompute::kSelective ? full_layer - per_layer
                                                                 : 0.0;
  return {in_flight * layers_per_stage * per_layer + rebuilt, per_layer, rebuilt};
}

constexpr MemoryTerm kTerms[] = {MemoryTerm::kWeights,   MemoryTerm::kGradients,
                                 MemoryTerm::kOptimizer, MemoryTerm::kActivations,
                                 MemoryTerm::kLogits,    MemoryTerm::kErrorFeedback};

// The largest term of an overflowing `mem` (the first of equals).
MemoryTerm largest_term(const MemoryBreakdown& mem) {
  return *std::max_element(std::begin(kTerms), std::end(kTerms),
                           [&](MemoryTerm a, MemoryTerm b) { return mem.of(a) < mem.of(b); });
}

}  // namespace

std::string_view to_string(MemoryTerm term) {
  switch (term) {
    case MemoryTerm::kNone:
      return "none";
    case MemoryTerm::kWeights:
      return "weights";
    case MemoryTerm::kGradients:
      return "gradients";
    case MemoryTerm::kOptimizer:
      return "optimizer";
    case MemoryTerm::kActivations:
      return "activations";
    case MemoryTerm::kLogits:
      return "logits";
    case MemoryTerm::kErrorFeedback:
      return "error_feedback";
  }
  return "none";
}

Bytes MemoryBreakdown::of(MemoryTerm term) const {
  switch (term) {
    case MemoryTerm::kNone:
      return Bytes(0.0);
    case MemoryTerm::kWeights:
      return weights;
    case MemoryTerm::kGradients:
      return gradients;
    case MemoryTerm::kOptimizer:
      return optimizer;
    case MemoryTerm::kActivations:
      return activations;
    case MemoryTerm::kLogits:
      return logits;
    case MemoryTerm::kErrorFeedback:
      return error_feedback;
  }
  return Bytes(0.0);
}

namespace {

MemoryBreakdown memory_model(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                             const EstimateOptions& options, const Strategy& st) {
  MemoryBreakdown mem;
  const double t = st.tp, p = st.pp;
  const double layers_per_stage = static_cast<double>(model.layers) / p;
  const std::int64_t seq = model.seq_len / st.cp;
  const StageParameters parameters = stage_parameters(model, terms, st, layers_per_stage);
  mem.dense_parameters = parameters.dense;
  mem.expert_parameters = parameters.experts;
  shard_model_states(mem, st);
  const StageActivations activations = stage_activations(model, options, st, layers_per_stage, seq);
  mem.activations = Bytes(activations.in_flight);
  // The loss needs one micro-batch's logits: bf16 logits plus fp32 softmax for cross-entropy, split over tp
  // (Megatron-LM's vocabulary-parallel cross-entropy).
  const double tokens = static_cast<double>(st.micro_batch) * static_cast<double>(seq);
  mem.logits = Bytes(tokens * static_cast<double>(model.vocab) / t * (2.0 + 4.0));
  mem.reserve = gpu.memory_reserve;
  mem.capacity = gpu.hbm;
  const double states = mem.weights.value + mem.gradients.value + mem.optimizer.value +
                        mem.error_feedback.value + mem.reserve.value;
  // With one stage the logits sit beside all activations; with more, on the last stage, which holds one
  // micro-batch in flight.
  const double first_stage = states + mem.activations.value + (p > 1 ? 0.0 : mem.logits.value);
  const double last_stage =
      states + layers_per_stage * activations.per_layer + activations.rebuilt + mem.logits.value;
  mem.total = Bytes(p > 1 ? std::max(first_stage, last_stage) : first_stage);
  if (mem.total > mem.capacity) mem.overflow = largest_term(mem);
  return mem;
}

}  // namespace

MemoryBreakdown Estimator::memory(const Strategy& strategy) const noexcept {
  return memory_model(model_, terms_, cluster_.gpu, options_, strategy);
}

}  // namespace costmodel
