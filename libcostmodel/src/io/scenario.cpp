// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/scenario.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "costmodel/io/hf_config.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/search/objective.hpp"
#include "costmodel/spec/names.hpp"
#include "entries.hpp"
#include "text.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// ---------------------------------------------------------------------------------------------------
// Paths

const std::vector<std::string> kPlannerKeys = {"topology", "rank_by", "top", "tp_beyond_node", "max_vpp"};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream stream(path);
  for (std::string part; std::getline(stream, part, '.');) parts.push_back(part);
  return parts;
}

/// The path written at `key` (a scalar key of sweep: or of a compare: variant), checked against the schema.
std::string checked_path(const std::string& file, const YAML::Node& key, const std::string& section) {
  std::string path = yaml::as_string(file, key, section);
  const auto& known = scenario_paths();
  if (std::find(known.begin(), known.end(), path) != known.end()) return path;
  const std::string suggestion = closest_name(path, known);
  throw Error(yaml::location_of(file, key), section, "unknown path '" + path + "'",
              suggestion.empty() ? "expected one of cluster.*, model, training.*, planner.* (see the docs)"
                                 : "did you mean '" + suggestion + "'?");
}

/// How a value is named in tables and legends: a scalar as written, an inline entry by its name.
std::string value_label(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsMap() && node["name"] && node["name"].IsScalar()) return node["name"].Scalar();
  if (node.IsSequence()) {
    std::vector<std::string> items;
    for (const auto& item : node) items.push_back(value_label(item));
    return "[" + join(items, ", ") + "]";
  }
  YAML::Emitter flow;
  flow << YAML::Flow << node;
  return flow.c_str();
}

/// Sets the value at `parts` below `base` to `value` (the node itself, so errors point at it).
void apply_override(const YAML::Node& base, const std::vector<std::string>& parts, const YAML::Node& value,
                    const std::string& file, const YAML::Node& key) {
  YAML::Node node;
  node.reset(base);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (node[parts[i]] && !node[parts[i]].IsMap()) {
      throw Error(yaml::location_of(file, key), join(parts, "."),
                  "base." + join({parts.begin(), parts.begin() + static_cast<long>(i) + 1}, ".") +
                      " is not a mapping, so '" + join(parts, ".") + "' cannot be set");
    }
    YAML::Node child = node[parts[i]];
    node.reset(child);
  }
  node[parts.back()] = value;
}

// ---------------------------------------------------------------------------------------------------
// base: reading one case

ModelSpec read_model_node(const std::string& file, const YAML::Node& node, const Catalog& catalog) {
  if (node.IsMap()) {
    yaml::Map map(file, node, "model");
    return yaml::read_model(map, "model");
  }
  const std::string name = yaml::as_string(file, node, "model");
  const bool looks_like_path = name.find('/') != std::string::npos ||
                               name.find(".yaml") != std::string::npos ||
                               name.find(".yml") != std::string::npos;
  try {
    if (looks_like_path || name.find(".json") != std::string::npos) {
      // Relative to the scenario file, so that examples run from any folder; a config.json is Hugging Face's.
      const std::filesystem::path path(name);
      const std::string resolved =
          path.is_absolute() ? name : (std::filesystem::path(file).parent_path() / path).string();
      return path.extension() == ".json" ? load_hf_config_file(resolved) : load_model_file(resolved);
    }
    return catalog.model(name);
  } catch (const Error& e) {
    if (e.location().line > 0) throw;
    throw e.at(yaml::location_of(file, node), "model");
  }
}

