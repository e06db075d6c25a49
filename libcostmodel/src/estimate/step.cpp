// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/step.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

#include "estimate/compute.hpp"
#include "estimate/context.hpp"
#include "estimate/data.hpp"
#include "estimate/expert.hpp"
#include "estimate/overlap.hpp"
#include "estimate/pipeline.hpp"
#include "estimate/tensor.hpp"

#include "communication.hpp"
#include "compute_terms.hpp"
#include "evaluation_memo.hpp"
#include "host_terms.hpp"

namespace costmodel::inline COSTMODEL_ABI {

namespace {

// Inline here so that evaluate_checked() prepares its inputs without a call; step_inputs() is the same.
inline StepInputs prepare(const ModelSpec& model, const ModelTerms& terms, const GpuSpec& gpu,
                          const EstimateOptions& options, const Strategy& st, const SplitPaths& paths) {
  StepInputs in{model, gpu, options, st, paths, terms};
  in.hidden = terms.hidden;
  in.head_dim = terms.head_dim;
  in.q_dim = terms.q_dim;
  in.kv_dim = terms.kv_dim;
  in.kv_per_rank = std::max(terms.kv_dim / st.tp, terms.head_dim);
  in.ffn_hidden = terms.ffn_hidden;
  in.vocab = terms.vocab;
  in.seq_len = terms.seq_len;
  in.tp = st.tp;
  in.pp = st.pp;
  in.vpp = st.vpp;
  in.micro_batches = st.micro_batches();
  in.tokens = st.micro_batch * in.seq_len / st.cp;
  in.sequence_parallel = st.sequence_parallel && st.tp > 1;
  in.stages = stage_layers(st, model.layers);
  in.layers_per_stage = in.stages.most();
  in.recomputed_share =
      in.layers_per_stage > 0 ? recomputed_layers(st, in.stages.most()) / in.layers_per_stage : 0.0;
  in.moe_recomputed_share = (st.recompute_modules & kRecomputeMoe) != 0 ? 1.0 : in.recomputed_share;
  in.moe_share = terms.moe_share;
  in.attention_dtype = st.dtype == Dtype::kFp8 ? options.attention_dtype : st.dtype;
  in.capacity_factor = options.moe_capacity_factor;
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
  options.attention_dtype = training.attention_dtype;
  options.moe_capacity_factor = training.moe_capacity_factor;
  options.zero3_gather = training.zero3_gather;
  options.tp_comm_overlap = training.tp_comm_overlap;
  options.grad_accumulation_fusion = training.grad_accumulation_fusion;
  options.ep_comm_overlap = training.ep_comm_overlap;
  options.pp_comm_overlap = training.pp_comm_overlap;
  if (training.stack_spec) options.dp_bucket = training.stack_spec->dp_bucket;
  options.cuda_graphs = training.cuda_graphs;
  options.moe_dispatcher = training.moe_dispatcher;
  options.stack = training.stack;
  options.intervals = training.intervals;
  return options;
}

ModelTerms model_terms(const ModelSpec& model) {
  ModelTerms terms;
  terms.hidden = static_cast<double>(model.hidden);
  terms.head_dim = static_cast<double>(model.head_dim());
  terms.q_dim = static_cast<double>(model.q_dim());
  terms.kv_dim = static_cast<double>(model.kv_dim());
  terms.out_dim = static_cast<double>(model.out_dim());
  terms.ffn_hidden = static_cast<double>(model.ffn_hidden);
  terms.vocab = static_cast<double>(model.vocab);
  terms.seq_len = static_cast<double>(model.seq_len);
  terms.moe_share = model.is_moe() ? static_cast<double>(model.moe_layers()) / model.layers : 0.0;
  const ParameterCount p = count_parameters(model);
  // The weights trained and checkpointed: the main model's and the MTP modules'.
  terms.params_total = p.total + p.mtp;
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
    if (model.moe_layers() > 0) terms.expert_params_mtp = model.mtp_layers * expert * model.moe->experts;
  }
  terms.params_attention = model.attention_parameters();
  terms.params_replicated_per_layer = model.attention_replicated_parameters();
  terms.params_mtp = p.mtp;
  terms.mtp_layers = model.mtp_layers;
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
      ownership_(costmodel::ownership(cluster_, topology_.inventory, options_.economics)),
      straggler_share_(costmodel::straggler_share(cluster_)) {}

double straggler_share(const ClusterSpec& cluster) noexcept {
  const NodeSpec& node = cluster.gpu.node;
  if (!(node.slow_host_share > 0.0) || !(node.slow_host_slowdown > 0.0) || cluster.gpus_per_node < 1)
    return 0.0;
  const double hosts = std::ceil(static_cast<double>(cluster.gpus) / cluster.gpus_per_node);
  return node.slow_host_slowdown * (1.0 - std::pow(1.0 - node.slow_host_share, hosts));
}

std::uint32_t Estimator::check(const Strategy& st) const noexcept {
  return costmodel::check(st, model_, cluster_);
}

SplitPaths Estimator::paths(const Strategy& st) const noexcept {
  if (check(st) != kValid) return {};
  // Placement: TP innermost, then CP, DP, PP outermost; the experts fold a stage's tp·cp·dp ranks as etp,
  // then ep, then their replicas (Megatron-Core's expert rank generator, megatron/core/parallel_state.py).
  // Groups that communicate at the same time share the nodes' NICs (concurrent_groups). Each kind of group
  // is priced where it is placed worst: when its block does not divide a node (tp 6 on 8-GPU nodes), some
  // groups straddle two nodes and talk over the network, and the split runs at their pace.
  SplitPaths p;
  const int tp_cp = st.tp * st.cp;
  const int etp = st.expert_tp();
  const int stage_ranks = tp_cp * st.dp;
  const auto path = [&](const Communicator& comm, int block) {
    return collective_path(link_path(topology_, worst_placed(topology_, comm, block)));
  };
  if (st.tp > 1) p.tp = path(Communicator{st.tp, 1, std::max(1, cluster_.gpus_per_node / st.tp)}, st.tp);
  if (st.cp > 1) p.cp = path(Communicator{st.cp, st.tp, st.tp}, tp_cp);
  if (st.ep > 1) p.ep = path(Communicator{st.ep, etp, etp}, etp * st.ep);
  if (st.pp > 1) p.pp = path(Communicator{2, stage_ranks, stage_ranks}, stage_ranks);
  // Gradients are reduced over dp·cp: context-parallel ranks hold the same weights (Megatron-LM's
  // data-parallel-with-context group); experts over the dp·cp/ep ranks holding the same experts.
  const int replicas = st.dp * st.cp;
  if (replicas > 1) p.dp = path(Communicator{replicas, st.tp, st.tp}, stage_ranks);
  const int expert_replicas = st.expert_replicas();
  if (st.ep == 1 && etp == st.tp) {
    p.expert_dp = p.dp;  // every rank of the dp·cp group holds the same experts
  } else if (expert_replicas > 1) {
    // Every etp·ep-th rank of the stage holds the same experts.
    p.expert_dp = path(Communicator{expert_replicas, etp * st.ep, etp * st.ep}, stage_ranks);
  }
  // The first and the last stage: the tied embedding's gradient all-reduce.
  if (st.pp > 1) {
    p.embedding = path(Communicator{2, (st.pp - 1) * stage_ranks, stage_ranks}, cluster_.gpus);
  }
  return p;
}

std::string_view to_string(CommGroup group) {
  static constexpr std::array<std::string_view, kCommGroupCount> kNames{"tp", "cp",        "ep",       "pp",
                                                                        "dp", "expert_dp", "embedding"};
  return kNames.at(static_cast<std::size_t>(group));
}

void Estimator::describe_collectives(StepEstimate& estimate) const noexcept {
  if (!estimate.valid() || check(estimate.strategy) != kValid) return;
  const SplitPaths split = paths(estimate.strategy);
  detail::CollectiveLog log;
  log.paths = &split;
  detail::collective_log = &log;
  (void)evaluate(estimate.strategy, split);
  detail::collective_log = nullptr;
  estimate.collectives = log.choices;
  // The prediction interval of its class and what it uses beyond the validation runs (spec/intervals.hpp).
  if (const IntervalModel* intervals = options_.intervals.get()) {
    if (const IntervalClass* c = intervals->find(interval_class(model_, estimate.strategy))) {
      estimate.step_time_low = Seconds(estimate.step_time.value * std::exp(c->low));
      estimate.step_time_high = Seconds(estimate.step_time.value * std::exp(c->high));
      estimate.interval_coverage = intervals->coverage;
    }
    try {
      estimate.unvalidated = unvalidated_features(intervals->validated, model_, estimate.strategy,
                                                  cluster_.gpus, cluster_.gpu.name, options_.stack);
    } catch (...) {
      estimate.unvalidated.clear();  // out of memory: no flags rather than none at all
    }
  }
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
  const double recompute = st.recompute == Recompute::kFull ? terms.recompute_flops_full * in.recomputed_share
                           : st.recompute == Recompute::kSelective ? terms.recompute_flops_selective
                                                                   : 0.0;
  const double per_gpu = tokens_per_step / step / gpus;
  e.model_flops_per_gpu = FlopsPerSecond(terms.model_flops_per_token * per_gpu);
  e.hardware_flops_per_gpu = FlopsPerSecond((terms.model_flops_per_token + recompute) * per_gpu);
  // MFU and HFU as ratios of TFLOP/s (the same rounding as the published convention's numbers).
  const double peak_tflops = in.gpu.peak(st.dtype).value / 1e12;
  e.mfu = e.model_flops_per_gpu.value / 1e12 / peak_tflops;
  e.hfu = e.hardware_flops_per_gpu.value / 1e12 / peak_tflops;
  // The 16-bit peak: BF16's, or FP16's on a GPU without BF16 (V100).
  const Dtype sixteen = in.gpu.supports(Dtype::kBf16) ? Dtype::kBf16 : Dtype::kFp16;
  const double peak16 = in.gpu.peak(sixteen).value / 1e12;
  e.mfu_bf16_peak = peak16 > 0.0 ? e.model_flops_per_gpu.value / 1e12 / peak16 : e.mfu;
}

}  // namespace

namespace {

// One pipeline stage kind's time for one micro-batch in the steady state, and the parts of it, s.
struct StageTime {
  double compute = 0;     // its layers' forward, backward and recompute (+ the logits on the last stage)
  double tp = 0;          // tensor-parallel collectives left exposed (all, unless --tp-comm-overlap)
  double ep = 0;          // expert dispatch and combine left exposed (all of it unless ep_comm_overlap)
  double ep_total = 0;    // expert dispatch and combine of the micro-batch, before overlap
  double cp_exposed = 0;  // the context-parallel ring left after the attention core
  double pp_exposed = 0;  // pipeline send/recv left on the critical path (all of it unless overlapped)
  double dp_total = 0;    // ZeRO-2/3 streams of every micro-batch, before overlap
  double dp_exposed = 0;  // of which left after overlap
  double hidden = 0;      // communication hidden behind the micro-batch's compute
  double total = 0;       // compute + exposed communication + pipeline send/recv
};

using detail::LayerTerms;

// The windows of one micro-batch on a stage of `layers` layers (overlap.hpp): its forward, and its backward
// with recompute; the first forward gather of ZeRO-3 has nothing before it and stays exposed.
StageTime stage_time(const LayerTerms& l, const DataParallelStreams& dp, double layers, bool first, bool last,
                     double recompute_core) {
  StageTime t;
  t.compute = layers * (l.forward + l.backward) + (last ? l.logits + l.accumulate_last : 0.0) +
              (first ? l.accumulate_first : 0.0);
  t.tp = layers * l.tp + (first ? l.tp_end : 0.0) + (last ? l.tp_end : 0.0);
  t.ep = layers * l.ep;
  t.ep_total = t.ep;
  const double gather = dp.layer_gather.value, gather_b = dp.layer_gather_backward.value;
  const double reduce = dp.layer_reduce.value;
  const double end_gather =
      (first ? dp.first_end_gather.value : 0.0) + (last ? dp.last_end_gather.value : 0.0);
  const double end_reduce =
      (first ? dp.first_end_reduce.value : 0.0) + (last ? dp.last_end_reduce.value : 0.0);
  const double forward_streams = layers * gather + end_gather;
  const double backward_streams = layers * (gather_b + reduce) + end_gather + end_reduce;
  // ZeRO-3 list collectives' per-shard copies: host time nothing hides (data.hpp).
  const double copies = layers * dp.layer_copies.value;
  t.dp_total = forward_streams + backward_streams + copies;
  // The first layer's (or the embedding's) forward gather waits for nothing to hide behind.
  const double unhidden =
      gather > 0.0 ? (first && end_gather > 0.0 ? dp.first_end_gather.value : gather) : 0.0;
  const double hideable_forward = l.overlap ? forward_streams - unhidden : 0.0;
  // DeepSpeed's list reduce-scatters start after their module's backward and the next module's fetch
  // synchronizes the device on them (data.hpp): nothing hides them.
  const double serial = dp.reduce_serialized ? layers * reduce + end_reduce : 0.0;
  const double hideable_backward = l.overlap ? backward_streams - serial : 0.0;
  const Overlapped f =
      overlap({layers * l.forward_window, layers * l.core_forward, layers * l.cp_forward, hideable_forward},
              l.efficiency);
  const Overlapped b = overlap({layers * l.backward_window, layers * (l.core_backward + recompute_core),
                                layers * l.cp_backward, hideable_backward},
                               l.efficiency);
  t.cp_exposed = f.confined_exposed + b.confined_exposed;
  // What the windows have left after the streams above, for the streams below (at the same efficiency).
  double left_f =
      l.efficiency > 0.0 ? std::max(0.0, layers * l.forward_window - f.hidden / l.efficiency) : 0.0;
  double left_b =
      l.efficiency > 0.0 ? std::max(0.0, layers * l.backward_window - b.hidden / l.efficiency) : 0.0;
  double late_hidden = 0.0;
  if (l.ep_overlap && t.ep > 0.0 && l.ep_efficiency > 0.0) {
    // Megatron-Core's combined 1F1B pairs one micro-batch's forward with another's backward layer by layer,
    // the dispatch and combine of each on a communication stream behind the other's compute
    // (--overlap-moe-expert-parallel-comm; megatron/core/pipeline_parallel/combined_1f1b.py).
    // Of what overlaps, the GPU's measured EP-overlap share hides (data/gpus.yaml ep_overlap): the dispatch
    // and combine kernels run on beside GEMMs and attention, slowed by the SMs and bandwidth they share.
    const Overlapped ef = overlap({left_f, 0.0, 0.0, layers * l.ep_forward}, l.ep_efficiency);
    const Overlapped eb = overlap({left_b, 0.0, 0.0, layers * l.ep_backward}, l.ep_efficiency);
    t.ep = ef.free_exposed + eb.free_exposed;
    left_f -= ef.hidden / l.ep_efficiency;
    left_b -= eb.hidden / l.ep_efficiency;
  }
  t.pp_exposed = l.send_recv;
  if (l.pp_overlap && l.send_recv > 0.0 && l.efficiency > 0.0) {
    // The interleaved schedule posts each chunk's send and the next chunk's receive before computing and
    // waits after (megatron/core/pipeline_parallel/schedules.py, forward_backward_pipelining_with_
    // interleaving with config.overlap_p2p_comm): activations behind the forward, gradients behind the
    // backward.
    const Overlapped pf = overlap({left_f, 0.0, 0.0, 0.5 * l.send_recv}, l.efficiency);
    const Overlapped pb = overlap({left_b, 0.0, 0.0, 0.5 * l.send_recv}, l.efficiency);
    t.pp_exposed = pf.free_exposed + pb.free_exposed;
    late_hidden += pf.hidden + pb.hidden;
  }
  t.dp_exposed =
      t.dp_total -
      (l.overlap ? (hideable_forward - f.free_exposed) + (hideable_backward - b.free_exposed) : 0.0);
  t.hidden = f.hidden + b.hidden + layers * l.tp_hidden + (t.ep_total - t.ep) + late_hidden;
  t.total = t.compute + t.tp + t.ep + t.cp_exposed + t.dp_exposed + t.pp_exposed;
  return t;
}

// The host time a micro-batch on a stage of `layers` layers leaves exposed (host_terms.hpp): between two
// host synchronisations the micro-batch takes max(host, GPU); each synchronisation adds its wait and refill.
// A dropless MoE layer's forward is one such stretch (the dispatcher synchronises before its all-to-all);
// the rest of the micro-batch (the dense layers, every backward) is one more. Full recompute runs the
// forward again in the backward, synchronisations included.
double host_exposed(const detail::HostTerms& host, const LayerTerms& l, const StageTime& stage, double layers,
                    double moe_share, double recomputed_share) {
  const double s = moe_share;
  const double forward = (1.0 - s) * host.dense.forward + s * host.moe.forward;
  const double backward =
      (1.0 - s) * host.dense.backward + s * host.moe.backward + recomputed_share * forward;
  const double total = layers * (forward + backward);
  if (total <= 0.0) return 0.0;
  const double syncs = layers * s * host.moe.syncs;
  if (syncs <= 0.0) return std::max(0.0, total - stage.total);
  const double gpu_forward = l.forward + l.ep_forward;  // one MoE layer's forward, between two syncs
  const double stretches = layers * s;
  const double in_stretches = stretches * host.moe.forward;
  return stretches * std::max(0.0, host.moe.forward - gpu_forward) +
         std::max(0.0, (total - in_stretches) - (stage.total - stretches * gpu_forward)) +
         syncs * (1.0 + recomputed_share) * host.sync_s;
}

// The terms of one layer that neither the ZeRO stage nor the DP overlap changes, nor (but under full
// recompute) the layout of the stages (EvaluationMemo): the gradient accumulation, which ZeRO-2/3 shard, the
// overlap flags and the pipeline send/recv's v exchanges are the caller's.
detail::LayerPart layer_part(const StepInputs& in) {
  detail::LayerPart part;
  LayerTerms& l = part.layer;
  const StageCompute compute = detail::stage(in);  // stage_compute(), in place
  l.forward = compute.layer_forward.total.value;
  l.backward = compute.layer_backward.total.value + compute.layer_recompute.value;
  l.core_forward = compute.layer_forward.attention_core.value;
  l.core_backward = compute.layer_backward.attention_core.value;
  l.logits = compute.logits.value + compute.mtp.value;  // both on the last stage
  l.efficiency = in.gpu.efficiency.overlap;
  l.ep_efficiency = in.gpu.efficiency.ep_overlap;
  const TensorParallelLayer tp = tensor_parallel_layer(in, compute.layer_forward, l.efficiency);
  l.tp = tp.exposed.value;
  l.tp_hidden = tp.hidden_forward.value + tp.hidden_backward.value;
  const auto used = [&](Seconds hidden) { return l.efficiency > 0.0 ? hidden.value / l.efficiency : 0.0; };
  l.forward_window = l.forward - used(tp.hidden_forward);
  part.backward_used = used(tp.hidden_backward);
  l.tp_end = tensor_parallel_end_time(in).value;
  l.ep = expert_parallel_layer_time(in).value;
  l.ep_forward = l.ep / (2.0 + in.moe_recomputed_share);  // one of the 2 + recompute passes of equal volume
  l.ep_backward = l.ep - l.ep_forward;
  const ContextParallelComm cp = context_parallel_layer_comm(in);
  l.cp_forward = cp.forward.value;
  l.cp_backward = cp.backward.value;
  part.send_recv_once = pipeline_send_recv_once(in).value;
  part.recompute_core = attention_recompute_share(in) * l.core_forward;
  part.host = detail::host_terms(in);
  return part;
}

// An estimate of `st` with only its fabric's fields set.
StepEstimate on_fabric(const Strategy& st, const ClusterSpec& cluster, const Topology& topology) {
  StepEstimate e;
  e.strategy = st;
  e.topology = cluster.topology;
  e.oversubscription = cluster.oversubscription;
  e.switches = topology.inventory.switches;
  e.network_capex = topology.inventory.capex;
  return e;
}

}  // namespace

StepEstimate Estimator::evaluate_checked(const Strategy& st, const SplitPaths& paths,
                                         const MemoryBreakdown& mem, bool valid) const noexcept {
  if (valid) return evaluate_valid(st, paths, mem, nullptr);
  StepEstimate e = on_fabric(st, cluster_, topology_);
  apply_economics(e, goodput_, ownership_, options_);  // capex and power only
  return e;
}

StepEstimate Estimator::evaluate_valid(const Strategy& st, const SplitPaths& paths,
                                       const MemoryBreakdown& mem, EvaluationMemo* memo) const noexcept {
  const StepInputs in = prepare(model_, terms_, cluster_.gpu, options_, st, paths);
  // The rest, from the layer terms and the data-parallel streams: the memo's, or this candidate's own.
  const auto estimate = [&](const detail::LayerPart& part, const DataParallelStreams& dp) {
    return evaluate_parts(st, in, part, dp, mem);
  };
  if (memo == nullptr) return estimate(layer_part(in), data_parallel_streams(in));
  return estimate(memo->layer(st, [&] { return layer_part(in); }),
                  memo->data_parallel(st, [&] { return data_parallel_streams(in); }));
}

StepEstimate Estimator::evaluate_parts(const Strategy& st, const StepInputs& in,
                                       const detail::LayerPart& part, const DataParallelStreams& dp,
                                       const MemoryBreakdown& mem) const noexcept {
  StepEstimate e = on_fabric(st, cluster_, topology_);
  const double m = in.micro_batches;
  LayerTerms l = part.layer;
  if (!options_.grad_accumulation_fusion) {
    const GradAccumulation accumulate = grad_accumulation_time(in);  // ZeRO-2/3 shard it
    l.backward += accumulate.layer.value;
    l.accumulate_first = accumulate.first_end.value;
    l.accumulate_last = accumulate.last_end.value;
  }
  l.backward_window = l.backward - part.backward_used;
  l.overlap = st.overlap;
  l.ep_overlap = ep_comm_overlapped(st, options_);
  l.send_recv = pipeline_send_recv_time(in, Seconds(part.send_recv_once)).value;
  l.pp_overlap = pipeline_send_recv_overlapped(st, options_);
  const double recompute_core = part.recompute_core;

  // The stages: the first, the middle ones (alike), the last; one stage is both ends.
  const StageLayers& layers = in.stages;
  const bool one_stage = st.pp == 1;
  const StageTime first = stage_time(l, dp, layers.first, true, one_stage, recompute_core);
  const StageTime middle =
      layers.middle_stages > 0 ? stage_time(l, dp, layers.middle, false, false, recompute_core) : StageTime{};
  const StageTime last = one_stage ? first : stage_time(l, dp, layers.last, false, true, recompute_core);
  const StageTime* pace = &first;
  if (middle.total > pace->total) pace = &middle;
  if (!one_stage && last.total > pace->total) pace = &last;
  const double pace_layers = pace == &first ? layers.first : pace == &last ? layers.last : layers.middle;
  const double host = host_exposed(part.host, l, *pace, pace_layers, in.moe_share, in.recomputed_share);
  const double sum = one_stage ? first.total : first.total + layers.middle_stages * middle.total + last.total;
  const double bubble = pipeline_bubble_time(in, Seconds(sum), Seconds(pace->total)).value;

  // Once a step, on the first stage (the last to finish its backward): the ZeRO-0/1 gradient reduction in
  // the last micro-batch's backward, the ZeRO-1/2 weight gather in the first micro-batch's forward, sharing
  // those windows with the micro-batch's own streams; then the tied-embedding all-reduce.
  const double step_streams = dp.step_reduce.value + dp.step_gather.value;
  double step_exposed = step_streams;
  if (st.overlap && step_streams > 0.0) {
    // The last gradient bucket and the first gathered one wait on no compute (DataParallelStreams); the
    // rest overlaps the last backward and the first forward.
    const double tail = dp.step_reduce_tail.value, head = dp.step_gather_head.value;
    const double n = layers.first;
    const double window_b = n * l.backward_window, window_f = n * l.forward_window;
    const double cp_b = n * l.cp_backward, cp_f = n * l.cp_forward;
    const double core_b = n * (l.core_backward + recompute_core), core_f = n * l.core_forward;
    const double per_mb_b = n * (dp.layer_gather_backward.value + dp.layer_reduce.value);
    const double per_mb_f = n * dp.layer_gather.value;
    const Overlapped b0 = overlap({window_b, core_b, cp_b, per_mb_b}, l.efficiency);
    const Overlapped b1 =
        overlap({window_b, core_b, cp_b, per_mb_b + dp.step_reduce.value - tail}, l.efficiency);
    const Overlapped f0 = overlap({window_f, core_f, cp_f, per_mb_f}, l.efficiency);
    const Overlapped f1 =
        overlap({window_f, core_f, cp_f, per_mb_f + dp.step_gather.value - head}, l.efficiency);
    step_exposed = (b1.free_exposed - b0.free_exposed) + (f1.free_exposed - f0.free_exposed) + tail + head;
  }
  const double tied = dp.tied_embedding.value;
  const double optimizer = optimizer_time(in, mem).value;

  // The combined 1F1B leaves the first forward and the last backward unpaired: one micro-batch's expert
  // all-to-alls stay exposed.
  const double ep_unpaired = pace->ep_total - pace->ep;
  const double synchronous =
      m * (pace->total + host) + bubble + step_exposed + tied + optimizer + ep_unpaired;
  const double stragglers = straggler_share_ * synchronous;
  const double step = synchronous + stragglers;
  e.step_time = Seconds(step);
  e.breakdown.stragglers = Seconds(stragglers);
  e.breakdown.compute = Seconds(m * pace->compute);
  e.breakdown.tp_comm = Seconds(m * pace->tp);
  e.breakdown.cp_comm = Seconds(m * pace->cp_exposed);
  e.breakdown.ep_comm = Seconds(m * pace->ep + ep_unpaired);
  e.breakdown.pp_comm = Seconds(m * pace->pp_exposed);
  e.breakdown.pp_bubble = Seconds(bubble);
  e.breakdown.dp_comm = Seconds(m * pace->dp_total + step_streams + tied);
  e.breakdown.dp_comm_exposed = Seconds(m * pace->dp_exposed + step_exposed + tied);
  e.breakdown.optimizer = Seconds(optimizer);
  e.breakdown.host = Seconds(m * host);
  // Hidden on the pacing stage's GPU: its micro-batches' and, when it is the first stage, the once-a-step
  // streams' (each window hides at most its own compute).
  e.breakdown.hidden_comm =
      Seconds(m * pace->hidden - ep_unpaired + (pace == &first ? step_streams - step_exposed : 0.0));
  e.memory = mem;
  e.fits_memory = mem.total <= mem.capacity;
  fill_rates(e, step, in, terms_, cluster_.gpus);
  apply_economics(e, goodput_, ownership_, options_);
  return e;
}

StepEstimate estimate(const ModelSpec& model, const ClusterSpec& cluster, const Strategy& strategy,
                      const EstimateOptions& options) {
  const Estimator estimator(model, cluster, options);
  StepEstimate e = estimator.evaluate(strategy);
  estimator.describe_collectives(e);
  return e;
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

}  // namespace costmodel::inline COSTMODEL_ABI
