// SPDX-License-Identifier: Apache-2.0
#include "entries.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "costmodel/spec/collective.hpp"
#include "costmodel/spec/names.hpp"

namespace costmodel::inline COSTMODEL_ABI::yaml {
namespace {

constexpr std::int64_t kMaxDimension = 1LL << 24;  // 16.7M: far beyond any model's width, safe in products
constexpr std::int64_t kMaxLayers = 100000;

// Reads `key` as a quantity: required without a base, else an override of `fallback`.
template <Dimension D>
Quantity<D> quantity_or(Map& map, const std::string& key, const Quantity<D>* fallback,
                        bool allow_zero = false) {
  if (fallback == nullptr) return Quantity<D>(map.quantity(key, D, allow_zero));
  return Quantity<D>(map.optional_quantity(key, D, allow_zero).value_or(fallback->value));
}

// Some keys have a second spelling (`bandwidth` for `line_rate`); the first present one is read.
std::string present_key(Map& map, const std::string& key, const std::string& alias) {
  return (!map.has(key) && map.has(alias)) ? alias : key;
}

// `breakouts: [{radix: 128, port_bandwidth: 400Gbps}, ...]`: the switch's other port modes.
std::vector<PortMode> read_breakouts(Map& map) {
  const YAML::Node list = map.optional("breakouts");
  if (!list.IsSequence()) {
    throw Error(location_of(map.file(), list), map.field("breakouts"),
                "expected a list of {radix, port_bandwidth}, got " + describe(list));
  }
  std::vector<PortMode> modes;
  for (size_t i = 0; i < list.size(); ++i) {
    Map entry(map.file(), list[i], map.field("breakouts") + "[" + std::to_string(i) + "]");
    PortMode mode;
    mode.radix = static_cast<int>(entry.integer("radix", 2, 1 << 16));
    mode.port_bandwidth = BytesPerSecond(entry.quantity("port_bandwidth", Dimension::kBytesPerSecond));
    entry.finish();
    modes.push_back(mode);
  }
  return modes;
}

// `protocols: {ll: {step_latency: 2.1us, bandwidth_factor: 0.9}, ll128: {...}, simple: {...}}`: what
// `costmodel calibrate` measured per NCCL protocol on one fabric level.
// `nccl_protocols: [ll128, simple]` / `nccl_algorithms: [ring, tree]`: the NCCL protocols (algorithms) a
// link's network runs (NCCL_PROTO / NCCL_ALGO as its net plugin or vendor sets it); a non-empty list of
// `names`, as a bit mask in their order.
template <std::size_t N>
std::uint8_t read_name_set(Map& map, const std::string& key, const std::array<std::string_view, N>& names,
                           std::uint8_t fallback) {
  const YAML::Node node = map.optional(key);
  if (!node.IsDefined()) return fallback;
  const std::string field = map.field(key);
  const std::vector<std::string> choices(names.begin(), names.end());
  if (!node.IsSequence() || node.size() == 0) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    throw Error(yaml::location_of(map.file(), node), field,
                "expected a non-empty list of " + list + ", got " +
                    (node.IsSequence() ? std::string("an empty list") : yaml::describe(node)));
  }
  std::uint8_t mask = 0;
  for (const YAML::Node& item : node) {
    const std::string name = yaml::choose(map.file(), item, field, choices);
    const auto i = std::find(names.begin(), names.end(), name) - names.begin();
    mask = static_cast<std::uint8_t>(mask | (1U << i));
  }
  return mask;
}

ProtocolCalibration read_protocols(Map& map, ProtocolCalibration calibration) {
  if (!map.has("protocols")) return calibration;
  Map protocols = map.map("protocols");
  for (std::size_t p = 0; p < kNcclProtocolNames.size(); ++p) {
    const std::string name(kNcclProtocolNames.at(p));
    if (!protocols.has(name)) continue;
    Map entry = protocols.map(name);
    calibration.step_latency[p] = Seconds(entry.optional_quantity("step_latency", Dimension::kSeconds)
                                              .value_or(calibration.step_latency[p].value));
    calibration.bandwidth[p] =
        entry.optional_number("bandwidth_factor", 0.01, 100.0).value_or(calibration.bandwidth[p]);
    entry.finish();
  }
  protocols.finish();
  return calibration;
}

}  // namespace

