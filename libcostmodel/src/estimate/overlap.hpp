// SPDX-License-Identifier: Apache-2.0
#pragma once
// One overlap budget: a compute window hides at most its own length of communication, shared by every
// stream that runs beside it, and only GpuEfficiency::overlap of the overlapped time is actually hidden
// (NCCL's kernels take SMs and memory bandwidth from the concurrent GEMMs: Rashidi et al. 2021, "Enabling
// compute-communication overlap in distributed deep learning training platforms", §2). The efficiency is
// applied once, to the sum.
//
// The windows of one micro-batch on one stage (step.cpp): its forward pass, and its backward pass with what
// recompute adds. Streams that overlap them: the context-parallel K/V ring (confined to the attention core
// it feeds), ZeRO-3's weight gathers and ZeRO-2/3's reduce-scatters, and, once a step, the ZeRO-0/1 gradient
// reduction (the last micro-batch's backward) and the ZeRO-1/2 weight all-gather (the first micro-batch's
// forward). With --tp-comm-overlap the tensor-parallel collectives hide behind their own GEMMs first
// (tensor_parallel_layer()) and the other streams share what is left of the window; after them, under the
// interleaved schedule, the pipeline send/recv (--pp-comm-overlap) and, with --ep-comm-overlap, the expert
// dispatch and combine (one micro-batch's a step excepted) take what the streams before them leave. Never
// overlapped: tensor-parallel collectives without --tp-comm-overlap (or across scale-up domains), 1F1B's
// pipeline send/recv, the first layer's ZeRO-3 gather of each micro-batch, the tied-embedding all-reduce and
// the optimizer step.

#include <algorithm>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One compute window and the communication that may hide behind it, s.
struct OverlapWindow {
  double compute = 0;   ///< the window's compute
  double core = 0;      ///< the part of it the confined stream may use (the attention core)
  double confined = 0;  ///< communication confined to `core` (context parallelism's K/V ring)
  double free = 0;      ///< communication that may use the whole window (data-parallel streams)
};

/// What a window leaves exposed, by stream, and what it hides, s.
struct Overlapped {
  double hidden = 0;            ///< communication hidden behind the window: at most its compute
  double confined_exposed = 0;  ///< of OverlapWindow::confined, left on the critical path
  double free_exposed = 0;      ///< of OverlapWindow::free, left on the critical path
};

/// The confined stream overlaps up to `core`, the free streams the rest of the window; `efficiency`
/// (GpuEfficiency::overlap, in [0, 1]) of the overlapped time is hidden.
/// Always inlined: the planner's inner loop calls it a dozen times per estimate.
[[nodiscard, gnu::always_inline]] inline Overlapped overlap(const OverlapWindow& w,
                                                            double efficiency) noexcept {
  const double confined = std::min(std::min(w.confined, w.core), w.compute);  // std::min({...}) loops
  const double free = std::min(w.free, w.compute - confined);
  return {efficiency * (confined + free), w.confined - efficiency * confined, w.free - efficiency * free};
}

}  // namespace costmodel::inline COSTMODEL_ABI
