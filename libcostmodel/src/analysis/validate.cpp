// SPDX-License-Identifier: Apache-2.0
#include "costmodel/analysis/validate.hpp"

#include <algorithm>
#include <cmath>

#include "costmodel/search/planner.hpp"

namespace costmodel {
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

}  // namespace costmodel
