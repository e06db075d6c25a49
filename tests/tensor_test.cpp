// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/tensor.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

TEST_CASE("tensor parallelism: 4 collectives of T·h activations per layer, 6 under full recompute") {
  // Toy GPT at tp 2 (one node), dp 4: T = 2048 tokens x h = 1024 x 2 bytes = 4 MiB per collective.
  TermCase c;
  c.strategy.tp = 2;
  c.strategy.dp = 4;
  c.strategy.global_batch = 8;
  c.strategy.sequence_parallel = false;
  c.place(8);
  const Bytes n(2048.0 * 1024 * 2);
  const double all_reduce =
      collective_cost(Collective::kAllReduce, Algorithm::kAuto, n, c.paths.tp).time.value;
  const double reduce_scatter =
      collective_cost(Collective::kReduceScatter, Algorithm::kAuto, n, c.paths.tp).time.value;
  REQUIRE(all_reduce > 0);
  // f and g of Shoeybi et al. 2019 §3: an AllReduce each, forward and backward.
  CHECK(tensor_parallel_layer_time(c.inputs()).value == doctest::Approx(4 * all_reduce));
  // The embedding's forward AllReduce, or the output layer's backward one: one per micro-batch.
  CHECK(tensor_parallel_end_time(c.inputs()).value == doctest::Approx(all_reduce));
  // Sequence parallelism: each AllReduce becomes a reduce-scatter + all-gather pair (as costly as 2 RS).
  c.strategy.sequence_parallel = true;
  CHECK(tensor_parallel_layer_time(c.inputs()).value == doctest::Approx(4 * 2 * reduce_scatter));
  CHECK(tensor_parallel_end_time(c.inputs()).value == doctest::Approx(2 * reduce_scatter));
  // Full recompute runs the forward collectives again.
  c.strategy.recompute = Recompute::kFull;
  CHECK(tensor_parallel_layer_time(c.inputs()).value == doctest::Approx(6 * 2 * reduce_scatter));
  // No tensor parallelism, nothing to exchange.
  c.strategy.tp = 1;
  CHECK(tensor_parallel_layer_time(c.inputs()).value == 0.0);
  CHECK(tensor_parallel_end_time(c.inputs()).value == 0.0);
}
