// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/load.hpp"

#include <algorithm>
#include <filesystem>

#include "costmodel/io/hf_config.hpp"
#include "costmodel/spec/names.hpp"
#include "entries.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

ModelSpec model_from(const yaml::Document& document) {
  yaml::Map map(document.file, document.root, "");
  return yaml::read_model(map, std::filesystem::path(document.file).stem().string());
}

// A catalog name, or an inline mapping (starting from the named catalog entry when it has a known `name`).
template <class Spec, class Find, class Read>
Spec name_or_inline(yaml::Map& parent, const std::string& key, Find find, Read read) {
  const YAML::Node node = parent.required(key);
  if (node.IsScalar()) {
    const std::string name = yaml::as_string(parent.file(), node, parent.field(key));
    try {
      return find(name);
    } catch (const Error& e) {
      throw e.at(yaml::location_of(parent.file(), node), parent.field(key));
    }
  }
  if (!node.IsMap()) {
    throw Error(yaml::location_of(parent.file(), node), parent.field(key),
                "expected a catalog name or a mapping, got " + yaml::describe(node));
  }
  yaml::Map inline_map(parent.file(), node, parent.field(key));
  const Spec* base = nullptr;
  Spec named;
  if (inline_map.has("name")) {
    const YAML::Node name_node = inline_map.optional("name");
    try {
      named = find(yaml::as_string(parent.file(), name_node, inline_map.field("name")));
      base = &named;
    } catch (const Error&) {
      // an inline entry with a new name: every field comes from the mapping
    }
  }
  return read(inline_map, base);
}

}  // namespace

namespace yaml {

ClusterSpec read_cluster(Map& map, const Catalog& catalog) {
  ClusterSpec c;
  (void)map.optional_string("name");
  (void)map.optional_string("source");
  c.gpu = name_or_inline<GpuSpec>(
      map, "gpu", [&](const std::string& n) { return catalog.gpu(n); },
      [&](yaml::Map& m, const GpuSpec* base) { return yaml::read_gpu(m, base, &catalog.scale_ups); });
  c.gpus = static_cast<int>(map.integer("gpus", 1, 1 << 30));
  if (map.has("stack")) {
    c.stack = map.string("stack");
    if (!catalog.stacks.empty()) {
      try {
        (void)catalog.stack(c.stack);
      } catch (const Error& e) {
        throw map.error_at("stack", e.message());
      }
    }
  }
  // Unset node fields are the GPU's typical node (data/gpus.yaml `node:`), else 8 GPUs per node.
  const NodeSpec& node = c.gpu.node;
  c.gpus_per_node = static_cast<int>(map.optional_integer("gpus_per_node", 1, 1 << 16).value_or(node.gpus));
  if (map.has("scale_up")) {
    // A fabric of the catalog (`scale_up: ualink-1.0`), a mapping over one (`{name: ualink-1.0, domain:
    // 1024}`), or overrides of the GPU's own fabric.
    const ScaleUpSpec own = c.scale_up_fabric();
    c.scale_up = name_or_inline<ScaleUpSpec>(
        map, "scale_up", [&](const std::string& n) { return catalog.scale_up(n); },
        [&](yaml::Map& m, const ScaleUpSpec* base) {
          return yaml::read_scale_up(m, base ? base : &own, false);
        });
  }
  yaml::Map out = map.map("scale_out");
  if (const auto topology = out.optional_choice("topology", topology_names()))
    c.topology = *parse_topology_kind(*topology);
  c.link = name_or_inline<LinkSpec>(
      out, "link", [&](const std::string& n) { return catalog.link(n); },
      [](yaml::Map& m, const LinkSpec* base) { return yaml::read_link(m, base, false); });
  const bool typical_link = !node.link.empty() && c.link.name == node.link;
  c.nics_per_node = static_cast<int>(
      out.optional_integer("nics_per_node", 1, 1 << 10).value_or(typical_link ? node.nics : c.gpus_per_node));
  if (out.has("switch")) {
    c.switch_spec = name_or_inline<SwitchSpec>(
        out, "switch", [&](const std::string& n) { return catalog.switch_spec(n); },
        [](yaml::Map& m, const SwitchSpec* base) { return yaml::read_switch(m, base, false); });
  } else if (typical_link && !node.switch_name.empty()) {
    c.switch_spec = catalog.switch_spec(node.switch_name);
  } else {
    c.switch_spec = catalog.default_switch_for(c.link);
  }
  c.oversubscription = out.optional_number("oversubscription", 1.0, 1024.0).value_or(1.0);
  if (const auto cables = out.optional_choice("host_cables", {"optical", "copper"})) {
    c.copper_host_links = *cables == "copper";
    if (c.copper_host_links && !(c.link.copper_reach_m > 0.0)) {
      throw out.error_at("host_cables", "link '" + c.link.name +
                                            "' offers no copper cable at its speed (copper_reach_m unset in "
                                            "data/links.yaml): its host links are optical");
    }
  }
  if (const auto reduction = out.optional_choice("in_network", names_of(kScaleOutReductions))) {
    c.in_network = *parse_named(*reduction, kScaleOutReductions);
  }
  if (const auto routing = out.optional_choice("routing", names_of(kRoutings))) {
    c.routing = *parse_routing(*routing);
  }
  if (out.has("torus_dims")) {
    const YAML::Node dims = out.optional("torus_dims");
    if (!dims.IsSequence() || dims.size() < 2 || dims.size() > 3) {
      throw Error(
          yaml::location_of(map.file(), dims), out.field("torus_dims"),
          "expected a list of 2 or 3 sizes, got " +
              (dims.IsSequence() ? "a list of " + std::to_string(dims.size()) : yaml::describe(dims)));
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      c.torus_dims.push_back(static_cast<int>(yaml::as_integer(
          map.file(), dims[i], out.field("torus_dims") + "[" + std::to_string(i) + "]", 1, 1 << 20)));
    }
  }
  out.finish();
  map.finish();
  const auto reasons = validate(c);
  if (!reasons.empty()) throw Error(map.location(), map.path(), reasons.front());
  return c;
}

}  // namespace yaml

