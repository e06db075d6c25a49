// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `costmodel catalog` prints: every catalog with every number (SI under unit-suffixed keys for
// machines, readable units for people), and a summary of each catalog's names.

#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/report/table.hpp"
#include "costmodel/spec/catalog.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// "gpus", "links", "switches", "scale-up", "models", "topologies", "knobs".
[[nodiscard]] const std::vector<std::string>& catalog_names();

/// One catalog (a name of catalog_names()) with every field of every entry; "knobs" needs no catalog.
/// Throws Error (kInput) for an unknown name.
[[nodiscard]] Table catalog_table(std::string_view which, const Catalog& catalog);

/// The training knobs, one row per declaration (spec/training.hpp TrainingField): YAML key, flag, whether it
/// is a split knob, and its help. `costmodel catalog knobs` prints training_fields().
[[nodiscard]] Table knobs_table(const std::vector<TrainingField>& fields);

/// Each catalog's entry names, one row per catalog.
[[nodiscard]] Table catalog_summary_table(const Catalog& catalog);

}  // namespace costmodel::inline COSTMODEL_ABI
