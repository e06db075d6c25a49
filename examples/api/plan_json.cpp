// SPDX-License-Identifier: Apache-2.0
// The planner through the API, printing exactly what `costmodel plan --format json` prints for
//   costmodel plan --model gpt3-175b --global-batch 1536 --tokens 300e9 --format json
// (the default cluster: 1,024 A100-80GB, 8 per node, 8 x HDR 200G per node, non-blocking fat-tree).
// Only "elapsed_s", the wall-clock time of the search, differs between two runs.

#include <costmodel/costmodel.hpp>

#include <exception>
#include <iostream>

int main() {
  try {
    const costmodel::Catalog catalog = costmodel::load_catalog();
    costmodel::TrainingSpec training;
    training.global_batch = 1536;
    training.tokens = 300e9;
    // The software stack, as the CLI does: megatron-core unless the training or the cluster names one. Its
    // launch defaults fill the knobs left unset, and the planner proposes only what it runs.
    costmodel::resolve_stack(training, catalog);
    const costmodel::PlanRequest request =
        costmodel::plan_request(catalog.model("gpt3-175b"), costmodel::default_cluster(catalog), training);
    costmodel::plan_json(costmodel::plan(request)).write(std::cout);
    std::cout << '\n';
    return 0;
  } catch (const costmodel::Error& error) {
    std::cerr << "plan_json: " << error.what() << '\n';
    return error.kind() == costmodel::ErrorKind::kInput ? 2 : 1;
  } catch (const std::exception& error) {
    std::cerr << "plan_json: internal error: " << error.what() << '\n';
    return 1;
  }
}
