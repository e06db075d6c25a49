// SPDX-License-Identifier: Apache-2.0
// `costmodel topology [cluster] [--topology all|NAME]`: what the scale-out fabric takes to build (switches
// per tier, links, transceivers and modules, NICs, cables), its capex and power, diameter and bisection. With
// `--topology all`, every topology side by side for the same GPUs; one that cannot be built at that size
// says why in its `note` instead of failing the command.

#include <optional>
#include <string>
#include <vector>

#include "cli/flags.hpp"
#include "cli/sink.hpp"
#include "costmodel/analysis/fabrics.hpp"
#include "report/topology.hpp"

namespace costmodel::cli {

int run_topology(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(context, "costmodel topology [cluster] [--topology all|KIND]",
                       "Inventory (switch ports at the NIC's speed, switches per tier, links, optical\n"
                       "transceivers and modules, NICs, cables, scale-up domains), capex, power, diameter\n"
                       "and bisection of the cluster's scale-out fabric.\n"
                       "--topology all compares every topology for the same GPUs, one row each; one that\n"
                       "cannot be built at that size gives its reason in the note column.");
  add_cluster_options(parser.options());
  add_prices_option(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  po::variables_map values = parser.values();
  OutputSink output(read_output_options(values, context), context);

  const bool all = string_option(values, "topology") == std::optional<std::string>("all");
  if (const auto name = string_option(values, "topology"); name && !all && !parse_topology_kind(*name)) {
    std::vector<std::string> known = topology_names();
    known.emplace_back("all");
    const std::string hint = did_you_mean(*name, known);
    throw usage_error(context, "--topology", "unknown topology '" + *name + "'",
                      hint.empty() ? "expected one of " + join(known, ", ") : hint);
  }
  if (all) values.erase("topology");  // the [cluster] reader knows fabric kinds only
  const ClusterSpec cluster =
      make_cluster(read_cluster_args(values, context), load_priced_catalog(values, context), context);

  if (all) {
    const std::vector<FabricOption> options = compare_fabrics(cluster);
    if (output.format() == Format::kJson) {
      emit(output, fabrics_json(options, cluster));
    } else {
      emit(output, fabrics_table(options, cluster));
    }
    return 0;
  }
  const Topology topology = build_topology(cluster);
  if (is_human(output.format())) {
    emit(output, topology_table(topology, cluster));
  } else if (output.format() == Format::kCsv) {
    emit(output, topology_rows_table(topology, cluster));
  } else {
    emit(output, topology_json(topology, cluster));
  }
  return 0;
}

}  // namespace costmodel::cli
