// SPDX-License-Identifier: Apache-2.0
#include "estimate/expert.hpp"

#include <doctest/doctest.h>

#include "estimate/compute.hpp"
#include "estimate/tensor.hpp"
#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

namespace {

// The toy MoE (8 experts, top 2, every other layer) at ep 4 inside dp 8 on one 8-GPU node.
TermCase toy_moe_ep4() {
  TermCase c;
  c.model = test::toy_moe();
  c.strategy.dp = 8;
  c.strategy.ep = 4;
  c.strategy.global_batch = 8;
  c.place(8);
  return c;
}

}  // namespace

TEST_CASE("expert parallelism: dispatch and combine, forward and backward, in the MoE layers' share") {
  // Toy MoE (top-2, every other layer) at ep 4 inside dp 8: T·top_k·h bf16 = 2048 x 2 x 1024 x 2 = 8 MiB
  // per all-to-all; 4 per MoE layer, and half the layers are MoE layers.
  TermCase c = toy_moe_ep4();
  const double all_to_all =
      collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(2048.0 * 2 * 1024 * 2), c.paths.ep)
          .time.value;
  REQUIRE(all_to_all > 0);
  CHECK(expert_parallel_layer_time(c.inputs()).value == doctest::Approx(0.5 * 4 * all_to_all));
  c.strategy.recompute = Recompute::kFull;
  CHECK(expert_parallel_layer_time(c.inputs()).value == doctest::Approx(0.5 * 6 * all_to_all));
  // A capacity factor of 1.5 sends 1.5 x the tokens (the busiest rank's share).
  c.strategy.recompute = Recompute::kNone;
  c.options.moe_capacity_factor = 1.5;
  const double padded =
      collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(1.5 * 2048 * 2 * 1024 * 2), c.paths.ep)
          .time.value;
  CHECK(expert_parallel_layer_time(c.inputs()).value == doctest::Approx(0.5 * 4 * padded));
  // A dense model has no all-to-all, whatever ep says.
  c.model = test::toy_gpt();
  CHECK(expert_parallel_layer_time(c.inputs()).value == 0.0);
}

TEST_CASE("with TP and SP each rank dispatches its own 1/t of the tokens, then gathers them over tp") {
  // Megatron-LM's alltoall dispatcher: all-to-all of T/t·top_k·h over ep, all-gather over the expert-TP
  // group (= tp) before the experts, reduce-scatter after (token_dispatcher.py, MoEAlltoAllTokenDispatcher).
  TermCase c;
  c.model = test::toy_moe();
  c.strategy.tp = 2;
  c.strategy.dp = 4;
  c.strategy.ep = 4;
  c.strategy.global_batch = 4;
  c.place(8);
  const double all_to_all =
      collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(1024.0 * 2 * 1024 * 2), c.paths.ep)
          .time.value;
  const double gather =
      collective_cost(Collective::kReduceScatter, Algorithm::kAuto, Bytes(2048.0 * 2 * 1024 * 2), c.paths.tp)
          .time.value;
  CHECK(expert_parallel_layer_time(c.inputs()).value ==
        doctest::Approx(0.5 * 2 * (2 * all_to_all + 2 * gather)));
}

TEST_CASE("within a node the expert all-to-all at tp 2 is within 25% of tp 1 (same ep, same micro-batch)") {
  // tp 1: each rank dispatches all T tokens over ep 4. tp 2: each dispatches T/2 and gathers over tp on
  // NVLink. Physically the volume per GPU is about the same; the old model sent t times too much.
  TermCase c = toy_moe_ep4();
  const double tp1 = expert_parallel_layer_time(c.inputs()).value;
  c.strategy.tp = 2;
  c.strategy.dp = 4;
  c.strategy.global_batch = 4;
  c.place(8);
  const double tp2 = expert_parallel_layer_time(c.inputs()).value;
  REQUIRE(tp1 > 0);
  CHECK(tp2 / tp1 == doctest::Approx(1.0).epsilon(0.25));
  // The MoE layers' MLP no longer pays the dense tensor-parallel pair (the dispatcher's gathers replace it):
  // attention's pair in every layer, the MLP's in the dense half.
  const StepInputs in = c.inputs();
  const double one = 2.0 * collective_cost(Collective::kReduceScatter, Algorithm::kAuto,
                                           Bytes(2048.0 * 1024 * 2), c.paths.tp)
                               .time.value;
  CHECK(tensor_parallel_layer_time(in).value == doctest::Approx(one * 2 * (1 + 0.5)));
}

