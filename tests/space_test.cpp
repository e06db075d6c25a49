// SPDX-License-Identifier: Apache-2.0
// search/space: enumeration counts for small cases, derived by hand in the comments.

#include <doctest/doctest.h>

#include <set>
#include <tuple>

#include "allocation_counter.hpp"
#include "costmodel/error.hpp"
#include "costmodel/search/space.hpp"

namespace costmodel {
namespace {

/// 4 layers, 4 heads, sequence 16: small enough to count every candidate by hand.
ModelSpec toy_model() {
  ModelSpec m;
  m.name = "toy";
  m.layers = 4;
  m.hidden = 256;
  m.heads = 4;
  m.kv_heads = 4;
  m.ffn_hidden = 1024;
  m.vocab = 1000;
  m.seq_len = 16;
  return m;
}

TrainingSettings batch(int global_batch) {
  TrainingSettings t;
  t.global_batch = global_batch;
  return t;
}

/// recompute none, ZeRO 0, overlap on: only the split, vpp, micro-batch and sequence parallelism vary.
SearchSpace pinned_inner() {
  SearchSpace s;
  s.recompute = {Recompute::kNone};
  s.zero = {0};
  s.overlap = {true};
  return s;
}

std::int64_t count_all(const CandidateSpace& space) {
  std::int64_t n = 0;
  for (const auto& split : space.splits()) space.for_each_candidate(split, [&n](const Strategy&) { ++n; });
  return n;
}

TEST_CASE("divisors are ascending and complete") {
  CHECK(divisors(12) == std::vector<int>{1, 2, 3, 4, 6, 12});
  CHECK(divisors(1) == std::vector<int>{1});
  CHECK(divisors(16) == std::vector<int>{1, 2, 4, 8, 16});
  CHECK(divisors(0).empty());
}

TEST_CASE("toy model on 8 GPUs, cp pinned to 1: splits and candidates by hand") {
  SearchSpace s = pinned_inner();
  s.cp = {1};
  const CandidateSpace space(s, toy_model(), 8, 8, batch(8));
  // tp·pp·dp = 8 with tp <= 8: tp 1 (pp 1,2,4,8), tp 2 (pp 1,2,4), tp 4 (pp 1,2), tp 8 (pp 1) = 10 splits.
  // Invalid: (tp 1, pp 8): 4 layers % 8; (tp 8, pp 1): 4 heads % 8.
  REQUIRE(space.splits().size() == 10);
  int invalid = 0;
  for (const auto& split : space.splits()) {
    if (split.invalid == kValid) continue;
    ++invalid;
    if (split.tp == 8) CHECK(split.invalid == kHeadsIndivisible);
    if (split.pp == 8) CHECK(split.invalid == kLayersIndivisible);
  }
  CHECK(invalid == 2);
  // Layouts of 4 layers: pp 2 -> vpp 1 and 2 (even, 2 layers per stage) and vpp 3 with Megatron-LM's
  // account-for-embedding-and-loss layout ((4 + 2)/2 = 3 units per stage, 3 % 3 == 0: 2 layers on each end);
  // pp 4 -> vpp 1 only (1 layer per stage; vpp 2 would need 8 chunks). Per valid split (global batch 8,
  // micro-batches mb | 8/dp; vpp > 1 only when (8/dp/mb) % pp == 0; sequence parallel x2 when tp > 1):
  //   (1,1,8): mb {1}                                           -> 1
  //   (1,2,4): mb {1,2}; vpp 2: mb 1; vpp 3: mb 1               -> 2 + 1 + 1 = 4
  //   (1,4,2): mb {1,2,4}                                       -> 3
  //   (2,1,4): mb {1,2}                                  x2 sp  -> 4
  //   (2,2,2): mb {1,2,4}; vpp 2: mb 1, 2; vpp 3: mb 1, 2 x2 sp  -> (3 + 2 + 2) x 2 = 14
  //   (2,4,1): mb {1,2,4,8}                              x2 sp  -> 8
  //   (4,1,2): mb {1,2,4}                                x2 sp  -> 6
  //   (4,2,1): mb {1,2,4,8}; vpp 2 and 3: mb 1, 2, 4      x2 sp  -> (4 + 3 + 3) x 2 = 20
  // Total 1 + 4 + 3 + 4 + 14 + 8 + 6 + 20 = 60.
  CHECK(space.count() == 60);
  CHECK(count_all(space) == 60);
}

TEST_CASE("toy model on 8 GPUs with every inner knob free") {
  SearchSpace s;
  s.cp = {1};
  const CandidateSpace space(s, toy_model(), 8, 8, batch(8));
  // ZeRO (4 stages) and overlap (2) multiply only where dp·cp > 1, i.e. all splits above but (2,4,1) and
  // (4,2,1), which keep 8 + 20 = 28; the other 32 candidates become 32 x 8 = 256. Recompute x3:
  // (256 + 28) x 3 = 852. (ZeRO-2 with pp > 1 is enumerated; the planner refuses it unless asked for.)
  CHECK(space.count() == 852);
}

TEST_CASE("context parallelism: every ordered factorization of 8 into tp·pp·cp·dp") {
  SearchSpace s = pinned_inner();
  s.micro_batch = {1};
  s.vpp = {1};
  s.sequence_parallel = {true};
  const CandidateSpace space(s, toy_model(), 8, 8, batch(8));
  // 8 = 2^3 over 4 ordered factors: C(3 + 3, 3) = 20 splits; (tp 8) and (pp 8) are invalid, and
  // every cp in {1,2,4,8} divides the sequence of 16.
  CHECK(space.splits().size() == 20);
  CHECK(space.count() == 18);
}

TEST_CASE("sequence length not divisible by cp is an invalid split") {
  ModelSpec m = toy_model();
  m.seq_len = 12;  // cp 8 does not divide 12
  SearchSpace s = pinned_inner();
  s.tp = {1};
  s.pp = {1};
  s.dp = {1};
  const CandidateSpace space(s, m, 8, 8, batch(8));
  REQUIRE(space.splits().size() == 1);
  CHECK(space.splits()[0].cp == 8);
  CHECK(space.splits()[0].invalid == kSeqIndivisible);
  CHECK(space.count() == 0);
}

TEST_CASE("tensor parallelism stays in the scale-up domain unless asked") {
  SearchSpace s = pinned_inner();
  s.cp = {1};
  s.pp = {1};
  const auto tps = [](const CandidateSpace& space) {
    std::set<int> out;
    for (const auto& split : space.splits()) out.insert(split.tp);
    return out;
  };
  CHECK(tps(CandidateSpace(s, toy_model(), 8, 2, batch(8))) == std::set<int>{1, 2});
  s.tp_beyond_node = true;
  CHECK(tps(CandidateSpace(s, toy_model(), 8, 2, batch(8))) == std::set<int>{1, 2, 4, 8});
  s.tp_beyond_node = false;
  s.tp = {4};  // a pin is honoured
  CHECK(tps(CandidateSpace(s, toy_model(), 8, 2, batch(8))) == std::set<int>{4});
}

TEST_CASE("interleaving: vpp divides layers per stage, micro-batches divide by pp, bounded by max_vpp") {
  ModelSpec m = toy_model();
  m.layers = 8;
  SearchSpace s = pinned_inner();
  s.tp = {1};
  s.pp = {2};
  s.cp = {1};
  // dp 4, global batch 16: 4 sequences per replica, mb {1,2,4}. 4 layers per stage: vpp {1,2,4} evenly,
  // and vpp 5 with the embedding and the loss counted as layers ((8 + 2)/2 = 5 units per stage, one per
  // chunk, as Llama 3 405B); vpp > 1 needs (4/mb) % 2 == 0: mb {1,2}. Count 3 + 2 + 2 + 2 = 9.
  CHECK(CandidateSpace(s, m, 8, 8, batch(16)).count() == 9);
  s.max_vpp = 2;  // vpp {1,2}: 3 + 2 = 5
  CHECK(CandidateSpace(s, m, 8, 8, batch(16)).count() == 5);
  s.vpp = {4};  // pinned beyond max_vpp: honoured, and vpp 1 excluded: 2
  CHECK(CandidateSpace(s, m, 8, 8, batch(16)).count() == 2);
}

TEST_CASE("expert parallelism only for MoE models: ep divides dp and the experts") {
  ModelSpec m = toy_model();
  SearchSpace s = pinned_inner();
  s.tp = {1};
  s.pp = {1};
  s.cp = {1};
  CHECK(CandidateSpace(s, m, 8, 8, batch(8)).splits().size() == 1);  // dense: ep = 1 only
  m.moe = MoeSpec{4, 2, 1, 512, 0};
  const CandidateSpace space(s, m, 8, 8, batch(8));
  // dp 8: ep in {1,2,4,8}; 8 does not divide 4 experts.
  REQUIRE(space.splits().size() == 4);
  CHECK(space.splits()[3].ep == 8);
  CHECK(space.splits()[3].invalid == kExpertsIndivisible);
  CHECK(space.count() == 3);  // micro-batch 1 only (8/8 = 1 sequence per replica)
}

TEST_CASE("pinned knobs yield exactly their values") {
  SearchSpace s;
  s.tp = {2};
  s.pp = {2};
  s.micro_batch = {2};
  s.recompute = {Recompute::kFull};
  s.zero = {1};
  s.overlap = {false};
  s.sequence_parallel = {true};
  const CandidateSpace space(s, toy_model(), 8, 8, batch(8));
  std::int64_t n = 0;
  for (const auto& split : space.splits()) {
    space.for_each_candidate(split, [&](const Strategy& st) {
      ++n;
      CHECK(st.tp == 2);
      CHECK(st.pp == 2);
      CHECK(st.micro_batch == 2);
      CHECK(st.recompute == Recompute::kFull);
      CHECK(st.overlap == false);
      CHECK(st.global_batch == 8);
      CHECK(st.tp * st.pp * st.dp * st.cp == 8);
    });
  }
  // cp {1,2}: (cp 1, dp 2) mb 2 | 4: vpp 1, 2 and 3 (account-for layout; 4/2 = 2 micro-batches % 2) -> 3;
  // (cp 2, dp 1) mb 2 | 8: vpp 1, 2 and 3 (4 % 2) -> 3, ZeRO pinned so no dedupe effect. Total 6.
  CHECK(n == 6);
}

TEST_CASE("candidates are distinct and the inner loop allocates nothing") {
  ModelSpec m = toy_model();
  m.layers = 8;
  const CandidateSpace space(SearchSpace{}, m, 16, 8, batch(32));
  std::set<std::tuple<int, int, int, int, int, int, int, int, bool, bool>> seen;
  std::int64_t n = 0;
  for (const auto& split : space.splits()) {
    space.for_each_candidate(split, [&](const Strategy& st) {
      ++n;
      seen.emplace(st.tp, st.pp, st.dp, st.cp, st.vpp, st.micro_batch, static_cast<int>(st.recompute),
                   st.zero, st.sequence_parallel, st.overlap);
    });
  }
  CHECK(static_cast<std::int64_t>(seen.size()) == n);
  CHECK(n == space.count());

  const long before = test::allocations();
  std::int64_t visited = 0;
  for (const auto& split : space.splits())
    space.for_each_candidate(split, [&](const Strategy&) { ++visited; });
  CHECK(test::allocations() == before);
  CHECK(visited == n);
}

TEST_CASE("bad inputs are errors") {
  CHECK_THROWS_AS(CandidateSpace(SearchSpace{}, toy_model(), 0, 8, batch(8)), Error);
  CHECK_THROWS_AS(CandidateSpace(SearchSpace{}, toy_model(), 8, 8, batch(0)), Error);
  SearchSpace s;
  s.zero = {4};
  CHECK_THROWS_AS(CandidateSpace(s, toy_model(), 8, 8, batch(8)), Error);
}

}  // namespace
}  // namespace costmodel

TEST_CASE("pins fix exactly the knobs they set") {
  costmodel::Pins pins;
  pins.tp = 8;
  pins.recompute = costmodel::Recompute::kFull;
  pins.overlap = false;
  const costmodel::SearchSpace s = costmodel::pinned(costmodel::SearchSpace{}, pins);
  CHECK(s.tp == std::vector<int>{8});
  CHECK(s.recompute == std::vector<costmodel::Recompute>{costmodel::Recompute::kFull});
  CHECK(s.overlap == std::vector<bool>{false});
  CHECK(s.pp.empty());
  CHECK(s.zero.empty());
  CHECK(s.sequence_parallel.empty());
}
