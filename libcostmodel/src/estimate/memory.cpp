// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <utility>

#include "costmodel/estimate/step.hpp"

#include "zero3_modules.hpp"

namespace costmodel::inline COSTMODEL_ABI {

StageParameters stage_parameters(const ModelSpec& model, const ModelTerms& terms, const Strategy& st,
                                 double layers, bool first, bool last) noexcept {
  const double t = st.tp, ep = st.ep, et = st.expert_tp();
  const double expert_per_layer = terms.expert_params_per_layer;
  const double dense_per_layer = terms.params_per_layer - expert_per_layer;
  // MLA's down projections are whole on every TP rank (ModelSpec::attention_replicated_parameters()).
  const double replicated = terms.params_replicated_per_layer;
  double dense = replicated > 0.0 ? layers * ((dense_per_layer - replicated) / t + replicated)
                                  : layers * dense_per_layer / t;
  double experts = layers * expert_per_layer / (et * ep);
  // The first stage holds the input embedding, the last the output layer; Megatron-LM keeps a copy of a
  // tied embedding there when they differ (megatron/core/models/common/language_module, setup_embeddings_
  // and_output_layer), a single stage holds a tied one once.
  if (first) dense += terms.params_embedding / t;
  if (last && (st.pp > 1 || !model.tied_embeddings)) dense += terms.params_output / t;
  // Megatron-Core builds the MTP modules on the last pipeline stage (megatron/core/transformer/
  // multi_token_prediction.py, get_mtp_num_layers_to_build, commit d98e8a64ddf3).
  if (last && terms.params_mtp > 0.0) {
    const double mtp_dense = terms.params_mtp - terms.expert_params_mtp;
    dense += (mtp_dense - terms.mtp_layers * replicated) / t + terms.mtp_layers * replicated;
    experts += terms.expert_params_mtp / (et * ep);
  }
  return {dense, experts};
}

namespace {

// Weights, gradients, optimizer states and error feedback of one stage's parameters on one GPU.
struct ModelStates {
  double weights = 0, gradients = 0, optimizer = 0, error_feedback = 0;
  [[nodiscard]] double total() const { return weights + gradients + optimizer + error_feedback; }
};

// The weights ZeRO-3 holds gathered at once, elements per GPU. FSDP (and Zero3Gather::kFlat) gathers a
// layer per unit and prefetches the next one: two layers. DeepSpeed gathers module by module
// (Zero3Gather::kList): the module computing and the one prefetched behind it (the largest adjacent pair,
// the next layer's QKV following fc2), plus PyTorch's flat staging copy of the largest tensor gathered
// (ProcessGroupNCCL allgather with a list output, flattenForScatterGather). Experts: a layer's worth.
double gathered_working_set(const ModelSpec& model, const ModelTerms& terms, const EstimateOptions& options,
                            const Strategy& st) {
  const StageParameters one_layer = stage_parameters(model, terms, st, 1.0, false, false);
  const double experts = one_layer.experts;
  if (options.zero3_gather != Zero3Gather::kList) return 2.0 * (one_layer.dense + experts);
  const detail::LayerModules mods = detail::layer_modules(model, terms, st.tp);
  double pair = 0.0, largest = 0.0;
  for (std::size_t k = 0; k < 4; ++k) {
    pair = std::max(pair, mods.gathered_elements(k) + mods.gathered_elements((k + 1) % 4));
    largest = std::max(largest, mods.gathered_elements(k));
  }
  return pair + largest + experts;
}

ModelStates shard_model_states(const StageParameters& p, const Strategy& st, double gathered) {
  // ZeRO stage 1 shards optimizer states over the replicas, 2 also gradients, 3 also weights (Rajbhandari et
  // al. 2020 §5; parameter_replicas()).
  const ParameterReplicas replicas = parameter_replicas(st);
  const auto sharded = [&](double bytes_per_parameter, int from_stage) {
    return st.zero >= from_stage ? bytes_per_parameter * sharded_parameters(p, replicas)
                                 : bytes_per_parameter * (p.dense + p.experts);
  };
  ModelStates m;
  const double held = weight_bytes(st);
  m.weights = sharded(held, 3);
  if (st.zero >= 3) m.weights += held * gathered;  // gathered_working_set()
  m.gradients = sharded(gradient_bytes(st), 2);
  m.optimizer = sharded(optimizer_state_bytes(st), 1);
  // The residual of error feedback is each rank's own (unreduced) gradient error, as large as its local
  // gradients before any sharding (Karimireddy et al. 2019, Algorithm 2).
  if (has_error_feedback(st.compression)) m.error_feedback = (p.dense + p.experts) * 4.0;
  return m;
}

// Activation bytes of one layer of one micro-batch as stored, and what the layer being recomputed rebuilds
// on top (Korthikanti et al. 2022 §4.3). Under full recompute with the block method, the layers that are not
// recomputed keep what they keep without recompute.
struct LayerActivations {
  double kept = 0;          // a layer that is not recomputed
  double checkpointed = 0;  // a layer that is (full recompute: its input only)
  double rebuilt = 0;
};

LayerActivations layer_activations(const ModelSpec& model, const EstimateOptions& options, const Strategy& st,
                                   std::int64_t seq) {
  const bool sp = st.sequence_parallel && st.tp > 1;
  const bool fp8 = st.dtype == Dtype::kFp8;
  const auto bytes = [&](Recompute r, unsigned modules) {
    return activation_bytes_per_layer(model, seq, st.micro_batch, st.tp, sp, r, fp8, modules);
  };
  // Flash attention never stores the s x s scores (Dao et al. 2022 §3.1): without recompute it keeps what
  // selective recompute keeps.
  const Recompute layer_full = options.flash_attention ? Recompute::kSelective : Recompute::kNone;
  const double full_layer = bytes(layer_full, 0);
  LayerActivations a;
  const Recompute kept_mode = st.recompute == Recompute::kSelective ? Recompute::kSelective : layer_full;
  const unsigned kept_modules = st.recompute == Recompute::kFull ? 0u : st.recompute_modules;
  a.kept = kept_mode == layer_full && kept_modules == 0 ? full_layer : bytes(kept_mode, kept_modules);
  a.checkpointed = st.recompute == Recompute::kFull ? bytes(Recompute::kFull, 0) : a.kept;
  // The layer being recomputed holds what recompute rebuilds on top: full recompute the layer's activations,
  // selective the attention scores (nothing with flash attention, whose kernel recomputes them itself) and
  // what the recompute modules discarded.
  a.rebuilt = st.recompute == Recompute::kFull ? full_layer : std::max(0.0, full_layer - a.kept);
  return a;
}

// Micro-batches whose activations pipeline stage `stage` holds at once, in units of the stage's layers:
// 1F1B keeps p - stage in flight (Narayanan et al. 2021 §2.2); the interleaved schedule warms up with
// 2(p - stage - 1) + (v - 1)p chunks of 1/v of the stage (Megatron-LM megatron/core/pipeline_parallel/
// schedules.py, forward_backward_pipelining_with_interleaving), p + (p - 1)/v on the first stage
// (Korthikanti et al. 2022 §4.2.3). At most the step's micro-batches.
double in_flight(const Strategy& st, int stage) {
  const double p = st.pp, v = st.vpp, m = std::max(1, st.micro_batches());
  const double warm = v > 1 ? (2.0 * (p - stage - 1) + (v - 1) * p + 1) / v : p - stage;
  return std::min(warm, m);
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

// One pipeline stage's memory: what does not depend on how many of its layers are recomputed, and its
// activations as a function of that count r: in_flight x (layers x kept - r x (kept - checkpointed)) plus
// the layer being rebuilt.
struct StageMemory {
  int index = 0;  // the pipeline stage, 0 .. pp-1
  ModelStates states;
  double fixed = 0;      // states, logits and reserve
  double in_flight = 0;  // micro-batches held, in units of the stage's layers
  int layers = 0;
  double logits = 0;
  [[nodiscard]] double activations(const LayerActivations& a, int recomputed) const {
    return in_flight * (layers * a.kept - recomputed * (a.kept - a.checkpointed)) + a.rebuilt;
  }
};

template <typename Visit>
void for_each_stage(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                    const EstimateOptions& options, const Strategy& st, Visit&& visit) {
  const std::int64_t seq = model.seq_len / st.cp;
  const double gathered = st.zero >= 3 ? gathered_working_set(model, terms, options, st) : 0.0;
  const StageLayers layers = stage_layers(st, model.layers);
  // The loss needs one micro-batch's logits: bf16 logits plus fp32 softmax for cross-entropy, split over tp
  // (Megatron-LM's vocabulary-parallel cross-entropy).
  const double tokens = static_cast<double>(st.micro_batch) * static_cast<double>(seq);
  const double logits = tokens * static_cast<double>(model.vocab) / st.tp * (2.0 + 4.0);
  // The first stage (most micro-batches in flight), the second (the fullest middle one) and the last (the
  // logits): the fullest of them sets the memory.
  const auto stage = [&](int index, int stage_layer_count) {
    const bool first = index == 0, last = index == st.pp - 1;
    StageMemory m;
    m.index = index;
    const StageParameters params = stage_parameters(model, terms, st, stage_layer_count, first, last);
    m.states = shard_model_states(params, st, gathered);
    // The last stage also holds the activations of its MTP modules' layers (stage_parameters()).
    m.layers = stage_layer_count + (last ? model.mtp_layers : 0);
    m.in_flight = in_flight(st, index);
    m.logits = last ? logits : 0.0;
    m.fixed = m.states.total() + m.logits + gpu.memory_reserve.value;
    visit(m, params);
  };
  stage(0, layers.first);
  if (st.pp > 2) stage(1, layers.middle);
  if (st.pp > 1) stage(st.pp - 1, layers.last);
}

MemoryBreakdown memory_model(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                             const EstimateOptions& options, const Strategy& st) {
  MemoryBreakdown mem;
  const LayerActivations layer = layer_activations(model, options, st, model.seq_len / st.cp);
  mem.reserve = gpu.memory_reserve;
  mem.capacity = gpu.hbm;
  double best = -1.0;
  for_each_stage(model, terms, gpu, options, st, [&](const StageMemory& m, const StageParameters& params) {
    mem.dense_parameters = std::max(mem.dense_parameters, params.dense);
    mem.expert_parameters = std::max(mem.expert_parameters, params.experts);
    const double activations = m.activations(layer, recomputed_layers(st, m.layers));
    const double total = m.fixed + activations;
    if (total <= best) return;
    best = total;
    mem.fullest_stage = m.index;
    mem.weights = Bytes(m.states.weights);
    mem.gradients = Bytes(m.states.gradients);
    mem.optimizer = Bytes(m.states.optimizer);
    mem.error_feedback = Bytes(m.states.error_feedback);
    mem.activations = Bytes(activations);
    mem.logits = Bytes(m.logits);
    mem.total = Bytes(total);
  });
  if (mem.total > mem.capacity) mem.overflow = largest_term(mem);
  return mem;
}

// The fewest layers per model chunk that full recompute (block method) must cover for `st` to fit: each
// stage needs r >= (fixed + in_flight x layers x kept - capacity) / (in_flight x (kept - checkpointed))
// recomputed layers, r = N x vpp. 0 when every layer must be (or `st` is not full recompute).
int fewest_recomputed(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                      const EstimateOptions& options, const Strategy& st) {
  if (st.recompute != Recompute::kFull) return 0;
  const LayerActivations layer = layer_activations(model, options, st, model.seq_len / st.cp);
  const double saved = layer.kept - layer.checkpointed;
  if (!(saved > 0.0)) return 0;
  const int v = std::max(1, st.vpp);
  int chunk_layers = 0, fewest = 1;
  for_each_stage(model, terms, gpu, options, st, [&](const StageMemory& m, const StageParameters&) {
    chunk_layers = std::max(chunk_layers, (m.layers + v - 1) / v);
    const double over = m.fixed + m.activations(layer, 0) - gpu.hbm.value;
    if (over <= 0.0 || m.in_flight <= 0.0) return;
    const double chunks = std::ceil(over / (m.in_flight * saved) / v);  // N = ceil(r / vpp)
    fewest = std::max(fewest, static_cast<int>(std::min(chunks, 1e6)));
  });
  return fewest >= chunk_layers ? 0 : fewest;
}

}  // namespace

MemoryBreakdown Estimator::memory(const Strategy& strategy) const noexcept {
  return memory_model(model_, terms_, cluster_.gpu, options_, strategy);
}

int Estimator::fewest_recomputed_layers(const Strategy& strategy) const noexcept {
  return fewest_recomputed(model_, terms_, cluster_.gpu, options_, strategy);
}

}  // namespace costmodel::inline COSTMODEL_ABI
