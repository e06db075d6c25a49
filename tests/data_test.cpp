// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/data.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

namespace {

double cost(Collective c, double bytes, const LinkPath& path) {
  return collective_cost(c, Algorithm::kAuto, Bytes(bytes), path).time.value;
}

// Toy GPT at dp 8 over one node, 2 micro-batches per step, ZeRO `zero`.
TermCase dp8(int zero) {
  TermCase c;
  c.strategy.dp = 8;
  c.strategy.global_batch = 16;
  c.strategy.zero = zero;
  c.place(8);
  return c;
}

}  // namespace

TEST_CASE("gradient bytes on the wire: fp32 main gradients, halved by fp16, quartered by int8") {
  Strategy s;
  CHECK(wire_bytes_per_gradient(s) == 4.0);
  s.compression.kind = CompressionKind::kFp16;
  CHECK(wire_bytes_per_gradient(s) == 2.0);
  s.compression.kind = CompressionKind::kInt8;
  CHECK(wire_bytes_per_gradient(s) == 1.0);
  s.compression.kind = CompressionKind::kNone;
  s.dtype = Dtype::kFp16;  // fp16 training keeps fp16 gradients
  CHECK(wire_bytes_per_gradient(s) == 2.0);
}

TEST_CASE("ZeRO 0-3: which collectives one group of 1e9 parameters pays per step") {
  const double params = 1e9;
  // ZeRO-0: one AllReduce of the fp32 gradients, 4 GB.
  TermCase c = dp8(0);
  const LinkPath& path = c.paths.dp;
  GradientExchange g = gradient_exchange_time(c.inputs(), params, 8, path, Seconds(0));
  CHECK(g.reduce.value == doctest::Approx(cost(Collective::kAllReduce, 4e9, path)));
  CHECK(g.gather.value == 0.0);
  CHECK(g.weight_gathers.value == 0.0);
  // ZeRO-1/2 (distributed optimizer): reduce-scatter the gradients, all-gather the bf16 weights, 2 GB.
  for (int zero : {1, 2}) {
    c = dp8(zero);
    g = gradient_exchange_time(c.inputs(), params, 8, path, Seconds(0));
    CHECK(g.reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4e9, path)));
    CHECK(g.gather.value == doctest::Approx(cost(Collective::kAllGather, 2e9, path)));
  }
  // ZeRO-3: no gather after the step, but one before each micro-batch's forward and one before its
  // backward: 2 micro-batches x 2.
  c = dp8(3);
  g = gradient_exchange_time(c.inputs(), params, 8, path, Seconds(0));
  CHECK(g.gather.value == 0.0);
  CHECK(g.weight_gathers.value == doctest::Approx(2 * 2 * cost(Collective::kAllGather, 2e9, path)));
  // Top-k 1%: every rank all-gathers everyone's values and indices: 8 x 0.01 x 1e9 x 8 B.
  c = dp8(0);
  c.strategy.compression = Compression{CompressionKind::kTopK, 0.01};
  g = gradient_exchange_time(c.inputs(), params, 8, path, Seconds(0));
  CHECK(g.reduce.value == doctest::Approx(cost(Collective::kAllGather, 8 * 0.01 * 1e9 * 8, path)));
  // One rank has no one to exchange with.
  g = gradient_exchange_time(c.inputs(), params, 1, path, Seconds(0));
  CHECK(g.reduce.value == 0.0);
}

TEST_CASE("overlap: the reduction hides behind the last backward, the gather behind the next forward") {
  TermCase c = dp8(1);
  const LinkPath& path = c.paths.dp;
  // No compute to hide behind: everything is exposed.
  GradientExchange g = gradient_exchange_time(c.inputs(), 1e9, 8, path, Seconds(0));
  CHECK(g.exposed.value == doctest::Approx(g.reduce.value + g.gather.value));
  // 8 layers of a 1 s forward: a 16 s backward and an 8 s forward window hide both (efficiency 1).
  g = gradient_exchange_time(c.inputs(), 1e9, 8, path, Seconds(1));
  CHECK(g.exposed.value == doctest::Approx(0.0));
  // Without overlap nothing hides.
  c.strategy.overlap = false;
  g = gradient_exchange_time(c.inputs(), 1e9, 8, path, Seconds(1));
  CHECK(g.exposed.value == doctest::Approx(g.reduce.value + g.gather.value));
  // data_parallel_time() of a dense model is its one group, over dp·cp ranks.
  MemoryBreakdown memory;
  memory.dense_parameters = 1e9;
  const DataParallelComm dp = data_parallel_time(c.inputs(), memory, Seconds(1));
  CHECK(dp.total.value == doctest::Approx(g.reduce.value + g.gather.value));
  CHECK(dp.exposed.value == doctest::Approx(g.exposed.value));
}

TEST_CASE("the optimizer step moves 32 bytes per local parameter, compression 4 + wire + 8 more") {
  TermCase c = dp8(1);
  MemoryBreakdown memory;
  memory.optimizer = Bytes(12e9);  // 1e9 parameters' Adam states
  memory.dense_parameters = 8e9;
  // 1e9 x 32 B at 1 TB/s = 32 ms.
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032));
  // int8 with error feedback: read the fp32 gradient and residual, write the int8 copy and the residual:
  // 8e9 x (4 + 1 + 8) B at 1 TB/s = 104 ms more.
  c.strategy.compression.kind = CompressionKind::kInt8;
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032 + 0.104));
}
