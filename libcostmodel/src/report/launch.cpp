// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/launch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string_view>

#include "costmodel/error.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/report/configuration.hpp"
#include "costmodel/spec/stack.hpp"
#include "estimate/expert.hpp"
#include "estimate/pipeline.hpp"
#include "estimate/tensor.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// "# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): step 21.1 s, 156 TFLOP/s per GPU, MFU 50.1%".
std::string headline(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& base) {
  const ClusterSpec c = cluster_of(e, base);
  return "# costmodel: " + model.name + " on " + std::to_string(c.gpus) + " x " + c.gpu.name + " (" +
         std::string(to_string(c.topology)) + "): predicted step " + format_number(e.step_time.value) +
         " s, " + format_number(e.model_flops_per_gpu.value / 1e12) + " TFLOP/s per GPU, MFU " +
         format_number(100.0 * e.mfu, 3) + "%" + (e.fits_memory ? "" : " (does not fit in memory)");
}

// The frameworks an export runs on: Megatron-LM (and NeMo, on Megatron-Core) run neither ZeRO-2 nor another
// stack's plan (data/stacks.yaml), nor a position embedding Megatron-LM lacks.
void check_megatron(const StepEstimate& e, const ModelSpec& model, const EstimateOptions& options,
                    std::string_view format) {
  const std::string& stack = options.stack;
  if (!stack.empty() && stack.rfind("megatron", 0) != 0 && stack != "nemo") {
    throw Error(ErrorLocation{}, "--format", "stack '" + stack + "' does not run on Megatron-LM",
                "--format " + std::string(format) + " exports plans of the megatron-* and nemo stacks");
  }
  if (e.strategy.zero == 2) {
    throw Error(ErrorLocation{}, "--format",
                "Megatron-LM has no ZeRO-2 (its distributed optimizer shards optimizer states, ZeRO-1; "
                "--use-torch-fsdp2 shards everything, ZeRO-3)",
                "export a plan with --zero 1 or --zero 3");
  }
  if (model.position == PositionEmbedding::kAlibi) {
    throw Error(ErrorLocation{}, "--format",
                "Megatron-LM has no ALiBi position embedding (" + model.name + ")",
                "--position-embedding-type takes learned_absolute, rope, yarn, mrope, relative or none");
  }
}

// Megatron-Core's --moe-layer-freq as a Python list expression (megatron/training/arguments.py
// moe_freq_type): the first dense layers, then one MoE layer every `every` (layers every, 2 every, ...
// as ModelSpec::moe_layers() counts them), dense layers after the last. Empty for Megatron's default (1).
std::string moe_layer_pattern(const ModelSpec& model) {
  const MoeSpec& moe = *model.moe;
  const int dense = moe.first_dense_layers;
  const int every = std::max(1, moe.every);
  const int sparse = std::max(0, model.layers - dense);
  if (dense == 0 && every == 1) return {};
  std::string pattern = "(";
  if (dense > 0) pattern += "[0]*" + std::to_string(dense) + "+";
  if (every == 1) {
    pattern += "[1]*" + std::to_string(sparse);
  } else {
    pattern += "([0]*" + std::to_string(every - 1) + "+[1])*" + std::to_string(sparse / every);
    if (sparse % every > 0) pattern += "+[0]*" + std::to_string(sparse % every);
  }
  return pattern + ")";
}

}  // namespace