ScaleUpSpec read_scale_up(Map& map, const ScaleUpSpec* base, bool catalog_entry) {
  ScaleUpSpec s = base ? *base : ScaleUpSpec{};
  if (catalog_entry) {
    s.name = map.string("name");
    s.source = map.string("source");
  } else {
    s.name = map.optional_string("name").value_or(s.name);
    s.source = map.optional_string("source").value_or(s.source);
  }
  const std::vector<std::string> topologies{"switched", "full-mesh"};
  const std::string topology =
      catalog_entry
          ? map.choice("topology", topologies)
          : map.optional_choice("topology", topologies).value_or(std::string(to_string(s.topology)));
  s.topology = *parse_scale_up_topology(topology);
  s.links = static_cast<int>(map.optional_integer("links", 1, 1 << 12).value_or(s.links));
  s.link_bandwidth = BytesPerSecond(
      map.optional_quantity("link_bandwidth", Dimension::kBytesPerSecond).value_or(s.link_bandwidth.value));
  // The bandwidth per GPU: stated, or its links times one link's (every link of a GPU at once).
  const bool from_links = !map.has("bandwidth") && s.links > 0 && s.link_bandwidth.value > 0.0 &&
                          (base == nullptr || map.has("links") || map.has("link_bandwidth"));
  if (from_links) {
    s.bandwidth = s.link_bandwidth * static_cast<double>(s.links);
  } else {
    s.bandwidth = quantity_or(map, "bandwidth", base ? &base->bandwidth : nullptr);
  }
  s.latency = quantity_or(map, "latency", base ? &base->latency : nullptr, true);
  if (base) {
    s.domain = static_cast<int>(map.optional_integer("domain", 1, 1 << 20).value_or(s.domain));
    s.in_network_reduction = map.optional_boolean("in_network_reduction").value_or(s.in_network_reduction);
  } else {
    s.domain = static_cast<int>(map.integer("domain", 1, 1 << 20));
    s.in_network_reduction = map.boolean("in_network_reduction");
  }
  s.max_domain = static_cast<int>(map.optional_integer("max_domain", 1, 1 << 20).value_or(s.max_domain));
  s.efficiency = map.optional_number("efficiency", 0.01, 1.0).value_or(s.efficiency);
  (void)map.optional_string("calibration");  // where the efficiencies come from: documentation only
  s.in_network_efficiency =
      map.optional_number("in_network_efficiency", 0.01, 1.0).value_or(s.in_network_efficiency);
  s.protocols = read_protocols(map, s.protocols);
  s.switch_radix =
      static_cast<int>(map.optional_integer("switch_radix", 2, 1 << 16).value_or(s.switch_radix));
  s.switches = static_cast<int>(map.optional_integer("switches", 0, 1 << 20).value_or(s.switches));
  s.switch_power =
      Watts(map.optional_quantity("switch_power", Dimension::kWatts, true).value_or(s.switch_power.value));
  s.switch_price =
      Usd(map.optional_quantity("switch_price", Dimension::kUsd, true).value_or(s.switch_price.value));
  s.price_estimate = map.optional_boolean("price_estimate").value_or(s.price_estimate);
  if (s.topology == ScaleUpTopology::kFullMesh && s.switch_radix > 0) {
    throw map.error_at("switch_radix", "a full mesh has no switches; drop switch_radix or use switched");
  }
  for (const std::string& problem : s.domain_problems(s.domain)) throw map.error_at("domain", problem);
  map.finish();
  return s;
}

