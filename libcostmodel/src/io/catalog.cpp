// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/catalog.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#if defined(__linux__)
#include <dlfcn.h>
#endif

#include "entries.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

namespace fs = std::filesystem;

// Reads the list under `key` of a catalog file, one entry per mapping; names must be unique.
template <class Spec, class Reader>
std::vector<Spec> read_list(const std::string& path, const std::string& key, Reader read) {
  const yaml::Document document = yaml::parse_file(path);
  yaml::Map top(document.file, document.root, "");
  const YAML::Node list = top.required(key);
  top.finish();
  if (!list.IsSequence()) {
    throw Error(yaml::location_of(path, list), key,
                "expected a list of entries, got " + yaml::describe(list));
  }
  std::vector<Spec> specs;
  for (size_t i = 0; i < list.size(); ++i) {
    yaml::Map entry(path, list[i], key + "[" + std::to_string(i) + "]");
    Spec spec = read(entry);
    for (const auto& other : specs) {
      if (other.name == spec.name) {
        throw Error(yaml::location_of(path, list[i]), key + "[" + std::to_string(i) + "].name",
                    "duplicate entry '" + spec.name + "'");
      }
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

bool has_catalogs(const fs::path& root) {
  std::error_code ec;
  return fs::is_regular_file(root / "data" / "gpus.yaml", ec);
}

// PREFIX/share/costmodel for an executable in PREFIX/bin: a relocated (or not yet configured) prefix
// still finds its own catalogs. Empty when there are none there or the platform cannot say.
fs::path data_root_beside_executable() {
#if defined(__linux__)
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  fs::path root = (exe.parent_path() / COSTMODEL_BIN_TO_DATA_ROOT).lexically_normal();
  if (has_catalogs(root)) return root;
#endif
  return {};
}

// PREFIX/share/costmodel for a shared libcostmodel in PREFIX/lib (the library's own file, found with dladdr).
fs::path data_root_beside_library() {
#if defined(__linux__)
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&data_root_beside_library), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  std::error_code ec;
  const fs::path library = fs::canonical(info.dli_fname, ec);
  if (ec || library.extension() == "") return {};
  fs::path root = (library.parent_path() / ".." / "share" / "costmodel").lexically_normal();
  if (has_catalogs(root)) return root;
#endif
  return {};
}

std::string& package_data_dir() {
  static std::string dir;
  return dir;
}

}  // namespace

bool register_package_data_dir(const char* path) {
  // pkg-config's ${pcfiledir}-relative prefix arrives as .../lib/pkgconfig/../../share/costmodel.
  if (path != nullptr) package_data_dir() = fs::path(path).lexically_normal().string();
  return true;
}

std::vector<GpuSpec> load_gpus_file(const std::string& path, const std::vector<ScaleUpSpec>& fabrics) {
  return read_list<GpuSpec>(path, "gpus", [&](yaml::Map& m) { return yaml::read_gpu(m, nullptr, &fabrics); });
}

std::vector<ScaleUpSpec> load_scale_up_file(const std::string& path) {
  return read_list<ScaleUpSpec>(path, "scale_up",
                                [](yaml::Map& m) { return yaml::read_scale_up(m, nullptr, true); });
}

std::vector<LinkSpec> load_links_file(const std::string& path) {
  return read_list<LinkSpec>(path, "links", [](yaml::Map& m) { return yaml::read_link(m, nullptr, true); });
}

std::vector<SwitchSpec> load_switches_file(const std::string& path) {
  return read_list<SwitchSpec>(path, "switches",
                               [](yaml::Map& m) { return yaml::read_switch(m, nullptr, true); });
}

std::vector<NcclTuner> load_nccl_tuners_file(const std::string& path, const Catalog& catalog) {
  return read_list<NcclTuner>(path, "tuners",
                              [&](yaml::Map& m) { return yaml::read_nccl_tuner(m, catalog); });
}

std::vector<StackSpec> load_stacks_file(const std::string& path) {
  return read_list<StackSpec>(path, "stacks", [](yaml::Map& m) { return yaml::read_stack(m); });
}

std::string default_data_root() {
  if (const char* env = std::getenv("COSTMODEL_DATA_DIR"); env != nullptr && *env != '\0') return env;
  if (const fs::path beside = data_root_beside_executable(); !beside.empty()) return beside.string();
  if (const fs::path beside = data_root_beside_library(); !beside.empty()) return beside.string();
  if (!package_data_dir().empty() && has_catalogs(package_data_dir())) return package_data_dir();
  if (has_catalogs(COSTMODEL_INSTALL_DATA_ROOT)) return COSTMODEL_INSTALL_DATA_ROOT;
  return COSTMODEL_SOURCE_DATA_ROOT;
}

namespace {

/// What the catalogs under `base` are made of: each file of data/ and models/ with its size and time of last
/// change. Equal fingerprints mean the same files as last read.
using CatalogFingerprint = std::vector<std::tuple<std::string, std::uintmax_t, fs::file_time_type>>;
CatalogFingerprint fingerprint(const fs::path& base) {
  CatalogFingerprint files;
  for (const char* folder : {"data", "models"}) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(base / folder, ec)) {
      std::error_code stat_error;
      if (!entry.is_regular_file(stat_error)) continue;
      files.emplace_back(entry.path().string(), entry.file_size(stat_error),
                         entry.last_write_time(stat_error));
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

Catalog read_catalog(const std::string& root);

}  // namespace

// The catalogs are read once per process and folder, and again only when one of their files changes: a
// sweep (costmodel.sweep in Python, one plan per scenario) would otherwise spend most of each scenario
// parsing YAML (about 40 ms per load, measured in Release on this project's 2-core machine, against
// 10-30 ms for a small plan).
Catalog load_catalog(const std::string& root) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<CatalogFingerprint, Catalog>> cache;
  CatalogFingerprint now = fingerprint(fs::path(root));
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(root); it != cache.end() && it->second.first == now)
      return it->second.second;
  }
  Catalog catalog = read_catalog(root);  // throws on a bad entry: nothing is kept
  const std::lock_guard<std::mutex> lock(mutex);
  cache.insert_or_assign(root, std::make_pair(std::move(now), catalog));
  return catalog;
}

