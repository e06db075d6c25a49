// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/collective.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/report/configuration.hpp"
#include "costmodel/units.hpp"

namespace costmodel {
namespace {

constexpr double kElementBytes = 4.0;  // nccl-tests' default datatype: float

// nccl-tests prints microseconds and GB/s under these keys; the key names the unit.
std::vector<ColumnOf<CollectivePoint>> point_fields() {
  return {
      {"size", "size", "B", 1,
       [](const CollectivePoint& p) { return Json(static_cast<std::int64_t>(p.size.value)); }},
      {"count", "count", "floats", 1,
       [](const CollectivePoint& p) {
         return Json(static_cast<std::int64_t>(p.size.value / kElementBytes));
       }},
      {"time_us", "time", "us", 1, [](const CollectivePoint& p) { return Json(p.cost.time.value / kMicro); }},
      {"algbw_GBps", "algbw", "GB/s", 1,
       [](const CollectivePoint& p) { return Json(p.algbw.value / kGiga); }},
      {"busbw_GBps", "busbw", "GB/s", 1,
       [](const CollectivePoint& p) { return Json(p.busbw.value / kGiga); }},
      {"algorithm", "algorithm", "", 1,
       [](const CollectivePoint& p) { return Json(std::string(to_string(p.cost.algorithm))); }},
      {"protocol", "protocol", "", 1,
       [](const CollectivePoint& p) { return Json(std::string(to_string(p.cost.protocol))); }},
      {"latency_us", "latency term", "us", 1,
       [](const CollectivePoint& p) { return Json(p.cost.latency_term.value / kMicro); }},
      {"bandwidth_us", "bandwidth term", "us", 1,
       [](const CollectivePoint& p) { return Json(p.cost.bandwidth_term.value / kMicro); }},
  };
}

std::string describe_path(const LinkPath& path) {
  std::string text = std::to_string(path.ranks) + " ranks on " + std::to_string(path.nodes) +
                     (path.nodes == 1 ? " node" : " nodes");
  if (path.scale_up.ranks > 1) {
    text += "; scale-up " + std::to_string(path.scale_up.ranks) + " ranks per domain at " +
            format_number(path.scale_up.bandwidth.value / kGiga) + " GB/s per rank";
    if (path.scale_up.pair_bandwidth.value > 0.0) {
      text += " (full mesh, " + format_number(path.scale_up.pair_bandwidth.value / kGiga) + " GB/s per pair)";
    }
  }
  if (path.scale_out.ranks > 1) {
    text += "; scale-out " + std::to_string(path.scale_out.ranks) + " domains at " +
            format_number(path.scale_out.bandwidth.value / kGiga) + " GB/s per rank, " +
            std::to_string(path.scale_out.far_hops) + " hops to the farthest";
  }
  return text;
}

}  // namespace

Table collective_table(const CollectiveSweep& sweep, const ClusterSpec& cluster) {
  const std::string op(to_string(sweep.collective));
  Table table = make_table(point_fields(), sweep.points);
  const std::string asked =
      sweep.protocol == Protocol::kAuto
          ? std::string(to_string(sweep.algorithm))
          : std::string(to_string(sweep.algorithm)) + ", " + std::string(to_string(sweep.protocol));
  table.title = op + " (" + asked + ") on " + std::to_string(cluster.gpus) + " x " + cluster.gpu.name + ", " +
                std::string(to_string(cluster.topology)) + " of " + cluster.link.name + ", " +
                scale_up_label(cluster) + " of " + std::to_string(cluster.scale_up_domain()) + ", " +
                cluster.gpu.library + ": " + describe_path(sweep.path);
  if (sweep.first > 0) {
    table.notes.push_back("rank 0 on GPU " + std::to_string(sweep.first) +
                          "; a side of a node or domain holding " +
                          "fewer of the ranks leaves it through their NICs only");
  }
  if (sweep.ring_tree_crossover) {
    table.notes.push_back(op + " ring/tree crossover: tree is faster below " +
                          format_quantity(sweep.ring_tree_crossover->value, Dimension::kBytes) +
                          ", ring from there up");
  } else if (sweep.ring_always_wins) {
    table.notes.push_back(
        std::string("allreduce ring/tree crossover: none between 1 B and 1 TiB; ") +
        (*sweep.ring_always_wins ? "ring is no slower at any size" : "tree is faster at every size") +
        " on this communicator");
  }
  table.notes.push_back("count = size / 4 (float); algbw = size / time; busbw = algbw x " +
                        format_number(bus_factor(sweep.collective, sweep.ranks)) +
                        " (nccl-tests); GB = 1e9 B");
  return table;
}

Json collective_json(const CollectiveSweep& sweep, const ClusterSpec& cluster) {
  Json document = Json::object();
  document.set("op", std::string(to_string(sweep.collective)));
  document.set("algo", std::string(to_string(sweep.algorithm)));
  document.set("proto", std::string(to_string(sweep.protocol)));
  document.set("ranks", sweep.ranks);
  document.set("stride", sweep.stride);
  document.set("first_gpu", sweep.first);
  document.set("nodes", sweep.path.nodes);
  document.set("topology", std::string(to_string(cluster.topology)));
  document.set("scale_up",
               cluster.scale_up_fabric().name.empty() ? Json() : Json(cluster.scale_up_fabric().name));
  document.set("library", cluster.gpu.library);
  document.set("ring_tree_crossover_bytes",
               sweep.ring_tree_crossover ? Json(sweep.ring_tree_crossover->value) : Json());
  document.set("rows", table_json(make_table(point_fields(), sweep.points)));
  return document;
}

}  // namespace costmodel