std::vector<TopologyChoice> read_topologies(const std::string& file, const YAML::Node& node,
                                            const std::string& field) {
  const auto one = [&](const YAML::Node& item, const std::string& item_field) {
    const std::string text = yaml::as_string(file, item, item_field);
    try {
      return parse_topology_choices(text);
    } catch (const Error& e) {
      throw Error(yaml::location_of(file, item), item_field, e.message(), e.hint());
    }
  };
  if (node.IsScalar()) return one(node, field);
  if (!node.IsSequence() || node.size() == 0) {
    throw Error(yaml::location_of(file, node), field,
                "expected auto, a fabric kind or a list of them, got " + yaml::describe(node));
  }
  std::vector<TopologyChoice> choices;
  for (size_t i = 0; i < node.size(); ++i) {
    for (const auto& choice : one(node[i], field + "[" + std::to_string(i) + "]")) choices.push_back(choice);
  }
  return choices;
}

/// `base:` of one case (overrides applied) -> the planner's request.
ScenarioCase read_case(yaml::Map& base, const Catalog& catalog, std::string_view default_stack) {
  const std::string& file = base.file();
  ScenarioCase c;
  PlanRequest& r = c.request;
  {
    const YAML::Node cluster_node = base.required("cluster");
    yaml::Map cluster(file, cluster_node, "cluster");
    r.cluster = yaml::read_cluster(cluster, catalog);
  }
  r.model = read_model_node(file, base.required("model"), catalog);

  // The stack: the case's own, else its cluster's, else the caller's default (--stack).
  const std::string_view cluster_stack =
      r.cluster.stack.empty() ? default_stack : std::string_view(r.cluster.stack);
  TrainingSpec training;
  if (base.has("training")) {
    yaml::Map t(file, base.optional("training"), "training");  // errors name training.*, as sweeps do
    training = yaml::read_training(t);
    yaml::resolve_stack_in(training, catalog, cluster_stack, t);
  } else {
    yaml::resolve_stack_in(training, catalog, cluster_stack, base);
  }
  const ModelSpec model = r.model;
  const ClusterSpec cluster = r.cluster;
  r = plan_request(model, cluster, training);
  SearchSpace& s = r.space;
  c.pinned = training.pins.tp && training.pins.pp && training.pins.dp;

  r.top_k = 1;
  if (base.has("planner")) {
    yaml::Map p = base.map("planner");
    if (p.has("topology")) r.topologies = read_topologies(file, p.optional("topology"), p.field("topology"));
    if (const auto rank_by = p.optional_choice("rank_by", names_of(kObjectives))) {
      r.objective = *parse_objective(*rank_by);
    }
    if (const auto top = p.optional_integer("top", 1, 1000)) r.top_k = static_cast<int>(*top);
    s.tp_beyond_node = p.optional_boolean("tp_beyond_node").value_or(false);
    s.max_vpp = static_cast<int>(p.optional_integer("max_vpp", 1, 64).value_or(s.max_vpp));
    p.finish();
  }
  base.finish();
  return c;
}

// ---------------------------------------------------------------------------------------------------
// The file

struct SweepAxis {
  std::string path;
  std::vector<std::string> labels;
};

struct Variant {
  std::string name;
  std::vector<std::string> paths;  // in file order
};

