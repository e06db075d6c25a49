// SPDX-License-Identifier: Apache-2.0
// Each fabric level's Simple efficiency and per-protocol constants fitted to nccl-tests logs at once
// (calibrate_logs, analysis/calibrate.hpp); the per-log line fits are calibrate.cpp's.
#include "costmodel/analysis/calibrate.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "../network/nccl_tuning.hpp"
#include "costmodel/error.hpp"
#include "costmodel/network/topology.hpp"
#include "least_squares.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// The fit that characterises `level` best: AllReduce first (what training spends most time in), then the
/// most ranks.
const FitCalibration* pick(const std::vector<FitCalibration>& rows, FabricLevel level) {
  const FitCalibration* best = nullptr;
  for (const auto& r : rows) {
    if (!r.calibration || r.calibration->level != level) continue;
    const auto key = [](const FitCalibration& x) {
      return std::make_pair(x.fit.collective == Collective::kAllReduce ? 1 : 0, x.fit.ranks);
    };
    if (best == nullptr || key(r) > key(*best)) best = &r;
  }
  return best;
}

}  // namespace

namespace {

// The communicator a fit measured, placed on `cluster` as calibrate_cluster() places it.
struct Placement {
  Communicator comm;
  int gpus = 0;  // GPUs the cluster needs to hold it
};
Placement place(const ClusterSpec& cluster, const CollectiveFit& fit, const ClusterCalibration& cal) {
  const int per_node = cluster.gpus_per_node;
  const bool one_node = cal.level == FabricLevel::kScaleUp;
  const int stride = one_node || per_node % cal.ranks_per_node != 0 ? 1 : per_node / cal.ranks_per_node;
  const int needed_nodes = one_node ? 1 : (fit.ranks + cal.ranks_per_node - 1) / cal.ranks_per_node;
  return {Communicator{fit.ranks, stride, 1}, std::max(cluster.gpus, needed_nodes * per_node)};
}

// Unknowns of one level, in log space (every one is positive; a step in it is a relative change):
// Simple's efficiency, the ring step of LL, LL128, Simple, the bandwidth factor of LL, LL128.
constexpr int kLevelUnknowns = 6;
constexpr int kEfficiency = 0;
constexpr int kStep = 1;       // + protocol
constexpr int kBandwidth = 4;  // + protocol (LL, LL128; Simple's is the efficiency)

// NCCL's ring step on the level, s (src/tuning/cost_model.cc hwLatencies, ring row): where the fit starts.
double nccl_ring_step(FabricLevel level, int proto) {
  const auto p = static_cast<size_t>(proto);
  return (level == FabricLevel::kScaleUp ? nccl::kNvlinkLatency : nccl::kNetLatency)[nccl::kRingRow][p] *
         1e-6;
}

// `base` with the level's constants `x` (and its in-network reduction on or off).
ClusterSpec with_level(const ClusterSpec& base, FabricLevel level, const Eigen::VectorXd& x,
                       bool in_network) {
  ClusterSpec c = base;
  ProtocolCalibration protocols;
  for (int p = 0; p < kNcclProtocols; ++p)
    protocols.step_latency[static_cast<size_t>(p)] = Seconds(std::exp(x(kStep + p)));
  protocols.bandwidth = {std::exp(x(kBandwidth)), std::exp(x(kBandwidth + 1)), 1.0};
  const double efficiency = std::exp(x(kEfficiency));
  if (level == FabricLevel::kScaleUp) {
    ScaleUpSpec fabric = c.scale_up_fabric();
    fabric.bandwidth = fabric.bandwidth * std::max(1.0, efficiency);
    fabric.efficiency = std::min(1.0, efficiency);
    fabric.protocols = protocols;
    fabric.in_network_reduction = in_network;
    c.scale_up = fabric;
  } else {
    c.link.line_rate = c.link.line_rate * std::max(1.0, efficiency);
    c.link.efficiency = std::min(1.0, efficiency);
    c.link.protocols = protocols;
    c.in_network = in_network ? InNetworkReduction::kSharp : InNetworkReduction::kNone;
  }
  return c;
}

// The model's time (Auto) of every size of `fit` on `cluster`, with the choice it makes.
struct Predicted {
  std::vector<CommCost> costs;
};
Predicted predict(const ClusterSpec& cluster, const CollectiveFit& fit, const Placement& at) {
  ClusterSpec probe = cluster;
  probe.gpus = at.gpus;
  probe.torus_dims.clear();
  const CollectivePath path = collective_path(link_path(probe, at.comm));
  Predicted out;
  out.costs.reserve(fit.sizes.size());
  for (const Bytes n : fit.sizes)
    out.costs.push_back(collective_cost(fit.collective, Algorithm::kAuto, n, path));
  return out;
}

struct LevelData {
  FabricLevel level = FabricLevel::kScaleOut;
  std::vector<const CollectiveFit*> fits;
  std::vector<Placement> placements;
  double efficiency = 1.0;  // where the fit starts: calibrate_cluster()'s ring efficiency
};

// ln(model / measured) at every size, weighted 0.1 / band so that a 10% band counts twice a 20% one.
Eigen::VectorXd level_residuals(const ClusterSpec& cluster, const LevelData& data) {
  std::vector<double> r;
  for (size_t i = 0; i < data.fits.size(); ++i) {
    const CollectiveFit& fit = *data.fits[i];
    const Predicted p = predict(cluster, fit, data.placements[i]);
    for (size_t k = 0; k < fit.sizes.size(); ++k) {
      const double model = std::max(p.costs[k].time.value, 1e-12);
      r.push_back(std::log(model / fit.times[k].value) * 0.1 / residual_band(fit.sizes[k]));
    }
  }
  return Eigen::Map<Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(r.size()));
}