namespace {

// A GPU's `scale_up:`: a fabric catalog name, or a mapping (overrides of the fabric it names with `name:`
// when the catalog has it, else of `base`, else a fabric of its own with every field given).
ScaleUpSpec read_gpu_scale_up(Map& map, const ScaleUpSpec* base, const std::vector<ScaleUpSpec>* fabrics) {
  const YAML::Node node = map.required("scale_up");
  const auto find = [&](const std::string& name) -> const ScaleUpSpec* {
    if (fabrics == nullptr) return nullptr;
    for (const ScaleUpSpec& f : *fabrics) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  if (node.IsScalar()) {
    const std::string name = as_string(map.file(), node, map.field("scale_up"));
    if (const ScaleUpSpec* fabric = find(name)) return *fabric;
    std::vector<std::string> names;
    if (fabrics != nullptr) {
      for (const ScaleUpSpec& f : *fabrics) names.push_back(f.name);
    }
    const std::string suggestion = closest_name(name, names);
    throw Error(location_of(map.file(), node), map.field("scale_up"),
                "unknown scale-up fabric '" + name + "'",
                suggestion.empty() ? "see costmodel catalog scale-up" : "did you mean '" + suggestion + "'?");
  }
  Map scale_up = map.map("scale_up");
  const ScaleUpSpec* named = nullptr;
  if (scale_up.has("name")) {
    named = find(as_string(map.file(), scale_up.node()["name"], scale_up.field("name")));
  }
  return read_scale_up(scale_up, named ? named : base, false);
}

std::string default_library(const std::string& vendor) {
  if (vendor == "amd") return "RCCL";
  if (vendor == "intel") return "HCCL";
  return "NCCL";
}

}  // namespace

GpuSpec read_gpu(Map& map, const GpuSpec* base, const std::vector<ScaleUpSpec>* fabrics) {
  GpuSpec g = base ? *base : GpuSpec{};
  if (base) {
    g.name = map.optional_string("name").value_or(g.name);
    g.vendor = map.optional_string("vendor").value_or(g.vendor);
    g.source = map.optional_string("source").value_or(g.source);
    g.price_estimate = map.optional_boolean("price_estimate").value_or(g.price_estimate);
  } else {
    g.name = map.string("name");
    g.vendor = map.string("vendor");
    g.source = map.string("source");
    g.price_estimate = map.optional_boolean("price_estimate").value_or(false);
  }
  if (!base || map.has("peak_flops")) {
    Map peak = map.map("peak_flops");
    bool any = false;
    for (int i = 0; i < kDtypeCount; ++i) {
      const auto dtype = static_cast<Dtype>(i);
      if (auto v = peak.optional_quantity(std::string(to_string(dtype)), Dimension::kFlopsPerSecond)) {
        g.peak_flops[static_cast<size_t>(i)] = FlopsPerSecond(*v);
        any = true;
      }
    }
    peak.finish();
    if (!any)
      throw map.error_at("peak_flops", "lists no dtype; expected at least one of fp32 tf32 bf16 fp16 fp8");
  }
  g.hbm = quantity_or(map, "hbm", base ? &base->hbm : nullptr);
  g.hbm_bandwidth = quantity_or(map, "hbm_bandwidth", base ? &base->hbm_bandwidth : nullptr);
  if (map.has("node")) {
    // A catalog entry describes its node in full; an inline entry (with a base) overrides what it names.
    Map node = map.map("node");
    NodeSpec& n = g.node;
    if (base) {
      n.gpus = static_cast<int>(node.optional_integer("gpus", 1, 1 << 16).value_or(n.gpus));
      n.link = node.optional_string("link").value_or(n.link);
      n.nics = static_cast<int>(node.optional_integer("nics", 1, 1 << 10).value_or(n.nics));
      n.switch_name = node.optional_string("switch").value_or(n.switch_name);
      n.source = node.optional_string("source").value_or(n.source);
    } else {
      n.gpus = static_cast<int>(node.integer("gpus", 1, 1 << 16));
      n.link = node.string("link");
      n.nics = static_cast<int>(node.integer("nics", 1, 1 << 10));
      n.switch_name = node.string("switch");
      n.source = node.string("source");
    }
    n.server_price =
        Usd(node.optional_quantity("server_price", Dimension::kUsd, true).value_or(n.server_price.value));
    n.price_estimate = node.optional_boolean("price_estimate").value_or(n.price_estimate);
    n.server_power =
        Watts(node.optional_quantity("server_power", Dimension::kWatts, true).value_or(n.server_power.value));
    n.load_power = node.optional_number("load_power", 0.01, 1.0).value_or(n.load_power);
    n.nic_ports_per_module = static_cast<int>(
        node.optional_integer("nic_ports_per_module", 1, 8).value_or(n.nic_ports_per_module));
    n.host_bandwidth = BytesPerSecond(node.optional_quantity("host_bandwidth", Dimension::kBytesPerSecond)
                                          .value_or(n.host_bandwidth.value));
    n.host_op = Seconds(node.optional_quantity("host_op", Dimension::kSeconds).value_or(n.host_op.value));
    n.host_launch =
        Seconds(node.optional_quantity("host_launch", Dimension::kSeconds).value_or(n.host_launch.value));
    n.host_sync =
        Seconds(node.optional_quantity("host_sync", Dimension::kSeconds).value_or(n.host_sync.value));
    n.slow_host_share = node.optional_number("slow_host_share", 0.0, 1.0).value_or(n.slow_host_share);
    n.slow_host_slowdown =
        node.optional_number("slow_host_slowdown", 0.0, 1.0).value_or(n.slow_host_slowdown);
    node.finish();
  }
  const std::vector<std::string> architectures = names_of<GpuArchitecture>(kGpuArchitectureCount);
  const std::string architecture = base ? map.optional_choice("architecture", architectures)
                                              .value_or(std::string(to_string(g.architecture)))
                                        : map.choice("architecture", architectures);
  g.architecture = *parse_gpu_architecture(architecture);
  g.host_link = BytesPerSecond(
      map.optional_quantity("host_link", Dimension::kBytesPerSecond, true).value_or(g.host_link.value));
  if (!base || map.has("scale_up"))
    g.scale_up = read_gpu_scale_up(map, base ? &base->scale_up : nullptr, fabrics);
  const std::string library = map.optional_choice("library", {"NCCL", "RCCL", "HCCL", "ICI", "Neuron"})
                                  .value_or(base ? g.library : default_library(g.vendor));
  g.library = library;
  g.tdp = quantity_or(map, "tdp", base ? &base->tdp : nullptr);
  g.price = quantity_or(map, "price", base ? &base->price : nullptr, true);
  g.rental_price = quantity_or(map, "hourly_price", base ? &base->rental_price : nullptr, true);
  g.memory_reserve = quantity_or(map, "memory_reserve", base ? &base->memory_reserve : nullptr, true);
  if (!base || map.has("efficiency")) {
    Map e = map.map("efficiency");
    if (base) {
      g.efficiency.gemm = e.optional_number("gemm", 0.01, 1.0).value_or(g.efficiency.gemm);
      g.efficiency.gemm_half_size =
          e.optional_number("gemm_half_size", 0.0, 1e6).value_or(g.efficiency.gemm_half_size);
      g.efficiency.hbm = e.optional_number("hbm", 0.01, 1.0).value_or(g.efficiency.hbm);
      g.efficiency.attention = e.optional_number("attention", 0.01, 1.0).value_or(g.efficiency.attention);
      g.efficiency.overlap = e.optional_number("overlap", 0.0, 1.0).value_or(g.efficiency.overlap);
      g.efficiency.ep_overlap = e.optional_number("ep_overlap", 0.0, 1.0).value_or(g.efficiency.ep_overlap);
    } else {
      g.efficiency.gemm = e.number("gemm", 0.01, 1.0);
      g.efficiency.gemm_half_size = e.number("gemm_half_size", 0.0, 1e6);
      g.efficiency.hbm = e.number("hbm", 0.01, 1.0);
      g.efficiency.attention = e.number("attention", 0.01, 1.0);
      g.efficiency.overlap = e.number("overlap", 0.0, 1.0);
      // Optional: without a measurement of its own, the expert all-to-all overlap is the GPU's overlap.
      g.efficiency.ep_overlap = e.optional_number("ep_overlap", 0.0, 1.0).value_or(g.efficiency.overlap);
    }
    g.efficiency.fitted = e.optional_string("fitted").value_or(g.efficiency.fitted);
    e.finish();
  }
  map.finish();
  return g;
}

namespace {

// A list of catalog names under `key` (possibly empty), each checked by `find` (throws with the closest).
template <class Find>
std::vector<std::string> read_names(Map& map, const std::string& key, Find find) {
  const YAML::Node list = map.required(key);
  if (!list.IsSequence()) {
    throw Error(location_of(map.file(), list), map.field(key),
                "expected a list of names, got " + describe(list));
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = map.field(key) + "[" + std::to_string(i) + "]";
    std::string name = as_string(map.file(), list[i], field);
    try {
      (void)find(name);
    } catch (const Error& e) {
      throw e.at(location_of(map.file(), list[i]), field);
    }
    names.push_back(std::move(name));
  }
  return names;
}

// `vertices: [[bytes, ranks], ...]`: a region's polygon, 2 to 20 corners (the plug-in's
// TUNER_MAX_NUM_VERTICES), stored as the plug-in stores them (tuner_vertex).
std::vector<TunerVertex> read_vertices(Map& map) {
  constexpr std::size_t kMaxVertices = 20;
  const YAML::Node list = map.required("vertices");
  const std::string field = map.field("vertices");
  if (!list.IsSequence() || list.size() < 2 || list.size() > kMaxVertices) {
    throw Error(location_of(map.file(), list), field,
                "expected a list of 2 to 20 [bytes, ranks] pairs, got " +
                    (list.IsSequence() ? "a list of " + std::to_string(list.size()) : describe(list)));
  }
  std::vector<TunerVertex> vertices;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    const YAML::Node pair = list[i];
    if (!pair.IsSequence() || pair.size() != 2) {
      throw Error(location_of(map.file(), pair), at, "expected [bytes, ranks], got " + describe(pair));
    }
    const double bytes = as_number(map.file(), pair[0], at + "[0]", 0.0, 1e15);
    const double ranks = as_number(map.file(), pair[1], at + "[1]", 0.0, 1e9);
    vertices.push_back(tuner_vertex(bytes, ranks));
  }
  return vertices;
}

}  // namespace

