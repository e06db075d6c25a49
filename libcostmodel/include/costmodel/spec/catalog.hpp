// SPDX-License-Identifier: Apache-2.0
#pragma once
// The catalogs in memory: every GPU, link, switch and model entry, looked up by name. Loading them from
// data/*.yaml and models/*.yaml is io/catalog.hpp's job.

#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/hardware.hpp"
#include "costmodel/spec/intervals.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/nccl_tuner.hpp"
#include "costmodel/spec/stack.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// A scale-out fabric's catalog entry (data/topologies.yaml): the sources of its rules. The fabric itself is
/// a file of libcostmodel/src/network/fabrics/ (TopologyKind, traits()).
struct TopologyEntry {
  std::string name;    ///< as to_string(TopologyKind) spells it
  std::string source;  ///< the papers and reference architectures its sizing and paths follow
};

/// Everything the catalogs hold. Look-ups by name throw Error naming the closest entries.
struct Catalog {
  std::string root;  ///< folder holding data/ and models/
  std::vector<GpuSpec> gpus;
  std::vector<LinkSpec> links;
  std::vector<SwitchSpec> switches;
  std::vector<ScaleUpSpec> scale_ups;  ///< scale-up fabrics (data/scale_up.yaml)
  std::vector<ModelSpec> models;
  /// NCCL tuner plug-ins (data/nccl-tuners.yaml); each link entry also holds those that list it.
  std::vector<std::shared_ptr<const NcclTuner>> nccl_tuners;
  std::vector<StackSpec> stacks;  ///< software stacks (data/stacks.yaml)
  /// Scale-out fabrics (data/topologies.yaml), one per fabric the library builds (topology_kinds()).
  std::vector<TopologyEntry> topologies;
  /// Prediction intervals from the validation residuals (data/intervals.yaml); null when absent.
  std::shared_ptr<const IntervalModel> intervals;
  /// The lifetime costs beyond parts and energy (data/prices.yaml: facility, support, storage, spares,
  /// cables), and any buyer's quotes applied over them (io/catalog.hpp apply_price_book()).
  PriceBook prices;

  /// The GPU entry `name` (e.g. "h100-sxm"); throws Error with the closest names if there is none.
  [[nodiscard]] const GpuSpec& gpu(std::string_view name) const;
  /// The link entry `name` (e.g. "ib-ndr-400g"); throws Error like gpu().
  [[nodiscard]] const LinkSpec& link(std::string_view name) const;
  /// The switch entry `name` (e.g. "qm9700"); throws Error like gpu().
  [[nodiscard]] const SwitchSpec& switch_spec(std::string_view name) const;
  /// The scale-up fabric `name` (e.g. "ualink-1.0"); throws Error like gpu().
  [[nodiscard]] const ScaleUpSpec& scale_up(std::string_view name) const;
  /// The model `name` of models/*.yaml (e.g. "gpt3-175b"); throws Error like gpu().
  [[nodiscard]] const ModelSpec& model(std::string_view name) const;
  /// The software stack `name` (e.g. "megatron-core"); throws Error like gpu().
  [[nodiscard]] const StackSpec& stack(std::string_view name) const;
  /// The catalog switch whose port speed matches `link` best (qm8700 for HDR, qm9700 for NDR, ...).
  [[nodiscard]] const SwitchSpec& default_switch_for(const LinkSpec& link) const;
};

/// Resolves `training`'s stack: its own name, else `cluster_stack` (a cluster file's `stack:`), else
/// kDefaultStack; sets TrainingSpec::stack and stack_spec and applies it (apply_stack()), attaches the
/// catalog's prediction intervals (TrainingSpec::intervals), and takes the catalog's lifetime costs where
/// the training sets none (fill_lifetime_costs()). Throws Error
/// (kInput, field "stack" or the refused knob's key) for an unknown stack or a set knob the stack lacks. A
/// catalog without stacks leaves `training` unbounded.
void resolve_stack(TrainingSpec& training, const Catalog& catalog, std::string_view cluster_stack = {});

}  // namespace costmodel::inline COSTMODEL_ABI
