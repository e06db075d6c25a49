// SPDX-License-Identifier: Apache-2.0
#include "costmodel/analysis/calibrate.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "../network/nccl_tuning.hpp"
#include "costmodel/error.hpp"
#include "costmodel/network/topology.hpp"
#include "least_squares.hpp"

namespace costmodel {
namespace {

// The model's algorithm a calibration is matched against: what NCCL runs for large messages.
Algorithm reference_algorithm(Collective c) {
  return c == Collective::kAllToAll || c == Collective::kSendRecv ? Algorithm::kDirect : Algorithm::kRing;
}

}  // namespace

AlphaBetaLine fit_alpha_beta(const std::vector<Bytes>& sizes, const std::vector<Seconds>& times) {
  if (sizes.size() != times.size()) throw Error("fit_alpha_beta: sizes and times differ in length");
  std::set<double> distinct;
  double largest = 1.0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!(times[i].value > 0.0) || !std::isfinite(times[i].value)) {
      throw Error("fit_alpha_beta: every time must be positive and finite");
    }
    if (!(sizes[i].value >= 0.0) || !std::isfinite(sizes[i].value)) {
      throw Error("fit_alpha_beta: every size must be non-negative and finite");
    }
    distinct.insert(sizes[i].value);
    largest = std::max(largest, sizes[i].value);
  }
  if (distinct.size() < 2) throw Error("fitting alpha and beta needs at least two distinct message sizes");

  // Rows scaled by 1/t_i (weight 1/t_i² on the squared residual); the size column scaled by the largest size
  // so that both columns are O(1) and the QR factorisation stays well conditioned.
  const auto m = static_cast<Eigen::Index>(sizes.size());
  Eigen::MatrixXd a(m, 2);
  Eigen::VectorXd b(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double t = times[static_cast<size_t>(i)].value;
    a(i, 0) = 1.0 / t;
    a(i, 1) = sizes[static_cast<size_t>(i)].value / largest / t;
    b(i) = 1.0;
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(b);
  AlphaBetaLine line;
  line.alpha = Seconds(x(0));
  line.beta = x(1) / largest;
  line.points = static_cast<int>(m);

  // Weighted R² (weights w_i = 1/t_i²): 1 - Σw(t - t̂)² / Σw(t - t̄_w)², t̄_w the weighted mean.
  double sum_w = 0, sum_wt = 0;
  for (const auto& t : times) {
    sum_w += 1.0 / (t.value * t.value);
    sum_wt += 1.0 / t.value;
  }
  const double mean = sum_wt / sum_w;
  double residual = 0, total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double t = times[i].value;
    const double predicted = line.alpha.value + line.beta * sizes[i].value;
    const double relative = (t - predicted) / t;
    residual += relative * relative;
    total += (t - mean) * (t - mean) / (t * t);
    if (std::fabs(relative) >= std::fabs(line.worst_residual) || i == 0) {
      line.worst_residual = relative;
      line.worst_size = sizes[i];
      line.worst_measured = times[i];
      line.worst_predicted = Seconds(predicted);
    }
  }
  line.r_squared = total > 0 ? 1.0 - residual / total : 1.0;
  return line;
}

namespace {

// Σ((t - alpha - beta n) / t)² of a line over points [first, last).
double squared_relative_residual(const AlphaBetaLine& line, const std::vector<Bytes>& sizes,
                                 const std::vector<Seconds>& times, size_t first, size_t last) {
  double sum = 0;
  for (size_t i = first; i < last; ++i) {
    const double r = (times[i].value - line.alpha.value - line.beta * sizes[i].value) / times[i].value;
    sum += r * r;
  }
  return sum;
}

}  // namespace

TwoRegimeFit fit_two_regimes(const std::vector<Bytes>& sizes, const std::vector<Seconds>& times) {
  TwoRegimeFit best;
  if (sizes.size() != times.size()) throw Error("fit_two_regimes: sizes and times differ in length");
  std::vector<size_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sizes[a].value < sizes[b].value; });
  std::vector<Bytes> n;
  std::vector<Seconds> t;
  for (size_t i : order) {
    n.push_back(sizes[i]);
    t.push_back(times[i]);
  }
  double best_cost = std::numeric_limits<double>::infinity();
  // Every split between distinct sizes that leaves two distinct sizes on each side.
  for (size_t k = 1; k < n.size(); ++k) {
    if (n[k].value == n[k - 1].value) continue;
    const auto distinct = [&](size_t first, size_t last) {
      int count = 0;
      for (size_t i = first; i < last; ++i) count += i == first || n[i].value != n[i - 1].value ? 1 : 0;
      return count;
    };
    if (distinct(0, k) < 2 || distinct(k, n.size()) < 2) continue;
    const std::vector<Bytes> n1(n.begin(), n.begin() + static_cast<std::ptrdiff_t>(k));
    const std::vector<Seconds> t1(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(k));
    const std::vector<Bytes> n2(n.begin() + static_cast<std::ptrdiff_t>(k), n.end());
    const std::vector<Seconds> t2(t.begin() + static_cast<std::ptrdiff_t>(k), t.end());
    const AlphaBetaLine small = fit_alpha_beta(n1, t1);
    const AlphaBetaLine large = fit_alpha_beta(n2, t2);
    const double cost =
        squared_relative_residual(small, n, t, 0, k) + squared_relative_residual(large, n, t, k, n.size());
    if (cost < best_cost) {
      best_cost = cost;
      best.small = small;
      best.large = large;
      best.found = true;
      // Where the lines cross, if they cross between the neighbouring sizes; else the split.
      const double cross = small.beta > large.beta
                               ? (large.alpha.value - small.alpha.value) / (small.beta - large.beta)
                               : -1.0;
      best.knee = Bytes(cross >= n[k - 1].value && cross <= n[k].value ? cross : n[k].value);
    }
  }
  return best;
}