NcclTuner read_nccl_tuner(Map& map, const Catalog& catalog) {
  NcclTuner t;
  t.name = map.string("name");
  t.plugin = map.string("plugin");
  t.platform = map.string("platform");
  t.gpus = read_names(map, "gpus", [&](const std::string& n) { return catalog.gpu(n); });
  t.links = read_names(map, "links", [&](const std::string& n) { return catalog.link(n); });
  t.min_nodes = static_cast<int>(map.integer("min_nodes", 1, 1 << 20));
  t.source = map.string("source");
  const YAML::Node list = map.required("regions");
  if (!list.IsSequence()) {
    throw Error(location_of(map.file(), list), map.field("regions"),
                "expected a list of regions, got " + describe(list));
  }
  // The collectives, algorithms and protocols a tuner table may name (NCCL's tuner plug-in regions), spelt by
  // their to_string.
  const std::vector<std::string> collectives =
      names_of(std::array{Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather,
                          Collective::kBroadcast, Collective::kReduce});
  const std::vector<std::string> algorithms =
      names_of(std::array{Algorithm::kRing, Algorithm::kDoubleBinaryTree, Algorithm::kInNetwork,
                          Algorithm::kNvlsTree, Algorithm::kPat});
  const std::vector<std::string> protocols =
      names_of(std::array{Protocol::kLL, Protocol::kLL128, Protocol::kSimple});
  for (std::size_t i = 0; i < list.size(); ++i) {
    Map entry(map.file(), list[i], map.field("regions") + "[" + std::to_string(i) + "]");
    TunerRegion region;
    region.ranks_per_node = static_cast<int>(entry.integer("ranks_per_node", 1, 1 << 16));
    region.collective = *parse_collective(entry.choice("collective", collectives));
    region.algorithm = *parse_algorithm(entry.choice("algorithm", algorithms));
    region.protocol = *parse_protocol(entry.choice("protocol", protocols));
    region.vertices = read_vertices(entry);
    entry.finish();
    t.regions.push_back(std::move(region));
  }
  map.finish();
  return t;
}

