// `costmodel topology [cluster] [--topology all|NAME]`: what the scale-out fabric takes to build (switches
// per tier, links, transceivers, NICs, cables), its capex and power, diameter and bisection. With
// `--topology all`, every topology side by side for the same GPUs; one that cannot be built at that size
// says why in its `note` instead of failing the command.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "costmodel/network/topology.hpp"

namespace costmodel::cli {
namespace {

constexpr double kGiga = 1e9;
constexpr double kKilo = 1e3;

/// One topology of the comparison: built, or the reason it could not be.
struct TopologyRow {
  TopologyKind kind = TopologyKind::kFatTree;
  std::optional<ClusterSpec> cluster;
  std::optional<Topology> topology;
  std::string note;
};

/// A field of a built topology, null for one that could not be built.
template <typename F>
std::function<Json(const TopologyRow&)> built(F get) {
  return [get](const TopologyRow& r) { return r.topology ? Json(get(*r.topology)) : Json(); };
}

Json tier_names(const Inventory& inv) {
  Json names = Json::array();
  for (int t = 0; t < inv.tiers && t < kMaxSwitchTiers; ++t)
    names.push_back(Json(std::string(inv.tier_names[t])));
  return names;
}

Json switches_per_tier(const Inventory& inv) {
  Json counts = Json::array();
  for (int t = 0; t < inv.tiers && t < kMaxSwitchTiers; ++t) counts.push_back(Json(inv.switches_per_tier[t]));
  return counts;
}

/// "512 leaf + 512 spine + 256 core", "none" for a switchless torus.
std::string switches_by_tier(const Inventory& inv) {
  std::string text;
  for (int t = 0; t < inv.tiers && t < kMaxSwitchTiers; ++t) {
    if (!text.empty()) text += " + ";
    text += std::to_string(inv.switches_per_tier[t]) + " " + std::string(inv.tier_names[t]);
  }
  return text.empty() ? "none" : text;
}

std::vector<Field<TopologyRow>> topology_fields() {
  return {
      {"topology", "topology", "", 1,
       [](const TopologyRow& r) { return Json(std::string(to_string(r.kind))); }},
      {"gpus", "GPUs", "", 1, built([](const Topology& t) { return t.gpus; })},
      {"nodes", "nodes", "", 1, built([](const Topology& t) { return t.nodes; })},
      {"tiers", "tiers", "", 1, built([](const Topology& t) { return t.inventory.tiers; })},
      {"tier_names", "tier names", "", 1,
       [](const TopologyRow& r) { return r.topology ? tier_names(r.topology->inventory) : Json(); }, 4,
       false},
      {"switches_per_tier", "per tier", "", 1,
       [](const TopologyRow& r) { return r.topology ? switches_per_tier(r.topology->inventory) : Json(); }, 4,
       false},
      {"switches_by_tier", "switches by tier", "", 1,
       built([](const Topology& t) { return switches_by_tier(t.inventory); }), 4, true},
      {"switches", "switches", "", 1, built([](const Topology& t) { return t.inventory.switches; })},
      {"host_links", "host links", "", 1, built([](const Topology& t) { return t.inventory.host_links; })},
      {"switch_links", "switch links", "", 1,
       built([](const Topology& t) { return t.inventory.switch_links; })},
      {"global_links", "global links", "", 1,
       built([](const Topology& t) { return t.inventory.global_links; })},
      {"direct_links", "direct links", "", 1,
       built([](const Topology& t) { return t.inventory.direct_links; })},
      {"optical_transceivers", "optics", "", 1,
       built([](const Topology& t) { return t.inventory.optical_transceivers; })},
      {"nics", "NICs", "", 1, built([](const Topology& t) { return t.inventory.nics; })},
      {"cables", "cables", "", 1, built([](const Topology& t) { return t.inventory.cables; })},
      {"scale_up_domains", "scale-up domains", "", 1,
       built([](const Topology& t) { return t.inventory.scale_up_domains; })},
      {"capex_usd", "capex", "$M", 1e6, built([](const Topology& t) { return t.inventory.capex.value; })},
      {"power_w", "power", "kW", kKilo, built([](const Topology& t) { return t.inventory.power.value; })},
      {"diameter_hops", "diameter", "hops", 1, built([](const Topology& t) { return t.diameter; })},
      {"bisection_Bps", "bisection", "GB/s", kGiga,
       built([](const Topology& t) { return t.bisection.value; })},
      {"note", "note", "", 1, [](const TopologyRow& r) { return r.note.empty() ? Json() : Json(r.note); }},
  };
}

/// The reason an Error gives, without the "error:" framing.
std::string reason_of(const Error& error) {
  std::string text = error.field().empty() ? error.message() : error.field() + ": " + error.message();
  if (!error.hint().empty()) text += "; " + error.hint();
  return text;
}

/// One topology kind for the cluster of `args`; a failure to build is kept as the row's note.
TopologyRow build_row(TopologyKind kind, ClusterArgs args, const Catalog& catalog) {
  TopologyRow row;
  row.kind = kind;
  args.options.topology = std::string(to_string(kind));
  try {
    row.cluster = make_cluster(args, catalog);
    row.topology = build_topology(*row.cluster);
  } catch (const Error& error) {
    if (error.kind() == ErrorKind::kInternal) throw;
    row.note = reason_of(error);
  }
  return row;
}

/// Key/value rows for people: one topology in detail.
Table detail_table(const TopologyRow& row, const ClusterSpec& cluster) {
  const Topology& t = *row.topology;
  const Inventory& inv = t.inventory;
  Table table;
  table.title = std::string(to_string(t.kind)) + " for " + std::to_string(t.gpus) + " x " + cluster.gpu.name +
                " (" + std::to_string(t.nodes) + " nodes x " + std::to_string(t.nics_per_node) + " NICs of " +
                cluster.link.name + ", switch " + cluster.switch_spec.name + ")";
  table.columns = {{"field", "field", "", 4}, {"value", "value", "", 4}};
  const auto add = [&](const std::string& label, Json value) {
    table.rows.push_back({Json(label), std::move(value)});
  };
  add("switch tiers", inv.tiers);
  for (int k = 0; k < inv.tiers && k < kMaxSwitchTiers; ++k) {
    add("  " + std::string(inv.tier_names[k]) + " switches", inv.switches_per_tier[k]);
  }
  add("switches", inv.switches);
  add("host links (NIC to switch)", inv.host_links);
  add("switch links", inv.switch_links);
  add("  of which global links", inv.global_links);
  if (inv.direct_links > 0) add("direct links (NIC to NIC)", inv.direct_links);
  add("optical transceivers", inv.optical_transceivers);
  add("NICs", inv.nics);
  add("cables", inv.cables);
  add("scale-up domains", inv.scale_up_domains);
  add("capex (USD)", inv.capex.value);
  add("power (kW)", inv.power.value / kKilo);
  add(t.inventory.tiers == 0 ? "diameter (link hops)" : "diameter (switch hops)", t.diameter);
  add("bisection (GB/s per direction)", t.bisection.value / kGiga);
  table.notes = {
      "capex and power: switches, NICs and optical transceivers at catalog prices; cables and the "
      "scale-up (NVSwitch) hardware are not counted"};
  return table;
}

}  // namespace

int run_topology(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(context, "costmodel topology [cluster] [--topology all|KIND]",
                       "Inventory (switches per tier, links, optical transceivers, NICs, cables, scale-up\n"
                       "domains), capex, power, diameter and bisection of the cluster's scale-out fabric.\n"
                       "--topology all compares every topology for the same GPUs, one row each; one that\n"
                       "cannot be built at that size gives its reason in the note column.");
  add_cluster_options(parser.options());
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const auto& values = parser.values();
  const OutputOptions output = read_output_options(values, context);

  const auto topology_name = string_option(values, "topology");
  const bool all = topology_name == std::optional<std::string>("all");
  if (topology_name && !all && !parse_topology_kind(*topology_name)) {
    std::vector<std::string> known;
    for (int k = 0; k < kTopologyKindCount; ++k) known.emplace_back(to_string(static_cast<TopologyKind>(k)));
    known.emplace_back("all");
    std::string expected;
    for (const auto& name : known) expected += (expected.empty() ? "" : ", ") + name;
    const std::string hint = did_you_mean(*topology_name, known);
    throw usage_error(context, "--topology", "unknown topology '" + *topology_name + "'",
                      hint.empty() ? "expected one of " + expected : hint);
  }
  ClusterArgs cluster_args;
  if (all) {
    // read_cluster_args rejects "all": read the others, then build each kind.
    po::variables_map others = values;
    others.erase("topology");
    cluster_args = read_cluster_args(others, context);
  } else {
    cluster_args = read_cluster_args(values, context);
  }
  const Catalog catalog = load_catalog();

  if (!all) {
    const ClusterSpec cluster = make_cluster(cluster_args, catalog);
    TopologyRow row;
    row.kind = cluster.topology;
    row.cluster = cluster;
    row.topology = build_topology(cluster);
    if (output.format == Format::kTable || output.format == Format::kMarkdown) {
      emit(output, context, detail_table(row, cluster));
      return 0;
    }
    const Table table = make_table(topology_fields(), std::vector<TopologyRow>{row}, output.format);
    if (output.format == Format::kCsv) {
      emit(output, context, table);
      return 0;
    }
    Json object = Json::object();
    for (std::size_t k = 0; k < table.columns.size(); ++k) object.set(table.columns[k].key, table.rows[0][k]);
    emit(output, context, object);
    return 0;
  }

  // The GPUs, link and switch the comparison is for: failures here are the user's, not a topology's.
  ClusterArgs common = cluster_args;
  common.options.topology.reset();
  const ClusterSpec base = make_cluster(common, catalog);
  std::vector<TopologyRow> rows;
  for (int k = 0; k < kTopologyKindCount; ++k)
    rows.push_back(build_row(static_cast<TopologyKind>(k), cluster_args, catalog));

  Table table = make_table(topology_fields(), rows, output.format);
  if (output.format == Format::kJson) {
    Json list = Json::array();
    for (const auto& cells : table.rows) {
      Json object = Json::object();
      for (std::size_t k = 0; k < cells.size(); ++k) object.set(table.columns[k].key, cells[k]);
      list.push_back(std::move(object));
    }
    Json document = Json::object();
    document.set("gpus", base.gpus);
    document.set("gpu", base.gpu.name);
    document.set("link", base.link.name);
    document.set("switch", base.switch_spec.name);
    document.set("topologies", std::move(list));
    emit(output, context, document);
    return 0;
  }
  table.title = "every topology for " + std::to_string(base.gpus) + " x " + base.gpu.name + " (" +
                std::to_string(base.nics_per_node) + " NICs per node of " + base.link.name + ", switch " +
                base.switch_spec.name + ")";
  table.notes = {
      "capex and power: switches, NICs and optical transceivers at catalog prices; bisection per "
      "direction at line rate; torus diameter in link hops"};
  emit(output, context, table);
  return 0;
}

}  // namespace costmodel::cli
