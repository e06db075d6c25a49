// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the nccl-tests log parser, then the alpha-beta fit on whatever it accepts.
#include "costmodel/io/nccl_tests.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  costmodel::fuzz::expect_only_costmodel_errors([&] {
    const auto log =
        costmodel::parse_nccl_tests_log(costmodel::fuzz::text(data, size), "all_reduce_perf.log");
    (void)costmodel::fit_collectives({log});
  });
  return 0;
}
