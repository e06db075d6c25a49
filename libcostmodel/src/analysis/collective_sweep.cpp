// SPDX-License-Identifier: Apache-2.0
#include "analysis/collective_sweep.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "costmodel/error.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::vector<Bytes> message_sizes(Bytes min, Bytes max, double factor, int max_sizes) {
  if (!(min.value >= 1.0)) throw Error(ErrorLocation{}, "min_bytes", "must be at least 1 byte");
  if (!(factor > 1.0)) throw Error(ErrorLocation{}, "step_factor", "must be greater than 1");
  std::vector<Bytes> sizes;
  const double limit = max.value * (1.0 + 1e-12);
  for (double size = min.value; size <= limit; size *= factor) {
    const auto rounded = static_cast<double>(std::llround(size));
    if (!sizes.empty() && sizes.back().value == rounded) continue;
    sizes.emplace_back(rounded);
    if (static_cast<int>(sizes.size()) > max_sizes) {
      throw Error(ErrorLocation{}, "step_factor",
                  "the sweep has more than " + std::to_string(max_sizes) + " message sizes",
                  "raise the step factor or narrow the size range");
    }
  }
  return sizes;
}

CollectiveSweep sweep_collective(const ClusterSpec& cluster, Collective collective, Algorithm algorithm,
                                 int ranks, int stride, const std::vector<Bytes>& sizes, Protocol protocol,
                                 int first) {
  CollectiveSweep sweep;
  sweep.collective = collective;
  sweep.algorithm = algorithm;
  sweep.protocol = protocol;
  sweep.ranks = ranks;
  sweep.stride = stride;
  sweep.first = first;
  sweep.path = link_path(build_topology(cluster), Communicator{ranks, stride, 1, first});
  if (const std::string why = why_not_applicable(collective, algorithm, sweep.path, cluster); !why.empty()) {
    throw Error(ErrorLocation{}, "algorithm",
                std::string(to_string(algorithm)) + " is not applicable to " +
                    std::string(to_string(collective)) + " here: " + why,
                "use auto to let the model choose");
  }
  if (const std::string why = why_not_applicable(collective, algorithm, sweep.path, cluster, protocol);
      !why.empty()) {
    throw Error(ErrorLocation{}, "protocol", why, "use auto to let the model choose");
  }
  const CollectivePath prepared = collective_path(sweep.path);
  for (const Bytes size : sizes) {
    CollectivePoint point;
    point.size = size;
    try {
      point.cost = collective_cost(collective, algorithm, size, prepared, protocol);
    } catch (const Error&) {
      // Auto with a pinned protocol that no algorithm runs here (e.g. alltoall with ll128).
      throw Error(ErrorLocation{}, "protocol",
                  "no algorithm implements " + std::string(to_string(collective)) + " with protocol " +
                      std::string(to_string(protocol)) + " here",
                  "use auto to let the model choose");
    }
    point.algbw = algbw(size, point.cost.time);
    point.busbw = busbw(collective, size, ranks, point.cost.time);
    sweep.points.push_back(point);
  }
  const bool tree = applicable(collective, Algorithm::kDoubleBinaryTree, sweep.path);
  if (applicable(collective, Algorithm::kRing, sweep.path) && tree) {
    sweep.ring_tree_crossover =
        crossover_size(collective, Algorithm::kDoubleBinaryTree, Algorithm::kRing, sweep.path);
  }
  if (!sweep.ring_tree_crossover && collective == Collective::kAllReduce && tree) {
    const Bytes large(1099511627776.0);
    sweep.ring_always_wins =
        collective_cost(collective, Algorithm::kRing, large, sweep.path).time <=
        collective_cost(collective, Algorithm::kDoubleBinaryTree, large, sweep.path).time;
  }
  return sweep;
}

}  // namespace costmodel::inline COSTMODEL_ABI
