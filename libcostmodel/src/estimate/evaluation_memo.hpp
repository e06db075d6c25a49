// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to the library: what consecutive estimates of one split's candidates share, so that the planner's
// inner loop computes it once. CandidateSpace::for_each_candidate varies the ZeRO stage, sequence
// parallelism and the DP overlap innermost; the per-layer terms do not read the ZeRO stage or the overlap,
// and the data-parallel streams read neither the micro-batch nor sequence parallelism.

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
  bool overlap = true;
};

// What an estimate computes from its candidate without reading the ZeRO stage or the DP overlap: the layer
// terms before gradient accumulation (which ZeRO-2/3 shard) and the overlap flag.
struct LayerPart {
  LayerTerms layer;
  double backward_used = 0;   // of the backward, what the overlapped TP collectives use
  double recompute_core = 0;  // the attention core recomputed per layer
  HostTerms host;
};

}  // namespace detail

/// Consecutive candidates' shared terms, for Estimator::evaluate_checked(..., EvaluationMemo&): one per
/// thread and split (the paths of one split). A slot is reused when the candidate equals its key in every
/// knob the terms read; any other change recomputes it.
class EvaluationMemo {
 public:
  /// estimator.evaluate_checked(strategy, paths, memory) for a candidate of the split of `paths`, to the last
  /// bit (tests/planner_test.cpp checks it on every candidate of several plans), reusing what this memo holds
  /// from the previous candidates where their knobs do not change it.
  [[nodiscard]] StepEstimate evaluate(const Estimator& estimator, const Strategy& strategy,
                                      const SplitPaths& paths, const MemoryBreakdown& memory) noexcept {
    return estimator.evaluate_valid(strategy, paths, memory, this);
  }

  /// The layer terms of `strategy`, from `make()` unless the last candidate with the same sequence
  /// parallelism differed only in the ZeRO stage or the DP overlap.
  template <typename Make>
  const detail::LayerPart& layer(const Strategy& strategy, Make&& make) {
    Strategy key = strategy;
    key.zero = 0;
    key.overlap = false;
    return find(layer_.at(strategy.sequence_parallel ? 1 : 0), key, make);
  }
  /// The data-parallel streams of `strategy`, from `make()` unless the last candidate with the same ZeRO
  /// stage and DP overlap differed only in the micro-batch, sequence parallelism or (below ZeRO-3, whose
  /// per-tensor gathers repeat with the recompute) the recompute.
  template <typename Make>
  const DataParallelStreams& data_parallel(const Strategy& strategy, Make&& make) {
    Strategy key = strategy;
    key.micro_batch = 0;
    key.sequence_parallel = false;
    key.recompute_modules = 0;
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
  template <typename T>
  struct Slot {
    Strategy key;
    bool valid = false;
    T value{};
  };
  template <typename T, typename Make>
  static const T& find(Slot<T>& slot, const Strategy& key, Make& make) {
    if (!slot.valid || !(slot.key == key)) {
      slot.value = make();
      slot.key = key;
      slot.valid = true;
    }
    return slot.value;
  }
  std::array<Slot<detail::LayerPart>, 2> layer_{};  // by sequence parallelism
  std::array<Slot<DataParallelStreams>, 8> dp_{};   // by ZeRO stage and DP overlap
};

}  // namespace costmodel::inline COSTMODEL_ABI