TEST_CASE("MoE parallel folding: whole experts (etp 1) let ep span the TP ranks") {
  // Megatron-Core folds the experts over a stage's tp·cp·dp ranks: etp innermost, then ep
  // (megatron/core/parallel_state.py, initialize_model_parallel). Toy MoE at tp 2, dp 4 on 8 GPUs: with the
  // experts split over tp (etp = tp, the default) ep can reach tp·dp/tp = 4; kept whole (etp 1) it reaches
  // 8, over consecutive ranks.
  TermCase c;
  c.model = test::toy_moe();
  c.strategy.tp = 2;
  c.strategy.dp = 4;
  c.strategy.ep = 8;
  c.strategy.global_batch = 4;
  const ClusterSpec cluster = test::round_cluster(8);
  CHECK(check(c.strategy, c.model, cluster) == kExpertsIndivisible);  // etp·ep = 16 > 8 ranks
  c.strategy.etp = 1;
  REQUIRE(check(c.strategy, c.model, cluster) == kValid);
  CHECK(c.strategy.expert_replicas() == 1);
  c.strategy.etp = 3;  // neither 1 nor tp
  CHECK(check(c.strategy, c.model, cluster) == kExpertsIndivisible);
  c.strategy.etp = 1;
  c.place(8);
  CHECK(c.paths.ep.ranks == 8);
  // Each rank dispatches its own T/t tokens over the 8 ranks and gathers nothing over tp (the experts are
  // whole): two all-to-alls of 1024·top_k·h per pass, forward and backward, in the MoE half of the layers.
  const double all_to_all =
      collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(1024.0 * 2 * 1024 * 2), c.paths.ep)
          .time.value;
  CHECK(expert_parallel_layer_time(c.inputs()).value == doctest::Approx(0.5 * 2 * 2 * all_to_all));
  // The same tokens and FLOPs through the experts as with etp = tp at ep 4: per GPU, 8/8 = 1 local expert
  // at full width for 8·1024·2/8 = 2048 tokens, against 8/4 = 2 at half width for 4·2048·2/8 = 2048 each.
  const double whole = moe_mlp_time(c.inputs()).value;
  TermCase split = c;
  split.strategy.etp = 0;
  split.strategy.ep = 4;
  split.place(8);
  const double halves = moe_mlp_time(split.inputs()).value;
  CHECK(whole == doctest::Approx(halves).epsilon(0.05));
  // A MoE layer's MLP runs no dense tensor-parallel pair when the experts are whole, even at ep 1.
  TermCase local = c;
  local.strategy.ep = 1;
  local.place(8);
  const double one = 2.0 * collective_cost(Collective::kReduceScatter, Algorithm::kAuto,
                                           Bytes(2048.0 * 1024 * 2), local.paths.tp)
                               .time.value;
  CHECK(tensor_parallel_layer_time(local.inputs()).value == doctest::Approx(one * 2 * (1 + 0.5)));
  CHECK(expert_parallel_layer_time(local.inputs()).value == 0.0);
  // A shared expert runs on the TP group like a dense MLP: its layers keep the MLP's pair.
  local.model.moe->shared_experts = 1;
  CHECK(tensor_parallel_layer_time(local.inputs()).value == doctest::Approx(one * 2 * 2));
}

TEST_CASE("the flex dispatcher (DeepEP, HybridEP) sends a token once per node holding its experts") {
  // Inside one node (toy MoE: 8 experts, top 2; ep 4 of dp 8 on one 8-GPU node): each of the 4 GPUs holds 2
  // experts and misses both of a token's with probability C(6,2)/C(8,2) = 15/28, so a token goes to
  // 4 (1 - 15/28) = 13/7 GPUs instead of 2 copies: 13/14 of the alltoall dispatcher's bytes.
  TermCase c = toy_moe_ep4();
  CHECK(flex_dispatch_share(c.inputs()) == 1.0);  // the alltoall dispatcher
  c.options.moe_dispatcher = MoeDispatcher::kDeepEp;
  CHECK(flex_dispatch_share(c.inputs()) == doctest::Approx(13.0 / 14.0).epsilon(1e-12));
  const double full = 2048.0 * 2 * 1024 * 2;
  const auto a2a = [&](double bytes) {
    return collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(bytes), c.paths.ep).time.value;
  };
  CHECK(expert_parallel_layer_time(c.inputs()).value == doctest::Approx(0.5 * 4 * a2a(full * 13.0 / 14.0)));
  // Across nodes (64 experts, top 8, every layer; ep 16 of dp 16 over 2 nodes of 8): the unit is the node,
  // 32 experts each; a node holds none of a token's 8 with probability C(32,8)/C(64,8) = 325/136762, so a
  // token crosses to 2 (1 - 325/136762) nodes instead of 8 copies: 0.2494 of the bytes, HybridEP alike.
  c.model.moe = MoeSpec{64, 8, 1, 2048, 0};
  c.strategy.dp = 16;
  c.strategy.ep = 16;
  c.strategy.global_batch = 16;
  c.options.moe_dispatcher = MoeDispatcher::kHybridEp;
  c.place(16);
  const double share = 2.0 * (1.0 - 325.0 / 136762.0) / 8.0;
  CHECK(flex_dispatch_share(c.inputs()) == doctest::Approx(share).epsilon(1e-12));
  CHECK(expert_parallel_layer_time(c.inputs()).value ==
        doctest::Approx(4 * a2a(2048.0 * 8 * 1024 * 2 * share)));
  // No expert parallelism, nothing to dispatch across ranks: the share is 1.
  c.strategy.ep = 1;
  c.place(16);
  CHECK(flex_dispatch_share(c.inputs()) == 1.0);
}
