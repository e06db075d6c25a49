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

#include "costmodel/error.hpp"
#include "costmodel/network/topology.hpp"

namespace costmodel::inline COSTMODEL_ABI {
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
          "name the file after the test (e.g. all_reduce_perf.txt) or pass --op (allreduce, allgather, "
          "reducescatter, alltoall, broadcast, reduce or sendrecv)");
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

}  // namespace costmodel::inline COSTMODEL_ABI
