// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/pipeline.hpp"

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
  c.strategy.pp = 1;
  c.strategy.vpp = 1;
  CHECK(pipeline_send_recv_time(c.inputs()).value == 0.0);
}

TEST_CASE("the bubble is (p - 1)/v micro-batch slots (Narayanan et al. 2021 §2.2)") {
  TermCase c;
  c.strategy.pp = 4;
  // 1F1B with 4 stages: 3 slots of a 1 s micro-batch; interleaving 2 virtual stages halves it.
  CHECK(pipeline_bubble_time(c.inputs(), Seconds(1.0)).value == doctest::Approx(3.0));
  c.strategy.vpp = 2;
  CHECK(pipeline_bubble_time(c.inputs(), Seconds(1.0)).value == doctest::Approx(1.5));
  c.strategy.pp = 1;
  c.strategy.vpp = 1;
  CHECK(pipeline_bubble_time(c.inputs(), Seconds(1.0)).value == 0.0);
}
