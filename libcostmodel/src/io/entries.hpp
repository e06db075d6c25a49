// SPDX-License-Identifier: Apache-2.0
#pragma once
// Readers of one catalog entry (GPU, link, switch, model) from a YAML mapping (private). The same readers
// serve the catalogs and the inline entries of cluster files; with a `base`, every field is an override.

#include "costmodel/io/catalog.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/nccl_tuner.hpp"
#include "costmodel/spec/stack.hpp"
#include "costmodel/spec/training.hpp"
#include "costmodel/version.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI::yaml {

/// A GPU entry; all fields required unless `base` is given, whose values are the defaults. Its `scale_up:`
/// may name an entry of `fabrics` (data/scale_up.yaml), or be a mapping overriding the one its `name:` names.
[[nodiscard]] GpuSpec read_gpu(Map& map, const GpuSpec* base,
                               const std::vector<ScaleUpSpec>* fabrics = nullptr);
/// A link entry; `bandwidth` is accepted for `line_rate`. Without a base only the rate is required.
[[nodiscard]] LinkSpec read_link(Map& map, const LinkSpec* base, bool catalog_entry);
/// A switch entry; `price_usd` / `power_w` are accepted for `price` / `power`. Without a base only
/// radix and port bandwidth are required outside the catalog.
[[nodiscard]] SwitchSpec read_switch(Map& map, const SwitchSpec* base, bool catalog_entry);
/// A model (DESIGN.md §4); `default_name` when the mapping has no name.
[[nodiscard]] ModelSpec read_model(Map& map, const std::string& default_name);
/// A scale-up fabric (data/scale_up.yaml entry when `catalog_entry`), or overrides onto `base`. A domain the
/// fabric cannot build (a full mesh wider than its links, beyond max_domain) is an error at `domain`.
[[nodiscard]] ScaleUpSpec read_scale_up(Map& map, const ScaleUpSpec* base, bool catalog_entry);

/// A tuner plug-in's platform (data/nccl-tuners.yaml entry); its `gpus:` and `links:` name entries of
/// `catalog` (an unknown name is an error with the closest ones).
[[nodiscard]] NcclTuner read_nccl_tuner(Map& map, const Catalog& catalog);

/// A software stack (data/stacks.yaml entry): its features (all required, lists default to the plain
/// choice) and the defaults of its launch (stack_default_keys(), each read by its knob's reader and run by
/// the stack's own features).
[[nodiscard]] StackSpec read_stack(Map& map);

/// A scale-out fabric's entry (data/topologies.yaml): its name must be a fabric the library builds.
[[nodiscard]] TopologyEntry read_topology_entry(Map& map);

/// A `training:` mapping (runs files, scenarios): every key of `fields` (training_fields()), each through its
/// declaration's reader, as the command line's flags; errors at the value, unknown keys with a suggestion.
[[nodiscard]] TrainingSpec read_training(Map& map, const std::vector<TrainingField>& fields);
[[nodiscard]] inline TrainingSpec read_training(Map& map) {
  return read_training(map, training_fields());
}

/// resolve_stack() for a `training:` mapping of a file (`training`, possibly empty): an unknown stack or a
/// refused knob is an error at that knob's value, or at `stack_key` of `owner` when the stack came from
/// there (a run's `stack:`, a cluster's), else at the mapping.
void resolve_stack_in(TrainingSpec& spec, const Catalog& catalog, std::string_view cluster_stack,
                      const Map& training);

/// A cluster (DESIGN.md §4); catalog names resolve against `catalog`, inline entries are read in place.
[[nodiscard]] ClusterSpec read_cluster(Map& map, const Catalog& catalog);

}  // namespace costmodel::inline COSTMODEL_ABI::yaml
