// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the unit parser, for every dimension.
#include <cmath>

#include "costmodel/units.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input = costmodel::fuzz::text(data, size);
  for (int d = 0; d <= static_cast<int>(costmodel::Dimension::kUsdPerSecond); ++d) {
    costmodel::fuzz::expect_only_costmodel_errors([&] {
      const double value = costmodel::parse_quantity(input, static_cast<costmodel::Dimension>(d));
      if (!std::isfinite(value) || value < 0) std::abort();  // the parser promises finite, non-negative SI
      (void)costmodel::format_quantity(value, static_cast<costmodel::Dimension>(d));
    });
  }
  costmodel::fuzz::expect_only_costmodel_errors([&] { (void)costmodel::parse_number(input); });
  return 0;
}
