// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the model loader, then the model math on whatever it accepts.
#include <cmath>

#include "costmodel/io/load.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  costmodel::fuzz::expect_only_costmodel_errors([&] {
    const costmodel::ModelSpec m = costmodel::load_model_text(costmodel::fuzz::text(data, size), "fuzz.yaml");
    const auto p = costmodel::count_parameters(m);
    const auto f = costmodel::flops_per_token(m, m.seq_len);
    if (!std::isfinite(p.total) || !std::isfinite(f.forward) || p.total <= 0) std::abort();
  });
  return 0;
}
