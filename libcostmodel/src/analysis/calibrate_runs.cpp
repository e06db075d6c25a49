// SPDX-License-Identifier: Apache-2.0
// GPU efficiencies fitted to measured training runs (calibrate_gpu, analysis/calibrate.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "costmodel/analysis/calibrate.hpp"
#include "costmodel/error.hpp"
#include "costmodel/search/planner.hpp"
#include "costmodel/spec/names.hpp"
#include "least_squares.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// The fitted parameters of data/gpus.yaml `efficiency:` and the box the fit keeps them in.
struct Parameter {
  const char* name;
  double lower;
  double upper;
  double GpuEfficiency::*field;
};
constexpr std::array<Parameter, 4> kParameters{{
    {"gemm", 0.2, 1.0, &GpuEfficiency::gemm},
    {"gemm_half_size", 0.0, 4096.0, &GpuEfficiency::gemm_half_size},
    {"attention", 0.05, 1.0, &GpuEfficiency::attention},
    {"overlap", 0.0, 1.0, &GpuEfficiency::overlap},
}};

// What a run measured, per GPU, in its convention: TFLOP/s as published, or its MFU x the dense peak, or
// its tokens/s or step time x the model's FLOPs per token (model FLOPs).
std::optional<FlopsPerSecond> target(const PublishedRun& run, bool& hardware) {
  hardware = run.measured.hardware_convention;
  if (run.measured.flops_per_gpu) return run.measured.flops_per_gpu;
  if (run.measured.mfu) {
    hardware = false;
    return run.cluster.gpu.peak(run.training.dtype) * *run.measured.mfu;
  }
  // Throughput or step time: model FLOP/s per GPU with the model's FLOPs per token, as validate_runs().
  const FlopsPerToken f = flops_per_token(run.model, run.model.seq_len, false);
  const double per_token = f.forward + f.backward;
  hardware = false;
  if (run.measured.tokens_per_s_per_gpu)
    return FlopsPerSecond(*run.measured.tokens_per_s_per_gpu * per_token);
  if (run.measured.step_time && run.training.global_batch) {
    const double tokens = static_cast<double>(*run.training.global_batch) * run.model.seq_len;
    return FlopsPerSecond(tokens / run.measured.step_time->value / run.cluster.gpus * per_token);
  }
  return std::nullopt;
}

// The planner's fastest configuration with the run's stated knobs pinned (as validate_runs()).
std::optional<Strategy> best_strategy(const PublishedRun& run, const GpuSpec& gpu, int threads) {
  PublishedRun with = run;
  with.cluster.gpu = gpu;
  PlanRequest request = plan_request(with.model, with.cluster, with.training);
  request.space.max_vpp = run.model.layers;
  request.objective = Objective::kTime;
  request.top_k = 1;
  request.threads = threads;
  const PlanResult result = plan(request);
  if (result.top.empty()) return std::nullopt;
  return result.top.front().strategy;
}

FlopsPerSecond predicted(const PublishedRun& run, const GpuSpec& gpu, const Strategy& strategy,
                         bool hardware) {
  ClusterSpec cluster = run.cluster;
  cluster.gpu = gpu;
  const StepEstimate e = estimate(run.model, cluster, strategy, estimate_options(run.training));
  return hardware ? e.hardware_flops_per_gpu : e.model_flops_per_gpu;
}

GpuSpec with_values(GpuSpec gpu, const std::vector<const Parameter*>& fitted, const Eigen::VectorXd& x) {
  for (size_t k = 0; k < fitted.size(); ++k)
    gpu.efficiency.*(fitted[k]->field) = x(static_cast<Eigen::Index>(k));
  return gpu;
}

// The knobs that make two configurations the same step (the planner's choice; the rest is the run's).
bool same_configuration(const Strategy& a, const Strategy& b) {
  const auto key = [](const Strategy& s) {
    return std::array<int, 13>{s.tp,
                               s.pp,
                               s.dp,
                               s.cp,
                               s.ep,
                               s.expert_tp(),
                               s.vpp,
                               s.first_stage_layers,
                               s.last_stage_layers,
                               s.micro_batch,
                               static_cast<int>(s.recompute),
                               s.recompute_layers,
                               s.zero};
  };
  return key(a) == key(b);
}

using Residuals = detail::ResidualFunction;

