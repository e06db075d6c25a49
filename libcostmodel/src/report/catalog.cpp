// SPDX-License-Identifier: Apache-2.0
#include "report/catalog.hpp"

#include <algorithm>

#include <cctype>
#include <cstdint>
#include <utility>

#include "costmodel/error.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/training.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// A number that is 0 when the entry does not have it (unsupported dtype) as null.
Json positive_or_null(double value) {
  return value > 0.0 ? Json(value) : Json();
}

std::vector<ColumnOf<GpuSpec>> gpu_fields() {
  std::vector<ColumnOf<GpuSpec>> fields = {
      {"name", "name", "", 1, [](const GpuSpec& g) { return Json(g.name); }},
      {"vendor", "vendor", "", 1, [](const GpuSpec& g) { return Json(g.vendor); }},
      {"architecture", "arch", "", 1,
       [](const GpuSpec& g) { return Json(std::string(to_string(g.architecture))); }},
  };
  for (int d = 0; d < kDtypeCount; ++d) {
    const auto dtype = static_cast<Dtype>(d);
    const std::string name(to_string(dtype));
    std::string upper = name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    fields.push_back({"peak_" + name + "_flops", upper, "TFLOP/s", kTera,
                      [dtype](const GpuSpec& g) { return positive_or_null(g.peak(dtype).value); }});
  }
  const std::vector<ColumnOf<GpuSpec>> rest = {
      {"hbm_bytes", "HBM", "GiB", kGibi, [](const GpuSpec& g) { return Json(g.hbm.value); }},
      {"hbm_bandwidth_Bps", "HBM bw", "GB/s", kGiga,
       [](const GpuSpec& g) { return Json(g.hbm_bandwidth.value); }},
      {"host_link_Bps", "PCIe", "GB/s", kGiga,
       [](const GpuSpec& g) { return positive_or_null(g.host_link.value); }},
      {"scale_up", "scale-up", "", 1,
       [](const GpuSpec& g) { return g.scale_up.name.empty() ? Json() : Json(g.scale_up.name); }},
      {"library", "library", "", 1, [](const GpuSpec& g) { return Json(g.library); }},
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
       [](const GpuSpec& g) { return Json(g.rental_price.value * kSecondsPerHour); }},
      // The typical server's share per GPU: what owning a GPU adds to its price and TDP.
      {"server_price_usd_per_gpu", "server", "$/GPU", 1,
       [](const GpuSpec& g) { return Json(g.node.server_price.value / std::max(1, g.node.gpus)); }, 6},
      {"server_power_w_per_gpu", "server", "W/GPU", 1,
       [](const GpuSpec& g) { return Json(g.node.server_power.value / std::max(1, g.node.gpus)); }},
      {"efficiency_gemm", "GEMM eff", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.gemm); }},
      {"efficiency_gemm_half_size", "GEMM half", "", 1,
       [](const GpuSpec& g) { return Json(g.efficiency.gemm_half_size); }},
      {"efficiency_hbm", "HBM eff", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.hbm); }},
      {"efficiency_attention", "attn eff", "", 1,
       [](const GpuSpec& g) { return Json(g.efficiency.attention); }},
      {"efficiency_overlap", "overlap", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.overlap); }},
      {"efficiency_ep_overlap", "ep overlap", "", 1,
       [](const GpuSpec& g) { return Json(g.efficiency.ep_overlap); }},
      {"memory_reserve_bytes", "reserve", "GiB", kGibi,
       [](const GpuSpec& g) { return Json(g.memory_reserve.value); }},
      {"scale_up_in_network_efficiency", "NVLS eff", "", 1,
       [](const GpuSpec& g) { return Json(g.scale_up.in_network_efficiency); }},
      {"efficiency_fitted", "fitted", "", 1, [](const GpuSpec& g) { return Json(g.efficiency.fitted); }, 4,
       Audience::kMachines},
      {"source", "source", "", 1, [](const GpuSpec& g) { return Json(g.source); }, 4, Audience::kMachines},
  };
  fields.insert(fields.end(), rest.begin(), rest.end());
  return fields;
}

