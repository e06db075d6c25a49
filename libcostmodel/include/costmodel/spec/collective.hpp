// SPDX-License-Identifier: Apache-2.0
#pragma once
// The names of the collectives and of the algorithms that carry them out: plain vocabulary shared by the
// training settings (which algorithm the DP and TP exchanges use) and the network model that costs them.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The collectives of NCCL (and MPI) that LLM training issues.
enum class Collective : std::uint8_t {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv
};
inline constexpr int kCollectiveCount = 7;

/// How a collective is carried out; kAuto lets collective_cost() pick the fastest, as NCCL's tuner does.
enum class Algorithm : std::uint8_t {
  kRing,
  kDoubleBinaryTree,
  kHalvingDoubling,
  kHierarchical,
  kDirect,
  kInNetwork,
  kNvlsTree,  ///< NVLS inside each NVLink domain, a tree across domains (NCCL's NVLSTree)
  kTorusBucket,
  kPat,  ///< Parallel Aggregated Trees: all-gather and reduce-scatter with one GPU per node (NCCL >= 2.23)
  kAuto,
};
inline constexpr int kAlgorithmCount = 10;

/// How NCCL moves each chunk (src/device/prims_*.h): LL (8-byte flag+data stores, lowest latency, half the
/// bandwidth), LL128 (120 of every 128 bytes carry data), Simple (large chunks, full bandwidth, the highest
/// latency); kAuto lets collective_cost() pick the fastest per message size, as NCCL's tuner does.
enum class Protocol : std::uint8_t { kLL, kLL128, kSimple, kAuto };
inline constexpr int kProtocolCount = 4;

/// How ZeRO-3 calls the collective library for each parameter it gathers (and each gradient it
/// reduce-scatters). kFlat: into (from) one flat tensor (torch.distributed all_gather_into_tensor /
/// _all_gather_base, reduce_scatter_tensor): DeepSpeed since 2022 and FSDP. kList: with a list of world_size
/// shard tensors (torch.distributed.all_gather / reduce_scatter), as DeepSpeed's ZeRO-3 of 2021 did
/// (v0.3.13-0.5, partition_parameters.py _allgather_param, _reduce_scatter_gradient), for which PyTorch's
/// ProcessGroupNCCL copies each of the world_size shards out of (into) a flat buffer one by one.
enum class Zero3Gather { kFlat, kList };
/// Every Zero3Gather, in the order messages list them.
inline constexpr std::array kZero3Gathers{Zero3Gather::kFlat, Zero3Gather::kList};
/// "flat", "list".
[[nodiscard]] std::string_view to_string(Zero3Gather gather);

/// "allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "reduce", "sendrecv".
[[nodiscard]] std::string_view to_string(Collective collective);
/// The collective named `name` (as to_string spells it), or nullopt.
[[nodiscard]] std::optional<Collective> parse_collective(std::string_view name);
/// "ring", "tree", "halving-doubling", "hierarchical", "direct", "in-network", "nvls-tree", "torus-bucket",
/// "pat", "auto".
[[nodiscard]] std::string_view to_string(Algorithm algorithm);
/// The algorithm named `name` (as to_string spells it), or nullopt.
[[nodiscard]] std::optional<Algorithm> parse_algorithm(std::string_view name);
/// "ll", "ll128", "simple", "auto".
[[nodiscard]] std::string_view to_string(Protocol protocol);
/// The protocol named `name` (as to_string spells it), or nullopt.
[[nodiscard]] std::optional<Protocol> parse_protocol(std::string_view name);

}  // namespace costmodel::inline COSTMODEL_ABI
