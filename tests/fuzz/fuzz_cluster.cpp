// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the cluster loader, then fabric sizing on whatever it accepts.
#include "costmodel/io/load.hpp"
#include "costmodel/network/topology.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  costmodel::fuzz::expect_only_costmodel_errors([&] {
    const costmodel::ClusterSpec c = costmodel::load_cluster_text(costmodel::fuzz::text(data, size),
                                                                  "fuzz.yaml", costmodel::fuzz::catalog());
    (void)costmodel::build_topology(c);
  });
  return 0;
}
