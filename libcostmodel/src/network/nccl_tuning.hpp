// SPDX-License-Identifier: Apache-2.0
#pragma once
// NCCL's tuning constants, transcribed (they are NCCL's code constants, so they live in code beside their
// citation). Source: NVIDIA/nccl @1fc949c50bbd7e31fb27343def456d8d48993a90 (NCCL >= 2.29):
// src/tuning/cost_model.cc ncclTunerConstantsDefaults and treeCorrectionFactor, src/tuning/nvls.cc
// nvlsEfficiency, src/tuning/ring.cc getNetOverhead; NVIDIA/nccl @889806836097808572f87a2019eefd01f27aae68
// src/graph/search.cc speed arrays. Latencies in microseconds, bandwidths in GB/s (1e9 B/s), as NCCL writes
// them; indexed [architecture][nodes index] or [algorithm row][protocol] with protocols LL, LL128, Simple.

#include <array>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI::nccl {

/// Rows of NCCL's latency tables (NCCL_ALGO_*), the ones costmodel's algorithms borrow.
enum Row { kTreeRow, kRingRow, kCollNetDirectRow, kCollNetChainRow, kNvlsRow, kNvlsTreeRow, kRowCount };
inline constexpr int kProtocols = 3;  ///< LL, LL128, Simple

using PerProtocol = std::array<double, kProtocols>;
using Table = std::array<PerProtocol, kRowCount>;

/// baseLatencies: Tree 6.8/14/8.4, Ring 6.6/14/8.4, CollNet/NVLS 0.
inline constexpr Table kBaseLatency{{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {}, {}, {}, {}}};
/// hwLatencies[NCCL_HW_NVLINK]: one step over NVLink/NVSwitch.
inline constexpr Table kNvlinkLatency{
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25.0}, {0, 0, 25.0}}};
/// hwLatencies[NCCL_HW_NET]: one step over the network. NVLSTree's 14 us is NCCL 2.19-2.28.7's
/// (src/graph/tuning.cc hwLat @178b6b759074597777ce13438efb0e0ba625e429, NCCL 2.22.3): NCCL 2.28.9 (dbc86fd0,
/// 2025-11) raised it to 20.9 us, a selection bias against NVLSTree for small messages; the time measured on
/// two H20 nodes, 47.6 us (NCCL issue 1244), is 25 + 2 x 14 = 53 us's, not 25 + 2 x 20.9 = 66.8 us's.
inline constexpr Table kNetLatency{
    {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}, {0, 0, 31.0}, {0, 0, 30.0}, {0, 0, 18.0}, {0, 0, 14.0}}};

/// pat.cc ncclTuningPatModelInit (PAT, AllGather and ReduceScatter, Simple, one GPU per node): latency
/// baseLatencies[PAT] 8 us + log2i(nNodes) x (hwLatencies[NET][PAT] 14 us + the NIC's latency) / 3.5 + nRanks
/// x 2.8 us ("still a linear part"); bandwidth 0.75 x the graph's bus bandwidth, taken as the algorithm's.
inline constexpr double kPatBaseLatency = 8.0;
inline constexpr double kPatNetLatency = 14.0;
inline constexpr double kPatLogDivisor = 3.5;
inline constexpr double kPatPerRankLatency = 2.8;
inline constexpr double kPatBandwidthFactor = 0.75;

/// ring.cc getNetOverhead: posting one network operation, x86 Intel host (1 us; AMD 2 us), x3 for Simple.
inline constexpr double kNetOverhead = 1.0;
inline constexpr double kNetOverheadSimpleFactor = 3.0;
/// ring.cc ncclTuningRingModelSim: Ring/Simple AllReduce across nodes pays its latency x1.4 (x1.9 before
/// Ampere) once nBytes / (nChannels x nRanks) >= 64 ("plateau effect of ring").
inline constexpr double kRingPlateau = 1.4;
inline constexpr double kRingPlateauVolta = 1.9;
inline constexpr double kRingPlateauBytes = 64.0;

/// Columns of the per-generation tables: one node, two nodes, more (index2 = min(nNodes, 3) - 1).
using PerNodes = std::array<double, 3>;
using ByArchitecture = std::array<PerNodes, 4>;  ///< Volta, Ampere, Hopper, Blackwell

