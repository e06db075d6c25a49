// `costmodel catalog [gpus|links|switches|models|topologies]`: the catalogs with every number.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/units.hpp"

namespace costmodel::cli {

namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr double kGibi = 1073741824.0;
constexpr double kMicro = 1e-6;
constexpr double kNano = 1e-9;
constexpr double kGigabitPerSecond = 1e9 / kBitsPerByte;  // in B/s

const std::vector<std::string> kCatalogNames = {"gpus", "links", "switches", "models", "topologies"};

/// A number that is 0 when the entry does not have it (unsupported dtype) as null.
Json positive_or_null(double value) {
  return value > 0.0 ? Json(value) : Json();
}

std::vector<Field<GpuSpec>> gpu_fields() {
  std::vector<Field<GpuSpec>> fields = {
      {"name", "name", "", 1, [](const GpuSpec& g) { return Json(g.name); }},
      {"vendor", "vendor", "", 1, [](const GpuSpec& g) { return Json(g.vendor); }},
  };
  for (int d = 0; d < kDtypeCount; ++d) {
    const auto dtype = static_cast<Dtype>(d);
    const std::string name(to_string(dtype));
    std::string upper = name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    fields.push_back({"peak_" + name + "_flops", upper, "TFLOP/s", kTera,
                      [dtype](const GpuSpec& g) { return positive_or_null(g.peak(dtype).value); }});
  }
  const std::vector<Field<GpuSpec>> rest = {
      {"hbm_bytes", "HBM", "GiB", kGibi, [](const GpuSpec& g) { return Json(g.hbm.value); }},
      {"hbm_bandwidth_Bps", "HBM bw", "GB/s", kGiga,
       [](const GpuSpec& g) { return Json(g.hbm_bandwidth.value); }},
      {"scale_up_bandwidth_Bps", "scale-up bw", "GB/s", kGiga,
       [](const GpuSpec& g) { return Json(g.scale_up.bandwidth.value); }},
      {"scale_up_domain", "domain", "GPUs", 1, [](const GpuSpec& g) { return Json(g.scale_up.domain); }},
      {"scale_up_latency_s", "scale-up lat", "us", kMicro,
       [](const GpuSpec& g) { return Json(g.scale_up.latency.value); }},
      {"scale_up_in_network_reduction", "NVLS", "", 1,
       [](const GpuSpec& g) { return Json(g.scale_up.in_network_reduction); }},
      {"scale_up_efficiency", "scale-up eff", "", 1,
       [](const GpuSpec& g) { return Json(g.scale_up.efficiency); }},
      {"tdp_w", "TDP", "W", 1, [](const GpuSpec& g) { return Json(g.tdp.value); }},
      {"price_usd", "price", "$", 1, [](const GpuSpec& g) { return Json(g.price.value); }, 6},
      {"price_estimate", "est.", "", 1, [](const GpuSpec& g) { return Json(g.price_estimate); }},
      {"hourly_price_usd_per_h", "hourly", "$/h", 1,
       [](const GpuSpec& g) { return Json(g.hourly_price.value * kSecondsPerHour); }},
      {"efficiency_gemm", "GEMM eff", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.gemm); }},
      {"efficiency_gemm_half_size", "GEMM half", "", 1,
       [](const GpuSpec& g) { return Json(g.efficiency.gemm_half_size); }},
      {"efficiency_hbm", "HBM eff", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.hbm); }},
      {"efficiency_attention", "attn eff", "", 1,
       [](const GpuSpec& g) { return Json(g.efficiency.attention); }},
      {"efficiency_overlap", "overlap", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.overlap); }},
      {"memory_reserve_bytes", "reserve", "GiB", 1073741824.0,
       [](const GpuSpec& g) { return Json(g.memory_reserve.value); }},
      {"scale_up_in_network_efficiency", "NVLS eff", "", 1,
       [](const GpuSpec& g) { return Json(g.scale_up.in_network_efficiency); }},
      {"efficiency_fitted", "fitted", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.fitted); }, 4,
       false},
      {"source", "source", "", 1, [](const GpuSpec& g) { return Json(g.source); }, 4, false},
  };
  fields.insert(fields.end(), rest.begin(), rest.end());
  return fields;
}

