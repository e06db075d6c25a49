// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to the library: what the estimates of one split's candidates share, so that the planner's inner
// loop computes it once. CandidateSpace::for_each_candidate varies the layout of the stages outermost, then
// the micro-batch, the recompute, the ZeRO stage, sequence parallelism and the DP overlap; the per-layer
// terms read neither the ZeRO stage nor the overlap nor (but under full recompute, whose share of the layers
// they read) the layout, and the data-parallel streams read neither the micro-batch nor sequence parallelism.

#include <array>
#include <cstddef>

#include "costmodel/estimate/step.hpp"
#include "costmodel/version.hpp"

#include "estimate/data.hpp"
#include "estimate/host_terms.hpp"

namespace costmodel::inline COSTMODEL_ABI {

namespace detail {

// The per-layer numbers every stage kind shares.
struct LayerTerms {
  double forward = 0, backward = 0, core_forward = 0, core_backward = 0, logits = 0;
  // Gradient accumulation outside the GEMMs (grad_accumulation_time(): in `backward` per layer), of the
  // embedding on the first stage and the output layer on the last.
  double accumulate_first = 0, accumulate_last = 0;
  double tp = 0, tp_hidden = 0, tp_end = 0, ep = 0, cp_forward = 0, cp_backward = 0, send_recv = 0;
  // With EstimateOptions::ep_comm_overlap, the expert all-to-alls of the forward and of the backward (with
  // the recompute) hide in what the other streams leave of the windows; otherwise never.
  double ep_forward = 0, ep_backward = 0;
  bool ep_overlap = false;
  // With pipeline_send_recv_overlapped(), the send/recv of the forward and of the backward hide in what the
  // other streams leave of the windows.
  bool pp_overlap = false;
  // The forward and backward windows left for the other streams once overlapped tensor-parallel collectives
  // have used their GEMMs' share (hidden / overlap efficiency; the whole pass without --tp-comm-overlap).
  double forward_window = 0, backward_window = 0;
  double efficiency = 1;
  double ep_efficiency = 1;  // the expert all-to-alls' (GpuEfficiency::ep_overlap)
  bool overlap = true;
};

// What an estimate computes from its candidate without reading the ZeRO stage or the DP overlap: the layer
// terms before gradient accumulation (which ZeRO-2/3 shard) and the overlap flag.
struct LayerPart {
  LayerTerms layer;
  double backward_used = 0;   // of the backward, what the overlapped TP collectives use
  double recompute_core = 0;  // the attention core recomputed per layer
  double send_recv_once = 0;  // pipeline_send_recv_once(): the layout sets how many
  HostTerms host;
};

}  // namespace detail

/// What the candidates of one split share, for the planner: one per thread, reset() for each split. A slot
/// is reused when the candidate equals its key in every knob the terms read; any other change recomputes it.
class EvaluationMemo {
 public:
  /// estimator.evaluate_checked(strategy, paths, memory) for a candidate of the split of `paths`, to the last
  /// bit (tests/planner_test.cpp checks it on every candidate of several plans), reusing what this memo holds
  /// from the candidates since the last reset() where their knobs do not change it.
  [[nodiscard]] StepEstimate evaluate(const Estimator& estimator, const Strategy& strategy,
                                      const SplitPaths& paths, const MemoryBreakdown& memory) noexcept {
    return estimator.evaluate_valid(strategy, paths, memory, this);
  }
  /// Forgets every slot: call it before the candidates of another split or estimator (the keys are the
  /// candidates' knobs; the split's paths and the estimator's cluster are not in them).
  void reset() noexcept { ++generation_; }

  /// The layer terms of `strategy`, from `make()` unless a candidate since reset() differed only in the ZeRO
  /// stage, the DP overlap or, but under full recompute (its share of the layers depends on them), the
  /// layout of the stages (vpp, first and last stage layers).
  template <typename Make>
  const detail::LayerPart& layer(const Strategy& strategy, Make&& make) {
    Knobs key = knobs(strategy);
    key.zero = 0;
    key.overlap = false;
    if (strategy.recompute != Recompute::kFull) {
      key.vpp = 0;
      key.first_stage_layers = 0;
      key.last_stage_layers = 0;
    }
    // Direct-mapped by the knobs for_each_candidate varies inside a layout.
    const auto index = static_cast<std::size_t>(strategy.micro_batch) * 8U +
                       static_cast<std::size_t>(strategy.recompute) * 2U +
                       (strategy.sequence_parallel ? 1U : 0U);
    return find(layer_.at(index % layer_.size()), key, make);
  }
  /// The data-parallel streams of `strategy`, from `make()` unless the last candidate with the same ZeRO
  /// stage and DP overlap differed only in the micro-batch, sequence parallelism or (below ZeRO-3, whose
  /// per-tensor gathers repeat with the recompute) the recompute.
  template <typename Make>
  const DataParallelStreams& data_parallel(const Strategy& strategy, Make&& make) {
    Knobs key = knobs(strategy);
    key.micro_batch = 0;
    key.sequence_parallel = false;
    if (strategy.zero < 3) {
      key.recompute = Recompute::kNone;
      key.recompute_layers = 0;
    }
    const std::size_t zero = strategy.zero < 0   ? 0
                             : strategy.zero > 3 ? 3
                                                 : static_cast<std::size_t>(strategy.zero);
    return find(dp_.at(2 * zero + (strategy.overlap ? 1 : 0)), key, make);
  }

 private:
  // The knobs CandidateSpace::for_each_candidate varies inside one split; the rest of a candidate (the split,
  // the batch, the precisions, the compression, the recompute modules) is the same until reset(). A knob
  // added to that loop must be added here (the planner test of this memo fails otherwise).
  struct Knobs {
    int vpp = 0, first_stage_layers = 0, last_stage_layers = 0, micro_batch = 0, recompute_layers = 0,
        zero = 0;
    Recompute recompute = Recompute::kNone;
    bool sequence_parallel = false, overlap = false;
    friend bool operator==(const Knobs&, const Knobs&) = default;
  };
  static Knobs knobs(const Strategy& s) noexcept {
    return {s.vpp,  s.first_stage_layers, s.last_stage_layers, s.micro_batch, s.recompute_layers,
            s.zero, s.recompute,          s.sequence_parallel, s.overlap};
  }
  template <typename T>
  struct Slot {
    Knobs key;
    unsigned generation = 0;  // valid while it equals the memo's
    T value{};
  };
  template <typename T, typename Make>
  const T& find(Slot<T>& slot, const Knobs& key, Make& make) {
    if (slot.generation != generation_ || !(slot.key == key)) {
      slot.value = make();
      slot.key = key;
      slot.generation = generation_;
    }
    return slot.value;
  }
  unsigned generation_ = 1;
  std::array<Slot<detail::LayerPart>, 64> layer_{};  // by micro-batch, recompute and sequence parallelism
  std::array<Slot<DataParallelStreams>, 8> dp_{};    // by ZeRO stage and DP overlap
};

}  // namespace costmodel::inline COSTMODEL_ABI