// Minimax by Polya's algorithm (Polya 1913, C. R. Acad. Sci. 157; Rice, The Approximation of Functions,
// vol. 1, 1964, §2-9): the L_p fits, p = 4, 8, ..., 256, each started at the last, converge to the minimax
// (Chebyshev) fit. Each stage is least squares on sign(e) |e / s|^(p/2), so Levenberg-Marquardt stays the
// engine; s, the largest |e| at the stage's start, keeps the terms near 1. For n runs the L_p fit's largest
// |e| is within a factor n^(1/p) of the minimax (1.01 for 12 runs at p = 256).
Eigen::VectorXd minimax_fit(const Residuals& error, Eigen::VectorXd x, const Eigen::VectorXd& lo,
                            const Eigen::VectorXd& hi) {
  for (int p = 4; p <= 256; p *= 2) {
    const double scale = std::max(error(x).cwiseAbs().maxCoeff(), 1e-12);
    const double power = p / 2.0;
    const Residuals lp = [&](const Eigen::VectorXd& y) {
      Eigen::VectorXd e = error(y) / scale;
      for (double& v : e) v = std::copysign(std::pow(std::fabs(v), power), v);
      return e;
    };
    x = detail::bounded_levenberg_marquardt(lp, x, lo, hi, 400, 1e-6, std::numeric_limits<double>::infinity())
            .x;
  }
  return x;
}

// `error`: each fitted run's model / measured - 1.
detail::BoundedFit fit_objective(FitObjective objective, const Residuals& error, const Eigen::VectorXd& x0,
                                 const Eigen::VectorXd& lo, const Eigen::VectorXd& hi) {
  constexpr double kNoLimit = std::numeric_limits<double>::infinity();
  if (objective == FitObjective::kLeastSquares)
    return detail::bounded_levenberg_marquardt(error, x0, lo, hi, 100, 1e-4, kNoLimit);
  // No iteration: the Gauss-Newton covariance at the minimax point.
  return detail::bounded_levenberg_marquardt(error, minimax_fit(error, x0, lo, hi), lo, hi, 0, 1e-4,
                                             kNoLimit);
}

}  // namespace

const char* to_string(FitObjective objective) {
  return objective == FitObjective::kMinimax ? "minimax" : "lsq";
}

std::optional<FitObjective> parse_fit_objective(const std::string& name) {
  return parse_named(name, kFitObjectives);
}

