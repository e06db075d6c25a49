// SPDX-License-Identifier: Apache-2.0
// A communicator's path through a sized topology (link_path, network/topology.hpp): per level its ranks,
// bandwidths, hops and latencies; topology.cpp sizes the fabrics.
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
#include "topology_detail.hpp"

namespace costmodel {
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

// What a communicator and its concurrent groups put on the fabric, per node.
struct Traffic {
  int span_nodes = 1;   ///< nodes from the first rank's to the last rank's
  int nodes = 1;        ///< nodes holding ranks
  int node_step = 1;    ///< nodes between consecutive ranks (ring neighbours), at least 1
  double active = 1.0;  ///< share of a node's NIC ports the node's ranks drive
  int ecmp_flows = 0;   ///< flows per port and peer hashed onto uplinks (Topology::ecmp_flows); 0: none
};

struct ScaleOutShape {
  int hops = 1;
  double neighbour = 1.0;  ///< share of the NIC rate left to ring/tree neighbour traffic
  double uniform = 1.0;    ///< share left to all-to-all (uniform) traffic
};

// Throughput of a traffic pattern is the capacity of its most loaded channel over the load offered to it
// (Dally & Towles 2004 §3.3.1: Θ = b / γ_max); here a cut of `capacity` ports offered `load` ports' worth.
double cut_share(double capacity, double load) {
  return load <= capacity ? 1.0 : capacity / load;
}

// Of a node's traffic to the other nodes of a uniform exchange, the share bound outside its block of
// `block_nodes` nodes (leaf, group): the communicator holds min(N, ⌈block/step⌉) nodes of a block.
double leaving_share(const Traffic& t, int block_nodes) {
  if (t.nodes <= 1) return 0.0;
  const int inside = std::min(t.nodes, ceil_div(block_nodes, t.node_step));
  return static_cast<double>(t.nodes - inside) / (t.nodes - 1);
}

// The share of its port rate a flow keeps when `ports` ports' worth of traffic leaves a leaf over `uplinks`
// uplinks of the same rate, each port's traffic split into `per_port` flows. Balanced or sprayed: the cut
// (cut_share). ECMP: the busiest uplink sets the pace of a synchronous collective, so a flow gets
// per_port / E[flows on the busiest uplink] of a port (expected_busiest_uplink).
double uplink_share(const Traffic& t, double uplinks, double ports, double per_port) {
  if (t.ecmp_flows == 0 || ports <= 0.0) return cut_share(uplinks, ports);
  const int n = std::max(1, static_cast<int>(uplinks));
  return std::min(1.0, per_port / detail::expected_busiest_uplink(ports * per_port, n));
}

// A leaf's uplinks under each pattern: a ring (or tree) crosses a leaf boundary only from the last
// min(step, nodes per leaf) nodes of the leaf, while uniform traffic leaves from every node in proportion
// to the destinations outside the leaf. Every host of the leaf runs the same pattern (concurrent groups).
ScaleOutShape tree_shape(const FatTree& tree, const Traffic& t, double uniform_leaving) {
  if (tree.tiers == 1 || t.span_nodes <= tree.nodes_per_leaf) return {1, 1.0, 1.0};
  const int hops = t.span_nodes <= tree.nodes_per_pod || tree.tiers < 3 ? 3 : 5;
  const double node_ports = tree.node_ports_per_leaf * t.active;
  const double uplinks = tree.leaf_uplinks;
  const int crossing_nodes = std::min(t.node_step, tree.nodes_per_leaf);
  // A ring or tree port sends to one peer; uniform traffic to every node outside the leaf, a flow each.
  const double remote_nodes = std::max(1.0, uniform_leaving * (t.nodes - 1));
  return {hops, uplink_share(t, uplinks, crossing_nodes * node_ports, t.ecmp_flows),
          uplink_share(t, uplinks, tree.nodes_per_leaf * node_ports * uniform_leaving,
                       t.ecmp_flows * remote_nodes)};
}

// Dragonfly+ global links, per group, for G groups spanned (Kim et al. 2008 §4; Shpiner et al. 2017 §3).
// Minimal routing uses the direct links only, lpp = global ports/(g-1) to each other group: uniform traffic
// over G groups has lpp(G-1), a permutation (group i -> i+1: ring neighbours across groups, pipeline
// stages) lpp. Adaptive routing (UGAL) also detours through an intermediate group. Every group runs the same
// pattern (a step runs all its DP, EP and PP groups at once), so a link out of this group carries its own
// detours and, as much, the detours other groups send through it: detoured traffic gets half of the links
// minimal traffic leaves, direct + (global - direct)/2; a permutation thus gets (global + lpp)/2, about half
// the global bandwidth (Valiant's worst case, Kim et al. 2008 §4.2), uniform traffic over all groups all of
// it.
ScaleOutShape dragonfly_shape(const DragonflyPlus& df, const Traffic& t, int nics_per_node) {
  FatTree leaf;
  leaf.tiers = df.leaves > 1 ? 2 : 1;
  leaf.leaf_uplinks = df.leaf_uplinks;
  leaf.nodes_per_leaf = df.nodes_per_leaf;
  leaf.nodes_per_pod = df.nodes_per_group;
  leaf.node_ports_per_leaf = nics_per_node;
  ScaleOutShape shape = tree_shape(leaf, t, leaving_share(t, df.nodes_per_leaf));
  if (t.span_nodes <= df.nodes_per_group || df.groups == 1) return shape;
  const int groups = std::min(df.groups, ceil_div(t.span_nodes, df.nodes_per_group));
  const double global = df.global_ports_per_group;
  const double per_pair = global / (df.groups - 1);
  const bool adaptive = df.routing == Routing::kAdaptive;
  // Minimal routes over the direct links; adaptive routing detours the rest at half efficiency.
  const auto usable = [&](double direct) { return adaptive ? (direct + global) / 2.0 : direct; };
  const double uniform_links = usable(per_pair * (groups - 1));
  const double permutation_links = usable(per_pair);
  const double node_ports = nics_per_node * t.active;
  const int crossing_nodes = std::min(t.node_step, df.nodes_per_group);
  shape.hops = 4;
  shape.neighbour = std::min(shape.neighbour, cut_share(permutation_links, crossing_nodes * node_ports));
  shape.uniform = std::min(shape.uniform, cut_share(uniform_links, df.nodes_per_group * node_ports *
                                                                       leaving_share(t, df.nodes_per_group)));
  return shape;
}

// Distinct rails (local GPU indices) the ranks use: the GPUs i·stride mod gpus_per_node.
int rails_used(const Communicator& comm, int gpus_per_node, int nics_per_node) {
  const int indices = gpus_per_node / std::gcd(comm.stride, gpus_per_node);
  return std::max(1, std::min({indices, comm.ranks, nics_per_node}));
}

// Cross-rail traffic relayed through the scale-up domain to the GPU on the destination's rail, then over
// the network: the two transfers follow each other, 1/b = 1/b_net + f/b_up for a share f of relayed bytes
// (Wang et al. 2023 §5: forwarding costs all-to-all 8.2-11.2% on H100 = 0.875 x 47/369 GB/s here).
BytesPerSecond relayed(BytesPerSecond network, double relayed_share, BytesPerSecond scale_up) {
  if (relayed_share <= 0.0 || !(scale_up.value > 0.0)) return network;
  return BytesPerSecond(1.0 / (1.0 / network.value + relayed_share / scale_up.value));
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

  if (const auto* torus = std::get_if<Torus>(&topo.fabric)) {
    // Ranks fill dimension 0 first; rings and buckets talk to neighbours only (Chan et al. 2007 §3).
    const auto& dims = torus->dims;
    const long long plane = static_cast<long long>(dims[0]) * dims[1];
    path.torus_extent = {std::min(span_nodes, dims[0]), std::min(ceil_div(span_nodes, dims[0]), dims[1]),
                         std::min(ceil_div(span_nodes, plane), dims[2])};
    int far_hops = 0;
    int kmax = 1;
    for (int i = 0; i < kMaxTorusDims; ++i) {
      const int k = path.torus_extent[i];
      if (k > 1) ++path.torus_dimensions;
      far_hops += k == dims[i] ? k / 2 : k - 1;
      kmax = std::max(kmax, k);
    }
    const double per_neighbour = torus->ports_per_direction;
    out.bandwidth = rank_bandwidth * (per_neighbour / topo.nics_per_node * straddle);
    out.line_rate = rank_line * (per_neighbour / topo.nics_per_node * straddle);
    out.hops = 1;
    out.far_hops = far_hops;
    out.latency = topo.link_latency;
    out.far_latency = topo.link_latency * far_hops;
    // All-to-all: injection over all 2D neighbours, or the sub-torus bisection: half of every node's
    // traffic crosses it, 2·N/kmax neighbour bundles wide (Dally & Towles 2004 §3.3).
    const BytesPerSecond injection = out.bandwidth * (2.0 * path.torus_dimensions);
    const int longest = [&] {
      for (int i = 0; i < kMaxTorusDims; ++i) {
        if (path.torus_extent[i] == kmax) return i;
      }
      return 0;
    }();
    const double bundles = (kmax == dims[longest] ? 2.0 : 1.0) * span_nodes / kmax;
    const BytesPerSecond bisection = topo.nic_bandwidth * (bundles * per_neighbour);
    const BytesPerSecond bisection_share = bisection * (4.0 / (static_cast<double>(span_nodes) * sharers));
    out.all_to_all_bandwidth = std::min(injection, bisection_share);
    return path;
  }

  Traffic traffic;
  traffic.span_nodes = span_nodes;
  traffic.nodes = path.nodes;
  traffic.node_step = std::max(1, ceil_div(comm.stride, topo.gpus_per_node));
  traffic.active = std::min(1.0, sharers * nic_share / topo.nics_per_node);
  traffic.ecmp_flows = topo.ecmp_flows;
  // Uniform traffic between different rails of different nodes: on rail-only it must relay through the
  // scale-up domain (no switch joins two rails); rail-optimized may relay too when that keeps it below a
  // tapered leaf, or cross the spine, whichever is faster.
  const int rails = rails_used(comm, topo.gpus_per_node, topo.nics_per_node);
  const double cross_rail = (rails - 1.0) / rails;
  ScaleOutShape shape;
  BytesPerSecond all_to_all;
  if (const auto* tree = std::get_if<FatTree>(&topo.fabric)) {
    shape = tree_shape(*tree, traffic, leaving_share(traffic, tree->nodes_per_leaf));
    all_to_all = rank_bandwidth * shape.uniform;
  } else if (const auto* rail = std::get_if<RailOptimized>(&topo.fabric)) {
    // Direct: a NIC's traffic stays on its rail leaf only for the same rail in the same scalable unit.
    const int unit_nodes = std::min(traffic.nodes, ceil_div(rail->nodes_per_unit, traffic.node_step));
    const double direct_leaving =
        traffic.nodes > 1 ? 1.0 - (unit_nodes - 1.0) / ((traffic.nodes - 1.0) * rails) : 0.0;
    shape = tree_shape(rail->tree, traffic, direct_leaving);
    const ScaleOutShape rail_aligned =
        tree_shape(rail->tree, traffic, leaving_share(traffic, rail->nodes_per_unit));
    const BytesPerSecond direct = rank_bandwidth * shape.uniform;
    const BytesPerSecond via_scale_up =
        relayed(rank_bandwidth * rail_aligned.uniform, cross_rail, topo.scale_up.bandwidth);
    path.cross_rail_via_scale_up = via_scale_up > direct;
    all_to_all = std::max(direct, via_scale_up);
  } else if (const auto* rail_only = std::get_if<RailOnly>(&topo.fabric)) {
    shape = tree_shape(rail_only->rail_tree, traffic,
                       leaving_share(traffic, rail_only->rail_tree.nodes_per_leaf));
    path.cross_rail_via_scale_up = rails > 1;
    all_to_all = relayed(rank_bandwidth * shape.uniform, cross_rail, topo.scale_up.bandwidth);
  } else if (const auto* df = std::get_if<DragonflyPlus>(&topo.fabric)) {
    shape = dragonfly_shape(*df, traffic, topo.nics_per_node);
    all_to_all = rank_bandwidth * shape.uniform;
  }
  // Uniform traffic leaves through each rank's own NICs, and a rank of the emptiest domain sends
  // (ranks - f) / ranks of it out, not (ranks - per_domain) / ranks.
  out.bandwidth = rank_bandwidth * (shape.neighbour * straddle);
  out.all_to_all_bandwidth =
      comm.ranks > fewest ? all_to_all * ((comm.ranks - per_domain) / (comm.ranks - fewest)) : all_to_all;
  out.line_rate = rank_line * (shape.neighbour * straddle);
  out.hops = out.far_hops = shape.hops;
  out.latency = out.far_latency = topo.link_latency + topo.switch_latency * shape.hops;
  if (topo.sharp) out.reduction_bandwidth = out.bandwidth;
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

}  // namespace costmodel
