// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to network/: the communicator as NCCL's tuning model sees it (Model) and the (algorithm, protocol)
// entry builders, collective_algorithms.cpp. collective.cpp holds the table, Auto and the public functions.

#include <array>

#include "costmodel/network/collective.hpp"
#include "nccl_tuning.hpp"

namespace costmodel::detail {

// A bandwidth no level falls below, so an empty level never divides by zero (no NaN, ever).
inline constexpr double kMinBandwidth = 1e-3;

// Protocol indices, NCCL's order (NCCL_PROTO_LL, LL128, SIMPLE).
inline constexpr int kLL = 0;
inline constexpr int kLL128 = 1;
inline constexpr int kSimple = 2;

inline bool is_torus(TopologyKind kind) {
  return kind == TopologyKind::kTorus2D || kind == TopologyKind::kTorus3D;
}

// The communicator as NCCL's tuning model sees it, everything that does not depend on the message size:
// p ranks, L per NVLink domain, N domains (NCCL's nNodes: a multi-node NVLink domain counts as one node).
struct Model {
  int p = 1;
  int local = 1;
  int groups = 1;
  bool multi = false;
  int arch = 2;         // NCCL compCapIdx: Volta, Ampere, Hopper, Blackwell
  int nodes_index = 0;  // NCCL index2: one node, two, more
  double up_bw = kMinBandwidth;
  double pair_bw = 0.0;               // full-mesh scale-up: one link per direction; 0 when switched
  double out_bw = kMinBandwidth;      // per rank, neighbour traffic
  double out_a2a_bw = kMinBandwidth;  // per rank, all-to-all traffic
  double out_reduction_bw = 0.0;      // SHARP, per rank; 0 when off
  double nvls_efficiency = 0.0;       // NCCL nvlsEfficiency; 0 without NVLS
  double ring_busbw = kMinBandwidth;  // the ring's graph: nChannels x bw, B/s
  int channels = 1;                   // the ring and tree graphs' channels
  double channel_bw = kMinBandwidth;  // their speed each (bwIntra / bwInter), B/s
  int nvls_channels = 0;              // the NVLS graph's channels (one head GPU each)
  double nvls_bw_intra = 0.0;         // its per-channel NVLink bandwidth, B/s
  double ll_max_bw = 0.0;             // B/s
  double up_excess = 0.0;             // s per scale-up step above NCCL's reference hardware
  double out_excess = 0.0;            // s per network step to a neighbour
  double far_excess = 0.0;            // s per network step to the farthest rank
  bool cross_rail = false;
  // Measured per-protocol constants (ProtocolCalibration): one ring step per level, s (0: NCCL's), and the
  // factor on the protocol's bandwidth of a communicator inside one domain (up) or across domains (out).
  std::array<double, nccl::kProtocols> up_step{};
  std::array<double, nccl::kProtocols> out_step{};
  std::array<double, nccl::kProtocols> up_bw_factor{1.0, 1.0, 1.0};
  std::array<double, nccl::kProtocols> out_bw_factor{1.0, 1.0, 1.0};
  int torus_ring_steps = 0;
  int torus_dimensions = 0;
};

Model model_of(const LinkPath& path);

// The (time-independent) entry of collective `c` run by algorithm `a` with protocol `proto` on `m`, with the
// measured bandwidth factor of the level (ProtocolCalibration); the caller checks that the pair applies.
CollectiveTable::Entry evaluate(Collective c, Algorithm a, int proto, const Model& m);

}  // namespace costmodel::detail