struct LevelResult {
  detail::BoundedFit fit;
  bool in_network = false;
  double score = 0;
};

// Levenberg-Marquardt from three starting latencies (x1/2, x1, x2 NCCL's), keeping the best.
LevelResult fit_level(const ClusterSpec& base, const LevelData& data, bool in_network) {
  Eigen::VectorXd lo(kLevelUnknowns), hi(kLevelUnknowns);
  lo(kEfficiency) = std::log(0.01);
  hi(kEfficiency) = std::log(4.0);
  for (int p = 0; p < kNcclProtocols; ++p) {
    lo(kStep + p) = std::log(0.02 * nccl_ring_step(data.level, p));
    hi(kStep + p) = std::log(50.0 * nccl_ring_step(data.level, p));
  }
  // LL and LL128 move data as NCCL's model says up to a factor of 2: a correction, not a free bandwidth
  // (otherwise LL could stand in for Simple's regime, which no NCCL run does).
  for (int p = 0; p < 2; ++p) {
    lo(kBandwidth + p) = std::log(0.5);
    hi(kBandwidth + p) = std::log(2.0);
  }
  // A weak prior toward NCCL's constants (and the ring's efficiency): the data decide where they can; where
  // two unknowns trade off (LL128's bandwidth factor against the efficiency) or a protocol decides no size,
  // its value stays NCCL's instead of drifting to a bound. 0.03 per e-fold: a 10x change costs what a 7%
  // error at one size does.
  constexpr double kPrior = 0.03;
  constexpr double kBandwidthPrior = 0.1;  // LL's and LL128's factors: 2x costs what a 7% error does
  Eigen::VectorXd prior(kLevelUnknowns);
  prior(kEfficiency) = std::log(std::clamp(data.efficiency, 0.02, 3.9));
  for (int p = 0; p < kNcclProtocols; ++p) prior(kStep + p) = std::log(nccl_ring_step(data.level, p));
  prior(kBandwidth) = prior(kBandwidth + 1) = 0.0;
  Eigen::Index data_rows = 0;
  for (const auto* fit : data.fits) data_rows += static_cast<Eigen::Index>(fit->sizes.size());
  const detail::ResidualFunction f = [&](const Eigen::VectorXd& x) {
    const Eigen::VectorXd r = level_residuals(with_level(base, data.level, x, in_network), data);
    Eigen::VectorXd all(r.size() + kLevelUnknowns);
    all << r, kPrior * (x - prior);
    all.tail(2) *= kBandwidthPrior / kPrior;
    return all;
  };
  LevelResult best;
  bool any = false;
  for (const double start : {1.0, 0.5, 2.0}) {
    Eigen::VectorXd x0(kLevelUnknowns);
    x0(kEfficiency) = std::log(std::clamp(data.efficiency, 0.02, 3.9));
    for (int p = 0; p < kNcclProtocols; ++p) x0(kStep + p) = std::log(start * nccl_ring_step(data.level, p));
    x0(kBandwidth) = x0(kBandwidth + 1) = 0.0;
    detail::BoundedFit fit = detail::bounded_levenberg_marquardt(f, x0, lo, hi, 200, 1e-4, 0.5, data_rows);
    if (!any || fit.cost < best.fit.cost) best.fit = std::move(fit);
    any = true;
  }
  best.in_network = in_network;
  // Prefer what the logs show: no in-network reduction unless it explains them clearly better, and
  // constants within the line rate.
  best.score =
      best.fit.cost * (std::exp(best.fit.x(kEfficiency)) > 1.02 ? 4.0 : 1.0) * (in_network ? 1.25 : 1.0);
  return best;
}