/// "ll, ll128, simple": the NCCL protocols a link's network runs (LinkSpec::nccl_protocols).
Json nccl_protocols_text(const LinkSpec& l) {
  std::string text;
  for (const std::string_view name : names_in(l.nccl_protocols, kNcclProtocolNames))
    text += (text.empty() ? "" : ", ") + std::string(name);
  return Json(text);
}

/// ["ring", "tree", ...]: the set bits of `mask` by name.
template <std::size_t N>
Json name_list(std::uint8_t mask, const std::array<std::string_view, N>& names) {
  Json list = Json::array();
  for (const std::string_view name : names_in(mask, names)) list.push_back(Json(std::string(name)));
  return list;
}

std::vector<ColumnOf<LinkSpec>> link_fields() {
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
      {"nccl_protocols_text", "NCCL protocols", "", 1, nccl_protocols_text, 4, Audience::kPeople},
      {"nccl_protocols", "", "", 1,
       [](const LinkSpec& l) { return name_list(l.nccl_protocols, kNcclProtocolNames); }, 4,
       Audience::kMachines},
      {"nccl_algorithms", "", "", 1,
       [](const LinkSpec& l) { return name_list(l.nccl_algorithms, kNcclAlgorithmNames); }, 4,
       Audience::kMachines},
      {"nccl_devices", "", "", 1,
       [](const LinkSpec& l) { return Json(std::string(to_string(l.nccl_devices))); }, 4,
       Audience::kMachines},
      {"gpudirect", "GDR", "", 1, [](const LinkSpec& l) { return Json(l.gpudirect); }},
      {"multipath", "multipath", "", 1,
       [](const LinkSpec& l) { return Json(std::string(to_string(l.multipath))); }},
      {"ecmp_flows", "ECMP flows", "", 1,
       [](const LinkSpec& l) { return l.multipath == Multipath::kEcmp ? Json(l.ecmp_flows) : Json(); }},
      {"media", "media", "", 1, [](const LinkSpec& l) { return Json(l.media); }},
      {"transceiver_power_w", "xcvr power", "W", 1,
       [](const LinkSpec& l) { return Json(l.transceiver_power.value); }},
      {"transceiver_price_usd", "xcvr price", "$", 1,
       [](const LinkSpec& l) { return Json(l.transceiver_price.value); }, 6},
      {"nic_power_w", "NIC power", "W", 1, [](const LinkSpec& l) { return Json(l.nic_power.value); }},
      {"nic_price_usd", "NIC price", "$", 1, [](const LinkSpec& l) { return Json(l.nic_price.value); }, 6},
      {"price_estimate", "est.", "", 1, [](const LinkSpec& l) { return Json(l.price_estimate); }},
      {"source", "source", "", 1, [](const LinkSpec& l) { return Json(l.source); }, 4, Audience::kMachines},
  };
}

/// "128 x 400, 256 x 200" (ports x Gb/s), "-" for none.
Json breakouts_text(const SwitchSpec& s) {
  std::string text;
  for (const PortMode& mode : s.breakouts) {
    if (!text.empty()) text += ", ";
    text += std::to_string(mode.radix) + " x " + format_number(mode.port_bandwidth.value / kGigabitPerSecond);
  }
  return text.empty() ? Json() : Json(text);
}

