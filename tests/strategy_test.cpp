// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/strategy.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;

TEST_CASE("check_split: the split-level flags are check()'s at vpp = micro_batch = 1") {
  const ModelSpec gpt = test::toy_gpt();  // 8 layers, 8 heads, s = 2048
  // One broken rule each: 8 heads % 3, 9 stages for 8 layers, batch 10 % dp 4, seq_len 2048 % 3, ep on a
  // dense model. 8 layers on 3 stages split unevenly (3, 3, 2: last_stage_layers 2), so pp 3 is a valid
  // split.
  CHECK(check_split(gpt, 1, 1, 1, 1, 1, 16) == kValid);
  CHECK(check_split(gpt, 3, 1, 1, 1, 1, 16) == kHeadsIndivisible);
  CHECK(check_split(gpt, 1, 3, 1, 1, 1, 16) == kValid);
  CHECK(check_split(gpt, 1, 9, 1, 1, 1, 16) == kLayersIndivisible);
  CHECK(check_split(gpt, 1, 1, 4, 1, 1, 10) == kBatchIndivisible);
  CHECK(check_split(gpt, 1, 1, 1, 3, 1, 16) == kSeqIndivisible);
  CHECK(check_split(gpt, 1, 1, 2, 1, 2, 16) == kExpertsIndivisible);
  CHECK(check_split(gpt, 0, 1, 1, 1, 1, 16) == kBadDegree);
  // Every split of 1..72 GPUs, valid or not, against check() of the same split (less the GPU count), 8 layers
  // on 3 stages as 3, 3, 2.
  const ModelSpec moe = test::toy_moe();  // 8 experts
  const ClusterSpec cluster = test::round_cluster(64);
  for (const ModelSpec* m : {&gpt, &moe}) {
    for (int tp : {1, 2, 3, 4, 8, 16}) {
      for (int pp : {1, 2, 3, 4, 8, 9}) {
        for (int dp : {1, 2, 4, 6, 8}) {
          for (int cp : {1, 2, 3, 4}) {
            for (int ep : {1, 2, 4, 8, 16}) {
              Strategy s;
              s.tp = tp;
              s.pp = pp;
              s.dp = dp;
              s.cp = cp;
              s.ep = ep;
              if (pp == 3) s.last_stage_layers = 2;
              s.global_batch = 48;
              CAPTURE(s.tp);
              CAPTURE(s.pp);
              CAPTURE(s.dp);
              CAPTURE(s.cp);
              CAPTURE(s.ep);
              CHECK(check_split(*m, tp, pp, dp, cp, ep, 48) == (check(s, *m, cluster) & ~kBadProduct));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("Llama 3 405B at TP8 PP16 DP128 on 16,384 GPUs: 7 layers on the first and last stage, 8 between") {
  // Grattafiori et al. 2024 §3.3.2: 126 layers over 16 stages, one layer fewer on the first and the last
  // stage (Megatron-LM --decoder-first/last-pipeline-num-layers 7; equivalently the embedding and the loss
  // counted as layers: (126 + 2)/16 = 8 units per stage).
  ModelSpec llama;
  llama.layers = 126;
  llama.hidden = 16384;
  llama.heads = 128;
  llama.kv_heads = 8;
  llama.ffn_hidden = 53248;
  llama.ffn = FfnKind::kSwiglu;
  llama.vocab = 128256;
  llama.seq_len = 8192;
  const ClusterSpec cluster = test::round_cluster(16384);
  Strategy s;
  s.tp = 8;
  s.pp = 16;
  s.dp = 128;
  s.global_batch = 2048;
  CHECK((check(s, llama, cluster) & kLayersIndivisible) != 0);  // 126 % 16 != 0: even is refused
  s.first_stage_layers = 7;
  s.last_stage_layers = 7;
  CHECK(check(s, llama, cluster) == kValid);
  const StageLayers layers = stage_layers(s, llama.layers);
  CHECK(layers.first == 7);
  CHECK(layers.middle == 8);
  CHECK(layers.last == 7);
  CHECK(layers.middle_stages == 14);
  CHECK(layers.most() == 8);
  // Interleaved: Megatron-LM's own uneven rule needs vpp | 7 and vpp | 8, so only vpp 1; the account-for
  // layout (8 units per stage) takes vpp 2, 4 and 8 (one unit per chunk: the first chunk is the embedding).
  for (const int v : {2, 4, 8}) {
    s.vpp = v;
    s.global_batch = 2048 * v;
    CAPTURE(v);
    CHECK(check_layers(s, llama.layers) == kValid);
  }
  s.vpp = 3;
  CHECK(check_layers(s, llama.layers) == kLayersIndivisible);
  // Megatron-LM's rules: the rest must divide over the middle stages.
  s.vpp = 1;
  s.first_stage_layers = 6;
  CHECK(check_layers(s, llama.layers) == kLayersIndivisible);  // 113 over 14
}

TEST_CASE("ZeRO-2 with pipeline parallelism is a valid split (FSDP runs it, as Meta ran Llama 3 405B)") {
  // FSDP's SHARD_GRAD_OP with 16 pipeline stages (Llama 3 paper §3.3.2); DeepSpeed's PipelineEngine refuses
  // it and Megatron-LM has no ZeRO-2, so the planner proposes it only when asked (planner_test).
  const ModelSpec gpt = test::toy_gpt();
  const ClusterSpec cluster = test::round_cluster(16);
  Strategy s;
  s.pp = 2;
  s.dp = 8;
  s.global_batch = 16;
  for (const int z : {0, 1, 2, 3}) {
    s.zero = z;
    CHECK(check(s, gpt, cluster) == kValid);
  }
}
