// SPDX-License-Identifier: Apache-2.0
#pragma once
// The [cluster], [model] and [training] flags of DESIGN.md §3, shared by the commands.

#include <optional>
#include <string>
#include <vector>

#include "cli/parser.hpp"
#include "costmodel/analysis/validate.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel::cli {

// ---------------------------------------------------------------------------------------------------
// [cluster]

/// `--cluster FILE.yaml` and the flags that override it (or the default cluster).
struct ClusterArgs {
  std::optional<std::string> file;
  ClusterOptions options;
  bool strict = false;  ///< --strict: implausible values are errors, not warnings
};

/// Adds --cluster, --gpu, --gpus, --gpus-per-node, --link, --nics-per-node, --topology, --switch,
/// --oversubscription, --strict.
void add_cluster_options(po::options_description& options);
/// Reads and checks them: positive integers, a known topology name, a positive oversubscription.
[[nodiscard]] ClusterArgs read_cluster_args(const po::variables_map& values, const Context& context);
/// The cluster file (or the default cluster) with the flags applied; throws Error if it is not usable.
/// Implausible values (spec/plausibility.hpp) are one warning line each on stderr, naming the flag or the
/// file's line and column; with --strict the first is an error (exit 2).
[[nodiscard]] ClusterSpec make_cluster(const ClusterArgs& args, const Catalog& catalog,
                                       const Context& context);

// ---------------------------------------------------------------------------------------------------
// [model] and [training]

/// What the [model] and [training] flags say; unset knobs stay unset for the planner to choose.
struct TrainingArgs {
  std::string model = "gpt3-175b";  ///< --model NAME|FILE.yaml
  TrainingSpec training;            ///< every training_fields() flag, read by set_training_field()
};

/// Adds --model and the flags of `fields` (training_fields()); `pins` adds the parallel degrees (--tp --pp
/// ...) too.
void add_training_options(po::options_description& options, bool pins,
                          const std::vector<TrainingField>& fields = training_fields());
/// Reads them (every bad value is a usage error naming its flag).
[[nodiscard]] TrainingArgs read_training_args(const po::variables_map& values, const Context& context,
                                              const std::vector<TrainingField>& fields = training_fields());
/// One warning line per [training] flag that changes nothing for `estimate` (analysis/knobs.hpp).
void warn_ineffective_knobs(const StepEstimate& estimate, const ModelSpec& model, const ClusterSpec& cluster,
                            const TrainingSpec& training, const Context& context);

/// Applies the software stack (--stack, else the cluster file's `stack:`, else megatron-core) to `args`:
/// its defaults where no flag set the knob; a flag the stack cannot run is a usage error naming it.
void resolve_training_stack(TrainingArgs& args, const Catalog& catalog, const ClusterSpec& cluster,
                            const Context& context);

/// --stack for the commands that read runs or scenario files (validate, calibrate --runs, scenario): the
/// stack of what names none; the option (`what` says of what), and its value checked against the catalog
/// (a usage error naming --stack, with a suggestion); empty when not given.
void add_runs_stack_option(po::options_description& options, const std::string& what = "the runs");
[[nodiscard]] std::string runs_stack_option(const po::variables_map& values, const Catalog& catalog,
                                            const Context& context);

/// The held-out runs (data/holdout-runs.yaml, never fitted on) like a report's (analysis/validate.hpp
/// validate_similar_runs()), validated on `threads` workers (0: every core): the HTML report's evidence.
[[nodiscard]] SimilarRuns similar_published_runs(const ModelSpec& model, const ClusterSpec& cluster,
                                                 int threads);

/// `--prices FILE.yaml`: a buyer's price book (data/prices.yaml's form: quotes with date and source) over
/// the catalog's prices and lifetime costs (plan, estimate, report, topology, scenario).
void add_prices_option(po::options_description& options);
/// The catalog with --prices applied when given; its errors name the file, line and column (exit 2).
[[nodiscard]] Catalog load_priced_catalog(const po::variables_map& values, const Context& context);

/// The model named by --model with --seq-len applied.
/// A Hugging Face config.json without --seq-len warns that its max_position_embeddings stands in.
[[nodiscard]] ModelSpec make_model(const TrainingArgs& args, const Catalog& catalog, const Context& context);

}  // namespace costmodel::cli
