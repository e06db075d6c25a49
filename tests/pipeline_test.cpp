// SPDX-License-Identifier: Apache-2.0
#include "estimate/pipeline.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

TEST_CASE("pipeline: one send/recv forward and one backward per micro-batch and virtual stage") {
  // Toy GPT at tp 2, pp 2, dp 2, interleaved v = 2: each TP rank sends its 1/t slice of T·h bf16,
  // 2048 x 1024 x 2 / 2 = 2 MiB, forward and backward at each of the v stage boundaries it crosses.
  TermCase c;
  c.strategy.tp = 2;
  c.strategy.pp = 2;
  c.strategy.dp = 2;
  c.strategy.vpp = 2;
  c.strategy.global_batch = 8;  // 4 micro-batches, a multiple of pp
  c.place(8);
  const double send =
      collective_cost(Collective::kSendRecv, Algorithm::kAuto, Bytes(2048.0 * 1024), c.paths.pp).time.value;
  REQUIRE(send > 0);
  CHECK(pipeline_send_recv_time(c.inputs()).value == doctest::Approx(2 * 2 * send));
  // Without sequence parallelism the receiver all-gathers the t slices over tp (scatter-gather, Narayanan et
  // al. 2021 §4.1): 4 MiB gathered per transfer.
  c.strategy.sequence_parallel = false;
  const double gather =
      collective_cost(Collective::kAllGather, Algorithm::kAuto, Bytes(2048.0 * 1024 * 2), c.paths.tp)
          .time.value;
  CHECK(pipeline_send_recv_time(c.inputs()).value == doctest::Approx(2 * 2 * (send + gather)));
  c.strategy.pp = 1;
  c.strategy.vpp = 1;
  CHECK(pipeline_send_recv_time(c.inputs()).value == 0.0);
}

TEST_CASE(
    "the bubble: the other stages' micro-batch, / v; (p - 1)/v slots when equal (Narayanan 2021 §2.2)") {
  TermCase c;
  c.strategy.pp = 4;
  // 1F1B with 4 stages of 1 s: 3 slots; interleaving 2 virtual stages halves it.
  CHECK(pipeline_bubble_time(c.inputs(), Seconds(4.0), Seconds(1.0)).value == doctest::Approx(3.0));
  c.strategy.vpp = 2;
  CHECK(pipeline_bubble_time(c.inputs(), Seconds(4.0), Seconds(1.0)).value == doctest::Approx(1.5));
  // Unequal stages (1.2 s slowest, the rest 1, 1, 0.8 s): the slowest sets the period, the others fill.
  c.strategy.vpp = 1;
  CHECK(pipeline_bubble_time(c.inputs(), Seconds(4.0), Seconds(1.2)).value == doctest::Approx(2.8));
  c.strategy.pp = 1;
  CHECK(pipeline_bubble_time(c.inputs(), Seconds(1.0), Seconds(1.0)).value == 0.0);
}
