// SPDX-License-Identifier: Apache-2.0
#include "costmodel/analysis/validate.hpp"

#include <algorithm>
#include <cmath>

#include "costmodel/search/planner.hpp"

namespace costmodel {
namespace {

PlanRequest request_for(const PublishedRun& run, int threads) {
  PlanRequest request = plan_request(run.model, run.cluster, run.training);
  // Megatron-LM's interleaved schedule takes any divisor of the layers per stage.
  request.space.max_vpp = run.model.layers;
  request.objective = Objective::kTime;
  request.top_k = 1;
  request.threads = threads;
  return request;
}

}  // namespace

ValidationSummary validate_runs(const std::vector<PublishedRun>& runs, int threads) {
  ValidationSummary summary;
  std::vector<double> errors;
  for (const PublishedRun& run : runs) {
    ValidationRow row;
    row.id = run.id;
    row.gpu = run.cluster.gpu.name;
    row.gpus = run.cluster.gpus;
    row.hardware_convention = run.measured.hardware_convention;
    row.measured_training_time = run.measured.training_time;
    const PlanResult result = plan(request_for(run, threads));
    row.feasible = !result.top.empty();
    if (row.feasible) {
      row.best = result.top.front();
      row.predicted_flops =
          row.hardware_convention ? row.best.hardware_flops_per_gpu : row.best.model_flops_per_gpu;
      row.predicted_training_time = row.best.training_time;
    }
    if (run.measured.flops_per_gpu) {
      row.measured_flops = *run.measured.flops_per_gpu;
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
