// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/strategy.hpp"

#include <doctest/doctest.h>

#include "estimate_fixtures.hpp"

using namespace costmodel;

TEST_CASE("check_split: the split-level flags are check()'s at vpp = micro_batch = 1") {
  const ModelSpec gpt = test::toy_gpt();  // 8 layers, 8 heads, s = 2048
  // One broken rule each: 8 heads % 3, 9 stages for 8 layers, batch 10 % dp 4, seq_len 2048 % 3, ep on a
  // dense model. 8 layers on 3 stages split unevenly (3, 3, 2: last_stage_layers 2), so pp 3 is a valid split.
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
