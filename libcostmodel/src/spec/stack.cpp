// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/stack.hpp"

#include <algorithm>
#include <string>

#include "costmodel/error.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

bool has(const std::vector<int>& stages, int stage) {
  return std::find(stages.begin(), stages.end(), stage) != stages.end();
}

std::string degree(const char* name, int value) {
  return std::string(name) + " " + std::to_string(value);
}

bool given(const TrainingSpec& training, std::string_view key) {
  return is_given(training, key);
}

}  // namespace

StackRefusal refuses(const StackFeatures& f, const Strategy& s) noexcept {
  if (!has(f.zero, s.zero) || (s.pp > 1 && !has(f.zero_with_pipeline, s.zero))) return StackRefusal::kZero;
  const bool runs = (s.pp == 1 || f.pipeline) && (s.vpp == 1 || f.interleaved_pipeline) &&
                    ((s.first_stage_layers == 0 && s.last_stage_layers == 0) || f.uneven_stages) &&
                    (!s.sequence_parallel || s.tp == 1 || f.sequence_parallel) &&
                    (s.cp == 1 || f.context_parallel) && (s.ep == 1 || f.expert_parallel) &&
                    (s.expert_tp() == s.tp || f.expert_tensor_parallel) &&
                    (s.recompute != Recompute::kSelective || f.selective_recompute) &&
                    (s.recompute_modules == 0 || f.recompute_modules) &&
                    (!s.overlap || (f.dp_overlap && (s.pp == 1 || f.dp_overlap_with_pipeline)));
  return runs ? StackRefusal::kNone : StackRefusal::kFeature;
}

std::vector<std::string> stack_refusals(const StackSpec& stack, const Strategy& s) {
  const StackFeatures& f = stack.features;
  std::vector<std::string> out;
  if (!has(f.zero, s.zero)) {
    out.push_back("ZeRO stage " + std::to_string(s.zero));
  } else if (s.pp > 1 && !has(f.zero_with_pipeline, s.zero)) {
    out.push_back("ZeRO stage " + std::to_string(s.zero) + " with pipeline parallelism (pp " +
                  std::to_string(s.pp) + ")");
  }
  if (s.pp > 1 && !f.pipeline) out.push_back("pipeline parallelism (" + degree("pp", s.pp) + ")");
  if (s.vpp > 1 && !f.interleaved_pipeline)
    out.push_back("interleaved stages (" + degree("vpp", s.vpp) + ")");
  if ((s.first_stage_layers != 0 || s.last_stage_layers != 0) && !f.uneven_stages)
    out.push_back("first or last stages of their own size");
  if (s.sequence_parallel && s.tp > 1 && !f.sequence_parallel) out.push_back("sequence parallelism");
  if (s.cp > 1 && !f.context_parallel) out.push_back("context parallelism (" + degree("cp", s.cp) + ")");
  if (s.ep > 1 && !f.expert_parallel) out.push_back("expert parallelism (" + degree("ep", s.ep) + ")");
  if (s.expert_tp() != s.tp && !f.expert_tensor_parallel)
    out.push_back("an expert tensor-parallel degree other than tp (" + degree("etp", s.expert_tp()) + ")");
  if (s.recompute == Recompute::kSelective && !f.selective_recompute) out.push_back("selective recompute");
  if (s.recompute_modules != 0 && !f.recompute_modules)
    out.push_back("recompute modules (--recompute-modules)");
  if (s.overlap && !f.dp_overlap) out.push_back("data-parallel communication overlapped with the passes");
  if (s.overlap && f.dp_overlap && s.pp > 1 && !f.dp_overlap_with_pipeline)
    out.push_back("data-parallel communication overlapped with the passes under pipeline parallelism");
  for (std::string& reason : out) reason = "stack " + stack.name + " has no " + reason;
  return out;
}

const std::vector<StackFeatureFlag>& stack_feature_flags() {
  static const std::vector<StackFeatureFlag> kFlags{
      {"pipeline", &StackFeatures::pipeline},
      {"interleaved_pipeline", &StackFeatures::interleaved_pipeline},
      {"uneven_stages", &StackFeatures::uneven_stages},
      {"sequence_parallel", &StackFeatures::sequence_parallel},
      {"context_parallel", &StackFeatures::context_parallel},
      {"expert_parallel", &StackFeatures::expert_parallel},
      {"expert_tensor_parallel", &StackFeatures::expert_tensor_parallel},
      {"flash_attention", &StackFeatures::flash_attention},
      {"fp8", &StackFeatures::fp8},
      {"selective_recompute", &StackFeatures::selective_recompute},
      {"recompute_modules", &StackFeatures::recompute_modules},
      {"dp_overlap", &StackFeatures::dp_overlap},
      {"dp_overlap_with_pipeline", &StackFeatures::dp_overlap_with_pipeline},
      {"tp_comm_overlap", &StackFeatures::tp_comm_overlap},
      {"pp_comm_overlap", &StackFeatures::pp_comm_overlap},
      {"ep_comm_overlap", &StackFeatures::ep_comm_overlap},
      {"flex_dispatcher", &StackFeatures::flex_dispatcher},
      {"bf16_optimizer", &StackFeatures::bf16_optimizer}};
  return kFlags;
}

