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

  /// The GPU entry `name` (e.g. "h100-sxm"); throws Error with the closest names if there is none.
  [[nodiscard]] const GpuSpec& gpu(std::string_view name) const;
  /// The link entry `name` (e.g. "ib-ndr-400g"); throws Error like gpu().
  [[nodiscard]] const LinkSpec& link(std::string_view name) const;
  /// The switch entry `name` (e.g. "qm9700"); throws Error like gpu().
  [[nodiscard]] const SwitchSpec& switch_spec(std::string_view name) const;
  /// The model `name` of models/*.yaml (e.g. "gpt3-175b"); throws Error like gpu().
  [[nodiscard]] const ModelSpec& model(std::string_view name) const;
  /// The catalog switch whose port speed matches `link` best (qm8700 for HDR, qm9700 for NDR, ...).
  [[nodiscard]] const SwitchSpec& default_switch_for(const LinkSpec& link) const;
};

/// The folder holding data/ and models/: $COSTMODEL_DATA_DIR, else share/costmodel beside the running
/// executable's bin/ (an installed, possibly relocated, prefix), else the installed share/costmodel, else
/// the source tree this library was built from.
[[nodiscard]] std::string default_data_root();

/// The entries of a GPU catalog file (data/gpus.yaml), SI units; throws Error at FILE:LINE:COL.
[[nodiscard]] std::vector<GpuSpec> load_gpus_file(const std::string& path);
/// The entries of a link catalog file (data/links.yaml), SI units; throws Error at FILE:LINE:COL.
[[nodiscard]] std::vector<LinkSpec> load_links_file(const std::string& path);
/// The entries of a switch catalog file (data/switches.yaml), SI units; throws Error at FILE:LINE:COL.
[[nodiscard]] std::vector<SwitchSpec> load_switches_file(const std::string& path);

/// Loads every catalog under `root`; throws Error (FILE:LINE:COL) on the first bad entry.
[[nodiscard]] Catalog load_catalog(const std::string& root = default_data_root());

}  // namespace costmodel
