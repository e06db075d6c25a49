// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to network/: where a tuner plug-in's regions (spec/nccl_tuner.hpp) put a collective, restated from
// aws/aws-ofi-nccl @2daf7d303aa139a03140aa530957d10521e4478d src/tuner/nccl_ofi_regions.cpp.

#include "costmodel/spec/collective.hpp"
#include "costmodel/spec/nccl_tuner.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

/// Whether `region`'s polygon holds `point`, a point on an edge included (is_inside_region: on an edge
/// within 1e-10, else out of the bounding box, else an odd count of edges crossed by the ray to a point past
/// every polygon). Allocates nothing.
[[nodiscard]] bool region_holds(const TunerRegion& region, TunerVertex point);

/// Whether `tuner` chooses for a communicator of `ranks` ranks on `nodes` nodes: at least its min_nodes
/// nodes (region_get_coll_info_internal_v3 leaves 2 or fewer to NCCL).
[[nodiscard]] inline bool tunes(const NcclTuner& tuner, int nodes) {
  return nodes >= tuner.min_nodes;
}

/// The first region of `tuner` for `c` on `ranks` ranks over `nodes` nodes that holds (n bytes, ranks) and
/// whose pair `runs(algorithm, protocol)` (the plug-in skips a pair NCCL marks as not applicable), or null:
/// NCCL's own choice stands (region_get_coll_info_internal_v3). Only the regions of the communicator's
/// ranks per node apply (region_init_internal: nRanks == 8 nNodes, 2 nNodes or nNodes). Allocates nothing.
template <class Runs>
const TunerRegion* tuner_pick(const NcclTuner& tuner, Collective c, double n, int ranks, int nodes,
                              Runs&& runs) {
  if (!tunes(tuner, nodes) || nodes < 1 || ranks % nodes != 0) return nullptr;
  const int per_node = ranks / nodes;
  const TunerVertex point = tuner_vertex(n, ranks);
  for (const TunerRegion& region : tuner.regions) {
    if (region.collective != c || region.ranks_per_node != per_node) continue;
    if (!runs(region.algorithm, region.protocol)) continue;
    if (region_holds(region, point)) return &region;
  }
  return nullptr;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
