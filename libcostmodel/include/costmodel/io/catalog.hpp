#pragma once
// Loading the catalogs (spec/catalog.hpp): data/gpus.yaml, data/links.yaml, data/switches.yaml and
// models/*.yaml, strictly.

#include <string>
#include <string_view>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/spec/catalog.hpp"

namespace costmodel {

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
