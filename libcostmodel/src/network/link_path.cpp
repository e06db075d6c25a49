// SPDX-License-Identifier: Apache-2.0
// A communicator's path through a sized topology (link_path, network/topology.hpp): per level its ranks,
// bandwidths, hops and latencies; each fabric's own level is its file's in fabrics/ (fabric.hpp).
#include "costmodel/network/topology.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <string>
#include <unordered_map>
#include <variant>

#include "costmodel/error.hpp"
#include "fabric.hpp"
#include "topology_detail.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

using detail::ceil_div;

// How the communicator's ranks spread over blocks of `block` consecutive GPUs (nodes or domains): the
// blocks touched; the ranks per block as NCCL counts them (nRanks / nNodes, rounded up, at most what a whole
// block holds), which the algorithms' structure follows; and the fewest ranks one block holds: a group that
// straddles a block boundary leaves the emptier side through that side's NICs only.
struct Spread {
  int per_block = 1;
  int touched = 1;
  int fewest = 1;
};
Spread spread(const Communicator& comm, int block) {
  if (comm.stride >= block) return {1, comm.ranks, 1};  // one rank per block
  const long long first = comm.first;
  const long long last = first + static_cast<long long>(comm.ranks - 1) * comm.stride;
  const long long b0 = first / block;
  const long long b1 = last / block;
  if (b0 == b1) return {comm.ranks, 1, comm.ranks};
  const int touched = static_cast<int>(b1 - b0 + 1);
  const int per_block = std::min(ceil_div(block, comm.stride), ceil_div(comm.ranks, touched));
  // Ranks i with first + i·stride below the next block's start; ranks at or beyond the last block's.
  const int head = ceil_div((b0 + 1) * block - first, comm.stride);
  const int tail = comm.ranks - ceil_div(b1 * block - first, comm.stride);
  int fewest = std::min(head, tail);
  // A whole block in between holds ⌊block/stride⌋ or ⌈block/stride⌉ ranks.
  if (touched > 2) fewest = std::min(fewest, block / comm.stride);
  return {per_block, touched, fewest};
}

}  // namespace

namespace detail {

// Balls into bins by the Poisson approximation: the loads of the n bins are nearly independent Poisson(λ =
// k/n), so P(max < m) ≈ F_λ(m-1)^n and E[max] = Σ_{m≥1} 1 - F_λ(m-1)^n (Mitzenmacher & Upfal 2005,
// Probability and Computing §5.4). Above 100 flows per bin the Poisson is normal, and E[max] = λ + √λ·z_n
// with z_n the expected largest of n standard normals (it grows as √(2 ln n): Raab & Steger 1998, Balls
// into Bins - A Simple and Tight Analysis, Thm 1). ECMP places each flow by a hash of its five-tuple (and,
// with E-ECMP, its queue pair) in this way, and LLM training's few large flows per NIC collide: Meta found
// plain ECMP poor for training, and hashing on 16 queue pairs per connection worth up to 40% of all-reduce
// busbw (Gangidi et al., RDMA over Ethernet for Distributed AI Training at Meta Scale, SIGCOMM 2024);
// Alibaba's HPN names the same hash polarization (Qian et al., SIGCOMM 2024).
namespace {

// The planner asks for the same few values once per communicator of every split, from every worker thread
// (each plan starts its own): one process-wide table.
template <typename Key>
class Memo {
 public:
  template <typename Compute>
  double get(Key key, Compute compute) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = values_.find(key); it != values_.end()) return it->second;
    }
    const double value = compute();
    const std::lock_guard lock(mutex_);
    if (values_.size() > 65536) values_.clear();
    values_.emplace(key, value);
    return value;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<Key, double> values_;
};

// z_n = E[max of n standard normals] = ∫_0^∞ 1 - Φ(x)^n dx - ∫_{-∞}^0 Φ(x)^n dx, by the midpoint rule
// on [-8, 8] (Φ(-8)^n and 1 - Φ(8)^n are below 1e-14 for n < 10^6).
double largest_normal(int n) {
  static Memo<int> memo;
  return memo.get(n, [n] {
    constexpr int kSteps = 4000;
    constexpr double kSpan = 8.0;
    const double h = 2.0 * kSpan / kSteps;
    double z = 0.0;
    for (int i = 0; i < kSteps; ++i) {
      const double x = -kSpan + (i + 0.5) * h;
      const double phi_n = std::pow(0.5 * std::erfc(-x / std::sqrt(2.0)), n);
      z += (x >= 0.0 ? 1.0 - phi_n : -phi_n) * h;
    }
    return z;
  });
}

