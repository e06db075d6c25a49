// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the catalog loaders (gpus, links, switches) and the published-runs loader, chosen by
// the first byte.
#include "costmodel/io/runs.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = costmodel::fuzz::temp_file(data + 1, size - 1);
  costmodel::fuzz::expect_only_costmodel_errors([&] {
    switch (data[0] % 4) {
      case 0:
        (void)costmodel::load_gpus_file(path);
        break;
      case 1:
        (void)costmodel::load_links_file(path);
        break;
      case 2:
        (void)costmodel::load_switches_file(path);
        break;
      default:
        (void)costmodel::load_published_runs(path, costmodel::fuzz::catalog());
        break;
    }
  });
  return 0;
}