std::vector<Field<LinkSpec>> link_fields() {
  return {
      {"name", "name", "", 1, [](const LinkSpec& l) { return Json(l.name); }},
      {"line_rate_Bps", "line rate", "Gb/s", kGigabitPerSecond,
       [](const LinkSpec& l) { return Json(l.line_rate.value); }},
      {"efficiency", "eff", "", 1, [](const LinkSpec& l) { return Json(l.efficiency); }},
      {"effective_bandwidth_Bps", "effective", "GB/s", kGiga,
       [](const LinkSpec& l) { return Json(l.effective_bandwidth().value); }},
      {"latency_s", "latency", "us", kMicro, [](const LinkSpec& l) { return Json(l.latency.value); }},
      {"transport", "transport", "", 1,
       [](const LinkSpec& l) { return Json(std::string(to_string(l.transport))); }},
      {"gpudirect", "GDR", "", 1, [](const LinkSpec& l) { return Json(l.gpudirect); }},
      {"media", "media", "", 1, [](const LinkSpec& l) { return Json(l.media); }},
      {"transceiver_power_w", "xcvr power", "W", 1,
       [](const LinkSpec& l) { return Json(l.transceiver_power.value); }},
      {"transceiver_price_usd", "xcvr price", "$", 1,
       [](const LinkSpec& l) { return Json(l.transceiver_price.value); }, 6},
      {"nic_power_w", "NIC power", "W", 1, [](const LinkSpec& l) { return Json(l.nic_power.value); }},
      {"nic_price_usd", "NIC price", "$", 1, [](const LinkSpec& l) { return Json(l.nic_price.value); }, 6},
      {"price_estimate", "est.", "", 1, [](const LinkSpec& l) { return Json(l.price_estimate); }},
      {"source", "source", "", 1, [](const LinkSpec& l) { return Json(l.source); }, 4, false},
  };
}

std::vector<Field<SwitchSpec>> switch_fields() {
  return {
      {"name", "name", "", 1, [](const SwitchSpec& s) { return Json(s.name); }},
      {"vendor", "vendor", "", 1, [](const SwitchSpec& s) { return Json(s.vendor); }},
      {"radix", "radix", "ports", 1, [](const SwitchSpec& s) { return Json(s.radix); }},
      {"port_bandwidth_Bps", "port speed", "Gb/s", kGigabitPerSecond,
       [](const SwitchSpec& s) { return Json(s.port_bandwidth.value); }},
      {"latency_s", "latency", "ns", kNano, [](const SwitchSpec& s) { return Json(s.latency.value); }},
      {"power_w", "power", "W", 1, [](const SwitchSpec& s) { return Json(s.power.value); }},
      {"price_usd", "price", "$", 1, [](const SwitchSpec& s) { return Json(s.price.value); }, 6},
      {"price_estimate", "est.", "", 1, [](const SwitchSpec& s) { return Json(s.price_estimate); }},
      {"in_network_reduction", "in-network reduction", "", 1,
       [](const SwitchSpec& s) { return Json(std::string(to_string(s.in_network_reduction))); }},
      {"source", "source", "", 1, [](const SwitchSpec& s) { return Json(s.source); }, 4, false},
  };
}

/// A model with its parameter count, computed once.
struct ModelRow {
  ModelSpec model;
  ParameterCount parameters;
};

Json moe_field(const ModelSpec& m, std::int64_t MoeSpec::*member) {
  return m.is_moe() ? Json((*m.moe).*member) : Json();
}
Json moe_field(const ModelSpec& m, int MoeSpec::*member) {
  return m.is_moe() ? Json((*m.moe).*member) : Json();
}

std::vector<Field<ModelRow>> model_fields() {
  return {
      {"name", "name", "", 1, [](const ModelRow& r) { return Json(r.model.name); }},
      {"layers", "layers", "", 1, [](const ModelRow& r) { return Json(r.model.layers); }},
      {"hidden", "hidden", "", 1, [](const ModelRow& r) { return Json(r.model.hidden); }},
      {"heads", "heads", "", 1, [](const ModelRow& r) { return Json(r.model.heads); }},
      {"kv_heads", "kv heads", "", 1, [](const ModelRow& r) { return Json(r.model.kv_heads); }},
      {"ffn_hidden", "ffn hidden", "", 1, [](const ModelRow& r) { return Json(r.model.ffn_hidden); }},
      {"ffn", "ffn", "", 1, [](const ModelRow& r) { return Json(std::string(to_string(r.model.ffn))); }},
      {"vocab", "vocab", "", 1, [](const ModelRow& r) { return Json(r.model.vocab); }},
      {"seq_len", "seq len", "", 1, [](const ModelRow& r) { return Json(r.model.seq_len); }},
      {"tied_embeddings", "tied", "", 1, [](const ModelRow& r) { return Json(r.model.tied_embeddings); }},
      {"bias", "bias", "", 1, [](const ModelRow& r) { return Json(r.model.bias); }},
      {"norm", "norm", "", 1, [](const ModelRow& r) { return Json(std::string(to_string(r.model.norm))); }},
      {"position", "position", "", 1,
       [](const ModelRow& r) { return Json(std::string(to_string(r.model.position))); }},
      {"moe_experts", "experts", "", 1,
       [](const ModelRow& r) { return moe_field(r.model, &MoeSpec::experts); }},
      {"moe_top_k", "top-k", "", 1, [](const ModelRow& r) { return moe_field(r.model, &MoeSpec::top_k); }},
      {"moe_every", "moe every", "", 1,
       [](const ModelRow& r) { return moe_field(r.model, &MoeSpec::every); }},
      {"moe_expert_ffn_hidden", "expert ffn", "", 1,
       [](const ModelRow& r) { return moe_field(r.model, &MoeSpec::expert_ffn_hidden); }},
      {"moe_shared_experts", "shared", "", 1,
       [](const ModelRow& r) { return moe_field(r.model, &MoeSpec::shared_experts); }},
      {"parameters_total", "params", "B", kGiga,
       [](const ModelRow& r) { return exact_count(r.parameters.total); }},
      {"parameters_active", "active", "B", kGiga,
       [](const ModelRow& r) { return exact_count(r.parameters.active); }},
      {"source", "source", "", 1, [](const ModelRow& r) { return Json(r.model.source); }, 4, false},
  };
}