std::string megatron_arguments(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                               const EstimateOptions& options) {
  check_megatron(e, model, options, "megatron");
  const Strategy& st = e.strategy;
  std::vector<std::string> args;
  std::vector<std::string> comments;
  const auto arg = [&](const std::string& flag, const std::string& value = {}) {
    args.push_back(value.empty() ? flag : flag + " " + value);
  };
  const auto number = [](auto n) { return std::to_string(n); };
  // The architecture (megatron/training/arguments.py and TransformerConfig's generated flags).
  arg("--num-layers", number(model.layers));
  arg("--hidden-size", number(model.hidden));
  arg("--ffn-hidden-size", number(model.ffn_hidden));
  arg("--num-attention-heads", number(model.heads));
  if (model.mla) {
    // Multi-latent attention (megatron/core/transformer/transformer_config.py MLATransformerConfig): the
    // query/key head's no-position part and its RoPE part apart.
    arg("--multi-latent-attention");
    if (model.mla->q_lora_rank > 0) arg("--q-lora-rank", number(model.mla->q_lora_rank));
    arg("--kv-lora-rank", number(model.mla->kv_lora_rank));
    arg("--qk-head-dim", number(model.mla->qk_nope_head_dim));
    arg("--qk-pos-emb-head-dim", number(model.mla->qk_rope_head_dim));
    arg("--v-head-dim", number(model.mla->v_head_dim));
  } else {
    if (model.kv_heads > 0 && model.kv_heads < model.heads) {
      arg("--group-query-attention");
      arg("--num-query-groups", number(model.kv_heads));
    }
    if (model.head_size > 0 && model.head_size * model.heads != model.hidden)
      arg("--kv-channels", number(model.head_size));
  }
  arg("--max-position-embeddings", number(model.seq_len));
  arg("--position-embedding-type", model.position == PositionEmbedding::kRope ? "rope" : "learned_absolute");
  if (model.ffn == FfnKind::kSwiglu) arg("--swiglu");
  arg("--normalization", model.norm == NormKind::kRmsNorm ? "RMSNorm" : "LayerNorm");
  if (!model.tied_embeddings) arg("--untie-embeddings-and-output-weights");
  if (!model.bias) arg("--disable-bias-linear");
  if (!model.bias && model.qkv_bias) arg("--add-qkv-bias");
  if (!model.has_dropout()) {
    arg("--attention-dropout", "0");
    arg("--hidden-dropout", "0");
  }
  if (model.is_moe()) {
    const MoeSpec& moe = *model.moe;
    arg("--num-experts", number(moe.experts));
    arg("--moe-router-topk", number(moe.top_k));
    arg("--moe-ffn-hidden-size", number(moe.expert_ffn_hidden));
    if (moe.shared_experts > 0)
      arg("--moe-shared-expert-intermediate-size", number(moe.shared_experts * moe.expert_ffn_hidden));
    if (const std::string pattern = moe_layer_pattern(model); !pattern.empty())
      arg("--moe-layer-freq", "'" + pattern + "'");
    // What the model prices: dropless dispatch, all-to-all or flex (estimate/expert.hpp), into grouped GEMMs.
    if (options.moe_dispatcher == MoeDispatcher::kAllToAll) {
      arg("--moe-token-dispatcher-type", "alltoall");
    } else {
      arg("--moe-token-dispatcher-type", "flex");
      arg("--moe-flex-dispatcher-backend", std::string(to_string(options.moe_dispatcher)));
    }
    arg("--moe-grouped-gemm");
  }
  if (model.mtp_layers > 0) arg("--mtp-num-layers", number(model.mtp_layers));
  // Megatron-LM megatron/training/arguments.py: the parallel layout.
  arg("--tensor-model-parallel-size", std::to_string(st.tp));
  arg("--pipeline-model-parallel-size", std::to_string(st.pp));
  const UnevenLayout layout = uneven_layout(st, model.layers);
  if (layout.uneven) {
    // Uneven stages (megatron/core/transformer/transformer_config.py, TransformerConfig.__post_init__):
    // either the first/last stage's layer counts, or the embedding and/or loss counted as a layer of their
    // stage.
    if (layout.account_for_embedding || layout.account_for_loss) {
      if (layout.account_for_embedding) arg("--account-for-embedding-in-pipeline-split");
      if (layout.account_for_loss) arg("--account-for-loss-in-pipeline-split");
    } else {
      if (st.first_stage_layers > 0)
        arg("--decoder-first-pipeline-num-layers", std::to_string(st.first_stage_layers));
      if (st.last_stage_layers > 0)
        arg("--decoder-last-pipeline-num-layers", std::to_string(st.last_stage_layers));
    }
  }
  // One spelling of the interleaved schedule, even stages or not.
  if (st.vpp > 1) arg("--num-virtual-stages-per-pipeline-rank", std::to_string(st.vpp));
  if (st.pp > 1 && st.vpp > 1 && !pipeline_send_recv_overlapped(st, options))
    arg("--no-overlap-p2p-communication");
  arg("--context-parallel-size", std::to_string(st.cp));
  if (model.is_moe()) {
    arg("--expert-model-parallel-size", std::to_string(st.ep));
    if (st.expert_tp() != st.tp) arg("--expert-tensor-parallel-size", std::to_string(st.expert_tp()));
    if (ep_comm_overlapped(st, options)) arg("--overlap-moe-expert-parallel-comm");
  }
  if (st.sequence_parallel && st.tp > 1) arg("--sequence-parallel");
  if (tp_comm_overlapped(st, options, st.tp <= cluster.scale_up_domain())) arg("--tp-comm-overlap");
  if (!options.grad_accumulation_fusion) arg("--no-gradient-accumulation-fusion");
  arg("--micro-batch-size", std::to_string(st.micro_batch));
  arg("--global-batch-size", std::to_string(st.global_batch));
  arg("--seq-length", std::to_string(model.seq_len));
  // The run's length in sequences (megatron/training/arguments.py --train-samples).
  if (options.tokens && model.seq_len > 0) {
    arg("--train-samples",
        number(static_cast<long long>(std::ceil(*options.tokens / static_cast<double>(model.seq_len)))));
  }
  if (st.recompute == Recompute::kFull) {
    // Every layer (uniform, 1 per checkpoint) or the first N of each model chunk (block).
    arg("--recompute-granularity", "full");
    arg("--recompute-method", st.recompute_layers > 0 ? "block" : "uniform");
    arg("--recompute-num-layers", std::to_string(std::max(1, st.recompute_layers)));
  } else if (st.recompute == Recompute::kSelective || st.recompute_modules != 0) {
    arg("--recompute-granularity", "selective");
    if (st.recompute_modules != 0) {
      // Megatron-Core's --recompute-modules takes the names space-separated (nargs '*').
      std::string modules =
          recompute_modules_text(st.recompute_modules, st.recompute == Recompute::kSelective);
      std::replace(modules.begin(), modules.end(), ',', ' ');
      arg("--recompute-modules", modules);
    }
  }
  if (st.zero == 1) arg("--use-distributed-optimizer");
  if (st.zero == 3) {
    arg("--use-torch-fsdp2");
    comments.push_back(
        "# ZeRO-3: Megatron-Core's FSDP2 path (--use-torch-fsdp2) shards parameters, gradients and states");
  }
  if (st.overlap && st.dp * st.cp > 1) {
    arg("--overlap-grad-reduce");
    if (st.zero == 1) arg("--overlap-param-gather");
  }
  if (st.dtype == Dtype::kFp16) {
    arg("--fp16");
  } else {
    arg("--bf16");
  }
  if (st.dtype == Dtype::kFp8) arg("--fp8-format", "hybrid");
  if (fp8_weights(st)) arg("--fp8-param-gather");
  if (st.bf16_optimizer) {  // Megatron-Core's precision-aware optimizer (megatron/training/arguments.py)
    arg("--use-precision-aware-optimizer");
    arg("--main-params-dtype", "bf16");
    arg("--exp-avg-dtype", "bf16");
    arg("--exp-avg-sq-dtype", "bf16");
  }

  // The arguments first, one per line with shell continuations, so that the block pasted after
  // `torchrun ... pretrain_gpt.py \` is one command; the comments after its last line.
  std::ostringstream out;
  for (size_t k = 0; k < args.size(); ++k) out << args[k] << (k + 1 < args.size() ? " \\\n" : "\n");
  out << headline(e, model, cluster) << '\n';
  comments.emplace_back(std::string("# not set here: the tokenizer and data, ") +
                        (model.position == PositionEmbedding::kRope ? "--rotary-base, " : "") +
                        "the learning-rate schedule");
  for (const auto& c : comments) out << c << '\n';
  return out.str();
}

