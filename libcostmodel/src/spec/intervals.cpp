// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/intervals.hpp"

#include <algorithm>
#include <cmath>

namespace costmodel::inline COSTMODEL_ABI {

const IntervalClass* IntervalModel::find(std::string_view name) const noexcept {
  for (const IntervalClass& c : classes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string_view interval_class(const ModelSpec& model, const Strategy& strategy) noexcept {
  if (model.is_moe()) return "moe";
  return strategy.zero == 3 ? "zero3" : "dense";
}

std::pair<double, double> conformal_bounds(std::vector<double> values, double coverage) {
  if (values.empty()) return {0.0, 0.0};
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  const double c = std::clamp(coverage, 0.0, 1.0);
  // 1-based ranks (Lei et al. 2018 §2.2, two-sided with (1 - c) / 2 in each tail); the 1e-9 keeps an exact
  // rank exact under rounding ((1 - 0.8) / 2 x 20 is 1.9999999999999996 in doubles).
  constexpr double kSlack = 1e-9;
  const double low_rank = std::clamp(std::floor((n + 1.0) * (1.0 - c) / 2.0 + kSlack), 1.0, n);
  const double high_rank = std::clamp(std::ceil((n + 1.0) * (1.0 + c) / 2.0 - kSlack), 1.0, n);
  return {values[static_cast<std::size_t>(low_rank) - 1], values[static_cast<std::size_t>(high_rank) - 1]};
}

std::vector<std::string> unvalidated_features(const ValidatedEnvelope& v, const ModelSpec& model,
                                              const Strategy& s, int gpus, std::string_view gpu,
                                              std::string_view stack) {
  std::vector<std::string> out;
  const auto beyond = [&](const std::string& what, int value, int most) {
    out.push_back(what + " " + std::to_string(value) + " (validated up to " + std::to_string(most) + ")");
  };
  if (gpus > v.max_gpus) beyond("gpus", gpus, v.max_gpus);
  if (s.cp > v.max_cp) beyond("cp", s.cp, v.max_cp);
  if (model.is_moe() && s.ep > v.max_ep) beyond("ep", s.ep, v.max_ep);
  // Fewer expert-parallel ranks than any validated MoE run: more experts per GPU (ep 1: all of them, each
  // GPU running every expert's small GEMMs and their launches), a corner the planner can reach and no
  // measurement checks.
  if (model.is_moe() && v.min_ep > 0 && s.ep < v.min_ep)
    out.push_back("ep " + std::to_string(s.ep) + " (validated from " + std::to_string(v.min_ep) + ")");
  if (s.zero == 3 && gpus > v.max_zero3_gpus) beyond("zero3 gpus", gpus, v.max_zero3_gpus);
  if (s.dtype == Dtype::kFp8 && !v.fp8) out.emplace_back("fp8");
  if (!gpu.empty() && std::find(v.gpus.begin(), v.gpus.end(), gpu) == v.gpus.end())
    out.push_back("gpu " + std::string(gpu));
  if (!stack.empty() && std::find(v.stacks.begin(), v.stacks.end(), stack) == v.stacks.end())
    out.push_back("stack " + std::string(stack));
  return out;
}

}  // namespace costmodel::inline COSTMODEL_ABI
