// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/expert.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

TEST_CASE("expert parallelism: dispatch and combine, forward and backward, in the MoE layers' share") {
  // Toy MoE (top-2, every other layer) at ep 4 inside dp 8: T·top_k·h bf16 = 2048 x 2 x 1024 x 2 = 8 MiB
  // per all-to-all; 4 per MoE layer, and half the layers are MoE layers.
  TermCase c;
  c.model = test::toy_moe();
  c.strategy.dp = 8;
  c.strategy.ep = 4;
  c.strategy.global_batch = 8;
  c.place(8);
  const double all_to_all =
      collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(2048.0 * 2 * 1024 * 2), c.paths.ep)
          .time.value;
  REQUIRE(all_to_all > 0);
  CHECK(expert_parallel_layer_time(c.inputs()).value == doctest::Approx(0.5 * 4 * all_to_all));
  c.strategy.recompute = Recompute::kFull;
  CHECK(expert_parallel_layer_time(c.inputs()).value == doctest::Approx(0.5 * 6 * all_to_all));
  // A dense model has no all-to-all, whatever ep says.
  c.model = test::toy_gpt();
  CHECK(expert_parallel_layer_time(c.inputs()).value == 0.0);
}