namespace {

ClusterSpec cluster_from(const yaml::Document& document, const Catalog& catalog) {
  yaml::Map map(document.file, document.root, "");
  return yaml::read_cluster(map, catalog);
}

}  // namespace

ErrorLocation locate_field(const std::string& path, const std::string& dotted_field) {
  const yaml::Document document = yaml::parse_file(path);
  YAML::Node node = document.root;
  ErrorLocation found{path, 0, 0};
  size_t start = 0;
  while (start <= dotted_field.size()) {
    const size_t dot = std::min(dotted_field.find('.', start), dotted_field.size());
    const std::string key = dotted_field.substr(start, dot - start);
    if (!node.IsMap() || !node[key]) break;
    const YAML::Node child = node[key];
    found = yaml::location_of(path, child);
    node.reset(child);
    start = dot + 1;
  }
  return found;
}

ModelSpec load_model_file(const std::string& path) {
  return model_from(yaml::parse_file(path));
}

ModelSpec load_model_text(const std::string& text, const std::string& filename) {
  return model_from(yaml::parse_text(text, filename));
}

bool names_hf_config(std::string_view name_or_path) {
  return name_or_path.size() >= 5 && name_or_path.substr(name_or_path.size() - 5) == ".json";
}

ModelSpec resolve_model(const std::string& name_or_path, const Catalog& catalog) {
  std::error_code ec;
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               name_or_path.find(".yaml") != std::string::npos ||
                               name_or_path.find(".yml") != std::string::npos;
  if (names_hf_config(name_or_path)) return load_hf_config_file(name_or_path);
  if (looks_like_path || std::filesystem::exists(name_or_path, ec)) return load_model_file(name_or_path);
  return catalog.model(name_or_path);
}

ClusterSpec load_cluster_file(const std::string& path, const Catalog& catalog) {
  return cluster_from(yaml::parse_file(path), catalog);
}

ClusterSpec load_cluster_text(const std::string& text, const std::string& filename, const Catalog& catalog) {
  return cluster_from(yaml::parse_text(text, filename), catalog);
}

ClusterSpec default_cluster(const Catalog& catalog, std::string_view gpu) {
  ClusterSpec c;
  c.gpu = catalog.gpu(gpu);
  c.gpus = 1024;
  c.topology = TopologyKind::kFatTree;
  c.oversubscription = 1.0;
  const NodeSpec& node = c.gpu.node;
  const bool has_node = !node.link.empty();
  c.gpus_per_node = has_node ? node.gpus : 8;
  c.link = catalog.link(has_node ? node.link : "ib-hdr-200g");
  c.nics_per_node = has_node ? node.nics : 8;
  c.switch_spec = has_node && !node.switch_name.empty() ? catalog.switch_spec(node.switch_name)
                                                        : catalog.default_switch_for(c.link);
  return c;
}

ClusterSpec apply_cluster_options(ClusterSpec c, const ClusterOptions& o, const Catalog& catalog) {
  if (o.gpu) {
    c.gpu = catalog.gpu(*o.gpu);
    c.scale_up.reset();  // the new GPU's own scale-up fabric
  }
  if (o.gpus) c.gpus = *o.gpus;
  if (o.gpus_per_node) c.gpus_per_node = *o.gpus_per_node;
  if (o.scale_up) c.scale_up = catalog.scale_up(*o.scale_up);
  if (o.link) {
    c.link = catalog.link(*o.link);
    if (!o.switch_name) c.switch_spec = catalog.default_switch_for(c.link);
  }
  if (o.nics_per_node) c.nics_per_node = *o.nics_per_node;
  if (o.topology) {
    const auto kind = parse_topology_kind(*o.topology);
    if (!kind) {
      throw Error("unknown topology '" + *o.topology + "'; expected " + alternatives(topology_names()));
    }
    c.topology = *kind;
  }
  if (o.switch_name) c.switch_spec = catalog.switch_spec(*o.switch_name);
  if (o.oversubscription) c.oversubscription = *o.oversubscription;
  if (o.in_network) {
    const auto reduction = parse_named(*o.in_network, kScaleOutReductions);
    if (!reduction) {
      throw Error("unknown in-network reduction '" + *o.in_network + "'; expected " +
                  alternatives(names_of(kScaleOutReductions)));
    }
    c.in_network = *reduction;
  }
  if (o.routing) {
    const auto routing = parse_routing(*o.routing);
    if (!routing) {
      throw Error("unknown routing '" + *o.routing + "'; expected " + alternatives(names_of(kRoutings)));
    }
    c.routing = *routing;
  }
  const auto reasons = validate(c);
  if (!reasons.empty()) throw Error(reasons.front());
  return c;
}

}  // namespace costmodel::inline COSTMODEL_ABI
