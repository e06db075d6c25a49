// SPDX-License-Identifier: Apache-2.0
#include "costmodel/search/space.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "costmodel/error.hpp"

namespace costmodel {

namespace {

bool allowed(const std::vector<int>& pins, int value) {
  return pins.empty() || std::find(pins.begin(), pins.end(), value) != pins.end();
}

template <typename T, size_t N>
int fill_choices(std::array<T, N>& out, const std::vector<T>& pins, std::initializer_list<T> defaults) {
  int count = 0;
  const auto add = [&](T value) {
    if (count < static_cast<int>(N) &&
        std::find(out.begin(), out.begin() + count, value) == out.begin() + count) {
      out[static_cast<size_t>(count++)] = value;
    }
  };
  if (pins.empty()) {
    for (const T value : defaults) add(value);
  } else {
    for (const T value : pins) add(value);
  }
  return count;
}

}  // namespace

std::vector<int> divisors(std::int64_t n) {
  std::vector<int> low;
  std::vector<int> high;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(static_cast<int>(d));
    if (d != n / d) high.push_back(static_cast<int>(n / d));
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

CandidateSpace::CandidateSpace(const SearchSpace& space, const ModelSpec& model, int gpus,
                               int scale_up_domain, const TrainingSettings& training)
    : gpus_(gpus), layers_(model.layers), training_(training) {
  if (gpus < 1) throw Error("the GPU count must be positive, not " + std::to_string(gpus));
  if (training.global_batch < 1) {
    throw Error("the global batch must be positive, not " + std::to_string(training.global_batch));
  }
  if (space.max_vpp < 1) throw Error("max_vpp must be positive");
  if (model.layers < 1 || model.heads < 1 || model.seq_len < 1)
    throw Error("the model has no layers or heads");
  for (const int z : space.zero) {
    if (z < 0 || z > 3) throw Error("the ZeRO stage must be 0, 1, 2 or 3, not " + std::to_string(z));
  }

  const bool tp_pinned = !space.tp.empty();
  for (const int tp : divisors(gpus)) {
    if (!allowed(space.tp, tp)) continue;
    if (!tp_pinned && !space.tp_beyond_node && tp > std::max(1, scale_up_domain)) continue;
    for (const int pp : divisors(gpus / tp)) {
      if (!allowed(space.pp, pp)) continue;
      for (const int cp : divisors(gpus / tp / pp)) {
        if (!allowed(space.cp, cp)) continue;
        const int dp = gpus / tp / pp / cp;
        if (!allowed(space.dp, dp)) continue;
        for (const int ep : model.is_moe() ? divisors(dp) : std::vector<int>{1}) {
          if (!allowed(space.ep, ep)) continue;
          splits_.push_back(
              {tp, pp, dp, cp, ep, check_split(model, tp, pp, dp, cp, ep, training.global_batch)});
        }
      }
    }
  }

  vpp_one_allowed_ = allowed(space.vpp, 1);
  if (space.vpp.empty()) {
    for (int v = 2; v <= space.max_vpp; ++v) {
      if (model.layers % v == 0) vpp_choices_.push_back(v);
    }
  } else {
    for (const int v : space.vpp) {
      if (v >= 2 && model.layers % v == 0) vpp_choices_.push_back(v);
    }
    std::sort(vpp_choices_.begin(), vpp_choices_.end());
    vpp_choices_.erase(std::unique(vpp_choices_.begin(), vpp_choices_.end()), vpp_choices_.end());
  }
  for (const int mb : divisors(training.global_batch)) {
    if (allowed(space.micro_batch, mb)) micro_batches_.push_back(mb);
  }
  recompute_count_ =
      fill_choices(recompute_, space.recompute, {Recompute::kNone, Recompute::kSelective, Recompute::kFull});
  zero_count_ = fill_choices(zero_, space.zero, {0, 1, 2, 3});
  sequence_parallel_count_ = fill_choices(sequence_parallel_, space.sequence_parallel, {true, false});
  overlap_count_ = fill_choices(overlap_, space.overlap, {true, false});
}

std::int64_t CandidateSpace::count(const ParallelSplit& split) const {
  std::int64_t n = 0;
  for_each_candidate(split, [&n](const Strategy&) { ++n; });
  return n;
}

std::int64_t CandidateSpace::count() const {
  std::int64_t n = 0;
  for (const auto& split : splits_) n += count(split);
  return n;
}

Strategy CandidateSpace::representative(const ParallelSplit& split) const {
  Strategy s;
  s.tp = split.tp;
  s.pp = split.pp;
  s.dp = split.dp;
  s.cp = split.cp;
  s.ep = split.ep;
  s.vpp = vpp_one_allowed_ || vpp_choices_.empty() ? 1 : vpp_choices_.front();
  s.micro_batch = micro_batches_.empty() ? 1 : micro_batches_.front();
  s.global_batch = training_.global_batch;
  s.dtype = training_.dtype;
  s.compression = training_.compression;
  if (recompute_count_ > 0) s.recompute = recompute_[0];
  if (zero_count_ > 0) s.zero = zero_[0];
  if (sequence_parallel_count_ > 0) s.sequence_parallel = sequence_parallel_[0];
  if (overlap_count_ > 0) s.overlap = overlap_[0];
  return s;
}

SearchSpace pinned(SearchSpace space, const Pins& pins) {
  const auto pin = [](std::vector<int>& knob, const std::optional<int>& value) {
    if (value) knob = {*value};
  };
  pin(space.tp, pins.tp);
  pin(space.pp, pins.pp);
  pin(space.dp, pins.dp);
  pin(space.cp, pins.cp);
  pin(space.ep, pins.ep);
  pin(space.vpp, pins.vpp);
  pin(space.micro_batch, pins.micro_batch);
  pin(space.zero, pins.zero);
  if (pins.recompute) space.recompute = {*pins.recompute};
  if (pins.overlap) space.overlap = {*pins.overlap};
  if (pins.sequence_parallel) space.sequence_parallel = {*pins.sequence_parallel};
  return space;
}

std::vector<std::string> why_no_splits(const SearchSpace& space, const ModelSpec& model, int gpus,
                                       int scale_up_domain) {
  std::vector<std::string> reasons;
  const auto each = [&](const std::vector<int>& pins, const char* name, int whole) {
    for (const int v : pins) {
      if (v < 1 || whole % v != 0) {
        reasons.push_back(std::string(name) + " " + std::to_string(v) + " does not divide the " +
                          std::to_string(whole) + " GPUs");
      }
    }
  };
  each(space.tp, "tp", gpus);
  each(space.pp, "pp", gpus);
  each(space.dp, "dp", gpus);
  each(space.cp, "cp", gpus);
  if (!space.tp.empty() && !space.pp.empty() && !space.dp.empty()) {
    // With cp free, it takes what tp·pp·dp leave; pinned too, the four must multiply to the GPUs.
    const long long product = static_cast<long long>(space.tp.front()) * space.pp.front() * space.dp.front() *
                              (space.cp.empty() ? 1 : space.cp.front());
    if ((space.cp.empty() && gpus % product != 0) || (!space.cp.empty() && product != gpus)) {
      reasons.push_back("the pinned degrees multiply to " + std::to_string(product) +
                        (space.cp.empty() ? ", which does not divide the " : ", not the ") +
                        std::to_string(gpus) + " GPUs");
    }
  }
  if (!model.is_moe()) {
    for (const int ep : space.ep) {
      if (ep > 1) reasons.push_back("ep " + std::to_string(ep) + " needs a mixture-of-experts model");
    }
  }
  if (reasons.empty() &&
      CandidateSpace(space, model, gpus, scale_up_domain, TrainingSettings{}).splits().empty()) {
    reasons.push_back("no split of " + std::to_string(gpus) + " GPUs satisfies the pins together");
  }
  return reasons;
}

}  // namespace costmodel
