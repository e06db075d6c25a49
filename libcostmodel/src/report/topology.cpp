// SPDX-License-Identifier: Apache-2.0
#include "report/topology.hpp"

#include <cstdint>
#include <functional>

#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// A field of a built topology, null for one that could not be built.
template <typename F>
std::function<Json(const FabricOption&)> built(F get) {
  return [get](const FabricOption& r) { return r.topology ? Json(get(*r.topology)) : Json(); };
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

std::vector<ColumnOf<FabricOption>> fabric_option_fields() {
  return {
      {"topology", "topology", "", 1,
       [](const FabricOption& r) { return Json(std::string(to_string(r.kind))); }},
      {"gpus", "GPUs", "", 1, built([](const Topology& t) { return t.gpus; })},
      {"nodes", "nodes", "", 1, built([](const Topology& t) { return t.nodes; })},
      {"tiers", "tiers", "", 1, built([](const Topology& t) { return t.inventory.tiers; })},
      {"switch_radix", "radix", "", 1,
       [](const FabricOption& r) {
         return r.topology && r.topology->switch_radix > 0 ? Json(r.topology->switch_radix) : Json();
       }},
      {"tier_names", "tier names", "", 1,
       [](const FabricOption& r) { return r.topology ? tier_names(r.topology->inventory) : Json(); }, 4,
       Audience::kMachines},
      {"switches_per_tier", "per tier", "", 1,
       [](const FabricOption& r) { return r.topology ? switches_per_tier(r.topology->inventory) : Json(); },
       4, Audience::kMachines},
      {"switches_by_tier", "switches by tier", "", 1,
       built([](const Topology& t) { return switches_by_tier(t.inventory); })},
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
      {"optical_modules", "modules", "", 1,
       built([](const Topology& t) { return t.inventory.optical_modules; })},
      {"node_modules", "node modules", "", 1,
       built([](const Topology& t) { return t.inventory.node_modules; }), 4, Audience::kMachines},
      {"switch_modules", "switch modules", "", 1,
       built([](const Topology& t) { return t.inventory.switch_modules; }), 4, Audience::kMachines},
      {"nics", "NICs", "", 1, built([](const Topology& t) { return t.inventory.nics; })},
      {"cables", "cables", "", 1, built([](const Topology& t) { return t.inventory.cables; })},
      {"scale_up_domains", "scale-up domains", "", 1,
       built([](const Topology& t) { return t.inventory.scale_up_domains; })},
      {"capex_usd", "capex", "$M", 1e6, built([](const Topology& t) { return t.inventory.capex.value; })},
      {"power_w", "power", "kW", kKilo, built([](const Topology& t) { return t.inventory.power.value; })},
      {"diameter_hops", "diameter", "hops", 1, built([](const Topology& t) { return t.diameter; })},
      {"bisection_Bps", "bisection", "GB/s", kGiga,
       built([](const Topology& t) { return t.bisection.value; })},
      {"note", "note", "", 1, [](const FabricOption& r) { return r.note.empty() ? Json() : Json(r.note); }},
  };
}

Json row_object(const Table& table) {
  return table_json(table).as_array().front();
}

}  // namespace

