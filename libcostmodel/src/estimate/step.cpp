// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/step.hpp"

#include <algorithm>

#include "costmodel/estimate/compute.hpp"
#include "costmodel/estimate/context.hpp"
#include "costmodel/estimate/data.hpp"
#include "costmodel/estimate/expert.hpp"
#include "costmodel/estimate/pipeline.hpp"
#include "costmodel/estimate/tensor.hpp"

#include "compute_terms.hpp"

namespace costmodel {

namespace {

// Inline here so that evaluate_checked() prepares its inputs without a call; step_inputs() is the same.
inline StepInputs prepare(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                          const EstimateOptions& options, const Strategy& st, const SplitPaths& paths) {
  StepInputs in{model, gpu, options, st, paths};
  in.hidden = terms.hidden;
  in.q_dim = terms.q_dim;
  in.kv_dim = terms.kv_dim;
  in.ffn_hidden = terms.ffn_hidden;
  in.vocab = terms.vocab;
  in.seq_len = terms.seq_len;
  in.tp = st.tp;
  in.pp = st.pp;
  in.vpp = st.vpp;
  in.micro_batches = st.micro_batches();
  in.tokens = st.micro_batch * in.seq_len / st.cp;
  in.sequence_parallel = st.sequence_parallel && st.tp > 1;
  in.layers_per_stage = model.layers / in.pp;
  in.moe_share = terms.moe_share;
  return in;
}

}  // namespace

EstimateOptions estimate_options(const TrainingSpec& training) {
  EstimateOptions options;
  options.tokens = training.tokens;
  options.dp_algorithm = training.dp_algorithm;
  options.tp_algorithm = training.tp_algorithm;
  options.flash_attention = training.flash_attention;
  options.economics = training.economics;
  options.reliability = training.reliability;
  return options;
}

ModelTerms model_terms(const ModelSpec& model) {
  ModelTerms terms;
  terms.hidden = static_cast<double>(model.hidden);
  terms.q_dim = static_cast<double>(model.q_dim());
  terms.kv_dim = static_cast<double>(model.kv_dim());
  terms.ffn_hidden = static_cast<double>(model.ffn_hidden);
  terms.vocab = static_cast<double>(model.vocab);
  terms.seq_len = static_cast<double>(model.seq_len);
  terms.moe_share = model.is_moe() ? static_cast<double>(model.moe_layers()) / model.layers : 0.0;
  const ParameterCount p = count_parameters(model);
  terms.params_total = p.total;
  const double h = static_cast<double>(model.hidden);
  terms.params_embedding = static_cast<double>(model.vocab) * h;
  if (model.position == PositionEmbedding::kLearned)
    terms.params_embedding += static_cast<double>(model.seq_len) * h;
  // The output layer: untied, its own matrix; tied, Megatron-LM's copy on the last stage.
  terms.params_output = static_cast<double>(model.vocab) * h;
  terms.params_per_layer = (p.total - p.embedding) / model.layers;
  // The experts' g matrices of h x f_e (2 for GELU, 3 gated), E per MoE layer, averaged over the layers.
  if (model.is_moe()) {
    const double g = model.ffn == FfnKind::kGelu ? 2.0 : 3.0;
    const double expert =
        g * static_cast<double>(model.hidden) * static_cast<double>(model.moe->expert_ffn_hidden);
    terms.expert_params_per_layer = expert * model.moe->experts * model.moe_layers() / model.layers;
  }
  const FlopsPerToken f = flops_per_token(model, model.seq_len, false);
  terms.model_flops_per_token = f.forward + f.backward;
  terms.recompute_flops_full = f.recompute_full;
  terms.recompute_flops_selective = f.recompute_selective;
  return terms;
}

StepInputs step_inputs(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                       const EstimateOptions& options, const Strategy& st, const SplitPaths& paths) noexcept {
  return prepare(model, terms, gpu, options, st, paths);
}

Estimator::Estimator(const ModelSpec& model, const ClusterSpec& cluster, const EstimateOptions& options)
    : model_(model),
      cluster_(cluster),
      options_(options),
      topology_(build_topology(cluster)),
      terms_(model_terms(model_)),
      goodput_(costmodel::goodput(terms_.params_total, cluster_, options_.reliability)),
      ownership_(costmodel::ownership(cluster_, topology_.inventory, options_.economics)) {}

std::uint32_t Estimator::check(const Strategy& st) const noexcept {
  return costmodel::check(st, model_, cluster_);
}

SplitPaths Estimator::paths(const Strategy& st) const noexcept {
  if (check(st) != kValid) return {};
  // Placement: TP innermost, then CP, EP (inside DP), DP, PP outermost. Groups that communicate at the same
  // time share the nodes' NICs (concurrent_groups).
  SplitPaths p;
  const int tp_cp = st.tp * st.cp;
  const auto path = [&](const Communicator& comm) { return collective_path(link_path(topology_, comm)); };
  if (st.tp > 1) p.tp = path(Communicator{st.tp, 1, std::max(1, cluster_.gpus_per_node / st.tp)});
  if (st.cp > 1) p.cp = path(Communicator{st.cp, st.tp, st.tp});
  if (st.ep > 1) p.ep = path(Communicator{st.ep, tp_cp, tp_cp});
  if (st.pp > 1) p.pp = path(Communicator{2, tp_cp * st.dp, tp_cp * st.dp});
  // Gradients are reduced over dp·cp: context-parallel ranks hold the same weights (Megatron-LM's
  // data-parallel-with-context group); experts over the dp·cp/ep ranks holding the same experts.
  const int replicas = st.dp * st.cp;
  if (replicas > 1) p.dp = path(Communicator{replicas, st.tp, st.tp});
  const int expert_replicas = replicas / st.ep;
  if (st.ep > 1 && expert_replicas > 1) {
    // Every ep-th rank of the dp·cp group holds the same experts.
    p.expert_dp = path(Communicator{expert_replicas, st.tp * st.ep, st.tp * st.ep});
  }
  return p;
}

StepEstimate Estimator::evaluate(const Strategy& st) const noexcept {
  if (check(st) != kValid) return evaluate(st, SplitPaths{});
  return evaluate(st, paths(st));
}

StepEstimate Estimator::evaluate(const Strategy& st, const SplitPaths& paths) const noexcept {
  if (const std::uint32_t invalid = check(st); invalid != kValid) {
    StepEstimate e = evaluate_checked(st, paths, MemoryBreakdown{}, false);
    e.invalid = invalid;
    return e;
  }
  return evaluate_checked(st, paths, memory(st));
}

namespace {

// Throughput and FLOP rates of a step of `step` seconds.
void fill_rates(StepEstimate& e, double step, const StepInputs& in, const ModelTerms& terms, int gpus) {
  const Strategy& st = in.strategy;
  const double tokens_per_step = static_cast<double>(st.global_batch) * in.seq_len;
  e.tokens_per_s = tokens_per_step / step;
  const double recompute = st.recompute == Recompute::kFull        ? terms.recompute_flops_full
                           : st.recompute == Recompute::kSelective ? terms.recompute_flops_selective
                                                                   : 0.0;
  const double per_gpu = tokens_per_step / step / gpus;
  e.model_flops_per_gpu = FlopsPerSecond(terms.model_flops_per_token * per_gpu);
  e.hardware_flops_per_gpu = FlopsPerSecond((terms.model_flops_per_token + recompute) * per_gpu);
  // MFU and HFU as ratios of TFLOP/s (the same rounding as the published convention's numbers).
  const double peak_tflops = in.gpu.peak(st.dtype).value / 1e12;
  e.mfu = e.model_flops_per_gpu.value / 1e12 / peak_tflops;
  e.hfu = e.hardware_flops_per_gpu.value / 1e12 / peak_tflops;
}

}  // namespace

StepEstimate Estimator::evaluate_checked(const Strategy& st, const SplitPaths& paths,
                                         const MemoryBreakdown& mem, bool valid) const noexcept {
  StepEstimate e;
  e.strategy = st;
  e.topology = cluster_.topology;
  e.oversubscription = cluster_.oversubscription;
  e.switches = topology_.inventory.switches;
  e.network_capex = topology_.inventory.capex;
  if (!valid) {
    apply_economics(e, goodput_, ownership_, options_);  // capex and power only
    return e;
  }

  const StepInputs in = prepare(model_, terms_, cluster_.gpu, options_, st, paths);
  const double m = in.micro_batches;
  const double layers_per_stage = in.layers_per_stage;
  const StageCompute compute = detail::stage(in);  // stage_compute(), in place
  const double stage = compute.stage.value;
  const double tp_layer = tensor_parallel_layer_time(in).value;
  const double cp_layer = context_parallel_layer_time(in, compute.layer_forward.attention_core).value;
  const double ep_layer = expert_parallel_layer_time(in).value;
  const double pp_microbatch = pipeline_send_recv_time(in).value;
  const double per_microbatch = stage + layers_per_stage * (tp_layer + cp_layer + ep_layer) + pp_microbatch;
  const double bubble = pipeline_bubble_time(in, Seconds(per_microbatch)).value;
  const DataParallelComm dp = data_parallel_time(in, mem, compute.layer_forward.total);
  const double optimizer = optimizer_time(in, mem).value;

  const double step = m * per_microbatch + bubble + dp.exposed.value + optimizer;
  e.step_time = Seconds(step);
  e.breakdown.compute = Seconds(m * stage);
  e.breakdown.tp_comm = Seconds(m * layers_per_stage * tp_layer);
  e.breakdown.cp_comm = Seconds(m * layers_per_stage * cp_layer);
  e.breakdown.ep_comm = Seconds(m * layers_per_stage * ep_layer);
  e.breakdown.pp_comm = Seconds(m * pp_microbatch);
  e.breakdown.pp_bubble = Seconds(bubble);
  e.breakdown.dp_comm = dp.total;
  e.breakdown.dp_comm_exposed = dp.exposed;
  e.breakdown.optimizer = Seconds(optimizer);
  e.memory = mem;
  e.fits_memory = mem.total <= mem.capacity;
  fill_rates(e, step, in, terms_, cluster_.gpus);
  apply_economics(e, goodput_, ownership_, options_);
  return e;
}

StepEstimate estimate(const ModelSpec& model, const ClusterSpec& cluster, const Strategy& strategy,
                      const EstimateOptions& options) {
  return Estimator(model, cluster, options).evaluate(strategy);
}

std::vector<std::string> explain(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& cluster) {
  std::vector<std::string> reasons = validate(e.strategy, model, cluster);
  if (reasons.empty() && e.valid() && !e.fits_memory) {
    reasons.push_back("needs " + format_quantity(e.memory.total.value, Dimension::kBytes) + " per GPU, " +
                      format_quantity(e.memory.capacity.value, Dimension::kBytes) +
                      " available; largest term: " + std::string(to_string(e.memory.overflow)) + " (" +
                      format_quantity(e.memory.of(e.memory.overflow).value, Dimension::kBytes) + ")");
  }
  return reasons;
}

}  // namespace costmodel