// The Poisson sum above, for λ = k/n up to 100.
double poisson_busiest(double k, double n) {
  const double lambda = k / n;
  // Terms are 1 while F^n < 1e-16, i.e. F < exp(-37/n); below λ - 12√λ - 12 the CDF is under 1e-25.
  const double m0 = std::max(0.0, std::floor(lambda - 12.0 * std::sqrt(lambda) - 12.0));
  const double certain = std::exp(-37.0 / n);
  // P(X = m0) = e^-λ λ^m0 / m0!, log m0! summed (std::lgamma writes a global: not for worker threads).
  double log_factorial = 0.0;
  for (double i = 2.0; i <= m0; i += 1.0) log_factorial += std::log(i);
  double pmf = std::exp(m0 * std::log(lambda) - lambda - log_factorial);
  double cdf = 0.0;
  double expected = m0;
  for (double m = m0 + 1.0; m <= k; m += 1.0) {
    cdf = std::min(1.0, cdf + pmf);  // F(m - 1)
    const double tail = cdf < certain ? 1.0 : 1.0 - std::pow(cdf, n);
    if (tail < 1e-12) break;
    expected += tail;
    pmf *= lambda / m;
  }
  return std::clamp(expected, lambda, k);
}

}  // namespace

double expected_busiest_uplink(double flows, int uplinks) {
  const double k = std::max(0.0, std::round(flows));
  if (uplinks <= 1 || k <= 1.0) return k;
  const double n = uplinks;
  const double lambda = k / n;
  if (lambda > 100.0) return std::min(k, lambda + std::sqrt(lambda) * largest_normal(uplinks));
  static Memo<std::uint64_t> memo;
  const auto key = (static_cast<std::uint64_t>(k) << 24U) ^ static_cast<std::uint64_t>(uplinks);
  return memo.get(key, [k, n] { return poisson_busiest(k, n); });
}

}  // namespace detail

