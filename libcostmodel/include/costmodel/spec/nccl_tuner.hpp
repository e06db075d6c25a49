// SPDX-License-Identifier: Apache-2.0
#pragma once
// A tuner plug-in of NCCL that overrides NCCL's own choice of (algorithm, protocol) by regions of message
// size and communicator size, as aws-ofi-nccl's region tuner does (data/nccl-tuners.yaml, one entry per
// platform). Plain data; network/nccl_tuner.cpp finds a region's pick.

#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/collective.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One corner of a region's polygon, in the plug-in's plane: log2 of the message bytes, log2 of the ranks.
struct TunerVertex {
  double log2_bytes = 0.0;
  double log2_ranks = 0.0;
};

/// The vertex of (bytes, ranks) as the plug-in stores it: log2 of each, a 0 taken as 1e-6 first
/// (aws/aws-ofi-nccl @2daf7d303aa139a03140aa530957d10521e4478d include/tuner/nccl_ofi_tuner_region.h
/// nccl_ofi_tuner_point::transform_log2).
[[nodiscard]] TunerVertex tuner_vertex(double bytes, double ranks);

/// Where the plug-in picks `algorithm` with `protocol` for `collective`: a polygon (edges included) for
/// communicators of `ranks_per_node` ranks on each of their nodes.
struct TunerRegion {
  int ranks_per_node = 8;
  Collective collective = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  std::vector<TunerVertex> vertices;  ///< in the plug-in's order, log2 coordinates
};

/// One platform's regions of a tuner plug-in, and the clusters it applies to.
struct NcclTuner {
  std::string name;                  ///< catalog name, e.g. "aws-ofi-nccl-p5"
  std::string plugin;                ///< the plug-in, e.g. "aws-ofi-nccl"
  std::string platform;              ///< what the plug-in calls the platform, e.g. "p5/p5e"
  std::vector<std::string> gpus;     ///< GPU catalog names of the platform (none: no cluster selects it)
  std::vector<std::string> links;    ///< scale-out link catalog names of the platform (likewise)
  int min_nodes = 3;                 ///< communicators on fewer nodes are left to NCCL's own tuner
  std::vector<TunerRegion> regions;  ///< in the plug-in's order: the first that holds a point wins
  std::string source;                ///< where the regions come from
};

}  // namespace costmodel::inline COSTMODEL_ABI
