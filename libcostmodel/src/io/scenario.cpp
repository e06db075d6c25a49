#include "costmodel/io/scenario.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "costmodel/io/load.hpp"
#include "costmodel/io/results.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/search/objective.hpp"
#include "entries.hpp"
#include "yaml_reader.hpp"

namespace costmodel {
namespace {

// ---------------------------------------------------------------------------------------------------
// Paths

const std::vector<std::string> kTrainingKeys = {
    "global_batch", "seq_len",      "micro_batch",  "recompute", "zero",
    "dtype",        "tokens",       "compression",  "overlap",   "sequence_parallel",
    "attention",    "dp_algorithm", "tp_algorithm", "tp",        "pp",
    "dp",           "cp",           "ep",           "vpp"};
const std::vector<std::string> kPlannerKeys = {"topology", "rank_by", "top", "tp_beyond_node", "max_vpp"};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream stream(path);
  for (std::string part; std::getline(stream, part, '.');) parts.push_back(part);
  return parts;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

/// The path written at `key` (a scalar key of sweep: or of a compare: variant), checked against the schema.
std::string checked_path(const std::string& file, const YAML::Node& key, const std::string& section) {
  const std::string path = yaml::as_string(file, key, section);
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
void apply_override(YAML::Node base, const std::vector<std::string>& parts, const YAML::Node& value,
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

// "300e9", "300000000000", "300B", "1.5T" tokens.
double read_tokens(const std::string& file, const YAML::Node& node, const std::string& field) {
  const std::string text = yaml::as_string(file, node, field);
  try {
    return parse_token_count(text);
  } catch (const Error& e) {
    throw e.at(yaml::location_of(file, node), field);
  }
}

std::optional<bool> read_switch_value(yaml::Map& map, const std::string& key) {
  if (!map.has(key)) return std::nullopt;
  const YAML::Node node = map.optional(key);
  const std::string text = yaml::choose(map.file(), node, map.field(key), {"true", "false", "on", "off"});
  return text == "true" || text == "on";
}

Algorithm read_algorithm(yaml::Map& map, const std::string& key) {
  const auto text = map.optional_choice(key, {"auto", "ring", "tree", "halving-doubling", "hierarchical",
                                              "direct", "in-network", "torus-bucket"});
  return text ? parse_algorithm(*text).value_or(Algorithm::kAuto) : Algorithm::kAuto;
}

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
    if (looks_like_path) {
      // Relative to the scenario file, so that examples run from any folder.
      const std::filesystem::path path(name);
      return load_model_file(
          path.is_absolute() ? name : (std::filesystem::path(file).parent_path() / path).string());
    }
    return catalog.model(name);
  } catch (const Error& e) {
    if (e.location().line > 0) throw;
    throw e.at(yaml::location_of(file, node), "model");
  }
}

std::vector<TopologyChoice> read_topologies(const std::string& file, const YAML::Node& node,
                                            const std::string& field) {
  std::vector<std::string> names;
  for (int k = 0; k < kTopologyKindCount; ++k) names.emplace_back(to_string(static_cast<TopologyKind>(k)));
  const auto one = [&](const YAML::Node& item, const std::string& item_field) {
    const std::string text = yaml::as_string(file, item, item_field);
    const auto colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const auto kind = parse_topology_kind(name);
    if (!kind) {
      const std::string suggestion = closest_name(name, names);
      throw Error(yaml::location_of(file, item), item_field,
                  "unknown topology '" + name + "', expected auto or one of " + join(names, ", "),
                  suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
    }
    TopologyChoice choice{*kind, std::nullopt};
    if (colon != std::string::npos) {
      double over = 0.0;
      try {
        over = parse_number(text.substr(colon + 1));
      } catch (const Error&) {
        over = 0.0;
      }
      if (!(over >= 1.0) || !std::isfinite(over)) {
        throw Error(yaml::location_of(file, item), item_field,
                    "bad oversubscription in '" + text + "'; expected KIND:R with R >= 1, e.g. fat-tree:2");
      }
      choice.oversubscription = over;
    }
    return choice;
  };
  if (node.IsScalar() && node.Scalar() == "auto") return auto_topologies();
  if (node.IsScalar()) return {one(node, field)};
  if (!node.IsSequence() || node.size() == 0) {
    throw Error(yaml::location_of(file, node), field,
                "expected auto, a fabric kind or a list of them, got " + yaml::describe(node));
  }
  std::vector<TopologyChoice> choices;
  for (size_t i = 0; i < node.size(); ++i)
    choices.push_back(one(node[i], field + "[" + std::to_string(i) + "]"));
  return choices;
}

/// `base:` of one case (overrides applied) -> the planner's request.
ScenarioCase read_case(yaml::Map& base, const Catalog& catalog) {
  const std::string& file = base.file();
  ScenarioCase c;
  PlanRequest& r = c.request;
  {
    const YAML::Node cluster_node = base.required("cluster");
    yaml::Map cluster(file, cluster_node, "cluster");
    r.cluster = yaml::read_cluster(cluster, catalog);
  }
  r.model = read_model_node(file, base.required("model"), catalog);

  yaml::Map t(file, base.has("training") ? base.optional("training") : YAML::Node(YAML::NodeType::Map),
              "training");
  if (const auto seq_len = t.optional_integer("seq_len", 1, 1 << 24)) r.model.seq_len = *seq_len;
  const auto global_batch = t.optional_integer("global_batch", 1, 1 << 30);
  r.training.global_batch =
      global_batch ? static_cast<int>(*global_batch) : default_global_batch(r.model, r.cluster.gpus);
  if (const auto dtype = t.optional_choice("dtype", {"bf16", "fp16", "fp8"}))
    r.training.dtype = *parse_dtype(*dtype);
  if (t.has("compression")) {
    const YAML::Node node = t.optional("compression");
    try {
      r.training.compression = parse_compression(yaml::as_string(file, node, t.field("compression")));
    } catch (const Error& e) {
      if (e.location().line > 0) throw;
      throw e.at(yaml::location_of(file, node), t.field("compression"));
    }
  }
  if (t.has("tokens")) r.options.tokens = read_tokens(file, t.optional("tokens"), t.field("tokens"));
  if (const auto attention = t.optional_choice("attention", {"flash", "standard"})) {
    r.options.flash_attention = *attention == "flash";
  }
  r.options.dp_algorithm = read_algorithm(t, "dp_algorithm");
  r.options.tp_algorithm = read_algorithm(t, "tp_algorithm");

  SearchSpace& s = r.space;
  const auto pin = [&](std::vector<int>& knob, const std::string& key, int min, int max) {
    if (const auto value = t.optional_integer(key, min, max)) knob = {static_cast<int>(*value)};
  };
  pin(s.tp, "tp", 1, 1 << 20);
  pin(s.pp, "pp", 1, 1 << 20);
  pin(s.dp, "dp", 1, 1 << 30);
  pin(s.cp, "cp", 1, 1 << 20);
  pin(s.ep, "ep", 1, 1 << 20);
  pin(s.vpp, "vpp", 1, 1 << 10);
  pin(s.micro_batch, "micro_batch", 1, 1 << 30);
  pin(s.zero, "zero", 0, 3);
  if (const auto recompute = t.optional_choice("recompute", {"none", "selective", "full"})) {
    s.recompute = {*parse_recompute(*recompute)};
  }
  if (const auto overlap = read_switch_value(t, "overlap")) s.overlap = {*overlap};
  if (const auto sp = read_switch_value(t, "sequence_parallel")) s.sequence_parallel = {*sp};
  t.finish();
  c.pinned = !s.tp.empty() && !s.pp.empty() && !s.dp.empty();

  r.top_k = 1;
  if (base.has("planner")) {
    yaml::Map p = base.map("planner");
    if (p.has("topology")) r.topologies = read_topologies(file, p.optional("topology"), p.field("topology"));
    if (const auto rank_by = p.optional_choice("rank_by", {"time", "cost", "switches"})) {
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
    const auto known = scenario_column_keys();
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
  if (const auto rank_by = report.optional_choice("rank_by", {"time", "cost", "switches"})) {
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
        if (key != "split" && key != "recompute" && key != "topology" && key != "note" &&
            key != "fits_memory") {
          numeric.push_back(key);
        }
      }
      scenario.plot.y = yaml::choose(file, plot.optional("y"), plot.field("y"), numeric);
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

Scenario scenario_from(const std::string& text, const yaml::Document& document, const Catalog& catalog) {
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
      ScenarioCase c = read_case(base_map, catalog);
      c.coordinates = std::move(coordinates);
      scenario.cases.push_back(std::move(c));
    }
  }
  read_report(document, scenario);
  return scenario;
}

// ---------------------------------------------------------------------------------------------------
// Columns

struct RowView {
  const ScenarioCase& scenario_case;
  const ScenarioRow& row;
  const StepEstimate& estimate;
  const StepEstimate* baseline;  // the baseline case's best, or nullptr
  const ScenarioRow* baseline_row;
  const ScenarioCase* baseline_case;
};

struct ColumnDef {
  std::string key;     // json/csv, SI
  std::string header;  // table/markdown
  std::string unit;
  double scale = 1.0;  // table/markdown value = SI value / scale
  int precision = 4;
  Json (*get)(const RowView&);
};

std::string split_text(const Strategy& s) {
  std::string text =
      "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp) + " dp" + std::to_string(s.dp);
  if (s.cp > 1) text += " cp" + std::to_string(s.cp);
  if (s.ep > 1) text += " ep" + std::to_string(s.ep);
  if (s.vpp > 1) text += " vpp" + std::to_string(s.vpp);
  return text;
}

std::string fabric_text(const StepEstimate& e) {
  std::string text(to_string(e.topology));
  if (e.oversubscription != 1.0) text += " " + format_number(e.oversubscription, 3) + ":1";
  return text;
}

double exposed_comm(const StepEstimate& e) {
  const auto& b = e.breakdown;
  return b.tp_comm.value + b.cp_comm.value + b.ep_comm.value + b.pp_comm.value + b.dp_comm_exposed.value;
}

double case_cost(const StepEstimate& e, const ScenarioCase& c) {
  return score(e, c.request.cluster.gpu.hourly_price).cost_usd;
}

Json delta(const RowView& v, double (*value)(const RowView&, bool)) {
  if (!v.baseline) return Json();
  return Json(value(v, false) - value(v, true));
}

const std::vector<ColumnDef>& column_defs() {
  static const std::vector<ColumnDef> kColumns = {
      {"split", "split", "", 1, 4, [](const RowView& v) { return Json(split_text(v.estimate.strategy)); }},
      {"tp", "tp", "", 1, 4, [](const RowView& v) { return Json(v.estimate.strategy.tp); }},
      {"pp", "pp", "", 1, 4, [](const RowView& v) { return Json(v.estimate.strategy.pp); }},
      {"dp", "dp", "", 1, 6, [](const RowView& v) { return Json(v.estimate.strategy.dp); }},
      {"cp", "cp", "", 1, 4, [](const RowView& v) { return Json(v.estimate.strategy.cp); }},
      {"ep", "ep", "", 1, 4, [](const RowView& v) { return Json(v.estimate.strategy.ep); }},
      {"vpp", "vpp", "", 1, 4, [](const RowView& v) { return Json(v.estimate.strategy.vpp); }},
      {"micro_batch", "mb", "", 1, 4, [](const RowView& v) { return Json(v.estimate.strategy.micro_batch); }},
      {"global_batch", "batch", "", 1, 6,
       [](const RowView& v) { return Json(v.estimate.strategy.global_batch); }},
      {"recompute", "recompute", "", 1, 4,
       [](const RowView& v) { return Json(std::string(to_string(v.estimate.strategy.recompute))); }},
      {"zero", "zero", "", 1, 2, [](const RowView& v) { return Json(v.estimate.strategy.zero); }},
      {"topology", "fabric", "", 1, 4, [](const RowView& v) { return Json(fabric_text(v.estimate)); }},
      {"fits_memory", "fits", "", 1, 1, [](const RowView& v) { return Json(v.estimate.fits_memory); }},
      {"step_time_s", "step", "s", 1, 4, [](const RowView& v) { return Json(v.estimate.step_time.value); }},
      {"tokens_per_s", "tokens/s", "M", 1e6, 4,
       [](const RowView& v) { return Json(v.estimate.tokens_per_s); }},
      {"model_tflops_per_gpu", "model", "TFLOP/s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.model_tflops_per_gpu); }},
      {"hardware_tflops_per_gpu", "hardware", "TFLOP/s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.hardware_tflops_per_gpu); }},
      {"mfu", "MFU", "%", 0.01, 3, [](const RowView& v) { return Json(v.estimate.mfu); }},
      {"memory_per_gpu_bytes", "memory", "GiB", 1073741824.0, 3,
       [](const RowView& v) { return Json(v.estimate.memory.total.value); }},
      {"comm_share", "exposed comm", "%", 0.01, 3,
       [](const RowView& v) {
         const double step = v.estimate.step_time.value;
         return Json(step > 0 ? exposed_comm(v.estimate) / step : 0.0);
       }},
      {"compute_s", "compute", "s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.breakdown.compute.value); }},
      {"tp_comm_s", "TP comm", "s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.breakdown.tp_comm.value); }},
      {"ep_comm_s", "EP comm", "s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.breakdown.ep_comm.value); }},
      {"pp_bubble_s", "bubble", "s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.breakdown.pp_bubble.value); }},
      {"dp_comm_s", "DP comm", "s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.breakdown.dp_comm.value); }},
      {"dp_comm_exposed_s", "DP exposed", "s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.breakdown.dp_comm_exposed.value); }},
      {"optimizer_s", "optimizer", "s", 1, 4,
       [](const RowView& v) { return Json(v.estimate.breakdown.optimizer.value); }},
      {"training_days", "days", "", 1, 4,
       [](const RowView& v) { return v.estimate.training_days ? Json(*v.estimate.training_days) : Json(); }},
      {"cost_usd", "cost", "M$", 1e6, 4,
       [](const RowView& v) { return v.estimate.cost ? Json(v.estimate.cost->value) : Json(); }},
      {"switches", "switches", "", 1, 6, [](const RowView& v) { return Json(v.estimate.switches); }},
      {"transceivers", "optics", "", 1, 6, [](const RowView& v) { return Json(v.row.transceivers); }},
      {"diameter", "diameter", "", 1, 3, [](const RowView& v) { return Json(v.row.diameter); }},
      {"network_cost_usd", "net capex", "M$", 1e6, 4,
       [](const RowView& v) { return Json(v.estimate.network_cost.value); }},
      {"network_power_w", "net power", "kW", 1e3, 4,
       [](const RowView& v) { return Json(v.row.network_power.value); }},
      {"power_w", "power", "MW", 1e6, 4, [](const RowView& v) { return Json(v.estimate.power.value); }},
      {"speedup", "speed-up", "x", 1, 3,
       [](const RowView& v) {
         return v.baseline && v.estimate.step_time.value > 0
                    ? Json(v.baseline->step_time.value / v.estimate.step_time.value)
                    : Json();
       }},
      {"cost_delta", "cost +/-", "%", 0.01, 3,
       [](const RowView& v) {
         if (!v.baseline) return Json();
         const double base = case_cost(*v.baseline, *v.baseline_case);
         return base > 0 ? Json(case_cost(v.estimate, v.scenario_case) / base - 1.0) : Json();
       }},
      {"switches_delta", "switches +/-", "", 1, 6,
       [](const RowView& v) {
         return v.baseline ? Json(v.estimate.switches - v.baseline->switches) : Json();
       }},
      {"network_cost_delta_usd", "net capex +/-", "M$", 1e6, 4,
       [](const RowView& v) {
         return delta(v, [](const RowView& r, bool base) {
           return base ? r.baseline->network_cost.value : r.estimate.network_cost.value;
         });
       }},
      {"network_power_delta_w", "net power +/-", "kW", 1e3, 4,
       [](const RowView& v) {
         return delta(v, [](const RowView& r, bool base) {
           return base ? r.baseline_row->network_power.value : r.row.network_power.value;
         });
       }},
      {"power_delta_w", "power +/-", "kW", 1e3, 4,
       [](const RowView& v) {
         return delta(v, [](const RowView& r, bool base) {
           return base ? r.baseline->power.value : r.estimate.power.value;
         });
       }},
      {"evaluated", "evaluated", "", 1, 8, [](const RowView& v) { return Json(v.row.evaluated); }},
      {"feasible", "feasible", "", 1, 8, [](const RowView& v) { return Json(v.row.feasible); }},
  };
  return kColumns;
}

const std::vector<std::string> kDefaultColumns = {
    "split",      "micro_batch",   "recompute", "topology", "step_time_s",     "mfu",
    "comm_share", "training_days", "cost_usd",  "switches", "network_power_w", "speedup",
    "cost_delta", "switches_delta"};

const ColumnDef& column(const std::string& key) {
  for (const auto& c : column_defs()) {
    if (c.key == key) return c;
  }
  throw Error("internal: unknown scenario column '" + key + "'", ErrorKind::kInternal);
}

/// A dimension's header: its path without the section prefix.
std::string dimension_header(const std::string& dimension) {
  for (const std::string prefix : {"cluster.", "training.", "planner."}) {
    if (dimension.rfind(prefix, 0) == 0) return dimension.substr(prefix.size());
  }
  return dimension;
}

/// A coordinate as a JSON number when it is one.
Json coordinate_json(const std::string& text) {
  try {
    const double value = parse_number(text);
    if (value == std::floor(value) && std::fabs(value) < 9e15) return Json(static_cast<std::int64_t>(value));
    return Json(value);
  } catch (const Error&) {
    return Json(text);
  }
}

bool is_number(const std::string& text) {
  try {
    (void)parse_number(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------

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
                                      "model"};
    for (const auto& key : kTrainingKeys) paths.push_back("training." + key);
    for (const auto& key : kPlannerKeys) paths.push_back("planner." + key);
    return paths;
  }();
  return kPaths;
}

std::vector<std::string> scenario_column_keys() {
  std::vector<std::string> keys;
  for (const auto& c : column_defs()) keys.push_back(c.key);
  return keys;
}

Scenario load_scenario_text(const std::string& text, const std::string& filename, const Catalog& catalog) {
  return scenario_from(text, yaml::parse_text(text, filename), catalog);
}

Scenario load_scenario_file(const std::string& path, const Catalog& catalog) {
  const yaml::Document document = yaml::parse_file(path);  // the checks on the file itself
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return scenario_from(text.str(), document, catalog);
}

ScenarioResult run_scenario(const Scenario& scenario, const ScenarioProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioResult result;
  const double total = static_cast<double>(std::max<size_t>(1, scenario.cases.size()));
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& c = scenario.cases[i];
    ScenarioRow row;
    PlanRequest request = c.request;
    const int top = scenario.top.value_or(request.top_k);
    request.top_k = top;
    try {
      const PlanResult plan_result = plan(request, [&](double fraction) {
        if (progress) progress((static_cast<double>(i) + fraction) / total);
      });
      row.evaluated = plan_result.evaluated;
      row.feasible = plan_result.feasible;
      for (size_t k = 0; k < plan_result.top.size() && static_cast<int>(k) < top; ++k) {
        row.best.push_back(plan_result.top[k]);
      }
      if (row.best.empty() && c.pinned && !plan_result.closest.empty() &&
          plan_result.closest.front().estimate.valid()) {
        // The pinned split does not fit: report what it would do, flagged (the estimator's answer).
        row.best.push_back(plan_result.closest.front().estimate);
        row.note = "pinned split does not fit: " + join(plan_result.closest.front().reasons, "; ");
      } else if (row.best.empty()) {
        std::vector<std::string> reasons;
        for (int k = 0; k < kRejectionReasonCount; ++k) {
          if (plan_result.rejected[static_cast<size_t>(k)] > 0) {
            reasons.push_back(std::string(rejection_reason_name(k)) + " " +
                              std::to_string(plan_result.rejected[static_cast<size_t>(k)]));
          }
        }
        row.note = reasons.empty() ? "nothing feasible: no split satisfies the pins"
                                   : "nothing feasible (rejected: " + join(reasons, ", ") + ")";
        if (!plan_result.closest.empty() && !plan_result.closest.front().reasons.empty()) {
          row.note += "; closest: " + plan_result.closest.front().reasons.front();
        }
      }
      for (const auto& skipped : plan_result.skipped_topologies) {
        row.note += (row.note.empty() ? "skipped " : "; skipped ") + skipped;
      }
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
      row.note = e.message();
    }
    if (!row.best.empty()) {
      ClusterSpec cluster = c.request.cluster;
      cluster.topology = row.best.front().topology;
      cluster.oversubscription = row.best.front().oversubscription;
      const Topology topology = build_topology(cluster);
      row.diameter = topology.diameter;
      row.transceivers = topology.inventory.optical_transceivers;
      row.network_power = topology.inventory.power;
    }
    result.rows.push_back(std::move(row));
    if (progress) progress(static_cast<double>(i + 1) / total);
  }
  // Baselines: the case equal on every dimension but those the baseline names.
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    std::optional<size_t> found;
    if (scenario.baseline.empty()) {
      found = 0;
    } else {
      for (size_t j = 0; j < scenario.cases.size() && !found; ++j) {
        bool match = true;
        for (size_t d = 0; d < scenario.dimensions.size() && match; ++d) {
          const auto named = std::find_if(scenario.baseline.begin(), scenario.baseline.end(),
                                          [&](const auto& b) { return b.first == scenario.dimensions[d]; });
          const std::string& want =
              named != scenario.baseline.end() ? named->second : scenario.cases[i].coordinates[d];
          match = scenario.cases[j].coordinates[d] == want;
        }
        if (match) found = j;
      }
    }
    if (found && !result.rows[*found].best.empty() && !result.rows[i].best.empty())
      result.rows[i].baseline = found;
  }
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

Table scenario_table(const Scenario& scenario, const ScenarioResult& result, Format format) {
  const bool human = format == Format::kTable || format == Format::kMarkdown;
  const auto& keys = scenario.columns.empty() ? kDefaultColumns : scenario.columns;
  Table table;
  table.title = scenario.title;
  for (const auto& d : scenario.dimensions) {
    table.columns.push_back({d, human ? dimension_header(d) : d, "", 6});
  }
  const bool ranked =
      std::any_of(result.rows.begin(), result.rows.end(), [](const auto& r) { return r.best.size() > 1; });
  if (ranked) table.columns.push_back({"rank", "#", "", 3});
  for (const auto& key : keys) {
    const ColumnDef& c = column(key);
    table.columns.push_back({c.key, human ? c.header : c.key, human ? c.unit : "", c.precision});
  }
  if (!human) table.columns.push_back({"note", "note", "", 4});
  std::int64_t evaluated = 0;
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& sc = scenario.cases[i];
    const ScenarioRow& row = result.rows[i];
    evaluated += row.evaluated;
    const auto dimensions = [&](std::vector<Json>& cells) {
      for (const auto& value : sc.coordinates) cells.push_back(human ? Json(value) : coordinate_json(value));
    };
    if (row.best.empty()) {
      std::vector<Json> cells;
      dimensions(cells);
      if (ranked) cells.emplace_back();
      for (size_t k = 0; k < keys.size(); ++k) cells.emplace_back();
      if (!human) cells.emplace_back(row.note);
      table.rows.push_back(std::move(cells));
    }
    for (size_t rank = 0; rank < row.best.size(); ++rank) {
      const ScenarioRow* base_row = row.baseline ? &result.rows[*row.baseline] : nullptr;
      const RowView view{sc,
                         row,
                         row.best[rank],
                         base_row ? &base_row->best.front() : nullptr,
                         base_row,
                         row.baseline ? &scenario.cases[*row.baseline] : nullptr};
      std::vector<Json> cells;
      dimensions(cells);
      if (ranked) cells.emplace_back(static_cast<int>(rank + 1));
      for (const auto& key : keys) {
        const ColumnDef& c = column(key);
        Json cell = c.get(view);
        if (human && c.scale != 1.0) {
          if (const auto* n = std::get_if<std::int64_t>(&cell.value()))
            cell = Json(static_cast<double>(*n) / c.scale);
          if (const auto* d = std::get_if<double>(&cell.value())) cell = Json(*d / c.scale);
        }
        cells.push_back(std::move(cell));
      }
      if (!human) cells.emplace_back(row.note);
      table.rows.push_back(std::move(cells));
    }
    if (human && !row.note.empty()) {
      std::vector<std::string> coordinates;
      for (const auto& value : sc.coordinates) coordinates.push_back(value);
      table.notes.push_back("[" + join(coordinates, ", ") + "] " + row.note);
    }
  }
  if (human) {
    std::ostringstream summary;
    summary << scenario.cases.size() << " cases, " << evaluated << " configurations evaluated in "
            << format_number(result.elapsed_s, 3) << " s; deltas against ";
    if (scenario.baseline.empty()) {
      summary << "the first row";
    } else {
      std::vector<std::string> parts;
      for (const auto& [dimension, value] : scenario.baseline) parts.push_back(dimension + " = " + value);
      summary << join(parts, ", ");
    }
    table.notes.insert(table.notes.begin(), summary.str());
  }
  return table;
}

Json scenario_json(const Scenario& scenario, const ScenarioResult& result) {
  const auto keys = scenario_column_keys();
  Json rows = Json::array();
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& sc = scenario.cases[i];
    const ScenarioRow& row = result.rows[i];
    const ScenarioRow* base_row = row.baseline ? &result.rows[*row.baseline] : nullptr;
    Json object = Json::object();
    for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
      object.set(scenario.dimensions[d], coordinate_json(sc.coordinates[d]));
    }
    Json configurations = Json::array();
    for (const auto& e : row.best) configurations.push_back(configuration_json(e));
    object.set("configurations", std::move(configurations));
    object.set("evaluated", Json(row.evaluated)).set("feasible", Json(row.feasible));
    if (!row.best.empty()) {
      const RowView view{sc,
                         row,
                         row.best.front(),
                         base_row ? &base_row->best.front() : nullptr,
                         base_row,
                         row.baseline ? &scenario.cases[*row.baseline] : nullptr};
      for (const char* key :
           {"comm_share", "transceivers", "diameter", "network_power_w", "speedup", "cost_delta",
            "switches_delta", "network_cost_delta_usd", "network_power_delta_w", "power_delta_w"}) {
        object.set(key, column(key).get(view));
      }
    }
    object.set("baseline_row", row.baseline ? Json(static_cast<std::int64_t>(*row.baseline)) : Json());
    object.set("note", row.note.empty() ? Json() : Json(row.note));
    rows.push_back(std::move(object));
  }
  Json dimensions = Json::array();
  for (const auto& d : scenario.dimensions) dimensions.push_back(Json(d));
  Json document = Json::object();
  document.set("scenario", Json(scenario.title))
      .set("dimensions", std::move(dimensions))
      .set("rows", std::move(rows))
      .set("elapsed_s", Json(result.elapsed_s));
  return document;
}

LineChart scenario_chart(const Scenario& scenario, const ScenarioResult& result) {
  LineChart chart;
  chart.title = scenario.plot.title.empty() ? scenario.title : scenario.plot.title;
  const ColumnDef& y = column(scenario.plot.y);
  static const std::map<std::string, std::string> kLongNames = {
      {"step_time_s", "step time"},          {"speedup", "speed-up over the baseline"},
      {"network_cost_usd", "network capex"}, {"network_power_w", "network power"},
      {"training_days", "days to train"},    {"comm_share", "exposed communication"},
      {"cost_usd", "cost to train"},         {"power_w", "power, GPUs and fabric"},
      {"tokens_per_s", "tokens per second"}, {"model_tflops_per_gpu", "model TFLOP/s per GPU"}};
  const auto long_name = kLongNames.find(y.key);
  chart.y_label = (long_name != kLongNames.end() ? long_name->second : y.header) +
                  (y.unit.empty() ? "" : " (" + y.unit + ")");
  chart.log_y = scenario.plot.log_y;
  const auto x_at = std::find(scenario.dimensions.begin(), scenario.dimensions.end(), scenario.plot.x);
  const size_t x_index = static_cast<size_t>(x_at - scenario.dimensions.begin());
  const bool has_x = x_at != scenario.dimensions.end();
  chart.x_label = has_x ? dimension_header(scenario.plot.x) : "case";
  if (scenario.plot.x == "cluster.gpus" || scenario.plot.x == "cluster.scale_up.domain")
    chart.x_label += " (GPUs)";
  std::vector<std::string> where_text;
  for (const auto& [dimension, value] : scenario.plot.where) {
    where_text.push_back(dimension_header(dimension) + " " + value);
  }
  chart.subtitle = join(where_text, ", ");

  std::map<std::string, size_t> series_index;
  for (size_t i = 0; i < scenario.cases.size(); ++i) {
    const ScenarioCase& sc = scenario.cases[i];
    bool selected = true;
    for (const auto& [dimension, value] : scenario.plot.where) {
      const auto d = std::find(scenario.dimensions.begin(), scenario.dimensions.end(), dimension);
      selected = selected && sc.coordinates[static_cast<size_t>(d - scenario.dimensions.begin())] == value;
    }
    if (!selected) continue;
    const std::string category = has_x ? sc.coordinates[x_index] : std::to_string(i + 1);
    auto category_at = std::find(chart.categories.begin(), chart.categories.end(), category);
    if (category_at == chart.categories.end()) {
      chart.categories.push_back(category);
      category_at = chart.categories.end() - 1;
    }
    std::vector<std::string> name_parts;
    for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
      if (has_x && d == x_index) continue;
      const bool filtered = std::any_of(scenario.plot.where.begin(), scenario.plot.where.end(),
                                        [&](const auto& w) { return w.first == scenario.dimensions[d]; });
      if (filtered) continue;
      const std::string& value = sc.coordinates[d];
      const bool bare =
          is_number(value) || value == "on" || value == "off" || value == "true" || value == "false";
      name_parts.push_back(bare ? dimension_header(scenario.dimensions[d]) + " " + value : value);
    }
    const std::string name = name_parts.empty() ? y.header : join(name_parts, ", ");
    auto [it, inserted] = series_index.emplace(name, chart.series.size());
    if (inserted) chart.series.push_back(LineSeries{name, {}});
    auto& series = chart.series[it->second];
    const size_t at = static_cast<size_t>(category_at - chart.categories.begin());
    if (series.y.size() <= at) series.y.resize(at + 1, std::nan(""));
    const ScenarioRow& row = result.rows[i];
    double value = std::nan("");
    if (!row.best.empty()) {
      const ScenarioRow* base_row = row.baseline ? &result.rows[*row.baseline] : nullptr;
      const RowView view{sc,
                         row,
                         row.best.front(),
                         base_row ? &base_row->best.front() : nullptr,
                         base_row,
                         row.baseline ? &scenario.cases[*row.baseline] : nullptr};
      const Json cell = y.get(view);
      if (const auto* n = std::get_if<std::int64_t>(&cell.value())) value = static_cast<double>(*n) / y.scale;
      if (const auto* d = std::get_if<double>(&cell.value())) value = *d / y.scale;
    }
    series.y[at] = value;
  }
  for (auto& s : chart.series) s.y.resize(chart.categories.size(), std::nan(""));
  // Variants are not an ordered quantity: bars, unless lines were asked for.
  chart.bars = scenario.plot.bars.value_or(!has_x || scenario.plot.x == kVariantDimension);
  return chart;
}

}  // namespace costmodel
