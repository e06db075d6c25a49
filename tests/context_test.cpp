// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/context.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

TEST_CASE("ring attention: 3 x (cp - 1) K/V block exchanges per layer, hidden behind the attention core") {
  // Toy GPT at cp 4, dp 2: T = 2048 / 4 = 512 tokens; a K and a V block of T x kv_dim bf16 = 2 MiB.
  TermCase c;
  c.strategy.cp = 4;
  c.strategy.dp = 2;
  c.strategy.global_batch = 2;
  c.place(8);
  const double block =
      collective_cost(Collective::kSendRecv, Algorithm::kAuto, Bytes(2.0 * 512 * 1024 * 2), c.paths.cp)
          .time.value;
  REQUIRE(block > 0);
  const double exchange = 3 * 3 * block;  // forward once, backward K/V plus their gradients: 3 x (cp - 1)
  // Nothing to overlap with: all of it is exposed.
  CHECK(context_parallel_layer_time(c.inputs(), Seconds(0)).value == doctest::Approx(exchange));
  // An attention core at least as long as the forward exchange hides all of it (overlap efficiency 1).
  CHECK(context_parallel_layer_time(c.inputs(), Seconds(3 * block)).value == doctest::Approx(0.0));
  // With efficiency 1/4 only a quarter of the overlapped share is hidden.
  c.gpu.efficiency.overlap = 0.25;
  CHECK(context_parallel_layer_time(c.inputs(), Seconds(1.0)).value == doctest::Approx(0.75 * exchange));
  c.strategy.cp = 1;
  CHECK(context_parallel_layer_time(c.inputs(), Seconds(0)).value == 0.0);
}