namespace {

// A list of choices under `key` of `features`, each one of `choices`, parsed by `parse`; absent: `fallback`.
template <class T, class Parse>
std::vector<T> read_choices(Map& features, const std::string& key, const std::vector<std::string>& choices,
                            Parse parse, std::vector<T> fallback) {
  if (!features.has(key)) return fallback;
  const YAML::Node list = features.required(key);
  if (!list.IsSequence()) {
    throw Error(location_of(features.file(), list), features.field(key),
                "expected a list such as [" + choices.front() + "], got " + describe(list));
  }
  std::vector<T> values;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = features.field(key) + "[" + std::to_string(i) + "]";
    values.push_back(parse(choose(features.file(), list[i], field, choices)));
  }
  return values;
}

// The same for an enum knob: each of `values`, spelt by its to_string.
template <class T, std::size_t N>
std::vector<T> read_choices(Map& features, const std::string& key, const std::array<T, N>& values,
                            std::vector<T> fallback) {
  return read_choices<T>(
      features, key, names_of(values), [&](const std::string& text) { return *parse_named(text, values); },
      std::move(fallback));
}

}  // namespace

void resolve_stack_in(TrainingSpec& spec, const Catalog& catalog, std::string_view cluster_stack,
                      const Map& training) {
  try {
    resolve_stack(spec, catalog, cluster_stack);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInternal) throw;
    const std::string key = e.field().empty() ? "stack" : e.field();
    throw training.error_at(key, e.message(), e.hint());
  }
}

TopologyEntry read_topology_entry(Map& map) {
  TopologyEntry entry;
  entry.name = map.string("name");
  if (!parse_topology_kind(entry.name)) {
    const std::string suggestion = closest_name(entry.name, topology_names());
    throw map.error_at("name", "no fabric '" + entry.name + "' in libcostmodel/src/network/fabrics/",
                       suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
  }
  entry.source = map.string("source");
  map.finish();
  return entry;
}

StackSpec read_stack(Map& map) {
  StackSpec stack;
  stack.name = map.string("name");
  stack.description = map.string("description");
  stack.library = map.string("library");
  stack.source = map.string("source");
  Map f = map.map("features");
  StackFeatures& features = stack.features;
  const auto stage = [](const std::string& text) { return text[0] - '0'; };
  const std::vector<std::string> stages{"0", "1", "2", "3"};
  features.zero = read_choices<int>(f, "zero", stages, stage, {0});
  features.zero_with_pipeline = read_choices<int>(f, "zero_with_pipeline", stages, stage, {});
  for (const int z : features.zero_with_pipeline) {
    if (std::find(features.zero.begin(), features.zero.end(), z) == features.zero.end()) {
      throw f.error_at("zero_with_pipeline",
                       "stage " + std::to_string(z) + " is not among the stack's zero stages");
    }
  }
  for (const StackFeatureFlag& flag : stack_feature_flags()) features.*flag.member = f.boolean(flag.key);
  if (features.dp_overlap_with_pipeline && !features.dp_overlap)
    throw f.error_at("dp_overlap_with_pipeline", "needs dp_overlap");
  features.cuda_graphs = read_choices(f, "cuda_graphs", kCudaGraphsModes, {CudaGraphs::kOff});
  features.zero3_gather = read_choices(f, "zero3_gather", kZero3Gathers, {Zero3Gather::kFlat});
  f.finish();
  if (map.has("dp_bucket")) {
    Map b = map.map("dp_bucket");
    stack.dp_bucket.params = b.number("params", 1.0, 1e12);
    stack.dp_bucket.params_per_rank = b.optional_number("params_per_rank", 0.0, 1e12).value_or(0.0);
    b.finish();
  }
  if (map.has("defaults")) {
    Map d = map.map("defaults");
    // Each default through its knob's own reader, so that a catalog typo fails as a user's would; the
    // stack's own features must run it.
    TrainingSpec probe;
    for (const std::string& key : stack_default_keys()) {
      if (!d.has(key)) continue;
      const YAML::Node node = d.optional(key);
      const std::string text = as_string(d.file(), node, d.field(key));
      try {
        training_field(key).set(probe, text);
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::kInternal) throw;
        throw Error(location_of(d.file(), node), d.field(key), e.message(), e.hint());
      }
      stack.defaults.emplace_back(key, text);
    }
    d.finish();
    TrainingSpec check;  // every default as the user's own setting: each must run on the stack
    for (const auto& [key, text] : stack.defaults) assign_training_field(check, training_field(key), text);
    try {
      StackSpec bare = stack;
      bare.defaults.clear();
      apply_stack(check, bare);
    } catch (const Error& e) {
      throw map.error_at("defaults", "default " + e.field() + ": " + e.message());
    }
  }
  map.finish();
  return stack;
}

