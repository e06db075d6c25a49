// SPDX-License-Identifier: Apache-2.0
#include "costmodel/search/space.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>

#include "costmodel/error.hpp"

namespace costmodel::inline COSTMODEL_ABI {

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

// The first and last stage layers of the layouts tried for pp stages and vpp v (0 = as the other stages):
// the even split, Megatron-LM's account-for-embedding-and-loss, -loss and -embedding layouts (the embedding
// and the loss each take a layer's place), and the balanced split. check_layers() sorts out which are valid.
std::vector<std::pair<int, int>> candidate_ends(int layers, int pp, int v) {
  std::vector<std::pair<int, int>> ends = {{0, 0}};
  const auto add = [&](int first, int last) {
    if (first < 0 || last < 0) return;
    if (std::find(ends.begin(), ends.end(), std::pair{first, last}) == ends.end())
      ends.emplace_back(first, last);
  };
  if ((layers + 2) % pp == 0) add((layers + 2) / pp - 1, (layers + 2) / pp - 1);
  if ((layers + 1) % pp == 0) {
    add(0, (layers + 1) / pp - 1);
    add((layers + 1) / pp - 1, 0);
  }
  // Balanced: ceil(layers / pp) on the middle stages, rounded up to a multiple of v; the rest split between
  // the ends, the last (which also runs the logits) never holding more.
  const int middle = ((layers + pp - 1) / pp + v - 1) / v * v;
  const int rest = pp > 2 ? layers - (pp - 2) * middle : layers;
  const int last = rest / 2 / v * v;
  if (last > 0 && rest - last > 0) add(rest - last, last);
  return ends;
}

std::vector<StageLayout> stage_layouts(const SearchSpace& space, int layers, int pp) {
  std::vector<StageLayout> found;
  const bool pinned_ends = !space.first_stage_layers.empty() || !space.last_stage_layers.empty();
  const int most = layers / std::max(1, pp) + 1;
  const int max_vpp = space.max_vpp > 0 ? space.max_vpp : most;
  std::vector<int> vpps;
  if (space.vpp.empty()) {
    for (int v = 1; v <= (pp > 1 ? std::min(max_vpp, most) : 1); ++v) vpps.push_back(v);
  } else {
    vpps = space.vpp;
    std::sort(vpps.begin(), vpps.end());
    vpps.erase(std::unique(vpps.begin(), vpps.end()), vpps.end());
  }
  Strategy s;
  s.pp = pp;
  for (const int v : vpps) {
    s.vpp = v;
    std::vector<std::pair<int, int>> ends;
    if (pinned_ends) {
      for (const int f : space.first_stage_layers.empty() ? std::vector<int>{0} : space.first_stage_layers) {
        for (const int l : space.last_stage_layers.empty() ? std::vector<int>{0} : space.last_stage_layers) {
          ends.emplace_back(f, l);
        }
      }
    } else if (pp > 1) {
      ends = candidate_ends(layers, pp, v);
    } else {
      ends = {{0, 0}};
    }
    std::vector<std::array<int, 3>> resolved;  // per stage kind, to drop a layout that repeats another
    for (const auto& [first, last] : ends) {
      s.first_stage_layers = first;
      s.last_stage_layers = last;
      if (check_layers(s, layers) != kValid) continue;
      const StageLayers stages = stage_layers(s, layers);
      const std::array<int, 3> counts = {stages.first, stages.middle, stages.last};
      if (std::find(resolved.begin(), resolved.end(), counts) != resolved.end()) continue;
      resolved.push_back(counts);
      found.push_back({v, first, last});
    }
  }
  if (found.empty()) {
    // Nothing valid: one layout anyway, so that check() says why (the pinned knobs' first values).
    found.push_back({vpps.empty() ? 1 : vpps.front(),
                     space.first_stage_layers.empty() ? 0 : space.first_stage_layers.front(),
                     space.last_stage_layers.empty() ? 0 : space.last_stage_layers.front()});
  }
  return found;
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
    : gpus_(gpus), training_(training) {
  if (gpus < 1) throw Error("the GPU count must be positive, not " + std::to_string(gpus));
  if (training.global_batch < 1) {
    throw Error("the global batch must be positive, not " + std::to_string(training.global_batch));
  }
  if (space.max_vpp < 0) throw Error("max_vpp must not be negative");
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
        if (!model.is_moe()) {
          if (allowed(space.ep, 1))
            splits_.push_back(
                {tp, pp, dp, cp, 1, 0, check_split(model, tp, pp, dp, cp, 1, training.global_batch)});
          continue;
        }
        // The experts: etp = tp (Megatron-Core's default), and each expert whole (etp 1) when tp > 1; ep
        // dividing the experts and the tp·cp·dp / etp ranks left.
        for (const int etp : {0, 1}) {
          if (etp == 1 && tp == 1) continue;
          const int expert_tp = etp == 0 ? tp : etp;
          if (!space.etp.empty() && !allowed(space.etp, expert_tp)) continue;
          for (const int ep : divisors(static_cast<std::int64_t>(tp) * cp * dp / expert_tp)) {
            if (!allowed(space.ep, ep)) continue;
            splits_.push_back({tp, pp, dp, cp, ep, etp,
                               check_split(model, tp, pp, dp, cp, ep, training.global_batch, etp)});
          }
        }
      }
    }
  }

  for (const auto& split : splits_) {
    const auto found = std::find_if(layouts_.begin(), layouts_.end(),
                                    [&](const auto& entry) { return entry.first == split.pp; });
    if (found == layouts_.end())
      layouts_.emplace_back(split.pp, stage_layouts(space, model.layers, split.pp));
  }
  std::sort(layouts_.begin(), layouts_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const int mb : divisors(training.global_batch)) {
    if (allowed(space.micro_batch, mb)) micro_batches_.push_back(mb);
  }
  recompute_count_ =
      fill_choices(recompute_, space.recompute, {Recompute::kNone, Recompute::kSelective, Recompute::kFull});
  recompute_layers_ = std::max(0, space.recompute_layers);
  fewest_recompute_ = space.recompute.empty() && recompute_layers_ == 0;
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
  s.etp = split.etp;
  const StageLayout& layout = layouts(split.pp).front();
  s.vpp = layout.vpp;
  s.first_stage_layers = layout.first;
  s.last_stage_layers = layout.last;
  s.micro_batch = micro_batches_.empty() ? 1 : micro_batches_.front();
  s.global_batch = training_.global_batch;
  s.dtype = training_.dtype;
  s.bf16_gradients = training_.bf16_gradients;
  s.bf16_optimizer = training_.bf16_optimizer;
  s.fp8_params = training_.fp8_params;
  s.recompute_modules = training_.recompute_modules;
  s.compression = training_.compression;
  if (recompute_count_ > 0) s.recompute = recompute_[0];
  if (zero_count_ > 0) s.zero = zero_[0];
  if (sequence_parallel_count_ > 0) s.sequence_parallel = sequence_parallel_[0];
  if (overlap_count_ > 0) s.overlap = overlap_[0];
  return s;
}

const std::vector<StageLayout>& CandidateSpace::layouts(int pp) const {
  const auto found = std::lower_bound(layouts_.begin(), layouts_.end(), pp,
                                      [](const auto& entry, int p) { return entry.first < p; });
  static const std::vector<StageLayout> kNone;
  return found != layouts_.end() && found->first == pp ? found->second : kNone;
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
  pin(space.etp, pins.etp);
  pin(space.vpp, pins.vpp);
  pin(space.first_stage_layers, pins.first_stage_layers);
  pin(space.last_stage_layers, pins.last_stage_layers);
  pin(space.micro_batch, pins.micro_batch);
  pin(space.zero, pins.zero);
  if (pins.recompute) space.recompute = {*pins.recompute};
  if (pins.recompute_layers) {
    space.recompute = {Recompute::kFull};
    space.recompute_layers = *pins.recompute_layers;
  }
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
  for (const int etp : space.etp) {
    if (etp != 1 && (space.tp.empty() || etp != space.tp.front()))
      reasons.push_back("etp " + std::to_string(etp) + " must be 1 or the pinned tp");
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

}  // namespace costmodel::inline COSTMODEL_ABI
