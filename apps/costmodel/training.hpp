#pragma once
// [model] and [training] options of DESIGN.md §3, shared by estimate, plan and scenario-like commands.

#include <optional>
#include <string>

#include "cli.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/strategy.hpp"

namespace costmodel::cli {

/// What the [model] and [training] flags say; unset knobs stay nullopt for the planner to choose.
struct TrainingArgs {
  std::string model = "gpt3-175b";  ///< --model NAME|FILE.yaml
  std::optional<int> seq_len;       ///< --seq-len overrides the model's
  std::optional<int> global_batch;  ///< sequences per step
  Dtype dtype = Dtype::kBf16;
  std::optional<double> tokens;  ///< --tokens, for days and cost
  Compression compression;
  EstimateOptions options;  ///< --attention, --dp-algo, --tp-algo (tokens copied in)
  Pins pins;                ///< --tp --pp --dp --cp --ep --vpp --micro-batch --recompute --zero --overlap
                            ///< --sequence-parallel
};

/// Adds --model and the [training] flags; `pins` adds --tp --pp --dp --cp --ep --vpp.
void add_training_options(po::options_description& options, bool pins);
/// Reads and checks them (every bad value is a usage error naming its flag).
[[nodiscard]] TrainingArgs read_training_args(const po::variables_map& values, const Context& context);
/// The model named by --model with --seq-len applied.
[[nodiscard]] ModelSpec make_model(const TrainingArgs& args, const Catalog& catalog);

}  // namespace costmodel::cli