std::string nemo_overrides(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                           const EstimateOptions& options) {
  check_megatron(e, model, options, "nemo");
  const Strategy& st = e.strategy;
  std::ostringstream out;
  out << headline(e, model, cluster) << '\n';
  // NeMo 2 (nemo.collections.llm) recipes: MegatronStrategy fields under trainer.strategy, the data module's
  // batch sizes, and the model config's recompute and precision.
  out << "trainer.strategy.tensor_model_parallel_size=" << st.tp << '\n'
      << "trainer.strategy.pipeline_model_parallel_size=" << st.pp << '\n'
      << "trainer.strategy.virtual_pipeline_model_parallel_size="
      << (st.vpp > 1 ? std::to_string(st.vpp) : "null") << '\n'
      << "trainer.strategy.context_parallel_size=" << st.cp << '\n';
  // ModelParallelConfig leaves overlap_p2p_comm off (Megatron-LM's command line turns it on): say which.
  if (st.pp > 1 && st.vpp > 1) {
    const bool overlapped = pipeline_send_recv_overlapped(st, options);
    out << "model.config.overlap_p2p_comm=" << (overlapped ? "true" : "false")
        << "\nmodel.config.batch_p2p_comm=" << (overlapped ? "false" : "true") << '\n';
  }
  if (const UnevenLayout layout = uneven_layout(st, model.layers); layout.uneven) {
    if (layout.account_for_embedding || layout.account_for_loss) {
      if (layout.account_for_embedding)
        out << "trainer.strategy.account_for_embedding_in_pipeline_split=true\n";
      if (layout.account_for_loss) out << "trainer.strategy.account_for_loss_in_pipeline_split=true\n";
    } else {
      if (st.first_stage_layers > 0)
        out << "trainer.strategy.num_layers_in_first_pipeline_stage=" << st.first_stage_layers << '\n';
      if (st.last_stage_layers > 0)
        out << "trainer.strategy.num_layers_in_last_pipeline_stage=" << st.last_stage_layers << '\n';
    }
  }
  if (model.is_moe()) {
    out << "trainer.strategy.expert_model_parallel_size=" << st.ep << '\n';
    if (st.expert_tp() != st.tp)
      out << "trainer.strategy.expert_tensor_parallel_size=" << st.expert_tp() << '\n';
    if (ep_comm_overlapped(st, options)) out << "model.config.overlap_moe_expert_parallel_comm=true\n";
    if (options.moe_dispatcher != MoeDispatcher::kAllToAll) {
      out << "model.config.moe_token_dispatcher_type=flex\n"
          << "model.config.moe_flex_dispatcher_backend=" << to_string(options.moe_dispatcher) << '\n';
    }
  }
  out << "trainer.strategy.sequence_parallel=" << (st.sequence_parallel && st.tp > 1 ? "true" : "false")
      << '\n';
  if (tp_comm_overlapped(st, options, st.tp <= cluster.scale_up_domain()))
    out << "model.config.tp_comm_overlap=true\n";
  if (!options.grad_accumulation_fusion) out << "model.config.gradient_accumulation_fusion=false\n";
  out << "data.micro_batch_size=" << st.micro_batch << '\n'
      << "data.global_batch_size=" << st.global_batch << '\n'
      << "data.seq_length=" << model.seq_len << '\n';
  if (st.recompute == Recompute::kFull) {
    out << "model.config.recompute_granularity=full\nmodel.config.recompute_method="
        << (st.recompute_layers > 0 ? "block" : "uniform")
        << "\nmodel.config.recompute_num_layers=" << std::max(1, st.recompute_layers) << '\n';
  } else if (st.recompute == Recompute::kSelective || st.recompute_modules != 0) {
    out << "model.config.recompute_granularity=selective\n";
    if (st.recompute_modules != 0) {
      // A Python list of the names.
      std::string modules =
          recompute_modules_text(st.recompute_modules, st.recompute == Recompute::kSelective);
      for (std::size_t at = modules.find(','); at != std::string::npos; at = modules.find(',', at + 3))
        modules.replace(at, 1, "','");
      out << "model.config.recompute_modules=['" << modules << "']\n";
    }
  }
  out << "trainer.strategy.ddp.use_distributed_optimizer=" << (st.zero >= 1 ? "true" : "false") << '\n'
      << "trainer.strategy.ddp.overlap_grad_reduce=" << (st.overlap ? "true" : "false") << '\n';
  // The distributed optimizer's parameter all-gather behind the forward, as Megatron's
  // --overlap-param-gather (megatron/core/distributed/distributed_data_parallel_config.py).
  if (st.zero == 1)
    out << "trainer.strategy.ddp.overlap_param_gather=" << (st.overlap ? "true" : "false") << '\n';
  if (st.zero == 3) out << "# ZeRO-3: run it through the recipe's Megatron FSDP setting (not one override)\n";
  out << "trainer.plugins.precision=" << (st.dtype == Dtype::kFp16 ? "16-mixed" : "bf16-mixed") << '\n';
  if (st.bf16_optimizer)
    out << "optim.config.use_precision_aware_optimizer=true\noptim.config.main_params_dtype=bf16\n"
           "optim.config.exp_avg_dtype=bf16\noptim.config.exp_avg_sq_dtype=bf16\n";
  if (st.dtype == Dtype::kFp8) {
    out << "trainer.plugins.fp8=hybrid\ntrainer.plugins.fp8_param_gather="
        << (fp8_weights(st) ? "true" : "false") << '\n';
  }
  return out.str();
}