LevelCalibration describe_level(const LevelData& data, const LevelResult& r, const ClusterSpec& base) {
  LevelCalibration out;
  out.level = data.level;
  for (const auto* fit : data.fits) {
    out.files.insert(out.files.end(), fit->files.begin(), fit->files.end());
    out.points += static_cast<int>(fit->sizes.size());
  }
  const ClusterSpec c = with_level(base, data.level, r.fit.x, r.in_network);
  if (data.level == FabricLevel::kScaleUp) {
    const ScaleUpSpec fabric = c.scale_up_fabric();
    out.bandwidth = fabric.bandwidth;
    out.efficiency = fabric.efficiency;
    out.protocols = fabric.protocols;
  } else {
    out.bandwidth = c.link.line_rate;
    out.efficiency = c.link.efficiency;
    out.protocols = c.link.protocols;
  }
  out.in_network_reduction = r.in_network;
  // Standard errors of logs are relative errors of the values.
  const auto relative = [&](int k) {
    const double se = r.fit.standard_error(k);
    // Beyond e^3 (20x) the logs say nothing about the value: reported as unconstrained.
    return std::isfinite(se) && se < 3.0 ? std::expm1(se) : std::numeric_limits<double>::infinity();
  };
  out.efficiency_error = relative(kEfficiency);
  for (int p = 0; p < kNcclProtocols; ++p) {
    const auto i = static_cast<size_t>(p);
    out.step_latency_error[i] = relative(kStep + p);
    out.bandwidth_error[i] = p < 2 ? relative(kBandwidth + p) : out.efficiency_error;
    const Eigen::Index rows = out.points;
    const bool latency_used = r.fit.jacobian.col(kStep + p).head(rows).norm() > 0.0;
    const bool bandwidth_used =
        r.fit.jacobian.col(p < 2 ? kBandwidth + p : kEfficiency).head(rows).norm() > 0.0;
    if (!latency_used && !bandwidth_used) out.unconstrained.push_back(static_cast<Protocol>(p));
  }
  return out;
}

std::string describe(const LevelCalibration& level) {
  std::string text = std::string(to_string(level.level)) + ": Simple at " + format_number(level.efficiency) +
                     " of " + format_number(level.bandwidth.value / 1e9) +
                     " GB/s; ring step LL/LL128/Simple ";
  for (int p = 0; p < kNcclProtocols; ++p) {
    if (p > 0) text += '/';
    text += format_number(level.protocols.step_latency[static_cast<size_t>(p)].value / 1e-6);
  }
  text += " us; bandwidth x" + format_number(level.protocols.bandwidth[0]) + "/x" +
          format_number(level.protocols.bandwidth[1]) + " (LL/LL128); worst error " +
          format_number(100.0 * level.worst_before) + "% -> " + format_number(100.0 * level.worst_after) +
          "%";
  return text;
}

}  // namespace