/// One line on each scale-out topology the network model knows.
std::string_view topology_description(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::kFatTree:
      return "folded Clos of leaf/spine(/core) switches; full bisection unless oversubscribed";
    case TopologyKind::kRailOptimized:
      return "fat-tree whose leaves each join the same-index NIC of every node (one rail per GPU index)";
    case TopologyKind::kRailOnly:
      return "one switch network per rail and none between rails; cross-rail traffic goes over NVLink "
             "(Wang et al. 2023)";
    case TopologyKind::kDragonflyPlus:
      return "groups of leaf/spine switches with all-to-all global links between groups (Shpiner et al. "
             "2017)";
    case TopologyKind::kTorus2D:
      return "switchless 2D torus: each node linked to its 4 neighbours with wraparound";
    case TopologyKind::kTorus3D:
      return "switchless 3D torus: each node linked to its 6 neighbours with wraparound (TPU v4 style)";
  }
  return "";
}

std::vector<TopologyKind> all_topologies() {
  std::vector<TopologyKind> kinds;
  for (int k = 0; k < kTopologyKindCount; ++k) kinds.push_back(static_cast<TopologyKind>(k));
  return kinds;
}

std::vector<Field<TopologyKind>> topology_fields() {
  return {
      {"name", "name", "", 1, [](const TopologyKind& k) { return Json(std::string(to_string(k))); }},
      {"description", "description", "", 1,
       [](const TopologyKind& k) { return Json(std::string(topology_description(k))); }},
  };
}

template <typename T>
Json names_of(const std::vector<T>& entries) {
  Json names = Json::array();
  for (const auto& entry : entries) names.push_back(Json(entry.name));
  return names;
}

Table summary_table(const Catalog& catalog) {
  Json topologies = Json::array();
  for (const auto kind : all_topologies()) topologies.push_back(Json(std::string(to_string(kind))));
  const std::vector<std::pair<std::string, Json>> rows = {
      {"gpus", names_of(catalog.gpus)},
      {"links", names_of(catalog.links)},
      {"switches", names_of(catalog.switches)},
      {"models", names_of(catalog.models)},
      {"topologies", topologies},
  };
  Table table;
  table.columns = {Column{"catalog", "catalog", "", 4}, Column{"count", "count", "", 4},
                   Column{"names", "names", "", 4}};
  for (const auto& [name, names] : rows) {
    table.rows.push_back({Json(name), Json(static_cast<std::int64_t>(names.as_array().size())), names});
  }
  table.notes = {"run 'costmodel catalog NAME' for a catalog's numbers, e.g. 'costmodel catalog gpus'"};
  return table;
}

Table catalog_table(const std::string& which, const Catalog& catalog, Format format) {
  if (which == "gpus") {
    Table table = make_table(gpu_fields(), catalog.gpus, format);
    table.notes = {
        "dense peaks (no 2:4 sparsity); scale-up bandwidth per GPU per direction; est. = indicative "
        "price"};
    return table;
  }
  if (which == "links") {
    Table table = make_table(link_fields(), catalog.links, format);
    table.notes = {"rates per direction; effective = line rate x eff; latency excludes switch hops"};
    return table;
  }
  if (which == "switches") return make_table(switch_fields(), catalog.switches, format);
  if (which == "models") {
    std::vector<ModelRow> rows;
    for (const auto& model : catalog.models) rows.push_back({model, count_parameters(model)});
    return make_table(model_fields(), rows, format);
  }
  return make_table(topology_fields(), all_topologies(), format);
}

}  // namespace

int run_catalog(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context, "costmodel catalog [gpus|links|switches|models|topologies] [options]",
      "Prints a catalog with every number: SI values under unit-suffixed keys in json/csv,\n"
      "readable units in table/markdown. Without a catalog name, lists each catalog's names.\n"
      "Catalogs are read from $COSTMODEL_DATA_DIR (data/*.yaml, models/*.yaml).");
  parser.add_positional("catalog", po::value<std::string>()->value_name("CATALOG"), 1);
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  const OutputOptions output = read_output_options(parser.values(), context);

  const auto which = string_option(parser.values(), "catalog");
  if (which && std::find(kCatalogNames.begin(), kCatalogNames.end(), *which) == kCatalogNames.end()) {
    const std::string hint = did_you_mean(*which, kCatalogNames);
    throw usage_error(context, "", "unknown catalog '" + *which + "'",
                      hint.empty() ? "expected one of gpus, links, switches, models, topologies" : hint);
  }
  if (which == "topologies") {
    emit(output, context, catalog_table(*which, Catalog{}, output.format));
    return 0;
  }
  const Catalog catalog = load_catalog();
  emit(output, context, which ? catalog_table(*which, catalog, output.format) : summary_table(catalog));
  return 0;
}

}  // namespace costmodel::cli