namespace {

Catalog read_catalog(const std::string& root) {
  const fs::path base(root);
  if (!has_catalogs(base)) {
    throw Error(ErrorLocation{(base / "data" / "gpus.yaml").string(), 0, 0}, "",
                "catalog not found; set COSTMODEL_DATA_DIR to the folder holding data/ and models/");
  }
  Catalog catalog;
  catalog.root = root;
  // Fabrics first: a GPU entry names its own (`scale_up: nvlink4-nvswitch`).
  const fs::path fabrics = base / "data" / "scale_up.yaml";
  std::error_code missing;
  if (fs::is_regular_file(fabrics, missing)) catalog.scale_ups = load_scale_up_file(fabrics.string());
  catalog.gpus = load_gpus_file((base / "data" / "gpus.yaml").string(), catalog.scale_ups);
  catalog.links = load_links_file((base / "data" / "links.yaml").string());
  catalog.switches = load_switches_file((base / "data" / "switches.yaml").string());
  // Tuner plug-ins after GPUs and links, which they name; each link keeps those that list it.
  const fs::path tuners = base / "data" / "nccl-tuners.yaml";
  if (fs::is_regular_file(tuners, missing)) {
    for (NcclTuner& tuner : load_nccl_tuners_file(tuners.string(), catalog))
      catalog.nccl_tuners.push_back(std::make_shared<const NcclTuner>(std::move(tuner)));
  }
  for (LinkSpec& link : catalog.links) {
    for (const auto& tuner : catalog.nccl_tuners) {
      if (std::find(tuner->links.begin(), tuner->links.end(), link.name) != tuner->links.end())
        link.nccl_tuners.push_back(tuner);
    }
  }
  const fs::path intervals = base / "data" / "intervals.yaml";
  if (fs::is_regular_file(intervals, missing))
    catalog.intervals = std::make_shared<const IntervalModel>(load_intervals_file(intervals.string()));
  const fs::path topologies = base / "data" / "topologies.yaml";
  if (fs::is_regular_file(topologies, missing)) {
    catalog.topologies = read_list<TopologyEntry>(topologies.string(), "topologies",
                                                  [](yaml::Map& m) { return yaml::read_topology_entry(m); });
    // Every fabric the library builds has its entry (and its sources).
    for (const std::string& name : topology_names()) {
      const auto has = [&](const TopologyEntry& entry) { return entry.name == name; };
      if (std::none_of(catalog.topologies.begin(), catalog.topologies.end(), has)) {
        throw Error(ErrorLocation{topologies.string(), 0, 0}, "topologies",
                    "fabric '" + name + "' (libcostmodel/src/network/fabrics/) has no entry");
      }
    }
  }
  const fs::path stacks = base / "data" / "stacks.yaml";
  if (fs::is_regular_file(stacks, missing)) catalog.stacks = load_stacks_file(stacks.string());
  const fs::path prices = base / "data" / "prices.yaml";
  if (fs::is_regular_file(prices, missing)) {
    PriceBook book = load_price_book(prices.string(), catalog);
    // Reports name the catalog's own file as the catalogs do, wherever it is installed.
    for (PriceQuote& q : book.quotes) q.where = "data/prices.yaml" + q.where.substr(q.where.rfind(':'));
    apply_price_book(catalog, book);
  }
  std::vector<fs::path> model_files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base / "models", ec)) {
    if (entry.path().extension() == ".yaml") model_files.push_back(entry.path());
  }
  std::sort(model_files.begin(), model_files.end());
  for (const auto& path : model_files) {
    const yaml::Document document = yaml::parse_file(path.string());
    yaml::Map map(document.file, document.root, "");
    ModelSpec model = yaml::read_model(map, path.stem().string());
    if (model.name != path.stem().string()) {
      throw map.error_at("name", "model name '" + model.name + "' differs from its file name '" +
                                     path.stem().string() + "'");
    }
    catalog.models.push_back(std::move(model));
  }
  return catalog;
}

}  // namespace

}  // namespace costmodel::inline COSTMODEL_ABI