double residual_band(Bytes size) {
  constexpr double kLatencyBound = 65536.0;        // 64 KiB
  constexpr double kBandwidthBound = 268435456.0;  // 256 MiB
  return size.value <= kLatencyBound || size.value >= kBandwidthBound ? 0.10 : 0.20;
}

std::vector<CollectiveFit> fit_collectives(const std::vector<NcclTestsLog>& logs,
                                           std::optional<BytesPerSecond> line_rate) {
  struct Group {
    CollectiveFit fit;
    std::vector<Bytes> sizes;
    std::vector<Seconds> times;
  };
  std::vector<Group> groups;
  for (const auto& log : logs) {
    if (!log.collective) {
      throw Error(
          ErrorLocation{log.file, 0, 0}, "nccl-tests log", "cannot tell which collective this log measures",
          "name the file after the test (e.g. all_reduce_perf.txt) or pass the collective explicitly");
    }
    if (log.ranks < 1) {
      throw Error(ErrorLocation{log.file, 0, 0}, "nccl-tests log",
                  "the log shows no rank count ('# nThread .. nGpus ..' or '#  Rank' lines)");
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.fit.collective == *log.collective && g.fit.algorithm == log.algorithm &&
             g.fit.ranks == log.ranks;
    });
    if (it == groups.end()) {
      Group g;
      g.fit.collective = *log.collective;
      g.fit.algorithm = log.algorithm;
      g.fit.ranks = log.ranks;
      g.fit.nodes = log.nodes;
      g.fit.device = log.device;
      g.fit.ranks_from = log.ranks_from;
      groups.push_back(std::move(g));
      it = groups.end() - 1;
    }
    it->fit.files.push_back(log.file);
    it->fit.nodes = std::max(it->fit.nodes, log.nodes);
    for (const auto& p : log.points) {
      it->sizes.push_back(p.size);
      it->times.push_back(p.time);
      it->fit.wrong += p.wrong.value_or(0);
    }
  }
  std::vector<CollectiveFit> fits;
  for (auto& g : groups) {
    try {
      g.fit.line = fit_alpha_beta(g.sizes, g.times);
    } catch (const Error& e) {
      throw e.at(ErrorLocation{g.fit.files.front(), 0, 0}, "nccl-tests log");
    }
    CollectiveFit& f = g.fit;
    // One time per size: the mean of every measurement of it (both halves of the row, every log).
    std::map<double, std::pair<double, int>> by_size;
    for (size_t i = 0; i < g.sizes.size(); ++i) {
      auto& [sum, count] = by_size[g.sizes[i].value];
      sum += g.times[i].value;
      ++count;
    }
    for (const auto& [size, entry] : by_size) {
      f.sizes.emplace_back(size);
      f.times.emplace_back(entry.first / entry.second);
    }
    f.regimes = fit_two_regimes(f.sizes, f.times);
    const double beta = std::max(f.line.beta, 1e-300);  // a flat line means unbounded bandwidth: stay finite
    f.algbw = BytesPerSecond(1.0 / beta);
    f.busbw = BytesPerSecond(bus_factor(f.collective, f.ranks) / beta);
    if (line_rate && line_rate->value > 0) f.efficiency = f.busbw.value / line_rate->value;
    fits.push_back(std::move(f));
  }
  return fits;
}

std::string_view to_string(FabricLevel level) {
  return level == FabricLevel::kScaleUp ? "scale-up" : "scale-out";
}

