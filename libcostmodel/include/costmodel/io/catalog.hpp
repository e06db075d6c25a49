// SPDX-License-Identifier: Apache-2.0
#pragma once
// Loading the catalogs (spec/catalog.hpp): data/gpus.yaml, links.yaml, switches.yaml, scale_up.yaml and
// models/*.yaml, strictly.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/error.hpp"
#include "costmodel/spec/catalog.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The folder holding data/ and models/, the first of: $COSTMODEL_DATA_DIR; share/costmodel beside the
/// running executable's bin/ (an installed, possibly relocated, prefix); share/costmodel beside a shared
/// libcostmodel's lib/; the package's folder as find_package(costmodel) found it (registered by the
/// package, see register_package_data_dir()); the configured install prefix's; the source tree this library
/// was built from.
[[nodiscard]] std::string default_data_root();

/// Records where the installed package's catalogs are (`costmodel_data_dir.cpp`, compiled into every program
/// that links the CMake package, calls it before main); returns true. Folders without data/gpus.yaml are
/// ignored by default_data_root().
bool register_package_data_dir(const char* path);

/// The entries of a GPU catalog file (data/gpus.yaml), SI units; throws Error at FILE:LINE:COL. A GPU's
/// `scale_up:` may name one of `fabrics`.
[[nodiscard]] std::vector<GpuSpec> load_gpus_file(const std::string& path,
                                                  const std::vector<ScaleUpSpec>& fabrics = {});
/// The entries of a scale-up fabric catalog file (data/scale_up.yaml), SI units; throws Error at
/// FILE:LINE:COL.
[[nodiscard]] std::vector<ScaleUpSpec> load_scale_up_file(const std::string& path);
/// The entries of a link catalog file (data/links.yaml), SI units; throws Error at FILE:LINE:COL.
[[nodiscard]] std::vector<LinkSpec> load_links_file(const std::string& path);
/// The entries of a switch catalog file (data/switches.yaml), SI units; throws Error at FILE:LINE:COL.
[[nodiscard]] std::vector<SwitchSpec> load_switches_file(const std::string& path);

/// The entries of a tuner plug-in catalog file (data/nccl-tuners.yaml), whose GPU and link names must be
/// entries of `catalog`; throws Error at FILE:LINE:COL.
[[nodiscard]] std::vector<NcclTuner> load_nccl_tuners_file(const std::string& path, const Catalog& catalog);
/// Prediction intervals from data/intervals.yaml (spec/intervals.hpp); throws Error at FILE:LINE:COL.
[[nodiscard]] IntervalModel load_intervals_file(const std::string& path);
/// Writes `intervals` as load_intervals_file() reads it (its `source` naming the command that built it).
void write_intervals(std::ostream& out, const IntervalModel& intervals);
/// Software stacks from data/stacks.yaml (`stacks:` list).
[[nodiscard]] std::vector<StackSpec> load_stacks_file(const std::string& path);

/// A price book (data/prices.yaml; a buyer's --prices FILE): `quotes:`, each {item, name (the catalog entry,
/// for parts), price (parts, rental, electricity, facility: with units) or share (support, storage, spares,
/// cables: 6% or 0.06), date (YYYY-MM-DD), source}; one quote per item and name. Names must be entries of
/// `catalog`; throws Error at FILE:LINE:COL.
[[nodiscard]] PriceBook load_price_book(const std::string& path, const Catalog& catalog);
/// Applies `book` to `catalog`: a part's quote replaces its entries' price (no longer an estimate; the
/// source names the quote); electricity and the lifetime costs replace the catalog's own (Catalog::prices).
void apply_price_book(Catalog& catalog, const PriceBook& book);

/// Loads every catalog under `root`; throws Error (FILE:LINE:COL) on the first bad entry.
[[nodiscard]] Catalog load_catalog(const std::string& root = default_data_root());

}  // namespace costmodel::inline COSTMODEL_ABI