namespace {

/// torchtitan's own configuration of a catalog model: the module and function of its config registry
/// (pytorch/torchtitan @b5bcd76c torchtitan/models/*/config_registry.py), and the Llama 3 flavour its
/// model_registry() takes (for FP8 converters).
struct TorchtitanModel {
  std::string_view model;
  std::string_view module;
  std::string_view function;
  std::string_view llama3_flavor;  ///< empty: not Llama 3
};

constexpr std::array<TorchtitanModel, 5> kTorchtitanModels{{
    {"llama3-8b", "torchtitan.models.llama3.config_registry", "llama3_8b", "8B"},
    {"llama3-70b", "torchtitan.models.llama3.config_registry", "llama3_70b", "70B"},
    {"llama3-405b", "torchtitan.models.llama3.config_registry", "llama3_405b", "405B"},
    {"deepseek-v3", "torchtitan.models.deepseek_v3.config_registry", "deepseek_v3_671b", ""},
    {"gpt-oss-120b", "torchtitan.models.gpt_oss.config_registry", "gpt_oss_120b", ""},
}};

[[noreturn]] void refuse_torchtitan(const std::string& why, const std::string& hint = {}) {
  throw Error(ErrorLocation{}, "--format", why, hint);
}

/// "costmodel_llama3_70b_4096gpus_1": a Python name for the function of configuration `rank` (1-based).
std::string function_name(const TorchtitanModel& m, const StepEstimate& e, size_t rank) {
  return "costmodel_" + std::string(m.function) + "_" + std::to_string(e.gpus) + "gpus_" +
         std::to_string(rank);
}

/// One function returning the Trainer.Config of `e`.
std::string torchtitan_function(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                                const EstimateOptions& options, const TorchtitanModel& m, size_t rank) {
  const Strategy& st = e.strategy;
  const bool uneven = st.first_stage_layers > 0 || st.last_stage_layers > 0;
  if (uneven && st.vpp > 1) {
    refuse_torchtitan("uneven stages with the interleaved schedule are not exported to torchtitan",
                      "pin even stages or --vpp 1");
  }
  if (model.is_moe() && st.expert_tp() > 1) {
    refuse_torchtitan("torchtitan shards experts over expert and data parallelism, never tensor parallelism",
                      "plan with --etp 1");
  }
  if (st.dtype == Dtype::kFp8 && m.llama3_flavor.empty()) {
    refuse_torchtitan("the torchtitan export states FP8 (Float8LinearConverter) for Llama 3 only");
  }
  if (st.dtype == Dtype::kFp16) refuse_torchtitan("torchtitan trains in bf16 or fp32 (TrainingConfig.dtype)");
  // EP borrows its ranks from FSDP, CP and TP: dp_shard x cp x tp = efsdp x ep (configs.py,
  // ParallelismConfig.expert_parallel_degree).
  const int dense_ranks = (st.zero == 0 ? 1 : st.dp) * st.cp * st.tp;
  if (model.is_moe() && dense_ranks % st.ep != 0) {
    refuse_torchtitan("torchtitan needs expert parallelism (" + std::to_string(st.ep) +
                      ") to divide data-parallel shards x cp x tp (" + std::to_string(dense_ranks) + ")");
  }
  const std::int64_t seq = model.seq_len;
  const int stages = st.pp * st.vpp;
  std::ostringstream out;
  out << "def " << function_name(m, e, rank) << "() -> Trainer.Config:\n"
      << "    " << headline(e, model, cluster) << '\n'
      << "    config = " << m.function << "()\n";
  if (st.dtype == Dtype::kFp8) {
    out << "    config.model_spec = model_registry(\n        \"" << m.llama3_flavor
        << "\",\n        "
           "converters=[Float8LinearConverter.Config(model_compile_enabled=config.compile.enable)],\n"
           "    )\n";
  }
  // Batch: tokens per micro-batch and data-parallel rank, and per step (torchtitan/config/configs.py
  // TrainingConfig), so that gradient accumulation is global / (dp x micro-batch) as planned.
  out << "    config.training.num_tokens_per_microbatch_per_dp_rank = " << st.micro_batch << " * " << seq
      << '\n'
      << "    config.training.num_tokens_per_train_step = " << st.global_batch << " * " << seq << '\n'
      << "    config.training.max_context_length = " << seq << '\n';
  if (options.tokens) {
    const double per_step = static_cast<double>(st.global_batch) * static_cast<double>(seq);
    out << "    config.training.steps = " << static_cast<long long>(std::ceil(*options.tokens / per_step))
        << '\n';
  }
  // FSDP2 shards over dp (ZeRO-3 reshards after forward, ZeRO-2 keeps the parameters); DDP replicates
  // (ZeRO-0).
  const bool replicate = st.zero == 0;
  out << "    config.parallelism = ParallelismConfig(\n"
      << "        data_parallel_replicate_degree=" << (replicate ? st.dp : 1) << ",\n"
      << "        data_parallel_shard_degree=" << (replicate ? 1 : st.dp) << ",\n";
  if (!replicate)
    out << "        fsdp_reshard_after_forward=\"" << (st.zero == 3 ? "always" : "never") << "\",\n";
  out << "        tensor_parallel_degree=" << st.tp << ",\n"
      << "        enable_sequence_parallel=" << (st.sequence_parallel && st.tp > 1 ? "True" : "False")
      << ",\n"
      << "        pipeline_parallel_degree=" << st.pp << ",\n";
  if (st.pp > 1) {
    // torchtitan's virtual stages are ceil((layers + first_less + last_less) / layers_per_stage), each of
    // layers_per_stage effective layers, the first and last short of first_less and last_less
    // (torchtitan/distributed/pipeline_parallel.py): r layers per middle stage, r - f and r - l less on the
    // ends give the plan's f and l (0: as the middle ones).
    int per_stage = model.layers / stages;
    int first_less = 0;
    int last_less = 0;
    if (uneven) {
      const int f = st.first_stage_layers, l = st.last_stage_layers;
      const int ends = (f > 0 ? 1 : 0) + (l > 0 ? 1 : 0);
      per_stage = (model.layers - f - l) / std::max(1, st.pp - ends);
      if (st.pp == 2) per_stage = std::max(f, l);
      first_less = f > 0 ? per_stage - f : 0;
      last_less = l > 0 ? per_stage - l : 0;
      if (first_less < 0 || last_less < 0) {
        refuse_torchtitan("torchtitan gives the first and last stage at most the middle stages' layers",
                          "pin a layout whose end stages are the lighter ones");
      }
    }
    out << "        pipeline_parallel_schedule=\"" << (st.vpp > 1 ? "Interleaved1F1B" : "1F1B") << "\",\n"
        << "        pipeline_parallel_layers_per_stage=" << per_stage << ",\n"
        << "        pipeline_parallel_first_stage_less_layers=" << first_less << ",\n"
        << "        pipeline_parallel_last_stage_less_layers=" << last_less << ",\n"
        << "        num_pp_microbatches=" << st.micro_batches() << ",\n";
  }
  out << "        context_parallel_degree=" << st.cp << ",\n";
  if (model.is_moe()) out << "        expert_parallel_degree=" << st.ep << ",\n";
  out << "    )\n";
  // torchtitan's full activation checkpointing recomputes every block; its SelectiveAC saves per op, not the
  // attention core only, and the torchtitan stack does not propose it.
  out << "    config.activation_checkpoint = "
      << (st.recompute == Recompute::kFull ? "FullAC.Config()" : "None") << '\n';
  if (tp_comm_overlapped(st, options, st.tp <= cluster.scale_up_domain())) {
    // Async TP pipelines the collectives with the GEMMs; torchtitan builds it with torch.compile.
    out << "    config.compile.enable = True\n    config.compile.enable_async_tensor_parallel = True\n";
  }
  out << "    return config\n";
  return out.str();
}

}  // namespace