std::vector<SweepAxis> read_sweep(const yaml::Document& document) {
  std::vector<SweepAxis> axes;
  const YAML::Node node = document.root["sweep"];
  if (!node) return axes;
  yaml::Map map(document.file, node, "sweep");  // mapping, no duplicates
  for (auto it = node.begin(); it != node.end(); ++it) {
    SweepAxis axis{checked_path(document.file, it->first, "sweep"), {}};
    const YAML::Node values = it->second;
    if (!values.IsSequence() || values.size() == 0) {
      throw Error(yaml::location_of(document.file, values), "sweep." + axis.path,
                  "expected a non-empty list of values, got " + yaml::describe(values),
                  "e.g. " + axis.path + ": [a, b, c]");
    }
    for (const auto& value : values) axis.labels.push_back(value_label(value));
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::vector<Variant> read_compare(const yaml::Document& document) {
  std::vector<Variant> variants;
  const YAML::Node node = document.root["compare"];
  if (!node) return variants;
  yaml::Map map(document.file, node, "compare");
  if (node.size() == 0) throw Error(map.location(), "compare", "expected at least one named variant");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string name = yaml::as_string(document.file, it->first, "compare");
    Variant variant{name, {}};
    const YAML::Node overrides = it->second;
    if (overrides.IsNull()) {
      variants.push_back(std::move(variant));
      continue;
    }
    yaml::Map checked(document.file, overrides, "compare." + name);
    for (auto o = overrides.begin(); o != overrides.end(); ++o) {
      variant.paths.push_back(checked_path(document.file, o->first, "compare." + name));
    }
    variants.push_back(std::move(variant));
  }
  return variants;
}

std::vector<std::string> string_list(const std::string& file, const YAML::Node& node,
                                     const std::string& field, std::vector<YAML::Node>* nodes) {
  if (!node.IsSequence()) {
    throw Error(yaml::location_of(file, node), field, "expected a list, got " + yaml::describe(node));
  }
  std::vector<std::string> items;
  for (size_t i = 0; i < node.size(); ++i) {
    items.push_back(yaml::as_string(file, node[i], field + "[" + std::to_string(i) + "]"));
    if (nodes) nodes->push_back(node[i]);
  }
  return items;
}

/// A (dimension, value) list given as a mapping; each dimension must exist and each value occur.
std::vector<std::pair<std::string, std::string>> read_selection(const std::string& file,
                                                                const YAML::Node& node,
                                                                const std::string& field,
                                                                const Scenario& scenario) {
  std::vector<std::pair<std::string, std::string>> selection;
  yaml::Map map(file, node, field);
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string dimension = yaml::as_string(file, it->first, field);
    const auto d = std::find(scenario.dimensions.begin(), scenario.dimensions.end(), dimension);
    if (d == scenario.dimensions.end()) {
      const std::string suggestion = closest_name(dimension, scenario.dimensions);
      throw Error(
          yaml::location_of(file, it->first), field + "." + dimension,
          "'" + dimension + "' is not swept or compared; expected one of " + join(scenario.dimensions, ", "),
          suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
    }
    const std::string value = value_label(it->second);
    const size_t index = static_cast<size_t>(d - scenario.dimensions.begin());
    std::vector<std::string> values;
    for (const auto& c : scenario.cases) {
      if (std::find(values.begin(), values.end(), c.coordinates[index]) == values.end()) {
        values.push_back(c.coordinates[index]);
      }
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) {
      const std::string suggestion = closest_name(value, values);
      throw Error(yaml::location_of(file, it->second), field + "." + dimension,
                  "no case has " + dimension + " '" + value + "'; expected one of " + join(values, ", "),
                  suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
    }
    selection.emplace_back(dimension, value);
  }
  return selection;
}

void read_report(const yaml::Document& document, Scenario& scenario) {
  const std::string& file = document.file;
  const YAML::Node node = document.root["report"];
  if (!scenario.dimensions.empty()) {
    scenario.plot.x = scenario.dimensions.back();
  }
  if (!node) return;
  yaml::Map report(file, node, "report");
  if (report.has("columns")) {
    std::vector<YAML::Node> nodes;
    scenario.columns = string_list(file, report.optional("columns"), report.field("columns"), &nodes);
    const auto& known = scenario_column_keys();
    for (size_t i = 0; i < scenario.columns.size(); ++i) {
      if (std::find(known.begin(), known.end(), scenario.columns[i]) != known.end()) continue;
      const std::string suggestion = closest_name(scenario.columns[i], known);
      throw Error(
          yaml::location_of(file, nodes[i]), report.field("columns") + "[" + std::to_string(i) + "]",
          "unknown column '" + scenario.columns[i] + "'",
          suggestion.empty() ? "expected one of " + join(known, ", ") : "did you mean '" + suggestion + "'?");
    }
  }
  // rank_by and top here apply to every case (base.planner may set them too; these win).
  if (const auto rank_by = report.optional_choice("rank_by", names_of(kObjectives))) {
    for (auto& c : scenario.cases) c.request.objective = *parse_objective(*rank_by);
  }
  if (const auto top = report.optional_integer("top", 1, 100)) scenario.top = static_cast<int>(*top);
  if (report.has("baseline")) {
    const YAML::Node baseline = report.optional("baseline");
    if (baseline.IsScalar()) {
      // A variant's name.
      if (scenario.dimensions.empty() || scenario.dimensions.front() != kVariantDimension) {
        throw Error(
            yaml::location_of(file, baseline), report.field("baseline"),
            "a baseline name needs compare: variants; give a mapping of swept paths to values instead",
            "e.g. baseline: {cluster.scale_out.link: ib-ndr-400g}");
      }
      std::vector<std::string> names;
      for (const auto& c : scenario.cases) names.push_back(c.coordinates.front());
      if (std::find(names.begin(), names.end(), baseline.Scalar()) == names.end()) {
        const std::string suggestion = closest_name(baseline.Scalar(), names);
        throw Error(yaml::location_of(file, baseline), report.field("baseline"),
                    "no variant named '" + baseline.Scalar() + "'",
                    suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
      }
      scenario.baseline = {{kVariantDimension, baseline.Scalar()}};
    } else {
      scenario.baseline = read_selection(file, baseline, report.field("baseline"), scenario);
    }
  }
  if (report.has("plot")) {
    yaml::Map plot = report.map("plot");
    if (plot.has("x")) {
      const YAML::Node x = plot.optional("x");
      scenario.plot.x = yaml::choose(file, x, plot.field("x"), scenario.dimensions);
    }
    if (plot.has("y")) {
      std::vector<std::string> numeric;
      for (const auto& key : scenario_column_keys()) {
        if (is_numeric_scenario_column(key)) numeric.push_back(key);
      }
      scenario.plot.y = yaml::choose(file, plot.optional("y"), plot.field("y"), numeric);
    }
    if (plot.has("y2")) {
      std::vector<std::string> numeric;
      for (const auto& key : scenario_column_keys()) {
        if (is_numeric_scenario_column(key)) numeric.push_back(key);
      }
      scenario.plot.y2 = yaml::choose(file, plot.optional("y2"), plot.field("y2"), numeric);
    }
    scenario.plot.log_y = plot.optional_boolean("log_y").value_or(false);
    if (const auto style = plot.optional_choice("style", {"lines", "bars"}))
      scenario.plot.bars = *style == "bars";
    scenario.plot.title = plot.optional_string("title").value_or("");
    if (plot.has("where")) {
      scenario.plot.where = read_selection(file, plot.optional("where"), plot.field("where"), scenario);
    }
    plot.finish();
  }
  report.finish();
}

Scenario scenario_from(const std::string& text, const yaml::Document& document, const Catalog& catalog,
                       std::string_view default_stack) {
  Scenario scenario;
  scenario.file = document.file;
  yaml::Map root(document.file, document.root, "");
  scenario.title =
      root.optional_string("title").value_or(std::filesystem::path(document.file).stem().string());
  (void)root.optional_string("description");
  (void)root.map("base");  // required, a mapping
  if (root.has("sweep")) (void)root.optional("sweep");
  if (root.has("compare")) (void)root.optional("compare");
  if (root.has("report")) (void)root.optional("report");
  root.finish();

  const auto axes = read_sweep(document);
  const auto variants = read_compare(document);
  if (!variants.empty()) scenario.dimensions.emplace_back(kVariantDimension);
  for (const auto& axis : axes) {
    if (std::find(scenario.dimensions.begin(), scenario.dimensions.end(), axis.path) !=
        scenario.dimensions.end()) {
      throw Error(document.file + ": sweep: '" + axis.path + "' twice");
    }
    scenario.dimensions.push_back(axis.path);
  }

  // Every variant x every combination of the swept values (odometer, last path fastest). Each case re-reads
  // the document so that overrides replace nodes in a fresh tree and errors keep their positions.
  const size_t variant_count = std::max<size_t>(1, variants.size());
  constexpr size_t kMaxCases = 10000;
  // Counted in floating point so that many axes cannot wrap the product around.
  double cases = static_cast<double>(variant_count);
  for (const auto& axis : axes) cases *= static_cast<double>(axis.labels.size());
  if (cases > static_cast<double>(kMaxCases)) {
    throw Error(
        yaml::location_of(document.file, document.root["sweep"]), "sweep",
        format_number(cases, 6) + " cases, more than " + std::to_string(kMaxCases) + "; sweep fewer values");
  }
  size_t combinations = 1;
  for (const auto& axis : axes) combinations *= axis.labels.size();
  for (size_t v = 0; v < variant_count; ++v) {
    for (size_t k = 0; k < combinations; ++k) {
      const yaml::Document fresh = yaml::parse_text(text, document.file);
      const YAML::Node base = fresh.root["base"];
      std::vector<std::string> coordinates;
      if (!variants.empty()) {
        coordinates.push_back(variants[v].name);
        const YAML::Node overrides = fresh.root["compare"][variants[v].name];
        for (auto it = overrides.begin(); it != overrides.end(); ++it) {
          apply_override(base, split_path(it->first.Scalar()), it->second, document.file, it->first);
        }
      }
      std::vector<size_t> index(axes.size());
      for (size_t a = axes.size(), rest = k; a-- > 0;) {
        index[a] = rest % axes[a].labels.size();
        rest /= axes[a].labels.size();
      }
      const YAML::Node sweep = fresh.root["sweep"];
      size_t a = 0;
      for (auto it = sweep.begin(); it != sweep.end(); ++it, ++a) {
        apply_override(base, split_path(axes[a].path), it->second[index[a]], document.file, it->first);
        coordinates.push_back(axes[a].labels[index[a]]);
      }
      yaml::Map base_map(document.file, base, "base");
      ScenarioCase c = read_case(base_map, catalog, default_stack);
      c.coordinates = std::move(coordinates);
      scenario.cases.push_back(std::move(c));
    }
  }
  read_report(document, scenario);
  return scenario;
}

}  // namespace

const std::vector<std::string>& scenario_paths() {
  static const std::vector<std::string> kPaths = [] {
    std::vector<std::string> paths = {"cluster",
                                      "cluster.gpu",
                                      "cluster.gpus",
                                      "cluster.gpus_per_node",
                                      "cluster.scale_up",
                                      "cluster.scale_up.bandwidth",
                                      "cluster.scale_up.latency",
                                      "cluster.scale_up.domain",
                                      "cluster.scale_up.efficiency",
                                      "cluster.scale_up.in_network_reduction",
                                      "cluster.scale_up.in_network_efficiency",
                                      "cluster.scale_out",
                                      "cluster.scale_out.topology",
                                      "cluster.scale_out.link",
                                      "cluster.scale_out.nics_per_node",
                                      "cluster.scale_out.switch",
                                      "cluster.scale_out.oversubscription",
                                      "cluster.scale_out.torus_dims",
                                      "cluster.scale_out.in_network",
                                      "cluster.scale_out.routing",
                                      "cluster.scale_out.host_cables",
                                      "model"};
    for (const auto& field : training_fields()) paths.push_back("training." + std::string(field.key));
    for (const auto& key : kPlannerKeys) paths.push_back("planner." + key);
    return paths;
  }();
  return kPaths;
}

Scenario load_scenario_text(const std::string& text, const std::string& filename, const Catalog& catalog,
                            std::string_view default_stack) {
  return scenario_from(text, yaml::parse_text(text, filename), catalog, default_stack);
}

Scenario load_scenario_file(const std::string& path, const Catalog& catalog, std::string_view default_stack) {
  const yaml::Document document = yaml::parse_file(path);  // the checks on the file itself
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return scenario_from(text.str(), document, catalog, default_stack);
}

}  // namespace costmodel::inline COSTMODEL_ABI