LinkPath link_path(const Topology& topo, const Communicator& comm) {
  if (comm.ranks < 1 || comm.stride < 1 || comm.concurrent_groups < 1 || comm.first < 0) {
    throw Error(
        "communicator: ranks, stride and concurrent groups must be at least 1, the first GPU at least 0");
  }
  const long long last_gpu = comm.first + static_cast<long long>(comm.ranks - 1) * comm.stride;
  if (last_gpu >= topo.gpus) {
    throw Error("communicator of " + std::to_string(comm.ranks) + " ranks with stride " +
                std::to_string(comm.stride) + " needs GPU " + std::to_string(last_gpu) + " of a " +
                std::to_string(topo.gpus) + "-GPU cluster");
  }
  LinkPath path;
  path.kind = topo.kind;
  path.architecture = topo.architecture;
  path.torus_library = topo.torus_library;
  path.nccl = topo.nccl;
  path.nccl_tuner = topo.nccl_tuner;
  path.ranks = comm.ranks;
  const Spread on_nodes = spread(comm, topo.gpus_per_node);
  path.ranks_per_node = on_nodes.per_block;
  path.nodes = on_nodes.touched;
  const Spread on_domains = spread(comm, topo.scale_up.gpus);
  const int per_domain = on_domains.per_block;
  // A ring or tree crosses into and out of each domain through its ranks' NICs: the domain holding the
  // fewest of them, f, bounds it (per rank, f / per_domain of its share).
  const double fewest = on_domains.fewest;
  const double straddle = fewest / per_domain;
  const int span_nodes =
      static_cast<int>(last_gpu / topo.gpus_per_node - comm.first / topo.gpus_per_node) + 1;

  LevelPath& up = path.scale_up;
  up.ranks = per_domain;
  if (per_domain > 1) {
    up.bandwidth = topo.scale_up.bandwidth;
    up.all_to_all_bandwidth = topo.scale_up.bandwidth;
    up.line_rate = topo.scale_up.line_rate;
    up.reduction_bandwidth = topo.scale_up.reduction_bandwidth;
    up.latency = up.far_latency = topo.scale_up.latency;
    up.hops = up.far_hops = 1;
    if (topo.scale_up.pair_bandwidth.value > 0.0) {
      // A full mesh gives a rank one link to each peer: a communicator of L ranks drives L-1 of the GPU's
      // links, its rings one link each (RCCL builds as many rings as there are peer links, and 8 x MI300X
      // reach 317 of 7 x 64 = 448 GB/s all-reduce busbw only with all 7: Azure ND MI300X v5 rccl-tests).
      const double peers = per_domain - 1.0;
      up.bandwidth = std::min(up.bandwidth, topo.scale_up.pair_bandwidth * peers);
      up.all_to_all_bandwidth = up.bandwidth;
      up.line_rate = std::min(up.line_rate, topo.scale_up.pair_line_rate * peers);
      up.pair_bandwidth = topo.scale_up.pair_bandwidth;
      up.hops = up.far_hops = 0;  // no switch between a pair
    }
    up.protocols = topo.scale_up.protocols;
  }

  LevelPath& out = path.scale_out;
  out.ranks = on_domains.touched;
  if (out.ranks == 1) return path;
  out.protocols = topo.link_protocols;
  out.nccl_protocols = topo.link_nccl_protocols;
  out.nccl_algorithms = topo.link_nccl_algorithms;

  // The node's NICs are shared by its ranks of this and of the concurrent communicators.
  const int sharers = std::min(topo.gpus_per_node, path.ranks_per_node * comm.concurrent_groups);
  // A rank drives at most its own NICs (nics / GPUs per node, rounded up), even when it is alone on its node:
  // NCCL's rings leave through the NIC nearest each GPU (PXN only re-routes between rails).
  const double own_nics = std::ceil(static_cast<double>(topo.nics_per_node) / topo.gpus_per_node);
  const double nic_share = std::min(static_cast<double>(topo.nics_per_node) / sharers, own_nics);
  // Whatever its NIC share, a GPU reaches its NICs through its own PCIe link (NCCL's GPU-to-NIC path
  // bandwidth is the smallest link on it, src/graph/topo.cc / paths.cc).
  const auto host_capped = [&](BytesPerSecond b) {
    return topo.host_link.value > 0.0 ? std::min(b, topo.host_link) : b;
  };
  const BytesPerSecond rank_bandwidth = host_capped(topo.nic_bandwidth * nic_share);
  const BytesPerSecond rank_line = host_capped(topo.nic_line_rate * nic_share);
  // NCCL's network device: one NIC, or the GPU's own NICs bonded (LinkSpec::nccl_devices).
  const double device_nics = topo.link_nccl_devices == NcclDevices::kPerGpu ? own_nics : 1.0;
  path.nic_path_bandwidth = host_capped(topo.nic_bandwidth * device_nics);

  const detail::PathInputs inputs{.topo = topo,
                                  .comm = comm,
                                  .span_nodes = span_nodes,
                                  .per_domain = per_domain,
                                  .fewest = fewest,
                                  .straddle = straddle,
                                  .sharers = sharers,
                                  .nic_share = nic_share,
                                  .rank_bandwidth = rank_bandwidth,
                                  .rank_line = rank_line};
  detail::fabric_rule(topo.kind).path(inputs, path);
  return path;
}

Communicator worst_placed(const Topology& topo, Communicator group, int block) {
  group.first = 0;
  if (group.ranks < 1 || group.stride < 1 || block < 1) return group;
  // Placements repeat every lcm(node, domain) GPUs, so k and t need only cover one such period.
  const long long period = std::lcm(static_cast<long long>(std::max(1, topo.gpus_per_node)),
                                    static_cast<long long>(std::max(1, topo.scale_up.gpus)));
  const long long span = static_cast<long long>(group.ranks - 1) * group.stride;
  const long long starts = period / std::gcd(static_cast<long long>(block), period);
  const long long offsets = std::min(static_cast<long long>(group.stride), period);
  // Worse: more than one domain touched, the fewest ranks in one of them, more domains, then the same by
  // node.
  const auto key = [&](const Communicator& c) {
    const Spread domains = spread(c, topo.scale_up.gpus);
    const Spread nodes = spread(c, topo.gpus_per_node);
    return std::array<long long, 5>{domains.touched > 1, -domains.fewest, domains.touched, nodes.touched > 1,
                                    -nodes.fewest};
  };
  Communicator worst = group;
  auto worst_key = key(group);
  for (long long k = 0; k < starts; ++k) {
    for (long long t = 0; t < offsets; ++t) {
      const long long first = k * block + t;
      if (first + span >= topo.gpus) continue;
      Communicator c = group;
      c.first = static_cast<int>(first);
      if (const auto c_key = key(c); c_key > worst_key) {
        worst = c;
        worst_key = c_key;
      }
    }
  }
  return worst;
}

LinkPath link_path(const ClusterSpec& cluster, const Communicator& comm) {
  return link_path(build_topology(cluster), comm);
}

}  // namespace costmodel::inline COSTMODEL_ABI
