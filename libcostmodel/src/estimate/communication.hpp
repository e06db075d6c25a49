// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to estimate/: what the communication terms share (a collective's time, overlap with compute).

#include <algorithm>

#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/units.hpp"

namespace costmodel::detail {

// The part of `comm` seconds left on the critical path when it runs beside `window` seconds of compute:
// only `hidden` of the overlapped share is hidden, since NCCL's kernels take SMs and memory bandwidth from
// the concurrent GEMMs (Rashidi et al. 2021, "Enabling compute-communication overlap in distributed deep
// learning training platforms", §2; GpuEfficiency::overlap).
inline double exposed_after_overlap(double comm, double window, double hidden) {
  return comm - hidden * std::min(comm, window);
}

// The cost of a collective from the communicator's prepared table (SplitPaths), falling back to Auto when
// the requested algorithm cannot run on the path (e.g. in-network reduction without SHARP).
inline Seconds comm(Collective c, Algorithm a, double bytes, const CollectivePath& path) {
  if (bytes <= 0.0 || path.ranks <= 1) return Seconds(0.0);
  if (a != Algorithm::kAuto && !applicable(c, a, path)) a = Algorithm::kAuto;
  return collective_cost(c, a, Bytes(bytes), path).time;
}

}  // namespace costmodel::detail