std::string torchtitan_config(const std::vector<StepEstimate>& estimates, const ModelSpec& model,
                              const ClusterSpec& cluster, const EstimateOptions& options) {
  if (options.stack != "torchtitan") {
    refuse_torchtitan("a plan of stack '" +
                          (options.stack.empty() ? std::string(kDefaultStack) : options.stack) +
                          "' is not a torchtitan run",
                      "plan it with --stack torchtitan");
  }
  const auto known = std::find_if(kTorchtitanModels.begin(), kTorchtitanModels.end(),
                                  [&](const TorchtitanModel& m) { return m.model == model.name; });
  if (known == kTorchtitanModels.end()) {
    refuse_torchtitan("torchtitan ships no configuration of " + model.name,
                      "it has llama3-8b, llama3-70b, llama3-405b, deepseek-v3 and gpt-oss-120b");
  }
  std::vector<std::string> functions;
  for (size_t k = 0; k < estimates.size(); ++k)
    functions.push_back(torchtitan_function(estimates[k], model, cluster, options, *known, k + 1));
  const ClusterSpec c = estimates.empty() ? cluster : cluster_of(estimates.front(), cluster);
  const int nodes = std::max(1, c.gpus / std::max(1, c.gpus_per_node));
  std::ostringstream out;
  out << "# costmodel: torchtitan configurations (pytorch/torchtitan @b5bcd76c, "
         "torchtitan/config/README.md).\n"
      << "# Save as a module on PYTHONPATH (e.g. costmodel_runs.py) and start each of the " << nodes
      << " nodes with\n#   NGPU=" << c.gpus_per_node << " MODULE=costmodel_runs CONFIG="
      << (estimates.empty() ? std::string("...") : function_name(*known, estimates.front(), 1))
      << " ./run_train.sh\n"
      << "from torchtitan.config import ParallelismConfig\n"
      << "from torchtitan.distributed.activation_checkpoint import FullAC\n"
      << "from torchtitan.trainer import Trainer\n"
      << "from " << known->module << " import " << known->function << '\n';
  const bool fp8 = std::any_of(estimates.begin(), estimates.end(),
                               [](const StepEstimate& e) { return e.strategy.dtype == Dtype::kFp8; });
  if (fp8) {
    out << "from torchtitan.components.quantization import Float8LinearConverter\n"
        << "from torchtitan.models.llama3 import model_registry\n";
  }
  for (const std::string& f : functions) out << "\n\n" << f;
  return out.str();
}

void write_launch(std::ostream& out, const std::vector<StepEstimate>& estimates, const ModelSpec& model,
                  const ClusterSpec& cluster, Format format, const EstimateOptions& options) {
  if (format == Format::kTorchtitan) {
    out << torchtitan_config(estimates, model, cluster, options);
    return;
  }
  for (size_t k = 0; k < estimates.size(); ++k) {
    if (k > 0) out << '\n';
    out << (format == Format::kNemo ? nemo_overrides(estimates[k], model, cluster, options)
                                    : megatron_arguments(estimates[k], model, cluster, options));
  }
}

}  // namespace costmodel::inline COSTMODEL_ABI
