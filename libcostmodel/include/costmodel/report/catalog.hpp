// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel catalog` prints: every catalog with every number (SI under unit-suffixed keys for
// machines, readable units for people), and a summary of each catalog's names.

#include <string>
#include <string_view>
#include <vector>

#include "costmodel/report/table.hpp"
#include "costmodel/spec/catalog.hpp"

namespace costmodel {

/// "gpus", "links", "switches", "models", "topologies".
[[nodiscard]] const std::vector<std::string>& catalog_names();

/// One catalog (a name of catalog_names()) with every field of every entry; "topologies" needs no catalog.
/// Throws Error (kInput) for an unknown name.
[[nodiscard]] Table catalog_table(std::string_view which, const Catalog& catalog);

/// Each catalog's entry names, one row per catalog.
[[nodiscard]] Table catalog_summary_table(const Catalog& catalog);

}  // namespace costmodel
