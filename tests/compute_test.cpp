// SPDX-License-Identifier: Apache-2.0
#include "estimate/compute.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

// The toy GPT (h = 1024, 8 heads of 128, f = 4096, V = 32768, s = 2048) on the round GPU (100 TFLOP/s, 1
// TB/s, efficiency 1): one micro-batch of one sequence, T = 2048 tokens. Every GEMM below is arithmetic bound
// (its mk + kn + mn bf16 elements take less time through HBM than its 2mnk FLOPs on the tensor cores).

TEST_CASE("one toy GPT layer's forward pass, term by term (Megatron-LM GEMM shapes)") {
  TermCase c;
  const StepInputs in = c.inputs();
  // QKV 2·T·h·3h plus projection 2·T·h·h FLOPs: 2 x 2048 x 1024 x 4096 / 1e14 = 171.8 us.
  CHECK(attention_gemm_time(in).value == doctest::Approx(2.0 * 2048 * 1024 * 4096 / 1e14));
  // MLP up and down: 2 x 2·T·h·f = 4 x 2048 x 1024 x 4096 / 1e14 = 343.6 us.
  CHECK(dense_mlp_time(in).value == doctest::Approx(4.0 * 2048 * 1024 * 4096 / 1e14));
  // Flash attention: the causal half of 4·T·s·h, at half the peak: 2 x 2048 x 2048 x 1024 / 5e13 = 171.8 us.
  CHECK(attention_core_time(in).value == doctest::Approx(2.0 * 2048 * 2048 * 1024 / 5e13));
  // Element-wise: T·(30h + 4f) bytes = 2048 x 47104 B / 1e12 B/s = 96.5 us.
  CHECK(elementwise_time(in).value == doctest::Approx(2048.0 * (30 * 1024 + 4 * 4096) / 1e12));
  CHECK(moe_mlp_time(in).value == 0.0);
  const LayerForward f = layer_forward_time(in);
  CHECK(f.mlp.value == dense_mlp_time(in).value);
  CHECK(f.total.value == doctest::Approx(f.attention_gemms.value + f.mlp.value + f.attention_core.value +
                                         f.elementwise.value));
}

TEST_CASE("standard attention computes the masked half and moves 13 bytes per score through HBM") {
  TermCase c;
  c.options.flash_attention = false;
  // Per head two GEMMs of 2·s·s·128 FLOPs (10.7 us each), 8 heads: 171.8 us; scores: 13 x 8 x 2048 x 2048 B
  // at 1 TB/s = 436.2 us.
  CHECK(attention_core_time(c.inputs()).value ==
        doctest::Approx(8 * 2 * (2.0 * 2048 * 2048 * 128 / 1e14) + 13.0 * 8 * 2048 * 2048 / 1e12));
  // Without attention dropout the mask is neither written nor read and the softmax output feeds scores·V
  // directly: 8 bytes per score, 268.4 us.
  c.model.dropout = 0.0;
  CHECK(attention_core_time(c.inputs()).value ==
        doctest::Approx(8 * 2 * (2.0 * 2048 * 2048 * 128 / 1e14) + 8.0 * 8 * 2048 * 2048 / 1e12));
}

TEST_CASE("without dropout the two dropout passes of each layer (10h bytes per token) are gone") {
  // Toy GPT at tp 1: T·(30h + 4f) bytes with dropout, T·(20h + 4f) without (PyTorch returns the input).
  TermCase c;
  REQUIRE(c.model.has_dropout());
  CHECK(elementwise_time(c.inputs()).value == doctest::Approx(2048.0 * (30 * 1024 + 4 * 4096) / 1e12));
  c.model.dropout = 0.0;
  CHECK(elementwise_time(c.inputs()).value == doctest::Approx(2048.0 * (20 * 1024 + 4 * 4096) / 1e12));
}

TEST_CASE("sequence parallelism splits the replicated element-wise traffic over tp") {
  TermCase c;
  c.strategy.tp = 2;
  c.strategy.sequence_parallel = false;
  // Without SP: T·(30h + 4f/t); with it: T·(30h/t + 4f/t).
  CHECK(elementwise_time(c.inputs()).value == doctest::Approx(2048.0 * (30 * 1024 + 4 * 4096 / 2) / 1e12));
  c.strategy.sequence_parallel = true;
  CHECK(elementwise_time(c.inputs()).value ==
        doctest::Approx(2048.0 * (30 * 1024 / 2 + 4 * 4096 / 2) / 1e12));
}

TEST_CASE("MoE layers: balanced routing over the local experts, plus a memory-bound router") {
  TermCase c;
  c.model = test::toy_moe();  // 8 experts, top-2, f_e = 2048, every other layer
  const StepInputs in = c.inputs();
  // Each of the 8 experts sees T·top_k/E = 512 tokens: 8 x 2 x 2·512·1024·2048 FLOPs = 343.6 us. The router
  // GEMM (2048 x 8 x 1024) is memory bound: (2048·1024 + 1024·8 + 2048·8) x 2 B at 1 TB/s = 4.24 us.
  const double experts = 8 * 2 * (2.0 * 512 * 1024 * 2048 / 1e14);
  const double router = (2048.0 * 1024 + 1024 * 8 + 2048 * 8) * 2 / 1e12;
  CHECK(moe_mlp_time(in).value == doctest::Approx(experts + router));
  // Half the layers are MoE layers: the layer's MLP is the average.
  CHECK(layer_forward_time(in).mlp.value ==
        doctest::Approx(0.5 * dense_mlp_time(in).value + 0.5 * moe_mlp_time(in).value));
}

TEST_CASE("a stage: forward + backward + recompute per layer, plus the logits") {
  TermCase c;
  c.strategy.pp = 2;  // 4 layers per stage
  c.strategy.recompute = Recompute::kSelective;
  const StepInputs in = c.inputs();
  // Logits: 3 GEMM passes of 2·T·V·h (4.12 ms) plus 12 bytes per logit through HBM (0.81 ms).
  const double logits = 3 * (2.0 * 2048 * 32768 * 1024 / 1e14) + 12.0 * 2048 * 32768 / 1e12;
  CHECK(logits_time(in).value == doctest::Approx(logits));
  const StageCompute s = stage_compute(in);
  const LayerForward f = s.layer_forward;
  CHECK(s.layer_recompute.value == f.attention_core.value);
  // Backward: 2 x the forward's GEMMs and element-wise work, 2.5 x its flash attention core (FlashAttention-2
  // §3.1.2); recompute (selective) adds the core once more: per layer 3·f + 0.5·core + core.
  CHECK(s.layer_backward.total.value ==
        doctest::Approx(2 * (f.total.value - f.attention_core.value) + 2.5 * f.attention_core.value));
  CHECK(s.stage.value == doctest::Approx(4 * (3 * f.total.value + 1.5 * f.attention_core.value) + logits));
  c.strategy.recompute = Recompute::kFull;
  CHECK(layer_recompute_time(c.inputs(), f).value == f.total.value);
  c.strategy.recompute = Recompute::kNone;
  CHECK(layer_recompute_time(c.inputs(), f).value == 0.0);
}
