#pragma once
// The catalogs: data/gpus.yaml, data/links.yaml, data/switches.yaml and models/*.yaml, loaded strictly.

#include <string>
#include <string_view>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/model.hpp"

namespace costmodel {

/// Everything the catalogs hold. Look-ups by name throw Error naming the closest entries.
struct Catalog {
  std::string root;  ///< folder holding data/ and models/
  std::vector<GpuSpec> gpus;
  std::vector<LinkSpec> links;
  std::vector<SwitchSpec> switches;
  std::vector<ModelSpec> models;

  [[nodiscard]] const GpuSpec& gpu(std::string_view name) const;
  [[nodiscard]] const LinkSpec& link(std::string_view name) const;
  [[nodiscard]] const SwitchSpec& switch_spec(std::string_view name) const;
  [[nodiscard]] const ModelSpec& model(std::string_view name) const;
  /// The catalog switch whose port speed matches `link` best (qm8700 for HDR, qm9700 for NDR, ...).
  [[nodiscard]] const SwitchSpec& default_switch_for(const LinkSpec& link) const;
};

/// The folder holding data/ and models/: $COSTMODEL_DATA_DIR, else the installed share/costmodel,
/// else the source tree this library was built from.
[[nodiscard]] std::string default_data_root();

/// One catalog file on its own (data/gpus.yaml, data/links.yaml, data/switches.yaml).
[[nodiscard]] std::vector<GpuSpec> load_gpus_file(const std::string& path);
[[nodiscard]] std::vector<LinkSpec> load_links_file(const std::string& path);
[[nodiscard]] std::vector<SwitchSpec> load_switches_file(const std::string& path);

/// Loads every catalog under `root`; throws Error (FILE:LINE:COL) on the first bad entry.
[[nodiscard]] Catalog load_catalog(const std::string& root = default_data_root());

}  // namespace costmodel