LinkSpec read_link(Map& map, const LinkSpec* base, bool catalog_entry) {
  LinkSpec l = base ? *base : LinkSpec{};
  const bool all_required = catalog_entry && base == nullptr;
  if (all_required) {
    l.name = map.string("name");
    l.source = map.string("source");
  } else {
    l.name = map.optional_string("name").value_or(base ? l.name : "custom-link");
    l.source = map.optional_string("source").value_or(base ? l.source : "user input");
  }
  const std::string rate_key = present_key(map, "line_rate", "bandwidth");
  if (base) {
    l.line_rate = BytesPerSecond(
        map.optional_quantity(rate_key, Dimension::kBytesPerSecond).value_or(l.line_rate.value));
  } else {
    l.line_rate = BytesPerSecond(map.quantity(rate_key, Dimension::kBytesPerSecond));
  }
  const auto optional_or_required_number = [&](const std::string& key, double fallback) {
    return all_required ? map.number(key, 0.01, 1.0) : map.optional_number(key, 0.01, 1.0).value_or(fallback);
  };
  const auto quantity = [&](const std::string& key, Dimension d, double fallback) {
    return all_required ? map.quantity(key, d, true) : map.optional_quantity(key, d, true).value_or(fallback);
  };
  l.efficiency = optional_or_required_number("efficiency", base ? l.efficiency : 1.0);
  l.latency = Seconds(quantity("latency", Dimension::kSeconds, l.latency.value));
  l.protocols = read_protocols(map, l.protocols);
  l.nccl_protocols = read_name_set(map, "nccl_protocols", kNcclProtocolNames, l.nccl_protocols);
  l.nccl_algorithms = read_name_set(map, "nccl_algorithms", kNcclAlgorithmNames, l.nccl_algorithms);
  if ((l.nccl_algorithms & 1U) == 0) {
    // Broadcast and Reduce run on rings only (src/device/broadcast.h, reduce.h): NCCL_ALGO keeps Ring.
    throw map.error_at("nccl_algorithms", "must include ring: NCCL runs broadcast and reduce on rings only");
  }
  l.nccl_devices = *parse_nccl_devices(map.optional_choice("nccl_devices", names_of(kNcclDevicesKinds))
                                           .value_or(std::string(to_string(l.nccl_devices))));
  const std::vector<std::string> transports = names_of(kTransports);
  const std::string transport =
      all_required
          ? map.choice("transport", transports)
          : map.optional_choice("transport", transports).value_or(std::string(to_string(l.transport)));
  l.transport = *parse_named(transport, kTransports);
  // GPUDirect RDMA needs RDMA; a TCP link always stages through host memory.
  l.gpudirect =
      map.optional_boolean("gpudirect").value_or(base ? l.gpudirect : l.transport == Transport::kRdma);
  if (l.gpudirect && l.transport == Transport::kTcp) {
    throw map.error_at("gpudirect", "GPUDirect RDMA needs an RDMA transport, not tcp");
  }
  l.multipath = *parse_multipath(
      map.optional_choice("multipath", names_of(kMultipaths)).value_or(std::string(to_string(l.multipath))));
  l.ecmp_flows = static_cast<int>(map.optional_integer("ecmp_flows", 1, 1 << 12).value_or(l.ecmp_flows));
  l.media = all_required ? map.string("media") : map.optional_string("media").value_or(l.media);
  l.copper_reach_m = map.optional_number("copper_reach_m", 0.0, 100.0).value_or(l.copper_reach_m);
  l.copper_power =
      Watts(map.optional_quantity("copper_power", Dimension::kWatts, true).value_or(l.copper_power.value));
  l.transceiver_power = Watts(quantity("transceiver_power", Dimension::kWatts, l.transceiver_power.value));
  l.transceiver_price = Usd(quantity("transceiver_price", Dimension::kUsd, l.transceiver_price.value));
  l.nic_power = Watts(quantity("nic_power", Dimension::kWatts, l.nic_power.value));
  l.nic_price = Usd(quantity("nic_price", Dimension::kUsd, l.nic_price.value));
  l.price_estimate = map.optional_boolean("price_estimate").value_or(base ? l.price_estimate : false);
  map.finish();
  return l;
}

