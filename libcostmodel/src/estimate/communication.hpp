// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to estimate/: what the communication terms share (a collective's time, overlap with compute).

#include <algorithm>
#include <array>
#include <cstddef>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

// The part of `comm` seconds left on the critical path when it runs beside `window` seconds of compute:
// only `hidden` of the overlapped share is hidden, since NCCL's kernels take SMs and memory bandwidth from
// the concurrent GEMMs (Rashidi et al. 2021, "Enabling compute-communication overlap in distributed deep
// learning training platforms", §2; GpuEfficiency::overlap).
inline double exposed_after_overlap(double comm, double window, double hidden) {
  return comm - hidden * std::min(comm, window);
}

// Where describe_collectives() notes, per communicator of `paths`, the largest collective evaluated and its
// choice of algorithm and protocol; null (the inner loop) notes nothing.
struct CollectiveLog {
  const SplitPaths* paths = nullptr;
  CollectiveChoices choices{};
  std::array<double, kCommGroupCount> bytes{};

  void note(Collective c, double n, const CollectivePath& path, const CommCost& cost) {
    const std::array<const CollectivePath*, kCommGroupCount> groups{
        &paths->tp, &paths->cp, &paths->ep, &paths->pp, &paths->dp, &paths->expert_dp, &paths->embedding};
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groups[g] != &path || n <= bytes[g]) continue;
      bytes[g] = n;
      choices[g] = {c, cost.algorithm, cost.protocol, cost.tuned};
    }
  }
};
inline thread_local CollectiveLog* collective_log = nullptr;

// The cost of a collective from the communicator's prepared table (SplitPaths), falling back to Auto when
// the requested algorithm cannot run on the path (e.g. in-network reduction without SHARP).
inline Seconds comm(Collective c, Algorithm a, double bytes, const CollectivePath& path) {
  if (bytes <= 0.0 || path.ranks <= 1) return Seconds(0.0);
  if (a != Algorithm::kAuto && !applicable(c, a, path)) a = Algorithm::kAuto;
  const CommCost cost = collective_cost(c, a, Bytes(bytes), path);
  if (collective_log != nullptr) collective_log->note(c, bytes, path, cost);
  return cost.time;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
