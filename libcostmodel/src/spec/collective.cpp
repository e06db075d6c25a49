// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/collective.hpp"

#include <array>

namespace costmodel::inline COSTMODEL_ABI {
namespace {

constexpr std::array<std::string_view, kCollectiveCount> kCollectiveNames{
    "allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "reduce", "sendrecv"};
constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames{
    "ring",       "tree",      "halving-doubling", "hierarchical", "direct",
    "in-network", "nvls-tree", "torus-bucket",     "pat",          "auto"};
constexpr std::array<std::string_view, kProtocolCount> kProtocolNames{"ll", "ll128", "simple", "auto"};

}  // namespace

std::string_view to_string(Zero3Gather gather) {
  return gather == Zero3Gather::kList ? "list" : "flat";
}

std::string_view to_string(Collective collective) {
  return kCollectiveNames[static_cast<int>(collective)];
}

std::optional<Collective> parse_collective(std::string_view name) {
  for (int i = 0; i < kCollectiveCount; ++i) {
    if (kCollectiveNames[i] == name) return static_cast<Collective>(i);
  }
  return std::nullopt;
}

std::string_view to_string(Algorithm algorithm) {
  return kAlgorithmNames[static_cast<int>(algorithm)];
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  for (int i = 0; i < kAlgorithmCount; ++i) {
    if (kAlgorithmNames[i] == name) return static_cast<Algorithm>(i);
  }
  return std::nullopt;
}

std::string_view to_string(Protocol protocol) {
  return kProtocolNames[static_cast<int>(protocol)];
}

std::optional<Protocol> parse_protocol(std::string_view name) {
  for (int i = 0; i < kProtocolCount; ++i) {
    if (kProtocolNames[i] == name) return static_cast<Protocol>(i);
  }
  return std::nullopt;
}

}  // namespace costmodel::inline COSTMODEL_ABI