ClusterCalibration calibrate_cluster(const ClusterSpec& cluster, const CollectiveFit& fit) {
  if (fit.ranks < 1) throw Error("calibration needs the rank count of the measurement");
  ClusterCalibration cal;
  const int per_node = cluster.gpus_per_node;
  const bool one_node = fit.nodes > 0 ? fit.nodes <= 1 : fit.ranks <= per_node;
  cal.level = one_node ? FabricLevel::kScaleUp : FabricLevel::kScaleOut;
  if (one_node && fit.ranks > cluster.scale_up_domain()) {
    throw Error("the measurement's " + std::to_string(fit.ranks) +
                " ranks on one node exceed the cluster's " + std::to_string(cluster.scale_up_domain()) +
                "-GPU scale-up domain; check --gpus-per-node");
  }
  // Ranks per node as measured; a stride spreads them over the cluster's nodes the same way.
  int ranks_per_node = per_node;
  if (one_node) {
    ranks_per_node = fit.ranks;
  } else if (fit.nodes > 0) {
    ranks_per_node = (fit.ranks + fit.nodes - 1) / fit.nodes;
  }
  cal.ranks_per_node = std::min(ranks_per_node, per_node);
  const int stride = one_node || per_node % cal.ranks_per_node != 0 ? 1 : per_node / cal.ranks_per_node;

  ClusterSpec probe = cluster;
  const int needed_nodes = one_node ? 1 : (fit.ranks + cal.ranks_per_node - 1) / cal.ranks_per_node;
  probe.gpus = std::max(cluster.gpus, needed_nodes * per_node);
  probe.torus_dims.clear();
  const Algorithm algorithm = reference_algorithm(fit.collective);
  const Communicator comm{fit.ranks, stride, 1};

  // Bandwidth: the model's seconds per byte (the bandwidth term is linear in n) at a given efficiency.
  const auto set_efficiency = [&](ClusterSpec& c, double eff) {
    if (cal.level == FabricLevel::kScaleUp) {
      c.scale_up = c.scale_up_fabric();
      c.scale_up->efficiency = eff;
    } else {
      c.link.efficiency = eff;
    }
  };
  const auto seconds_per_byte = [&](const ClusterSpec& c) {
    const Bytes n(1073741824.0);
    return collective_cost(fit.collective, algorithm, n, link_path(c, comm)).bandwidth_term.value / n.value;
  };
  const double beta = fit.line.beta;
  set_efficiency(probe, 1.0);
  const double ceiling_slope = seconds_per_byte(probe);
  cal.ceiling_busbw = BytesPerSecond(bus_factor(fit.collective, fit.ranks) / ceiling_slope);
  cal.measured_efficiency = beta > 0 ? ceiling_slope / beta : 0.0;
  cal.bandwidth =
      cal.level == FabricLevel::kScaleUp ? cluster.scale_up_fabric().bandwidth : cluster.link.line_rate;
  constexpr double kMinEfficiency = 0.01;  // the cluster schema's lower bound
  if (beta > 0 && beta < ceiling_slope) {
    // Faster than the line rate the cluster assumes: raise the rate, keep efficiency 1.
    cal.bandwidth = cal.bandwidth * (ceiling_slope / beta);
    cal.efficiency = 1.0;
  } else {
    // seconds_per_byte falls monotonically with efficiency: bisection.
    double lo = kMinEfficiency, hi = 1.0;
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (lo + hi);
      set_efficiency(probe, mid);
      (seconds_per_byte(probe) > beta ? lo : hi) = mid;
    }
    cal.efficiency = 0.5 * (lo + hi);
  }
  probe = apply_calibration(probe, cal);

  // Latency: the model's latency term is affine in the per-hop (scale-up) or link (scale-out) latency.
  const auto latency_term = [&](double latency) {
    ClusterSpec c = probe;
    if (cal.level == FabricLevel::kScaleUp) {
      c.scale_up = c.scale_up_fabric();
      c.scale_up->latency = Seconds(latency);
    } else {
      c.link.latency = Seconds(latency);
    }
    return collective_cost(fit.collective, algorithm, Bytes(0.0), link_path(c, comm)).latency_term.value;
  };
  constexpr double kProbe = 1e-6;
  const double base = latency_term(0.0);
  const double per_second = (latency_term(kProbe) - base) / kProbe;
  double latency = per_second > 0 ? (fit.line.alpha.value - base) / per_second : 0.0;
  if (latency < 0) {
    latency = 0;
    cal.latency_clamped = true;
  }
  cal.latency = Seconds(latency);
  return cal;
}

ClusterSpec apply_calibration(ClusterSpec cluster, const ClusterCalibration& calibration) {
  if (calibration.level == FabricLevel::kScaleUp) {
    ScaleUpSpec fabric = cluster.scale_up_fabric();
    fabric.bandwidth = calibration.bandwidth;
    fabric.efficiency = calibration.efficiency;
    fabric.latency = calibration.latency;
    cluster.scale_up = fabric;
  } else {
    cluster.link.line_rate = calibration.bandwidth;
    cluster.link.efficiency = calibration.efficiency;
    cluster.link.latency = calibration.latency;
  }
  return cluster;
}

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

std::optional<std::string> guess_gpu(const std::string& device, const Catalog& catalog) {
  std::string low = device;
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::optional<std::string> best;
  int best_score = 0;
  for (const auto& gpu : catalog.gpus) {
    const std::string& name = gpu.name;
    const size_t dash = name.find('-');
    const std::string family = name.substr(0, dash);
    if (family.empty() || low.find(family) == std::string::npos) continue;
    int score = 1;
    if (dash != std::string::npos && low.find(name.substr(dash + 1)) != std::string::npos) score = 2;
    if (score > best_score) {
      best = name;
      best_score = score;
    }
  }
  return best;
}

}  // namespace costmodel
