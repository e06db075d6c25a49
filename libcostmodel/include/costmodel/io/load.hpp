// SPDX-License-Identifier: Apache-2.0
#pragma once
// Strict loading of the user's YAML files (models, clusters) and of cluster options given as flags.
// Errors: FILE:LINE:COL: error: FIELD: MESSAGE, with "did you mean" for unknown keys and names.

#include <optional>
#include <string>
#include <string_view>
#include "costmodel/version.hpp"

#include "costmodel/io/catalog.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// A model file (schema: DESIGN.md §4).
[[nodiscard]] ModelSpec load_model_file(const std::string& path);
/// The same from YAML text; `filename` is used in error messages.
[[nodiscard]] ModelSpec load_model_text(const std::string& yaml, const std::string& filename);
/// A catalog model name (e.g. "gpt3-175b"), a path to a model file, or a Hugging Face config.json
/// (io/hf_config.hpp).
[[nodiscard]] ModelSpec resolve_model(const std::string& name_or_path, const Catalog& catalog);
/// Whether resolve_model() reads `name_or_path` as a Hugging Face config.json (a name ending in .json).
[[nodiscard]] bool names_hf_config(std::string_view name_or_path);

/// Where the value at `dotted_field` (e.g. "scale_out.link.line_rate") is written in the YAML file `path`:
/// the deepest node of that path the file has (the catalog name "scale_out.link" when the link is not
/// inline); line 0 when the file does not write it.
[[nodiscard]] ErrorLocation locate_field(const std::string& path, const std::string& dotted_field);

/// A cluster file (schema: DESIGN.md §4); names resolve against `catalog`.
[[nodiscard]] ClusterSpec load_cluster_file(const std::string& path, const Catalog& catalog);
/// The same from YAML text; `filename` is used in error messages.
[[nodiscard]] ClusterSpec load_cluster_text(const std::string& yaml, const std::string& filename,
                                            const Catalog& catalog);

/// Cluster settings given on the command line; what is unset keeps the base cluster's value.
struct ClusterOptions {
  std::optional<std::string> gpu;
  std::optional<int> gpus;
  std::optional<int> gpus_per_node;
  std::optional<std::string> link;
  std::optional<int> nics_per_node;
  std::optional<std::string> topology;
  std::optional<std::string> switch_name;
  std::optional<double> oversubscription;
  std::optional<std::string> in_network;  ///< "sharp" or "none" (scale_out.in_network)
  std::optional<std::string> routing;     ///< "minimal" or "adaptive" (Dragonfly+)
  std::optional<std::string> scale_up;    ///< a scale-up fabric catalog name (--scale-up), its own domain
};

/// 1,024 GPUs of catalog entry `gpu` in its typical nodes (data/gpus.yaml `node:`: GPUs per node, link, NICs,
/// switch) on a non-blocking fat-tree; by default 1,024 A100-80GB, 8 per node, 8 x HDR 200G per node.
[[nodiscard]] ClusterSpec default_cluster(const Catalog& catalog, std::string_view gpu = "a100-80gb");
/// `base` with `options` applied (a new link without a new switch picks the link's default switch).
[[nodiscard]] ClusterSpec apply_cluster_options(ClusterSpec base, const ClusterOptions& options,
                                                const Catalog& catalog);

}  // namespace costmodel::inline COSTMODEL_ABI