Table topology_table(const Topology& t, const ClusterSpec& cluster) {
  const Inventory& inv = t.inventory;
  Table table;
  table.title = std::string(to_string(t.kind)) + " for " + std::to_string(t.gpus) + " x " + cluster.gpu.name +
                " (" + std::to_string(t.nodes) + " nodes x " + std::to_string(t.nics_per_node) + " NICs of " +
                cluster.link.name + ", switch " + cluster.switch_spec.name + ")";
  table.columns = {{"field", "field", ""}, {"value", "value", ""}};
  const auto add = [&](const std::string& label, Json value) {
    table.rows.push_back({Json(label), std::move(value)});
  };
  if (t.switch_radix > 0) {
    add("switch ports (at the NIC's speed)", std::to_string(t.switch_radix) + " x " +
                                                 format_number(t.nic_line_rate.value * 8.0 / kGiga) +
                                                 " Gb/s");
  }
  add("switch tiers", inv.tiers);
  for (int k = 0; k < inv.tiers && k < kMaxSwitchTiers; ++k) {
    add("  " + std::string(inv.tier_names[k]) + " switches", inv.switches_per_tier[k]);
  }
  add("switches", inv.switches);
  add("host links (NIC to switch)", inv.host_links);
  add("switch links", inv.switch_links);
  add("  of which global links", inv.global_links);
  if (inv.direct_links > 0) add("direct links (NIC to NIC)", inv.direct_links);
  add("optical transceivers (port ends)", inv.optical_transceivers);
  add("optical modules", inv.optical_modules);
  add("  at the nodes", inv.node_modules);
  add("  in the switches", inv.switch_modules);
  add("NICs", inv.nics);
  add("cables", inv.cables);
  add("  of which fibres", inv.optical_cables);
  add("scale-up domains", inv.scale_up_domains);
  add("capex (USD)", inv.capex.value);
  add("power (kW)", inv.power.value / kKilo);
  add(t.inventory.tiers == 0 ? "diameter (link hops)" : "diameter (switch hops)", t.diameter);
  add("bisection (GB/s per direction)", t.bisection.value / kGiga);
  // The bill of materials: count x unit price = price (USD), count x unit power = power (W).
  for (const BomLine& line : bill_of_materials(t, cluster)) {
    add("bill: " + line.item + " (" + line.part + ")",
        std::to_string(line.count) + " x $" + format_number(line.unit_price.value, 6) + " = $" +
            format_number(line.price().value, 6) + "; " + format_number(line.power().value / kKilo, 4) +
            " kW");
  }
  table.notes = {
      "capex and power: switches, NICs and optical modules at catalog prices (a module as the ports it "
      "serves: the link's price per port end); cables and the scale-up (NVSwitch) hardware are not priced",
      "optical modules: at the nodes one per NIC port, or per pair where the node's cages are twin-port "
      "(data/gpus.yaml nic_ports_per_module); in the switches one per " +
          std::to_string(t.ports_per_module) + " switch port" + (t.ports_per_module > 1 ? "s" : "") +
          " (a module per cage)"};
  if (std::string note = fabric_note(t); !note.empty()) table.notes.push_back(std::move(note));
  return table;
}

Json topology_json(const Topology& topology, const ClusterSpec& cluster) {
  FabricOption option{cluster.topology, cluster, topology, ""};
  Json document = row_object(make_table(fabric_option_fields(), std::vector<FabricOption>{option}));
  document.set("bill_of_materials", table_json(bill_table(topology, cluster)));
  return document;
}

Table bill_table(const Topology& topology, const ClusterSpec& cluster) {
  Table t;
  t.title = "bill of materials, scale-out fabric";
  t.columns = {{"item", "item", ""},
               {"part", "part", ""},
               {"count", "count", "", 1.0, 8},
               {"unit_price_usd", "unit price", "USD", 1.0, 6},
               {"price_usd", "price", "USD", 1.0, 6},
               {"unit_power_w", "unit power", "W", 1.0, 4},
               {"power_w", "power", "kW", 1e3, 4},
               // DESIGN.md §5's names: the kind of part, and price_usd again as total_usd.
               {"kind", "kind", "", 1.0, 4, Audience::kMachines},
               {"total_usd", "total", "USD", 1.0, 6, Audience::kMachines}};
  for (const BomLine& line : bill_of_materials(topology, cluster)) {
    t.rows.push_back({Json(line.item), Json(line.part), Json(static_cast<std::int64_t>(line.count)),
                      Json(line.unit_price.value), Json(line.price().value), Json(line.unit_power.value),
                      Json(line.power().value), Json(line.kind), Json(line.price().value)});
  }
  return t;
}

Table topology_rows_table(const Topology& topology, const ClusterSpec& cluster) {
  FabricOption option{cluster.topology, cluster, topology, ""};
  return make_table(fabric_option_fields(), std::vector<FabricOption>{option});
}

Table fabrics_table(const std::vector<FabricOption>& options, const ClusterSpec& base) {
  Table table = make_table(fabric_option_fields(), options);
  table.title = "every topology for " + std::to_string(base.gpus) + " x " + base.gpu.name + " (" +
                std::to_string(base.nics_per_node) + " NICs per node of " + base.link.name + ", switch " +
                base.switch_spec.name + ")";
  table.notes = {
      "capex and power: switches, NICs and optical transceivers at catalog prices; bisection per "
      "direction at line rate (rail-only: 0, no network link joins two rails); torus diameter in link hops",
      "radix: switch ports at the NIC's speed (a breakout where the NIC is slower than the native port); "
      "optics: transceivers, one per optical port end; modules: pluggable modules (a twin-port module "
      "serves two switch ports)"};
  return table;
}

Json fabrics_json(const std::vector<FabricOption>& options, const ClusterSpec& base) {
  Json document = Json::object();
  document.set("gpus", base.gpus);
  document.set("gpu", base.gpu.name);
  document.set("link", base.link.name);
  document.set("switch", base.switch_spec.name);
  document.set("topologies", table_json(make_table(fabric_option_fields(), options)));
  return document;
}

}  // namespace costmodel::inline COSTMODEL_ABI