std::vector<ColumnOf<SwitchSpec>> switch_fields() {
  return {
      {"name", "name", "", 1, [](const SwitchSpec& s) { return Json(s.name); }},
      {"vendor", "vendor", "", 1, [](const SwitchSpec& s) { return Json(s.vendor); }},
      {"radix", "radix", "ports", 1, [](const SwitchSpec& s) { return Json(s.radix); }},
      {"port_bandwidth_Bps", "port speed", "Gb/s", kGigabitPerSecond,
       [](const SwitchSpec& s) { return Json(s.port_bandwidth.value); }},
      {"breakouts", "breakouts", "ports x Gb/s", 1, breakouts_text, 4, Audience::kPeople},
      {"breakout_radix", "", "", 1,
       [](const SwitchSpec& s) {
         Json radix = Json::array();
         for (const PortMode& mode : s.breakouts) radix.push_back(Json(mode.radix));
         return radix;
       },
       4, Audience::kMachines},
      {"breakout_port_bandwidth_Bps", "", "", 1,
       [](const SwitchSpec& s) {
         Json bandwidth = Json::array();
         for (const PortMode& mode : s.breakouts) bandwidth.push_back(Json(mode.port_bandwidth.value));
         return bandwidth;
       },
       4, Audience::kMachines},
      {"cages", "cages", "", 1, [](const SwitchSpec& s) { return Json(s.cages > 0 ? s.cages : s.radix); }},
      {"latency_s", "latency", "ns", kNano, [](const SwitchSpec& s) { return Json(s.latency.value); }},
      {"power_w", "power", "W", 1, [](const SwitchSpec& s) { return Json(s.power.value); }},
      {"price_usd", "price", "$", 1, [](const SwitchSpec& s) { return Json(s.price.value); }, 6},
      {"price_estimate", "est.", "", 1, [](const SwitchSpec& s) { return Json(s.price_estimate); }},
      {"in_network_reduction", "in-network reduction", "", 1,
       [](const SwitchSpec& s) { return Json(std::string(to_string(s.in_network_reduction))); }},
      {"source", "source", "", 1, [](const SwitchSpec& s) { return Json(s.source); }, 4, Audience::kMachines},
  };
}