SwitchSpec read_switch(Map& map, const SwitchSpec* base, bool catalog_entry) {
  SwitchSpec s = base ? *base : SwitchSpec{};
  const bool all_required = catalog_entry && base == nullptr;
  if (all_required) {
    s.name = map.string("name");
    s.vendor = map.string("vendor");
    s.source = map.string("source");
  } else {
    s.name = map.optional_string("name").value_or(base ? s.name : "custom-switch");
    s.vendor = map.optional_string("vendor").value_or(s.vendor);
    s.source = map.optional_string("source").value_or(base ? s.source : "user input");
  }
  if (base) {
    s.radix = static_cast<int>(map.optional_integer("radix", 2, 1 << 16).value_or(s.radix));
    s.port_bandwidth = BytesPerSecond(
        map.optional_quantity("port_bandwidth", Dimension::kBytesPerSecond).value_or(s.port_bandwidth.value));
  } else {
    s.radix = static_cast<int>(map.integer("radix", 2, 1 << 16));
    s.port_bandwidth = BytesPerSecond(map.quantity("port_bandwidth", Dimension::kBytesPerSecond));
  }
  const auto quantity = [&](const std::string& key, Dimension d, double fallback) {
    return all_required ? map.quantity(key, d, true) : map.optional_quantity(key, d, true).value_or(fallback);
  };
  s.latency = Seconds(quantity("latency", Dimension::kSeconds, s.latency.value));
  s.power = Watts(quantity(present_key(map, "power", "power_w"), Dimension::kWatts, s.power.value));
  s.price = Usd(quantity(present_key(map, "price", "price_usd"), Dimension::kUsd, s.price.value));
  s.price_estimate = map.optional_boolean("price_estimate").value_or(base ? s.price_estimate : false);
  const std::vector<std::string> reductions = names_of(kInNetworkReductions);
  const std::string reduction = all_required ? map.choice("in_network_reduction", reductions)
                                             : map.optional_choice("in_network_reduction", reductions)
                                                   .value_or(std::string(to_string(s.in_network_reduction)));
  s.in_network_reduction = *parse_named(reduction, kInNetworkReductions);
  // A mapping that restates the native ports describes another switch: the base entry's breakouts and
  // cages no longer apply unless restated too.
  if (base && (map.has("radix") || map.has("port_bandwidth"))) {
    s.breakouts.clear();
    s.cages = 0;
  }
  if (map.has("breakouts")) s.breakouts = read_breakouts(map);
  s.cages = static_cast<int>(map.optional_integer("cages", 1, 1 << 16).value_or(s.cages));
  if (s.cages > 0) {
    const auto spread_evenly = [&](int radix) {
      if (radix % s.cages != 0) {
        throw map.error_at("cages", std::to_string(radix) + " ports do not spread evenly over " +
                                        std::to_string(s.cages) + " cages");
      }
    };
    spread_evenly(s.radix);
    for (const PortMode& mode : s.breakouts) spread_evenly(mode.radix);
  }
  map.finish();
  return s;
}

namespace {

// Multi-head latent attention (DeepSeek-V2/V3): kv_lora_rank turns it on and the head widths are then
// required; any other MLA key makes kv_lora_rank required (a misspelling of it reported as such).
std::optional<MlaSpec> read_mla(Map& map, const ModelSpec& m) {
  static const char* const kKeys[] = {"q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"};
  bool any = map.has("kv_lora_rank");
  for (const char* key : kKeys) any = map.has(key) || any;
  if (!any) return std::nullopt;
  MlaSpec mla;
  // kv_lora_rank last: the others read, a present key close to its name (kv_lora_rnak) is its misspelling.
  mla.q_lora_rank = map.optional_integer("q_lora_rank", 0, kMaxDimension).value_or(0);
  mla.qk_rope_head_dim = map.integer("qk_rope_head_dim", 1, 1 << 16);
  mla.qk_nope_head_dim = map.integer("qk_nope_head_dim", 0, 1 << 16);
  mla.v_head_dim = map.integer("v_head_dim", 1, 1 << 16);
  mla.kv_lora_rank = map.integer("kv_lora_rank", 1, kMaxDimension);
  // MLA gives every query head its own key and value (DeepSeek-V2 §2.1.2) and sets the head widths itself.
  if (m.kv_heads != m.heads) {
    throw map.error_at("kv_heads",
                       "multi-head latent attention has one key and value head per query head: "
                       "kv_heads must equal heads (" +
                           std::to_string(m.heads) + ")");
  }
  if (m.head_size != 0) {
    throw map.error_at("head_dim",
                       "with multi-head latent attention the head widths are qk_nope_head_dim, "
                       "qk_rope_head_dim and v_head_dim; drop head_dim");
  }
  return mla;
}

}  // namespace