const std::vector<std::string>& stack_default_keys() {
  static const std::vector<std::string> kKeys{
      "attention",   "attention_dtype",          "tp_comm_overlap", "pp_comm_overlap",   "ep_comm_overlap",
      "cuda_graphs", "grad_accumulation_fusion", "zero3_gather",    "grad_reduce_dtype", "optimizer_dtype",
      "fp8_params"};
  return kKeys;
}

void apply_stack(TrainingSpec& training, const StackSpec& stack) {
  for (const auto& [key, value] : stack.defaults) {
    if (!given(training, key)) training_field(key).set(training, value);
  }
  const StackFeatures& f = stack.features;
  const auto refuse = [&](const char* key, const std::string& what) {
    throw Error(ErrorLocation{}, key, "stack " + stack.name + " has no " + what,
                "name a stack that has it (costmodel catalog stacks), or leave " + std::string(key) +
                    " to the stack");
  };
  // The knobs beside the layout: one the user or the source set is refused, a default the stack lacks falls
  // back to what the stack runs.
  const auto bound = [&](const char* key, bool lacks, const std::string& what, auto fall_back) {
    if (!lacks) return;
    if (given(training, key)) refuse(key, what);
    fall_back();
  };
  bound("dtype", training.dtype == Dtype::kFp8 && !f.fp8, "FP8 training",
        [&] { training.dtype = Dtype::kBf16; });
  bound("attention", training.flash_attention && !f.flash_attention, "fused (flash) attention",
        [&] { training.flash_attention = false; });
  bound("tp_comm_overlap", training.tp_comm_overlap && !f.tp_comm_overlap,
        "tensor-parallel communication overlap", [&] { training.tp_comm_overlap = false; });
  bound("pp_comm_overlap", training.pp_comm_overlap && !f.pp_comm_overlap, "pipeline send/recv overlap",
        [&] { training.pp_comm_overlap = false; });
  bound("ep_comm_overlap", training.ep_comm_overlap && !f.ep_comm_overlap, "expert all-to-all overlap",
        [&] { training.ep_comm_overlap = false; });
  bound("optimizer_dtype", training.bf16_optimizer && !f.bf16_optimizer, "bf16 optimizer states",
        [&] { training.bf16_optimizer = false; });
  bound("moe_dispatcher", training.moe_dispatcher != MoeDispatcher::kAllToAll && !f.flex_dispatcher,
        "DeepEP or HybridEP dispatcher", [&] { training.moe_dispatcher = MoeDispatcher::kAllToAll; });
  const auto graphs = std::find(f.cuda_graphs.begin(), f.cuda_graphs.end(), training.cuda_graphs);
  bound("cuda_graphs", graphs == f.cuda_graphs.end() && !f.cuda_graphs.empty(),
        "CUDA graphs of kind " + std::string(to_string(training.cuda_graphs)),
        [&] { training.cuda_graphs = f.cuda_graphs.front(); });
  const auto gather = std::find(f.zero3_gather.begin(), f.zero3_gather.end(), training.zero3_gather);
  bound("zero3_gather", gather == f.zero3_gather.end() && !f.zero3_gather.empty(),
        "ZeRO-3 gathers of this kind", [&] { training.zero3_gather = f.zero3_gather.front(); });
  // The pinned degrees and layout knobs, one at a time (the planner bounds the rest).
  const Pins& p = training.pins;
  if (p.zero && !has(f.zero, *p.zero)) refuse("zero", "ZeRO stage " + std::to_string(*p.zero));
  if (p.zero && p.pp && *p.pp > 1 && !has(f.zero_with_pipeline, *p.zero))
    refuse("zero", "ZeRO stage " + std::to_string(*p.zero) + " with pipeline parallelism");
  if (p.pp && *p.pp > 1 && !f.pipeline) refuse("pp", "pipeline parallelism");
  if (p.vpp && *p.vpp > 1 && !f.interleaved_pipeline) refuse("vpp", "interleaved pipeline stages");
  if ((p.first_stage_layers || p.last_stage_layers) && !f.uneven_stages)
    refuse(p.first_stage_layers ? "first_stage_layers" : "last_stage_layers",
           "first or last stages of their own size");
  if (p.sequence_parallel && *p.sequence_parallel && !f.sequence_parallel)
    refuse("sequence_parallel", "sequence parallelism");
  if (p.cp && *p.cp > 1 && !f.context_parallel) refuse("cp", "context parallelism");
  if (p.ep && *p.ep > 1 && !f.expert_parallel) refuse("ep", "expert parallelism");
  if (p.etp && p.tp && *p.etp != *p.tp && !f.expert_tensor_parallel)
    refuse("etp", "an expert tensor-parallel degree other than tp");
  if (p.recompute && *p.recompute == Recompute::kSelective && !f.selective_recompute)
    refuse("recompute", "selective recompute");
  if (training.recompute_modules != 0 && !f.recompute_modules)
    refuse("recompute_modules", "recompute modules (Megatron-Core's --recompute-modules)");
  if (p.overlap && *p.overlap && !f.dp_overlap) refuse("overlap", "data-parallel communication overlap");
  if (p.overlap && *p.overlap && p.pp && *p.pp > 1 && !f.dp_overlap_with_pipeline)
    refuse("overlap", "data-parallel communication overlap under pipeline parallelism");
}

}  // namespace costmodel::inline COSTMODEL_ABI