/// llMaxBws: row = GPU generation on one node; across nodes row 0 (Intel host; AMD: row 1).
inline constexpr ByArchitecture kLlMaxBw{
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
inline constexpr ByArchitecture kPerChannelMaxRingLl128Bw{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
inline constexpr ByArchitecture kPerChannelMaxTreeLl128Bw{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
inline constexpr ByArchitecture kPerChannelMaxTreeBw{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
inline constexpr ByArchitecture kPerChannelMaxNvlsTreeBw{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};

/// ring.cc / tree.cc: LL moves half the bus bandwidth on a ring (1/3.8 on a tree); LL128 0.92 on a ring,
/// 7/9 on a one-node tree, 120/128 across nodes; a tree reaches 0.92 of the graph's bandwidth.
inline constexpr double kRingLlFactor = 0.5;
inline constexpr double kRingLl128Factor = 0.92;
inline constexpr double kTreeFactor = 0.92;
/// tree.cc ncclTuningTreeModelInit: busBw x 0.85 when the communicator's tree pattern is the plain TREE (all
/// of a node's network traffic through one GPU), which search.cc ncclTopoCompute forces when a node holds one
/// GPU of the communicator (ngpus == 1); BALANCED_TREE and SPLIT_TREE, NCCL's first tries, spread it over
/// two.
inline constexpr double kTreePatternTreeFactor = 0.85;
inline constexpr double kTreeLlFactor = 1.0 / 3.8;
inline constexpr double kTreeLl128FactorOneNode = 7.0 / 9.0;
inline constexpr double kTreeLl128FactorNodes = 120.0 / 128.0;

/// treeCorrectionFactor[protocol][log2(nBytes / 64)]: the pipelined tree's bandwidth at mid sizes.
inline constexpr std::array<std::array<double, 24>, kProtocols> kTreeCorrection{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};
/// tree.cc applies it below log2 index 23 (256 MiB); nvls.cc to NVLSTree's prediction below 24 on Blackwell
/// with x86 hosts, which the model leaves out (algorithms/nvls.cpp).
inline constexpr int kTreeCorrectionEntries = 23;
/// The smallest factor per protocol (for pruning candidates that can never win).
inline constexpr PerProtocol kTreeCorrectionMin{0.4, 0.6, 0.5};

/// search.cc speed arrays for graphs inside one node (GB/s per channel), tried from the top, per generation
/// (sm < 90, sm90, sm100). Zero-padded.
using Speeds = std::array<double, 20>;
inline constexpr std::array<Speeds, 3> kIntraSpeeds{{
    {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0},
    {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0},
    {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0},
}};
/// init.cc ringGraph->maxChannels = MAXCHANNELS/2 (MAXCHANNELS 64, src/include/device.h @0524aef7): the
/// search keeps at most that many channels before ncclTopoDupChannels doubles them.
inline constexpr int kMaxSearchChannels = 32;
/// src/graph/connect.cc ncclTopoPostset ("Duplication should be complete now"): the communicator runs twice
/// the graph's channels, nChannels = min(MAXCHANNELS, 2 x the graph's); MAXCHANNELS 64
/// (src/include/device.h).
inline constexpr int kRuntimeChannelFactor = 2;
inline constexpr int kMaxChannels = 64;
/// src/include/comm.h NCCL_LL_THREAD_THRESHOLD, NCCL_LL128_THREAD_THRESHOLD, NCCL_SIMPLE_THREAD_THRESHOLD:
/// bytes per thread before NCCL adds threads and channels (the ring's LL one x nRanks,
/// src/tuning/tuning_general.cc ncclTuningSetThreadThresholds).
inline constexpr PerProtocol kThreadThreshold{8.0, 8.0, 64.0};
/// src/include/device.h NCCL_LL_MAX_NTHREADS, NCCL_LL128_MAX_NTHREADS, NCCL_SIMPLE_MAX_NTHREADS: a channel's
/// threads for ring and tree; halved (ncclTuningGetChannels) while a multiple of 128: 512 -> 64 three times,
/// 640 -> 320 once. The tree always launches NCCL_MAX_NTHREADS (no halving).
inline constexpr PerProtocol kMaxThreads{512.0, 640.0, 512.0};
inline constexpr std::array<int, kProtocols> kThreadHalvings{3, 1, 3};
/// device.h NCCL_MAX_NVLS_ARITY (> 2.20): NVLS channels (one head GPU each) per NVLink domain.
inline constexpr int kMaxNvlsArity = 32;

/// NCCL's pipeline model (NVIDIA/nccl @539478940fa87bcc0393d5a71e15fd0d09fccee3 src/tuning/pipeline_model/
/// pipeline_model.h, ring.cc, tree.cc; @623aa02926e4bbc2a4651d543e6ec131d18c80aa pipeline_model.cc; enabled
/// from Rubin by src/tuning/platforms/platforms.h, applied here with the constants of each GPU's own
/// generation). NCCL_STEPS (src/include/device.h): buffer slots per connection.
inline constexpr int kSteps = 8;
/// comm->buffSizes (src/init.cc): LL 8 lines x 512 threads x NCCL_STEPS x 16 B; LL128 120 elements x 640
/// threads x NCCL_STEPS x 8 B; Simple 4 MiB (NCCL_BUFFSIZE).
inline constexpr PerProtocol kBufferBytes{524288.0, 4915200.0, 4194304.0};
/// ncclGetChunkSize (src/include/coll_sizes.h): LL carries 8 data bytes per 16-byte line, LL128 15 of 16.
inline constexpr PerProtocol kChunkDataFraction{0.5, 15.0 / 16.0, 1.0};
/// coll_sizes.h: Simple on a ring, ALLREDUCE/ALLGATHER/REDUCESCATTER_CHUNKSTEPS NCCL_STEPS/2 and
/// *_SLICESTEPS NCCL_STEPS/4; broadcast, reduce, every other algorithm and protocol one step each.
inline constexpr int kRingChunkSteps = kSteps / 2;
inline constexpr int kRingSliceSteps = kSteps / 4;
/// ncclSimpleSliceSize: a slice is at least 1/32 of the nominal one, in units of 16 elements (4-byte floats,
/// nccl-tests' default type).
inline constexpr double kMinSliceFraction = 1.0 / 32.0;
inline constexpr double kSliceGrainBytes = 16.0 * 4.0;
/// src/tuning/model.h ncclTuningProtoBWFactor: a step's bandwidth per protocol (LL half, LL128 120/128).
inline constexpr PerProtocol kPipelineProtocolFactor{0.5, 120.0 / 128.0, 1.0};
/// pipeline_model.cc: algBw = ncclSoftMin(the pipeline's, the algorithm's maximum M, 0.1 x M) (model.h).
inline constexpr double kSoftMinSmoothness = 0.1;

}  // namespace costmodel::inline COSTMODEL_ABI::nccl