ModelSpec read_model(Map& map, const std::string& default_name) {
  ModelSpec m;
  m.name = map.optional_string("name").value_or(default_name);
  m.source = map.optional_string("source").value_or("");
  m.layers = static_cast<int>(map.integer("layers", 1, kMaxLayers));
  m.hidden = map.integer("hidden", 1, kMaxDimension);
  m.heads = static_cast<int>(map.integer("heads", 1, 1 << 16));
  m.kv_heads = static_cast<int>(map.optional_integer("kv_heads", 1, 1 << 16).value_or(m.heads));
  m.head_size = map.optional_integer("head_dim", 1, 1 << 16).value_or(0);
  m.ffn_hidden = map.optional_integer("ffn_hidden", 1, kMaxDimension).value_or(4 * m.hidden);
  m.ffn = *parse_named(map.choice("ffn", names_of(kFfnKinds)), kFfnKinds);
  m.vocab = map.integer("vocab", 1, kMaxDimension);
  m.seq_len = map.integer("seq_len", 1, kMaxDimension);
  m.tied_embeddings = map.optional_boolean("tied_embeddings").value_or(false);
  // Family defaults: GPT-style 2-matrix MLPs have biases, LayerNorm and learned positions; gated MLPs are
  // Llama-style (no biases, RMSNorm, RoPE). Each can be stated explicitly.
  const bool gpt_style = m.ffn == FfnKind::kGelu;
  m.bias = map.optional_boolean("bias").value_or(gpt_style);
  m.qkv_bias = map.optional_boolean("qkv_bias").value_or(false);
  const auto norm = map.optional_choice("norm", names_of(kNormKinds));
  m.norm = norm ? *parse_named(*norm, kNormKinds) : (gpt_style ? NormKind::kLayerNorm : NormKind::kRmsNorm);
  // Dropout: Megatron-LM's GPT default (0.1) for GPT-style models, none for Llama-style ones.
  m.dropout = map.optional_number("dropout", 0.0, 0.99).value_or(gpt_style ? 0.1 : 0.0);
  const auto position = map.optional_choice("position", names_of(kPositionEmbeddings));
  m.position = position ? *parse_named(*position, kPositionEmbeddings)
                        : (gpt_style ? PositionEmbedding::kLearned : PositionEmbedding::kRope);
  if (map.has("moe")) {
    Map moe = map.map("moe");
    MoeSpec spec;
    spec.experts = static_cast<int>(moe.integer("experts", 1, 1 << 16));
    spec.top_k = static_cast<int>(moe.integer("top_k", 1, spec.experts));
    spec.every = static_cast<int>(moe.optional_integer("every", 1, m.layers).value_or(1));
    spec.expert_ffn_hidden =
        moe.optional_integer("expert_ffn_hidden", 1, kMaxDimension).value_or(m.ffn_hidden);
    spec.shared_experts = static_cast<int>(moe.optional_integer("shared_experts", 0, 1 << 16).value_or(0));
    spec.first_dense_layers =
        static_cast<int>(moe.optional_integer("first_dense_layers", 0, m.layers - 1).value_or(0));
    if (m.layers - spec.first_dense_layers < spec.every) {
      throw moe.error_at("first_dense_layers", "leaves no MoE layer: " + std::to_string(m.layers) +
                                                   " layers, the first " +
                                                   std::to_string(spec.first_dense_layers) +
                                                   " dense, then one in every " + std::to_string(spec.every));
    }
    moe.finish();
    m.moe = spec;
  }
  m.mla = read_mla(map, m);
  m.mtp_layers = static_cast<int>(map.optional_integer("mtp_layers", 0, kMaxLayers).value_or(0));
  if (m.head_size == 0 && !m.mla && m.hidden % m.heads != 0) {
    throw map.error_at("heads", "hidden (" + std::to_string(m.hidden) + ") is not divisible by heads (" +
                                    std::to_string(m.heads) + "); give head_dim explicitly");
  }
  if (m.heads % m.kv_heads != 0) {
    throw map.error_at("kv_heads", "heads (" + std::to_string(m.heads) + ") is not a multiple of kv_heads (" +
                                       std::to_string(m.kv_heads) + ")");
  }
  map.finish();
  return m;
}

TrainingSpec read_training(Map& map, const std::vector<TrainingField>& fields) {
  TrainingSpec spec;
  for (const TrainingField& field : fields) {
    const std::string key(field.key);
    if (!map.has(key)) continue;
    const YAML::Node node = map.optional(key);
    // A list (recompute_modules: [mla_up_proj, moe_act]) is its items comma-separated.
    std::string text;
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) {
        if (!text.empty()) text += ',';
        text += as_string(map.file(), item, map.field(key));
      }
      if (text.empty()) text = "none";
    } else {
      text = as_string(map.file(), node, map.field(key));
    }
    try {
      assign_training_field(spec, field, text);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
      throw Error(location_of(map.file(), node), map.field(key), e.message(), e.hint());
    }
  }
  map.finish();
  return spec;
}

}  // namespace costmodel::inline COSTMODEL_ABI::yaml
