// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the scenario loader (runs nothing: a sweep could legitimately take long).
#include "costmodel/io/scenario.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  costmodel::fuzz::expect_only_costmodel_errors([&] {
    (void)costmodel::load_scenario_text(costmodel::fuzz::text(data, size), "fuzz.yaml",
                                        costmodel::fuzz::catalog());
  });
  return 0;
}
