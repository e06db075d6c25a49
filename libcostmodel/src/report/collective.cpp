// SPDX-License-Identifier: Apache-2.0
#include "report/collective.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/report/configuration.hpp"
#include "costmodel/spec/nccl_tuner.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

constexpr double kElementBytes = 4.0;  // nccl-tests' default datatype: float

// Who chose each point's algorithm and protocol: the tuner plug-in (CommCost::tuned), the collective
// library's own tuner, or the command line when both were asked for.
struct Chooser {
  std::string tuner;    // "aws-ofi-nccl"
  std::string library;  // "NCCL"
  bool asked = false;   // --algo and --proto both given
  [[nodiscard]] std::string of(const CollectivePoint& p) const {
    if (p.cost.tuned) return tuner;
    return asked ? std::string("asked") : library;
  }
};

Chooser chooser_of(const CollectiveSweep& sweep, const ClusterSpec& cluster) {
  return {sweep.path.nccl_tuner ? sweep.path.nccl_tuner->plugin : std::string(), cluster.gpu.library,
          sweep.algorithm != Algorithm::kAuto && sweep.protocol != Protocol::kAuto};
}

// nccl-tests prints microseconds and GB/s under these keys; the key names the unit.
std::vector<ColumnOf<CollectivePoint>> point_fields(const Chooser& chooser) {
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
      {"chosen_by", "", "", 1, [chooser](const CollectivePoint& p) { return Json(chooser.of(p)); }, 4,
       Audience::kMachines},
  };
}

// "128 MiB to 2 GiB, 8 GiB": the sizes (runs of consecutive points) whose choice the tuner plug-in made.
std::string tuned_sizes(const std::vector<CollectivePoint>& points) {
  std::string text;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].cost.tuned) continue;
    std::size_t last = i;
    while (last + 1 < points.size() && points[last + 1].cost.tuned) ++last;
    if (!text.empty()) text += ", ";
    text += format_quantity(points[i].size.value, Dimension::kBytes);
    if (last > i) text += " to " + format_quantity(points[last].size.value, Dimension::kBytes);
    i = last;
  }
  return text;
}

// What the cluster's NCCL tuner plug-in did to the sweep, for people: which sizes it chose, or why not.
std::string tuner_note(const CollectiveSweep& sweep) {
  const auto& tuner = sweep.path.nccl_tuner;
  if (!tuner || sweep.algorithm != Algorithm::kAuto || sweep.protocol != Protocol::kAuto) return {};
  const std::string who = tuner->plugin + "'s tuner (" + tuner->platform + " regions, data/nccl-tuners.yaml)";
  if (sweep.path.nodes < tuner->min_nodes) {
    return who + " leaves communicators on fewer than " + std::to_string(tuner->min_nodes) +
           " nodes to NCCL: NCCL's own choice throughout";
  }
  const std::string sizes = tuned_sizes(sweep.points);
  if (sizes.empty()) return who + " has no region here: NCCL's own choice throughout";
  return "algorithm and protocol at " + sizes + ": " + who + "; elsewhere NCCL's own choice";
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
  Table table = make_table(point_fields(chooser_of(sweep, cluster)), sweep.points);
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
  if (const std::string note = tuner_note(sweep); !note.empty()) table.notes.push_back(note);
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
  document.set("nccl_tuner", sweep.path.nccl_tuner ? Json(sweep.path.nccl_tuner->name) : Json());
  document.set("rows", table_json(make_table(point_fields(chooser_of(sweep, cluster)), sweep.points)));
  return document;
}

}  // namespace costmodel::inline COSTMODEL_ABI
