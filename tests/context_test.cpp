// SPDX-License-Identifier: Apache-2.0
#include "estimate/context.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

TEST_CASE("ring attention: cp - 1 K/V block exchanges forward, twice that backward, again under recompute") {
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
  ContextParallelComm comm = context_parallel_layer_comm(c.inputs());
  CHECK(comm.forward.value == doctest::Approx(3 * block));
  // Backward: K and V go round the ring again with their gradients dK and dV.
  CHECK(comm.backward.value == doctest::Approx(2 * 3 * block));
  // Recompute (selective reruns the attention core, full the whole layer) runs the forward ring again.
  for (const Recompute r : {Recompute::kSelective, Recompute::kFull}) {
    c.strategy.recompute = r;
    comm = context_parallel_layer_comm(c.inputs());
    CHECK(comm.backward.value == doctest::Approx(3 * 3 * block));
  }
  c.strategy.cp = 1;
  CHECK(context_parallel_layer_comm(c.inputs()).forward.value == 0.0);
}

TEST_CASE("ring attention with tp > kv_heads: each TP rank exchanges one whole K/V head") {
  // GQA with 2 K/V heads of 128 at tp 4: Megatron-LM replicates them, each rank holds one head, not half.
  TermCase c;
  c.model.kv_heads = 2;
  c.strategy.tp = 4;
  c.strategy.cp = 2;
  c.strategy.global_batch = 1;
  c.place(8);
  // T = 2048 / 2 = 1024 tokens; K and V blocks of 1024 x 128 bf16 each.
  const double block =
      collective_cost(Collective::kSendRecv, Algorithm::kAuto, Bytes(2.0 * 1024 * 128 * 2), c.paths.cp)
          .time.value;
  CHECK(context_parallel_layer_comm(c.inputs()).forward.value == doctest::Approx(block));
}
