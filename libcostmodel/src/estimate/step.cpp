#include "costmodel/estimate/step.hpp"

#include <algorithm>
#include <cmath>

#include "costmodel/estimate/compute.hpp"

namespace costmodel {
namespace {

// HBM traffic of one Adam step per parameter: read fp32 weight, m, v and gradient (16 B), write weight, m, v
// (12 B) and the half-precision copy (2 B); rounded to 32 B with the gradient-norm pass (apex FusedAdam).
constexpr double kOptimizerTrafficBytes = 32.0;
// Bytes per element of replicated element-wise traffic per token and layer, forward (Korthikanti et al. 2022
// §4.1 tensors): two LayerNorms read and write 2h each (8h), two residual adds read 4h and write 2h (12h),
// two dropouts read 2h, write 2h and a 1-byte mask (10h): 30h bytes. The MLP activation reads and writes
// its intermediate: 4f bytes (GELU) or 6f (gated: gate, up, product).
constexpr double kElementwiseBytesPerHidden = 30.0;

// The part of `comm` seconds left on the critical path when it runs beside `window` seconds of compute:
// only `hidden` of the overlapped share is hidden, since NCCL's kernels take SMs and memory bandwidth from
// the concurrent GEMMs (Rashidi et al. 2021, "Enabling compute-communication overlap in distributed deep
// learning training platforms", §2; GpuEfficiency::overlap).
double exposed_after_overlap(double comm, double window, double hidden) {
  return comm - hidden * std::min(comm, window);
}

double gemm_seconds(const GpuSpec& gpu, Dtype dtype, double m, double n, double k) {
  return gemm_time(gpu, dtype, m, n, k).value;
}

}  // namespace

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

Estimator::Estimator(const ModelSpec& model, const ClusterSpec& cluster, const EstimateOptions& options)
    : model_(model),
      cluster_(cluster),
      options_(options),
      topology_(build_topology(cluster)),
      terms_(model_terms(model_)) {}

std::uint32_t Estimator::check(const Strategy& st) const noexcept {
  return costmodel::check(st, model_, cluster_);
}

namespace {

// The cost of a collective, falling back to Auto when the requested algorithm cannot run on the path
// (e.g. in-network reduction without SHARP).
Seconds comm(Collective c, Algorithm a, double bytes, const LinkPath& path) {
  if (bytes <= 0.0 || path.ranks <= 1) return Seconds(0.0);
  if (a != Algorithm::kAuto && !applicable(c, a, path)) a = Algorithm::kAuto;
  return collective_cost(c, a, Bytes(bytes), path).time;
}

}  // namespace

SplitPaths Estimator::paths(const Strategy& st) const noexcept {
  if (check(st) != kValid) return {};
  // Placement: TP innermost, then CP, EP (inside DP), DP, PP outermost. Groups that communicate at the same
  // time share the nodes' NICs (concurrent_groups).
  SplitPaths p;
  const int tp_cp = st.tp * st.cp;
  if (st.tp > 1)
    p.tp = link_path(topology_, Communicator{st.tp, 1, std::max(1, cluster_.gpus_per_node / st.tp)});
  if (st.cp > 1) p.cp = link_path(topology_, Communicator{st.cp, st.tp, st.tp});
  if (st.ep > 1) p.ep = link_path(topology_, Communicator{st.ep, tp_cp, tp_cp});
  if (st.pp > 1) p.pp = link_path(topology_, Communicator{2, tp_cp * st.dp, tp_cp * st.dp});
  // Gradients are reduced over dp·cp: context-parallel ranks hold the same weights (Megatron-LM's
  // data-parallel-with-context group); experts over the dp·cp/ep ranks holding the same experts.
  const int replicas = st.dp * st.cp;
  if (replicas > 1) p.dp = link_path(topology_, Communicator{replicas, st.tp, st.tp});
  const int expert_replicas = replicas / st.ep;
  if (st.ep > 1 && expert_replicas > 1) {
    // Every ep-th rank of the dp·cp group holds the same experts.
    p.expert_dp = link_path(topology_, Communicator{expert_replicas, st.tp * st.ep, st.tp * st.ep});
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

StepEstimate Estimator::evaluate_checked(const Strategy& st, const SplitPaths& paths,
                                         const MemoryBreakdown& mem, bool valid) const noexcept {
  StepEstimate e;
  e.strategy = st;
  e.topology = cluster_.topology;
  e.oversubscription = cluster_.oversubscription;
  e.switches = topology_.inventory.switches;
  e.network_cost = topology_.inventory.capex;
  e.power = Watts(cluster_.gpu.tdp.value * cluster_.gpus + topology_.inventory.power.value);
  if (!valid) return e;

  const GpuSpec& gpu = cluster_.gpu;
  const Dtype dt = st.dtype;
  const double h = static_cast<double>(model_.hidden);
  const double q = static_cast<double>(model_.q_dim());
  const double kv = static_cast<double>(model_.kv_dim());
  const double f = static_cast<double>(model_.ffn_hidden);
  const double V = static_cast<double>(model_.vocab);
  const double s = static_cast<double>(model_.seq_len);
  const double t = st.tp, p = st.pp, v = st.vpp;
  const double m = st.micro_batches();
  const double T = st.micro_batch * s / st.cp;  // tokens of one micro-batch on one GPU
  const bool sp = st.sequence_parallel && st.tp > 1;
  const double gated = model_.ffn == FfnKind::kGelu ? 1.0 : 2.0;
  const double act_bytes = 2.0;  // bf16/fp16 activations (fp8 GEMMs still exchange bf16 activations)
  const double layers_per_stage = model_.layers / p;
  const double moe_share = model_.is_moe() ? static_cast<double>(model_.moe_layers()) / model_.layers : 0.0;

  // ---- Compute of one layer, forward, on one GPU (Megatron-LM tensor-parallel GEMM shapes,
  // Shoeybi et al. 2019 §3): QKV, projection, MLP up and down.
  const double attention_gemms =
      gemm_seconds(gpu, dt, T, (q + 2 * kv) / t, h) + gemm_seconds(gpu, dt, T, h, q / t);
  const double dense_mlp = gemm_seconds(gpu, dt, T, gated * f / t, h) + gemm_seconds(gpu, dt, T, h, f / t);
  double moe_mlp = 0.0;
  if (model_.is_moe()) {
    const double fe = static_cast<double>(model_.moe->expert_ffn_hidden);
    const double experts_local = static_cast<double>(model_.moe->experts) / st.ep;
    // Balanced routing: each local expert sees ep·T·top_k / E tokens (Lepikhin et al. 2020, GShard §2).
    const double tokens_per_expert = st.ep * T * model_.moe->top_k / model_.moe->experts;
    moe_mlp = experts_local * (gemm_seconds(gpu, dt, tokens_per_expert, gated * fe / t, h) +
                               gemm_seconds(gpu, dt, tokens_per_expert, h, fe / t)) +
              model_.moe->shared_experts *
                  (gemm_seconds(gpu, dt, T, gated * fe / t, h) + gemm_seconds(gpu, dt, T, h, fe / t)) +
              gemm_seconds(gpu, dt, T, static_cast<double>(model_.moe->experts), h);  // router
  }
  const double mlp = (1.0 - moe_share) * dense_mlp + moe_share * moe_mlp;
  // Attention core: 4·T·s·q/t FLOPs (QK^T and scores·V). Flash attention skips the causally masked half
  // (Dao et al. 2022 §3); standard attention computes it all as batched GEMMs of inner size head_dim and
  // moves the T x s scores per head through HBM: QK^T write (2 B), softmax read and write (4 B), dropout
  // mask, read and write (5 B), read by scores·V (2 B): 13 bytes per score (Korthikanti et al. 2022 §4.1).
  double attention_core = 0.0;
  if (options_.flash_attention) {
    attention_core = 2.0 * T * s * q / t / (gpu.peak(dt).value * gpu.efficiency.attention);
  } else {
    const double heads = model_.heads / t;
    const double hd = static_cast<double>(model_.head_dim());
    attention_core = heads * st.micro_batch *
                         (gemm_seconds(gpu, dt, s / st.cp, s, hd) + gemm_seconds(gpu, dt, s / st.cp, hd, s)) +
                     memory_bound_time(gpu, Bytes(13.0 * heads * T * s)).value;
  }
  // Element-wise traffic: replicated across tp without sequence parallelism, split with it.
  const double intermediate = (model_.ffn == FfnKind::kGelu ? 4.0 : 6.0) * f / t;
  const double elementwise_bytes = T * (kElementwiseBytesPerHidden * h / (sp ? t : 1.0) + intermediate);
  const double elementwise = memory_bound_time(gpu, Bytes(elementwise_bytes)).value;
  const double layer_forward = attention_gemms + mlp + attention_core + elementwise;
  // Backward costs twice the forward (Narayanan et al. 2021 §5.1); recompute adds a forward pass (full) or
  // the attention core (selective, Korthikanti et al. 2022 §5).
  const double layer_recompute = st.recompute == Recompute::kFull        ? layer_forward
                                 : st.recompute == Recompute::kSelective ? attention_core
                                                                         : 0.0;
  const double layer_compute = 3.0 * layer_forward + layer_recompute;
  // The last stage also runs the output layer and the loss (vocabulary-parallel, 3 GEMM passes).
  const double logits =
      3.0 * gemm_seconds(gpu, dt, T, V / t, h) + memory_bound_time(gpu, Bytes(T * V / t * 12.0)).value;
  const double stage_compute = layers_per_stage * layer_compute + logits;

  // ---- Tensor parallelism: per layer 2 collectives forward and 2 backward (f and g of Shoeybi et al. 2019
  // §3), 2 more under full recompute; sequence parallelism turns each AllReduce into a reduce-scatter +
  // all-gather pair (Korthikanti et al. 2022 §4.2.2).
  double tp_layer = 0.0;
  if (st.tp > 1) {
    const LinkPath& tp_path = paths.tp;
    const double n = T * h * act_bytes;
    // A reduce-scatter and an all-gather of the same buffer cost the same under every algorithm modelled
    // (Thakur et al. 2005 §4.1, §4.3: the same steps in reverse), so the pair is twice the reduce-scatter.
    const double one = sp ? 2.0 * comm(Collective::kReduceScatter, options_.tp_algorithm, n, tp_path).value
                          : comm(Collective::kAllReduce, options_.tp_algorithm, n, tp_path).value;
    tp_layer = one * (st.recompute == Recompute::kFull ? 6.0 : 4.0);
  }

  // ---- Context parallelism (ring attention, Liu et al. 2023): cp - 1 K/V block exchanges forward, and
  // K/V plus their gradients backward; overlapped with the attention core they feed.
  double cp_layer = 0.0;
  if (st.cp > 1) {
    const LinkPath& cp_path = paths.cp;
    const double block = 2.0 * T * kv / t * act_bytes;
    const double forward = (st.cp - 1) * comm(Collective::kSendRecv, Algorithm::kAuto, block, cp_path).value;
    cp_layer = exposed_after_overlap(3.0 * forward, 3.0 * attention_core, gpu.efficiency.overlap);
  }

  // ---- Expert parallelism: dispatch and combine all-to-alls forward and backward per MoE layer
  // (Lepikhin et al. 2020), two more under full recompute.
  double ep_layer = 0.0;
  if (st.ep > 1 && model_.is_moe()) {
    const LinkPath& ep_path = paths.ep;
    const double n = T * model_.moe->top_k * h * act_bytes;
    ep_layer = moe_share * comm(Collective::kAllToAll, Algorithm::kAuto, n, ep_path).value *
               (st.recompute == Recompute::kFull ? 6.0 : 4.0);
  }

  // ---- Pipeline: activations forward and gradients backward at every stage boundary, v times per
  // micro-batch when interleaved; with sequence parallelism each TP rank sends its 1/t slice (Megatron-LM
  // scatter-gather, Narayanan et al. 2021 §4.1).
  double pp_microbatch = 0.0;
  if (st.pp > 1) {
    const LinkPath& pp_path = paths.pp;
    const double n = T * h * act_bytes / t;
    pp_microbatch = 2.0 * v * comm(Collective::kSendRecv, Algorithm::kAuto, n, pp_path).value;
  }

  const double per_microbatch =
      stage_compute + layers_per_stage * (tp_layer + cp_layer + ep_layer) + pp_microbatch;
  // 1F1B: (m + p - 1) slots; interleaving shrinks the bubble to (p - 1)/v (Narayanan et al. 2021 §2.2).
  const double bubble = (p - 1.0) / v * per_microbatch;

  // ---- Data parallelism: gradients of the stage's parameters across dp (expert parameters across dp/ep).
  const double grad_b = gradient_bytes(dt);
  double wire = grad_b;
  if (st.compression.kind == CompressionKind::kFp16) wire = std::min(grad_b, 2.0);
  if (st.compression.kind == CompressionKind::kInt8) wire = 1.0;
  double dp_total = 0.0;
  double dp_exposed = 0.0;
  const double backward_window = 2.0 * layers_per_stage * layer_forward;  // the last micro-batch's backward
  const double forward_window = layers_per_stage * layer_forward;
  // One gradient group: `params` of this GPU's stage replicated over `ranks` ranks on `path`.
  const auto data_parallel = [&](double params, int ranks, const LinkPath& path) {
    if (ranks <= 1 || params <= 0.0) return;
    double reduce = 0.0, gather = 0.0;
    if (st.compression.kind == CompressionKind::kTopK) {
      // Top-k sparsified gradients cannot be summed in flight: every rank all-gathers everyone's values and
      // int32 indices (4 + 4 bytes each), a volume that grows with the group (Shi et al. 2019 §3).
      reduce = comm(Collective::kAllGather, Algorithm::kAuto,
                    ranks * st.compression.topk_fraction * params * 8.0, path)
                   .value;
    } else if (st.zero == 0) {
      reduce = comm(Collective::kAllReduce, options_.dp_algorithm, params * wire, path).value;
    } else {
      // Distributed optimizer / ZeRO-1/2: reduce-scatter gradients, all-gather the updated weights once.
      reduce = comm(Collective::kReduceScatter, options_.dp_algorithm, params * wire, path).value;
      if (st.zero <= 2)
        gather = comm(Collective::kAllGather, options_.dp_algorithm, params * 2.0, path).value;
    }
    if (st.zero >= 3) {
      // ZeRO-3 / FSDP gathers the weights for every micro-batch's forward and again for its backward,
      // prefetched behind that micro-batch's compute.
      const double per_mb = 2.0 * comm(Collective::kAllGather, Algorithm::kAuto, params * 2.0, path).value;
      dp_total += m * per_mb;
      dp_exposed += st.overlap ? m * exposed_after_overlap(per_mb, 3.0 * layers_per_stage * layer_forward,
                                                           gpu.efficiency.overlap)
                               : m * per_mb;
    }
    dp_total += reduce + gather;
    // Bucketed overlap: gradient reduction hides behind the last micro-batch's backward, the weight
    // all-gather behind the next step's first forward (Megatron-LM --overlap-grad-reduce and
    // --overlap-param-gather).
    dp_exposed += st.overlap ? exposed_after_overlap(reduce, backward_window, gpu.efficiency.overlap) +
                                   exposed_after_overlap(gather, forward_window, gpu.efficiency.overlap)
                             : reduce + gather;
  };
  const int replicas = st.dp * st.cp;
  data_parallel(mem.dense_parameters, replicas, paths.dp);
  data_parallel(mem.expert_parameters, replicas / st.ep, paths.expert_dp);

  // ---- Optimizer step (memory bound) and the compression pass with error feedback.
  const double local_params = mem.optimizer.value / kOptimizerStateBytes;  // what this GPU updates
  double optimizer = memory_bound_time(gpu, Bytes(local_params * kOptimizerTrafficBytes)).value;
  if (st.compression.kind != CompressionKind::kNone) {
    const double stage_params = mem.dense_parameters + mem.expert_parameters;
    optimizer += memory_bound_time(gpu, Bytes(stage_params * (grad_b + wire + 8.0))).value;
  }

  const double step = m * per_microbatch + bubble + dp_exposed + optimizer;
  e.step_time = Seconds(step);
  e.breakdown.compute = Seconds(m * stage_compute);
  e.breakdown.tp_comm = Seconds(m * layers_per_stage * tp_layer);
  e.breakdown.cp_comm = Seconds(m * layers_per_stage * cp_layer);
  e.breakdown.ep_comm = Seconds(m * layers_per_stage * ep_layer);
  e.breakdown.pp_comm = Seconds(m * pp_microbatch);
  e.breakdown.pp_bubble = Seconds(bubble);
  e.breakdown.dp_comm = Seconds(dp_total);
  e.breakdown.dp_comm_exposed = Seconds(dp_exposed);
  e.breakdown.optimizer = Seconds(optimizer);

  const double tokens_per_step = static_cast<double>(st.global_batch) * s;
  e.tokens_per_s = tokens_per_step / step;
  const double recompute = st.recompute == Recompute::kFull        ? terms_.recompute_flops_full
                           : st.recompute == Recompute::kSelective ? terms_.recompute_flops_selective
                                                                   : 0.0;
  const double per_gpu = tokens_per_step / step / cluster_.gpus;
  e.model_tflops_per_gpu = terms_.model_flops_per_token * per_gpu / 1e12;
  e.hardware_tflops_per_gpu = (terms_.model_flops_per_token + recompute) * per_gpu / 1e12;
  const double peak = gpu.peak(dt).value / 1e12;
  e.mfu = e.model_tflops_per_gpu / peak;
  e.hfu = e.hardware_tflops_per_gpu / peak;
  e.memory = mem;
  e.fits_memory = mem.total <= mem.capacity;
  if (options_.tokens) {
    const double seconds = *options_.tokens / e.tokens_per_s;
    e.training_days = seconds / kSecondsPerDay;
    e.cost = Usd(gpu.hourly_price.value * seconds * cluster_.gpus);
    e.energy_kwh = e.power.value * seconds / 3.6e6;  // W·s -> kWh
  }
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
                      " available; largest term: " + std::string(e.memory.overflow) + " (" +
                      format_quantity(e.memory.overflow == "weights"       ? e.memory.weights.value
                                      : e.memory.overflow == "gradients"   ? e.memory.gradients.value
                                      : e.memory.overflow == "optimizer"   ? e.memory.optimizer.value
                                      : e.memory.overflow == "activations" ? e.memory.activations.value
                                      : e.memory.overflow == "logits"      ? e.memory.logits.value
                                                                           : e.memory.error_feedback.value,
                                      Dimension::kBytes) +
                      ")");
  }
  return reasons;
}

}  // namespace costmodel
