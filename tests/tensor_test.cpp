// SPDX-License-Identifier: Apache-2.0
#include "estimate/tensor.hpp"

#include <doctest/doctest.h>

#include <algorithm>

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

TEST_CASE("--tp-comm-overlap: each collective's first chunk waits, e of the rest hides behind its GEMMs") {
  // Toy GPT at tp 2, sequence parallel: per operator (attention, MLP) and pass one all-gather +
  // reduce-scatter pair c = 2 RS. Overlapped (Wang et al. 2023: t chunks pipelined with the GEMM), the first
  // chunk c/t waits and the rest c(t-1)/t runs beside the operator's GEMMs g (forward g, backward 2g), of
  // which efficiency e is hidden (as every overlapped stream): exposed = c/t + c(t-1)/t - e min(c(t-1)/t, g),
  // summed over 2 operators x 2 passes.
  TermCase c;
  c.strategy.tp = 2;
  c.strategy.dp = 4;
  c.strategy.global_batch = 8;
  c.place(8);
  c.options.tp_comm_overlap = true;
  const StepInputs in = c.inputs();
  const double total = tensor_parallel_layer_time(in).value;
  const double op = total / 4.0;
  LayerForward f;
  f.attention_gemms = attention_gemm_time(in);
  f.mlp = dense_mlp_time(in);
  const auto exposed = [&](double e) {
    double sum = 0.0;
    for (const double g : {1.0, 2.0}) {
      for (const double gemm : {f.attention_gemms.value, f.mlp.value})
        sum += op / 2 + op / 2 - e * std::min(op / 2, g * gemm);
    }
    return sum;
  };
  const TensorParallelLayer overlapped = tensor_parallel_layer(in, f, 0.8);
  CHECK(overlapped.total.value == doctest::Approx(total));
  CHECK(overlapped.exposed.value == doctest::Approx(exposed(0.8)));
  CHECK(overlapped.exposed.value < total);
  CHECK(overlapped.exposed.value >= total / 2 * (1 - 1e-12));  // the first of t = 2 chunks always waits
  // No overlap without the flag, or without sequence parallelism (Megatron-LM requires it).
  c.options.tp_comm_overlap = false;
  CHECK(tensor_parallel_layer(c.inputs(), f, 0.8).exposed.value == doctest::Approx(total));
  c.options.tp_comm_overlap = true;
  c.strategy.sequence_parallel = false;
  const StepInputs no_sp = c.inputs();
  CHECK(tensor_parallel_layer(no_sp, f, 0.8).exposed.value ==
        doctest::Approx(tensor_parallel_layer_time(no_sp).value));
}

TEST_CASE("--tp-comm-overlap runs only inside one scale-up domain") {
  // Transformer Engine's userbuffers exchange through the peer memory of one NVLink domain: a TP group of 16
  // on nodes of 8 crosses the network, and its collectives stay exposed whatever the flag; the same group of
  // 8 inside a node overlaps them.
  TermCase c;
  c.model.heads = 16;
  c.model.kv_heads = 16;
  c.strategy.tp = 16;
  c.strategy.dp = 2;
  c.strategy.global_batch = 4;
  c.place(32);
  REQUIRE(c.options.tp_comm_overlap);  // the default
  REQUIRE(c.paths.tp.scale_out.ranks == 2);
  LayerForward f;
  const StepInputs across = c.inputs();
  f.attention_gemms = attention_gemm_time(across);
  f.mlp = dense_mlp_time(across);
  CHECK(tensor_parallel_layer(across, f, 0.8).exposed.value ==
        doctest::Approx(tensor_parallel_layer_time(across).value));
  c.strategy.tp = 8;
  c.strategy.dp = 4;
  c.place(32);
  REQUIRE(c.paths.tp.scale_out.ranks <= 1);
  const StepInputs inside = c.inputs();
  f.attention_gemms = attention_gemm_time(inside);
  f.mlp = dense_mlp_time(inside);
  CHECK(tensor_parallel_layer(inside, f, 0.8).exposed.value < tensor_parallel_layer_time(inside).value);
}
