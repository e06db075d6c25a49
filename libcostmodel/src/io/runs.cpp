// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/runs.hpp"

#include "entries.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::vector<PublishedRun> load_published_runs(const std::string& path, const Catalog& catalog,
                                              std::string_view default_stack) {
  const yaml::Document document = yaml::parse_file(path);
  yaml::Map top(document.file, document.root, "");
  const YAML::Node list = top.required("runs");
  top.finish();
  if (!list.IsSequence()) {
    throw Error(yaml::location_of(path, list), "runs",
                "expected a list of runs, got " + yaml::describe(list));
  }
  std::vector<PublishedRun> runs;
  for (size_t i = 0; i < list.size(); ++i) {
    yaml::Map entry(path, list[i], "runs[" + std::to_string(i) + "]");
    PublishedRun run;
    run.id = entry.string("id");
    run.source = entry.string("source");
    run.confidence = entry.optional_choice("confidence", {"high", "medium", "low"}).value_or("medium");
    (void)entry.optional_string("note");  // derivations and assumptions: documentation only
    yaml::Map model = entry.map("model");
    run.model = yaml::read_model(model, run.id);
    yaml::Map cluster = entry.map("cluster");
    run.cluster = yaml::read_cluster(cluster, catalog);

    // The software stack: `stack:` of the run (or of its training, or its cluster), its launch's knobs
    // applied where the source states none.
    const std::optional<std::string> stack = entry.optional_string("stack");
    yaml::Map training = entry.map("training");
    (void)training.required("global_batch");  // a run states its batch: the planner must not choose it
    run.training = yaml::read_training(training);
    if (stack) {
      if (!run.training.stack.empty())
        throw training.error_at("stack", "the run names its stack twice (stack: and training.stack)");
      run.training.stack = *stack;
    }
    try {
      yaml::resolve_stack_in(run.training, catalog,
                             run.cluster.stack.empty() ? default_stack : std::string_view(run.cluster.stack),
                             training);
    } catch (const Error& e) {
      // An unknown stack named by the run itself: at the run's `stack:`.
      if (stack && e.field() == training.field("stack")) throw entry.error_at("stack", e.message(), e.hint());
      throw;
    }

    yaml::Map measured = entry.map("measured");
    const auto tflops = measured.optional_number("tflops_per_gpu", 0.0, 1e6);
    if (tflops) run.measured.flops_per_gpu = FlopsPerSecond(*tflops * 1e12);  // the key says TFLOP/s
    // The convention is required with TFLOP/s (it says what they count); a throughput needs none.
    const auto convention = tflops ? std::optional(measured.choice("flops_convention", {"hardware", "model"}))
                                   : measured.optional_choice("flops_convention", {"hardware", "model"});
    run.measured.hardware_convention = convention.value_or("model") == "hardware";
    run.measured.tokens_per_s_per_gpu = measured.optional_number("tokens_per_s_per_gpu", 0.0, 1e9);
    if (const auto step = measured.optional_number("step_time_s", 0.0, 1e7)) {
      run.measured.step_time = Seconds(*step);  // the key says seconds
    }
    run.measured.mfu = measured.optional_number("mfu", 0.0, 1.0);
    if (const auto days = measured.optional_number("training_days", 0.0, 1e6)) {
      run.measured.training_time = Seconds(*days * kSecondsPerDay);
    }
    measured.finish();
    entry.finish();
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace costmodel::inline COSTMODEL_ABI
