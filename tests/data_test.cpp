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
  s.dtype = Dtype::kBf16;
  s.bf16_gradients = true;  // Megatron-LM --grad-reduce-in-bf16
  CHECK(wire_bytes_per_gradient(s) == 2.0);
}

TEST_CASE("ZeRO 0-3: which collectives of which parameters, once a step or every micro-batch") {
  // The toy GPT on one stage: 8 layers of L parameters, an embedding and an untied output layer of V·h.
  TermCase c = dp8(0);
  (void)c.inputs();
  const double layer = c.terms.params_per_layer;
  const double vh = 32768.0 * 1024;
  const double embedding = c.terms.params_embedding;  // V·h + learned positions s·h
  const double stage = 8 * layer + embedding + vh;
  const LinkPath& path = c.paths.dp;
  // ZeRO-0: the stage's fp32 gradients all-reduced once a step.
  DataParallelStreams s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == doctest::Approx(cost(Collective::kAllReduce, 4 * stage, path)));
  CHECK(s.step_gather.value == 0.0);
  CHECK(s.layer_reduce.value == 0.0);
  CHECK(s.layer_gather.value == 0.0);
  // ZeRO-1 (distributed optimizer): reduce-scatter once a step, all-gather the bf16 weights once a step.
  c = dp8(1);
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * stage, path)));
  CHECK(s.step_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * stage, path)));
  CHECK(s.layer_reduce.value == 0.0);
  // ZeRO-2 (DeepSpeed): every micro-batch reduce-scatters each layer (and the ends); the weights are
  // gathered once a step.
  c = dp8(2);
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == 0.0);
  CHECK(s.layer_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * layer, path)));
  CHECK(s.first_end_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * embedding, path)));
  CHECK(s.last_end_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * vh, path)));
  CHECK(s.step_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * stage, path)));
  CHECK(s.layer_gather.value == 0.0);
  // ZeRO-3 / FSDP: each layer gathered (forward and again backward) and reduce-scattered every micro-batch,
  // nothing once a step.
  c = dp8(3);
  s = data_parallel_streams(c.inputs());
  CHECK(s.layer_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * layer, path)));
  CHECK(s.layer_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * layer, path)));
  CHECK(s.step_reduce.value == 0.0);
  CHECK(s.step_gather.value == 0.0);
  // Top-k 1% with ZeRO-1: every rank all-gathers everyone's values and indices, 8 x 0.01 x stage x 8 B;
  // the updated weights are still gathered.
  c = dp8(1);
  c.strategy.compression = Compression{CompressionKind::kTopK, 0.01};
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == doctest::Approx(cost(Collective::kAllGather, 8 * 0.01 * stage * 8, path)));
  CHECK(s.step_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * stage, path)));
  // One replica has no one to exchange with.
  TermCase one;
  one.place(1);
  CHECK(data_parallel_streams(one.inputs()).step_reduce.value == 0.0);
}

TEST_CASE("the once-a-step streams carry the first stage's parameters") {
  // Toy GPT, pp 2, dp 4: the first stage holds 4 layers and the embedding.
  TermCase c;
  c.strategy.pp = 2;
  c.strategy.dp = 4;
  c.strategy.global_batch = 8;
  c.strategy.zero = 1;
  c.place(8);
  (void)c.inputs();
  const double first = 4 * c.terms.params_per_layer + c.terms.params_embedding;
  CHECK(data_parallel_streams(c.inputs()).step_reduce.value ==
        doctest::Approx(cost(Collective::kReduceScatter, 4 * first, c.paths.dp)));
}

TEST_CASE("tied embeddings: their gradients all-reduced between the first and the last stage") {
  TermCase c;
  c.model.tied_embeddings = true;
  c.strategy.pp = 2;
  c.strategy.dp = 4;
  c.strategy.global_batch = 8;
  c.place(8);
  (void)c.inputs();
  REQUIRE(c.paths.embedding.ranks == 2);
  CHECK(data_parallel_streams(c.inputs()).tied_embedding.value ==
        doctest::Approx(cost(Collective::kAllReduce, 4 * c.terms.params_embedding, c.paths.embedding)));
  c.strategy.pp = 1;
  c.strategy.dp = 8;
  c.place(8);
  CHECK(data_parallel_streams(c.inputs()).tied_embedding.value == 0.0);
}

TEST_CASE(
    "MoE: expert gradients are reduced over the expert-data-parallel group at every ep, ep 1 included") {
  // Toy MoE on 8 GPUs, dp 8. At ep 1 every rank holds all 8 experts, reduced over the 8 ranks; at ep 2 each
  // holds 4, reduced over 4 ranks. The expert traffic per GPU at ep 1 is at least that at ep 2.
  const auto dp_traffic = [](int ep) {
    TermCase c;
    c.model = test::toy_moe();
    c.strategy.dp = 8;
    c.strategy.ep = ep;
    c.strategy.global_batch = 8;
    c.strategy.zero = 1;
    c.place(8);
    const DataParallelStreams s = data_parallel_streams(c.inputs());
    return s.step_reduce.value + s.step_gather.value;
  };
  CHECK(dp_traffic(1) >= dp_traffic(2));
  // ... and at ep 1 the experts are exchanged at all: more than the dense parameters alone.
  TermCase dense;
  dense.model = test::toy_moe();
  dense.strategy.dp = 8;
  dense.strategy.global_batch = 8;
  dense.strategy.zero = 1;
  dense.place(8);
  (void)dense.inputs();
  const double dense_params = 8 * (dense.terms.params_per_layer - dense.terms.expert_params_per_layer) +
                              dense.terms.params_embedding + 32768.0 * 1024;
  CHECK(dp_traffic(1) > cost(Collective::kReduceScatter, 4 * dense_params, dense.paths.dp) +
                            cost(Collective::kAllGather, 2 * dense_params, dense.paths.dp));
}

TEST_CASE("the optimizer step moves 32 bytes per local parameter, compression and FP8 casts more") {
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
  // A plain fp16 cast keeps no residual: 8e9 x (4 + 2) B = 48 ms.
  c.strategy.compression.kind = CompressionKind::kFp16;
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032 + 0.048));
  // FP8: the stage's weights cast to FP8 with their transposes once a step, 8e9 x 4 B = 32 ms.
  c.strategy.compression.kind = CompressionKind::kNone;
  c.strategy.dtype = Dtype::kFp8;
  c.gpu.peak_flops[static_cast<int>(Dtype::kFp8)] = FlopsPerSecond(200e12);
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032 + 0.032));
}