GpuCalibration calibrate_gpu(const std::vector<PublishedRun>& runs, const GpuFitOptions& options) {
  const std::optional<std::string>& gpu_name = options.gpu;
  const std::vector<std::string>& held_out = options.held_out;
  const std::vector<std::string>& names = options.parameters;
  const int threads = options.threads;
  std::set<std::string> gpus;
  for (const auto& run : runs) gpus.insert(run.cluster.gpu.name);
  if (gpus.empty()) throw Error("the runs file lists no runs");
  if (!gpu_name && gpus.size() > 1) {
    std::string list;
    for (const auto& g : gpus) list += (list.empty() ? "" : ", ") + g;
    throw Error("the runs use several GPUs (" + list + "); pick the one to fit with --gpu NAME");
  }
  const std::string name = gpu_name.value_or(*gpus.begin());
  if (!gpus.count(name)) throw Error("no run uses GPU '" + name + "'");

  std::vector<const Parameter*> fitted;
  for (const auto& p : kParameters) {
    if (names.empty() || std::find(names.begin(), names.end(), p.name) != names.end()) fitted.push_back(&p);
  }
  for (const auto& n : names) {
    if (std::none_of(kParameters.begin(), kParameters.end(), [&](const Parameter& p) { return n == p.name; }))
      throw Error("unknown efficiency parameter '" + n + "' (gemm, gemm_half_size, attention, overlap)");
  }

  GpuCalibration out;
  out.objective = options.objective;
  struct Case {
    const PublishedRun* run;
    size_t row;
    bool hardware;
  };
  std::vector<Case> cases;
  const GpuSpec* start = nullptr;
  for (const auto& run : runs) {
    if (run.cluster.gpu.name != name) continue;
    if (start == nullptr) start = &run.cluster.gpu;
    RunFitRow row;
    row.id = run.id;
    row.fitted = std::find(held_out.begin(), held_out.end(), run.id) == held_out.end();
    bool hardware = false;
    const auto measured = target(run, hardware);
    if (!measured) {
      out.notes.push_back("run " + run.id +
                          " measures neither TFLOP/s, MFU, tokens/s nor step time; left out");
      continue;
    }
    row.measured = *measured;
    row.hardware_convention = hardware;
    const auto strategy = best_strategy(run, run.cluster.gpu, threads);
    row.feasible = strategy.has_value();
    if (!strategy) {
      out.notes.push_back("run " + run.id + ": no configuration fits in memory; left out");
      out.rows.push_back(row);
      continue;
    }
    row.strategy = *strategy;
    row.before = predicted(run, run.cluster.gpu, row.strategy, hardware);
    out.rows.push_back(row);
    cases.push_back({&run, out.rows.size() - 1, hardware});
  }
  const auto fit_count =
      std::count_if(cases.begin(), cases.end(), [&](const Case& c) { return out.rows[c.row].fitted; });
  if (fit_count < static_cast<std::ptrdiff_t>(fitted.size())) {
    throw Error(std::to_string(fit_count) + " run(s) of " + name + " cannot determine " +
                std::to_string(fitted.size()) +
                " efficiency parameters; measure more runs or fit fewer parameters");
  }
  const GpuSpec& gpu = *start;

  const auto n = static_cast<Eigen::Index>(fitted.size());
  Eigen::VectorXd lo(n), hi(n), x0(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Parameter& p = *fitted[static_cast<size_t>(k)];
    lo(k) = p.lower;
    hi(k) = p.upper;
    x0(k) = gpu.efficiency.*(p.field);
  }
  // model / measured - 1 of each fitted run (the error `validate` reports), its configuration fixed.
  const auto residuals = [&](const Eigen::VectorXd& x) {
    const GpuSpec g = with_values(gpu, fitted, x);
    std::vector<double> r;
    for (const Case& c : cases) {
      const RunFitRow& row = out.rows[c.row];
      if (!row.fitted) continue;
      r.push_back(predicted(*c.run, g, row.strategy, c.hardware).value / row.measured.value - 1.0);
    }
    return Eigen::VectorXd(Eigen::Map<Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(r.size())));
  };
  // Refitted on the configurations the fitted values make fastest until they stay: the values are then the
  // optimum for the configurations `validate` picks with them.
  constexpr int kMaxReplans = 6;
  detail::BoundedFit fit = fit_objective(options.objective, residuals, x0, lo, hi);
  bool settled = false;
  for (int round = 0; round <= kMaxReplans && !settled; ++round) {
    settled = true;
    for (const Case& c : cases) {
      const auto s = best_strategy(*c.run, with_values(gpu, fitted, fit.x), threads);
      if (s && !same_configuration(*s, out.rows[c.row].strategy)) {
        out.rows[c.row].strategy = *s;
        settled = false;
      }
    }
    if (!settled && round < kMaxReplans) {
      ++out.replans;
      fit = fit_objective(options.objective, residuals, fit.x, lo, hi);
    }
  }
  if (!settled) {
    out.notes.push_back("warning: the planner's configurations still change after " +
                        std::to_string(kMaxReplans) + " refits; the values depend on where the fit started");
  }

  out.gpu = with_values(gpu, fitted, fit.x);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Parameter& p = *fitted[static_cast<size_t>(k)];
    FittedParameter f;
    f.name = p.name;
    f.before = x0(k);
    f.value = fit.x(k);
    f.lower = p.lower;
    f.upper = p.upper;
    f.standard_error = fit.standard_error(k);
    f.at_bound = fit.at_bound[static_cast<size_t>(k)];
    // Not identifiable: no run depends on it, it trades off against another, or its error exceeds half of it.
    f.identifiable =
        std::isfinite(f.standard_error) && f.standard_error <= 0.5 * std::max(std::fabs(f.value), 1e-9);
    if (!f.identifiable) {
      out.notes.push_back("warning: " + f.name + " is not identifiable from these runs (" +
                          (std::isfinite(f.standard_error)
                               ? "standard error " + format_number(f.standard_error)
                               : std::string("no run depends on it alone")) +
                          "); its value is not a measurement");
    } else if (f.at_bound) {
      out.notes.push_back("warning: " + f.name + " stopped at its bound " + format_number(f.value));
    }
    out.parameters.push_back(f);
  }
  double before = 0, after = 0;
  int count = 0;
  for (const Case& c : cases) {
    RunFitRow& row = out.rows[c.row];
    row.after = predicted(*c.run, out.gpu, row.strategy, c.hardware);
    if (!row.fitted) continue;
    before += std::pow(row.error_before(), 2);
    after += std::pow(row.error_after(), 2);
    out.max_before = std::max(out.max_before, std::fabs(row.error_before()));
    out.max_after = std::max(out.max_after, std::fabs(row.error_after()));
    ++count;
  }
  out.rms_before = count ? std::sqrt(before / count) : 0.0;
  out.rms_after = count ? std::sqrt(after / count) : 0.0;
  out.gpu.efficiency.fitted =
      std::string(options.objective == FitObjective::kMinimax ? "minimax" : "least squares") +
      " on model / measured - 1 over " + std::to_string(count) +
      " run(s) by Levenberg-Marquardt; rms error " + format_number(100.0 * out.rms_before) + "% -> " +
      format_number(100.0 * out.rms_after) + "%, max " + format_number(100.0 * out.max_before) + "% -> " +
      format_number(100.0 * out.max_after) + "%";
  return out;
}

}  // namespace costmodel::inline COSTMODEL_ABI
