// SPDX-License-Identifier: Apache-2.0
#include "costmodel/analysis/validate.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "costmodel/search/planner.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

PlanRequest request_for(const PublishedRun& run, int threads) {
  PlanRequest request = plan_request(run.model, run.cluster, run.training);
  request.objective = Objective::kTime;
  request.top_k = 1;
  request.threads = threads;
  return request;
}

// Measured model FLOP/s per GPU of a run that states its throughput (tokens/s per GPU) rather than FLOP/s,
// with the model's own FLOPs per token (forward + backward, full attention: Megatron-LM's convention).
FlopsPerSecond flops_from_throughput(const PublishedRun& run, double tokens_per_s_per_gpu) {
  const FlopsPerToken f = flops_per_token(run.model, run.model.seq_len, false);
  return FlopsPerSecond(tokens_per_s_per_gpu * (f.forward + f.backward));
}

// The measured quantity of `run` as model or hardware FLOP/s per GPU, and what it was derived from.
std::optional<FlopsPerSecond> measured_flops(const PublishedRun& run, MeasuredBasis& basis) {
  const Measured& m = run.measured;
  if (m.flops_per_gpu) {
    basis = MeasuredBasis::kFlops;
    return m.flops_per_gpu;
  }
  if (m.tokens_per_s_per_gpu) {
    basis = MeasuredBasis::kTokensPerSecond;
    return flops_from_throughput(run, *m.tokens_per_s_per_gpu);
  }
  if (m.step_time && run.training.global_batch) {
    basis = MeasuredBasis::kStepTime;
    const double tokens = static_cast<double>(*run.training.global_batch) * run.model.seq_len;
    return flops_from_throughput(run, tokens / m.step_time->value / run.cluster.gpus);
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(MeasuredBasis basis) {
  switch (basis) {
    case MeasuredBasis::kFlops:
      return "TFLOP/s";
    case MeasuredBasis::kTokensPerSecond:
      return "tokens/s";
    case MeasuredBasis::kStepTime:
      return "step time";
  }
  return "TFLOP/s";
}

double residual(const ValidationRow& row) {
  return std::log1p(row.error);
}

IntervalModel build_intervals(const std::vector<PublishedRun>& runs, const ValidationSummary& summary,
                              double coverage) {
  IntervalModel m;
  m.coverage = coverage;
  // The measured rows: class and residual.
  std::vector<std::pair<std::string, double>> points;
  ValidatedEnvelope& v = m.validated;
  const auto add = [](std::vector<std::string>& names, const std::string& name) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (std::size_t i = 0; i < runs.size() && i < summary.rows.size(); ++i) {
    const ValidationRow& row = summary.rows[i];
    if (!row.feasible) continue;
    const Strategy& s = row.best.strategy;
    v.max_gpus = std::max(v.max_gpus, row.gpus);
    v.max_cp = std::max(v.max_cp, s.cp);
    if (runs[i].model.is_moe()) {
      v.max_ep = std::max(v.max_ep, s.ep);
      v.min_ep = v.min_ep == 0 ? s.ep : std::min(v.min_ep, s.ep);
    }
    if (s.zero == 3) v.max_zero3_gpus = std::max(v.max_zero3_gpus, row.gpus);
    v.fp8 = v.fp8 || s.dtype == Dtype::kFp8;
    add(v.gpus, row.gpu);
    add(v.stacks, runs[i].training.stack);
    if (row.measured_flops.value > 0.0)
      points.emplace_back(std::string(interval_class(runs[i].model, s)), residual(row));
  }
  m.runs = static_cast<int>(points.size());
  // A class's residuals without point `skip` (none: every one); too few: every run's.
  const auto pool = [&](const std::string& name, std::size_t skip) {
    std::vector<double> own, all;
    for (std::size_t j = 0; j < points.size(); ++j) {
      if (j == skip) continue;
      all.push_back(points[j].second);
      if (points[j].first == name) own.push_back(points[j].second);
    }
    return static_cast<int>(own.size()) >= kMinClassRuns ? own : all;
  };
  for (const char* name : {"dense", "zero3", "moe"}) {
    IntervalClass c;
    c.name = name;
    for (const auto& p : points) c.runs += p.first == name ? 1 : 0;
    std::tie(c.low, c.high) = conformal_bounds(pool(name, points.size()), coverage);
    m.classes.push_back(c);
  }
  int inside = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [low, high] = conformal_bounds(pool(points[i].first, i), coverage);
    const double r = points[i].second;
    inside += r >= low && r <= high ? 1 : 0;
  }
  m.loo_coverage = points.empty() ? 0.0 : static_cast<double>(inside) / static_cast<double>(points.size());
  return m;
}

ValidationSummary validate_runs(const std::vector<PublishedRun>& runs, int threads) {
  ValidationSummary summary;
  std::vector<double> errors;
  for (const PublishedRun& run : runs) {
    ValidationRow row;
    row.id = run.id;
    row.gpu = run.cluster.gpu.name;
    row.gpus = run.cluster.gpus;
    const std::optional<FlopsPerSecond> measured = measured_flops(run, row.basis);
    // A throughput or a step time compares as model FLOPs (the convention flops_from_throughput() uses).
    row.hardware_convention = row.basis == MeasuredBasis::kFlops && run.measured.hardware_convention;
    row.measured_training_time = run.measured.training_time;
    const PlanResult result = plan(request_for(run, threads));
    row.feasible = !result.top.empty();
    if (row.feasible) {
      row.best = result.top.front();
      row.predicted_flops =
          row.hardware_convention ? row.best.hardware_flops_per_gpu : row.best.model_flops_per_gpu;
      row.predicted_training_time = row.best.training_time;
    }
    if (measured) {
      row.measured_flops = *measured;
      if (row.feasible) {
        // In TFLOP/s, the unit sources publish: the ratio of the numbers as printed.
        row.error = (row.predicted_flops.value / 1e12) / (row.measured_flops.value / 1e12) - 1.0;
        errors.push_back(std::fabs(row.error));
      }
    }
    summary.rows.push_back(std::move(row));
  }
  // The catalog's intervals (the rows' best configurations carry them), and intervals from these runs.
  std::vector<double> half_widths;
  for (const ValidationRow& row : summary.rows) {
    if (!row.feasible || row.measured_flops.value <= 0.0 || row.best.interval_coverage <= 0.0) continue;
    half_widths.push_back((row.best.step_time_high.value - row.best.step_time_low.value) / 2.0 /
                          row.best.step_time.value);
    const double measured_step = row.best.step_time.value * std::exp(residual(row));
    ++summary.interval_total;
    summary.interval_coverage = row.best.interval_coverage;
    if (measured_step >= row.best.step_time_low.value && measured_step <= row.best.step_time_high.value)
      ++summary.interval_inside;
  }
  if (!half_widths.empty()) {
    std::sort(half_widths.begin(), half_widths.end());
    const std::size_t n = half_widths.size();
    summary.median_half_width =
        n % 2 ? half_widths[n / 2] : 0.5 * (half_widths[n / 2 - 1] + half_widths[n / 2]);
  }
  summary.loo_coverage = build_intervals(runs, summary).loo_coverage;
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const size_t n = errors.size();
    summary.median_abs_error = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
    double sum = 0.0;
    for (double e : errors) sum += e;
    summary.mean_abs_error = sum / static_cast<double>(n);
    summary.max_abs_error = errors.back();
  }
  return summary;
}

SimilarRuns validate_similar_runs(const std::vector<PublishedRun>& runs, const ModelSpec& model,
                                  const std::string& gpu, int threads) {
  const std::string kind = model.is_moe() ? "mixture-of-experts" : "dense";
  std::vector<PublishedRun> same_kind;
  std::vector<PublishedRun> same_gpu;
  for (const PublishedRun& run : runs) {
    if (run.model.is_moe() != model.is_moe()) continue;
    same_kind.push_back(run);
    if (run.cluster.gpu.name == gpu) same_gpu.push_back(run);
  }
  SimilarRuns similar;
  if (!same_gpu.empty()) {
    similar.description = "published " + kind + " runs on " + gpu;
    similar.summary = validate_runs(same_gpu, threads);
  } else {
    similar.description = "published " + kind + " runs (none on " + gpu + ")";
    similar.summary = validate_runs(same_kind, threads);
  }
  return similar;
}

}  // namespace costmodel::inline COSTMODEL_ABI