LogCalibration calibrate_logs(const std::vector<NcclTestsLog>& logs, const ClusterSpec& cluster,
                              std::optional<BytesPerSecond> line_rate,
                              const std::vector<std::string>& files) {
  LogCalibration result;
  for (const auto& fit : fit_collectives(logs, line_rate)) {
    FitCalibration row{fit, std::nullopt, fit.efficiency};
    try {
      row.calibration = calibrate_cluster(cluster, fit);
      if (!line_rate) row.efficiency = row.calibration->measured_efficiency;
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
      result.notes.push_back(std::string(to_string(fit.collective)) + " on " + std::to_string(fit.ranks) +
                             " ranks: no cluster constants: " + e.message());
    }
    if (fit.wrong > 0) {
      result.notes.push_back("warning: " + fit.files.front() + " reports " + std::to_string(fit.wrong) +
                             " wrong results; its timings may not be trustworthy");
    }
    result.fits.push_back(std::move(row));
  }
  // Uncalibrated predictions, with the cluster as given.
  std::vector<std::optional<Placement>> placements;
  std::vector<Predicted> before;
  for (const auto& row : result.fits) {
    if (!row.calibration) {
      placements.emplace_back();
      before.emplace_back();
      continue;
    }
    placements.emplace_back(place(cluster, row.fit, *row.calibration));
    before.push_back(predict(cluster, row.fit, *placements.back()));
  }

  ClusterSpec calibrated = cluster;
  result.comment = {"Calibrated by `costmodel calibrate` from nccl-tests logs:"};
  for (const auto& file : files) result.comment.push_back("  " + file);
  bool any = false;
  for (const FabricLevel level : {FabricLevel::kScaleUp, FabricLevel::kScaleOut}) {
    LevelData data;
    data.level = level;
    const FitCalibration* start = pick(result.fits, level);
    if (start == nullptr) continue;
    data.efficiency = start->calibration->efficiency * start->calibration->bandwidth.value /
                      (level == FabricLevel::kScaleUp ? cluster.scale_up_fabric().bandwidth.value
                                                      : cluster.link.line_rate.value);
    for (size_t i = 0; i < result.fits.size(); ++i) {
      const auto& row = result.fits[i];
      if (!row.calibration || row.calibration->level != level) continue;
      data.fits.push_back(&row.fit);
      data.placements.push_back(*placements[i]);
    }
    // In-network reduction: NVLS as the GPU has it, on or off; SHARP only if the cluster has it on. Across
    // nodes without a single-node log, NVLS (hence NVLSTree) on or off as well.
    const bool can_reduce = level == FabricLevel::kScaleUp ? cluster.scale_up_fabric().in_network_reduction
                                                           : cluster.in_network == InNetworkReduction::kSharp;
    const bool nvls_open =
        level == FabricLevel::kScaleOut && calibrated.scale_up_fabric().in_network_reduction &&
        std::none_of(result.levels.begin(), result.levels.end(),
                     [](const LevelCalibration& l) { return l.level == FabricLevel::kScaleUp; });
    ClusterSpec base = calibrated;
    LevelResult best = fit_level(base, data, false);
    const auto consider = [&](const ClusterSpec& variant, bool in_network) {
      LevelResult with = fit_level(variant, data, in_network);
      if (with.score < best.score) {
        best = std::move(with);
        base = variant;
      }
    };
    if (can_reduce) consider(calibrated, true);
    if (nvls_open) {
      ClusterSpec without = calibrated;
      without.scale_up = without.scale_up_fabric();
      without.scale_up->in_network_reduction = false;
      // The logs show NVLS only if NVLSTree explains them better than the rings and trees without it.
      LevelResult off = fit_level(without, data, false);
      if (off.score <= best.score * 1.25) {
        best = std::move(off);
        base = without;
      }
    }
    LevelCalibration described = describe_level(data, best, base);
    calibrated = with_level(base, level, best.fit.x, best.in_network);
    result.levels.push_back(std::move(described));
    any = true;
  }
  // Every fit against the calibrated cluster.
  for (size_t i = 0; i < result.fits.size(); ++i) {
    if (!placements[i]) continue;
    const CollectiveFit& fit = result.fits[i].fit;
    const Predicted after = predict(calibrated, fit, *placements[i]);
    LevelCalibration* level = nullptr;
    for (auto& l : result.levels) {
      if (l.level == result.fits[i].calibration->level) level = &l;
    }
    for (size_t k = 0; k < fit.sizes.size(); ++k) {
      SizeResidual r;
      r.file = fit.files.front();
      r.collective = fit.collective;
      r.ranks = fit.ranks;
      r.size = fit.sizes[k];
      r.measured = fit.times[k];
      r.before = before[i].costs[k].time;
      r.after = after.costs[k].time;
      r.algorithm = after.costs[k].algorithm;
      r.protocol = after.costs[k].protocol;
      if (level != nullptr) {
        level->worst_before = std::max(level->worst_before, std::fabs(r.error_before()));
        level->worst_after = std::max(level->worst_after, std::fabs(r.error_after()));
        if (std::fabs(r.error_after()) > residual_band(r.size)) ++level->outside_band;
      }
      result.residuals.push_back(r);
    }
  }
  for (const auto& level : result.levels) {
    result.comment.push_back(describe(level));
    if (level.outside_band > 0) {
      result.notes.push_back("warning: " + std::string(to_string(level.level)) + ": " +
                             std::to_string(level.outside_band) +
                             " size(s) outside the band (10% up to 64 KiB and from 256 MiB, 20% between)");
    }
    if (level.efficiency >= 1.0 && level.bandwidth.value > (level.level == FabricLevel::kScaleUp
                                                                ? cluster.scale_up_fabric().bandwidth.value
                                                                : cluster.link.line_rate.value) *
                                                               1.02) {
      result.notes.push_back("warning: " + std::string(to_string(level.level)) +
                             ": the logs beat the line rate; check the link, NICs per node or GPUs per node");
    }
  }
  if (any) result.calibrated = std::move(calibrated);
  return result;
}

}  // namespace costmodel::inline COSTMODEL_ABI