std::vector<ColumnOf<ScaleUpSpec>> scale_up_fields() {
  return {
      {"name", "name", "", 1, [](const ScaleUpSpec& s) { return Json(s.name); }},
      {"topology", "topology", "", 1,
       [](const ScaleUpSpec& s) { return Json(std::string(to_string(s.topology))); }},
      {"bandwidth_Bps", "per GPU", "GB/s", kGiga,
       [](const ScaleUpSpec& s) { return Json(s.bandwidth.value); }},
      {"links", "links", "", 1, [](const ScaleUpSpec& s) { return s.links > 0 ? Json(s.links) : Json(); }},
      {"link_bandwidth_Bps", "per link", "GB/s", kGiga,
       [](const ScaleUpSpec& s) { return Json(s.per_link().value); }},
      {"domain", "domain", "GPUs", 1, [](const ScaleUpSpec& s) { return Json(s.domain); }},
      {"max_domain", "max", "GPUs", 1,
       [](const ScaleUpSpec& s) { return s.largest_domain() > 0 ? Json(s.largest_domain()) : Json(); }},
      {"latency_s", "latency", "us", kMicro, [](const ScaleUpSpec& s) { return Json(s.latency.value); }},
      {"in_network_reduction", "in-network", "", 1,
       [](const ScaleUpSpec& s) { return Json(s.in_network_reduction); }},
      {"efficiency", "eff", "", 1, [](const ScaleUpSpec& s) { return Json(s.efficiency); }},
      {"switches_per_domain", "switches", "/domain", 1,
       [](const ScaleUpSpec& s) { return Json(s.switches_for(s.domain)); }},
      {"switch_power_w", "switch power", "W", 1,
       [](const ScaleUpSpec& s) { return Json(s.switch_power.value); }},
      {"switch_price_usd", "switch price", "$", 1,
       [](const ScaleUpSpec& s) { return Json(s.switch_price.value); }, 6},
      {"price_estimate", "est.", "", 1, [](const ScaleUpSpec& s) { return Json(s.price_estimate); }},
      {"source", "source", "", 1, [](const ScaleUpSpec& s) { return Json(s.source); }, 4,
       Audience::kMachines},
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

std::vector<ColumnOf<ModelRow>> model_fields() {
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
      {"qkv_bias", "qkv bias", "", 1, [](const ModelRow& r) { return Json(r.model.qkv_bias); }, 4,
       Audience::kMachines},
      {"norm", "norm", "", 1, [](const ModelRow& r) { return Json(std::string(to_string(r.model.norm))); }},
      {"position", "position", "", 1,
       [](const ModelRow& r) { return Json(std::string(to_string(r.model.position))); }},
      {"dropout", "dropout", "", 1, [](const ModelRow& r) { return Json(r.model.dropout); }},
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
      {"source", "source", "", 1, [](const ModelRow& r) { return Json(r.model.source); }, 4,
       Audience::kMachines},
  };
}

/// A fabric the library builds, with its catalog entry's sources (data/topologies.yaml).
struct TopologyRow {
  TopologyKind kind = TopologyKind::kFatTree;
  std::string source;
};

/// Every fabric, in TopologyKind order, with its entry's sources where the catalog has them.
std::vector<TopologyRow> topology_rows(const Catalog& catalog) {
  std::vector<TopologyRow> rows;
  for (const TopologyKind kind : topology_kinds()) {
    TopologyRow row{kind, {}};
    for (const TopologyEntry& entry : catalog.topologies) {
      if (entry.name == to_string(kind)) row.source = entry.source;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<ColumnOf<TopologyRow>> topology_kind_fields() {
  return {
      {"name", "name", "", 1, [](const TopologyRow& r) { return Json(std::string(to_string(r.kind))); }},
      {"description", "description", "", 1,
       [](const TopologyRow& r) { return Json(std::string(describe(r.kind))); }},
      {"switched", "switched", "", 1, [](const TopologyRow& r) { return Json(traits(r.kind).switched); }, 4,
       Audience::kMachines},
      {"source", "source", "", 1, [](const TopologyRow& r) { return Json(r.source); }, 4,
       Audience::kMachines},
  };
}

/// A stack's stages as "0 1 3", or "-".
std::string stages_text(const std::vector<int>& stages) {
  std::string text;
  for (const int stage : stages) {
    if (!text.empty()) text += ' ';
    text += std::to_string(stage);  // not `" " + to_string()`: g++ 12 -O3 warns -Wrestrict on it (PR 105329)
  }
  return text.empty() ? "-" : text;
}

/// The named features of a stack that are `present` (or absent), in the order of data/stacks.yaml.
std::string stack_features(const StackFeatures& f, bool present) {
  std::string text;
  for (const StackFeatureFlag& flag : stack_feature_flags()) {
    if (f.*flag.member == present) text += (text.empty() ? "" : " ") + std::string(flag.key);
  }
  if (present) {
    std::string graphs;
    for (const CudaGraphs g : f.cuda_graphs)
      graphs += (graphs.empty() ? "" : ",") + std::string(to_string(g));
    text += (text.empty() ? "" : " ") + ("cuda_graphs:" + graphs);
  }
  return text.empty() ? "-" : text;
}

std::vector<ColumnOf<StackSpec>> stack_fields() {
  return {
      {"name", "name", "", 1, [](const StackSpec& s) { return Json(s.name); }},
      {"library", "library", "", 1, [](const StackSpec& s) { return Json(s.library); }},
      {"zero", "zero", "", 1, [](const StackSpec& s) { return Json(stages_text(s.features.zero)); }},
      {"zero_with_pipeline", "zero with pp", "", 1,
       [](const StackSpec& s) { return Json(stages_text(s.features.zero_with_pipeline)); }},
      {"lacks", "lacks", "", 1, [](const StackSpec& s) { return Json(stack_features(s.features, false)); }},
      {"defaults", "launch defaults", "", 1,
       [](const StackSpec& s) {
         std::string text;
         for (const auto& [key, value] : s.defaults) text += (text.empty() ? "" : " ") + key + "=" + value;
         return Json(text.empty() ? "-" : text);
       }},
      {"features", "features", "", 1,
       [](const StackSpec& s) { return Json(stack_features(s.features, true)); }, 4, Audience::kMachines},
      {"description", "description", "", 1, [](const StackSpec& s) { return Json(s.description); }},
      {"source", "source", "", 1, [](const StackSpec& s) { return Json(s.source); }, 4, Audience::kMachines},
  };
}

std::vector<ColumnOf<TrainingField>> knob_fields() {
  return {
      {"key", "key", "", 1, [](const TrainingField& f) { return Json(std::string(f.key)); }},
      {"flag", "flag", "", 1, [](const TrainingField& f) { return Json("--" + std::string(f.flag)); }},
      {"split", "split", "", 1, [](const TrainingField& f) { return Json(f.pin); }},
      {"column", "column", "", 1, [](const TrainingField& f) { return Json(f.column != nullptr); }},
      {"help", "values [default]", "", 1, [](const TrainingField& f) { return Json(std::string(f.help)); }},
  };
}

/// A catalog's entry names as a JSON array; `name` gives one entry's (default: its `name` field).
template <typename T, typename Name>
Json names_of(const std::vector<T>& entries, Name name) {
  Json names = Json::array();
  for (const auto& entry : entries) names.push_back(Json(std::string(name(entry))));
  return names;
}

template <typename T>
Json names_of(const std::vector<T>& entries) {
  return names_of(entries, [](const T& entry) -> const std::string& { return entry.name; });
}

}  // namespace

const std::vector<std::string>& catalog_names() {
  static const std::vector<std::string> kNames = {"gpus",   "links",      "switches", "scale-up",
                                                  "models", "topologies", "knobs",    "stacks"};
  return kNames;
}

Table knobs_table(const std::vector<TrainingField>& fields) {
  Table table = make_table(knob_fields(), fields);
  table.notes = {
      "key: in YAML (runs files, scenarios' training.*); flag: on the command line; split: a "
      "parallel degree the planner chooses unless pinned; column: a key of plan and estimate JSON, a "
      "column of plan CSV and a scenario column, with each configuration's value"};
  return table;
}

Table catalog_summary_table(const Catalog& catalog) {
  const std::vector<std::pair<std::string, Json>> rows = {
      {"gpus", names_of(catalog.gpus)},
      {"links", names_of(catalog.links)},
      {"switches", names_of(catalog.switches)},
      {"scale-up", names_of(catalog.scale_ups)},
      {"models", names_of(catalog.models)},
      {"topologies", names_of(topology_kinds(), [](TopologyKind kind) { return to_string(kind); })},
      {"knobs", names_of(training_fields(), [](const TrainingField& field) { return field.key; })},
      {"stacks", names_of(catalog.stacks)},
  };
  Table table;
  table.columns = {Column{"catalog", "catalog", ""}, Column{"count", "count", ""},
                   Column{"names", "names", ""}};
  for (const auto& [name, names] : rows) {
    table.rows.push_back({Json(name), Json(static_cast<std::int64_t>(names.as_array().size())), names});
  }
  table.notes = {"run 'costmodel catalog NAME' for a catalog's numbers, e.g. 'costmodel catalog gpus'"};
  return table;
}

Table catalog_table(std::string_view which, const Catalog& catalog) {
  if (which == "gpus") {
    Table table = make_table(gpu_fields(), catalog.gpus);
    table.notes = {
        "dense peaks (no 2:4 sparsity); scale-up bandwidth per GPU per direction; est. = indicative "
        "price"};
    return table;
  }
  if (which == "links") {
    Table table = make_table(link_fields(), catalog.links);
    table.notes = {"rates per direction; effective = line rate x eff; latency excludes switch hops"};
    return table;
  }
  if (which == "switches") return make_table(switch_fields(), catalog.switches);
  if (which == "scale-up") {
    Table table = make_table(scale_up_fields(), catalog.scale_ups);
    table.notes = {
        "bandwidth per direction; a full mesh's pair of GPUs shares one link; switches per domain of the "
        "default size; est. = indicative switch price"};
    return table;
  }
  if (which == "models") {
    std::vector<ModelRow> rows;
    for (const auto& model : catalog.models) rows.push_back({model, count_parameters(model)});
    return make_table(model_fields(), rows);
  }
  if (which == "knobs") return knobs_table(training_fields());
  if (which == "stacks") {
    Table table = make_table(stack_fields(), catalog.stacks);
    table.notes = {
        "the planner proposes only what a stack runs; launch defaults apply to the knobs a user leaves "
        "unset; sources per feature: docs/stacks.md"};
    return table;
  }
  if (which != "topologies") throw Error("unknown catalog '" + std::string(which) + "'");
  return make_table(topology_kind_fields(), topology_rows(catalog));
}

}  // namespace costmodel::inline COSTMODEL_ABI
