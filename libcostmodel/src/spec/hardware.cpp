// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/hardware.hpp"

#include <algorithm>
#include <string>

#include "costmodel/spec/names.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::string_view to_string(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp32:
      return "fp32";
    case Dtype::kTf32:
      return "tf32";
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kFp8:
      return "fp8";
  }
  return "bf16";
}

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (int i = 0; i < kDtypeCount; ++i) {
    const auto dtype = static_cast<Dtype>(i);
    if (to_string(dtype) == name) return dtype;
  }
  return std::nullopt;
}

std::string_view to_string(GpuArchitecture architecture) {
  switch (architecture) {
    case GpuArchitecture::kVolta:
      return "volta";
    case GpuArchitecture::kAmpere:
      return "ampere";
    case GpuArchitecture::kHopper:
      return "hopper";
    case GpuArchitecture::kBlackwell:
      return "blackwell";
  }
  return "hopper";
}

std::optional<GpuArchitecture> parse_gpu_architecture(std::string_view name) {
  for (int i = 0; i < kGpuArchitectureCount; ++i) {
    const auto architecture = static_cast<GpuArchitecture>(i);
    if (to_string(architecture) == name) return architecture;
  }
  return std::nullopt;
}

std::string_view to_string(Transport transport) {
  return transport == Transport::kRdma ? "rdma" : "tcp";
}

std::string_view to_string(Multipath multipath) {
  switch (multipath) {
    case Multipath::kBalanced:
      return "balanced";
    case Multipath::kEcmp:
      return "ecmp";
    case Multipath::kSpray:
      return "spray";
  }
  return "balanced";
}

std::optional<Multipath> parse_multipath(std::string_view name) {
  return parse_named(name, kMultipaths);
}

std::string_view to_string(NcclDevices devices) {
  return devices == NcclDevices::kPerGpu ? "per_gpu" : "per_nic";
}

std::optional<NcclDevices> parse_nccl_devices(std::string_view name) {
  return parse_named(name, kNcclDevicesKinds);
}

std::string_view to_string(InNetworkReduction reduction) {
  switch (reduction) {
    case InNetworkReduction::kNone:
      return "none";
    case InNetworkReduction::kSharp:
      return "sharp";
    case InNetworkReduction::kNvls:
      return "nvls";
  }
  return "none";
}

std::string_view to_string(ScaleUpTopology topology) {
  return topology == ScaleUpTopology::kFullMesh ? "full-mesh" : "switched";
}

std::optional<ScaleUpTopology> parse_scale_up_topology(std::string_view name) {
  if (name == "switched") return ScaleUpTopology::kSwitched;
  if (name == "full-mesh") return ScaleUpTopology::kFullMesh;
  return std::nullopt;
}

BytesPerSecond ScaleUpSpec::per_link() const {
  if (link_bandwidth.value > 0.0) return link_bandwidth;
  return links > 0 ? bandwidth / static_cast<double>(links) : bandwidth;
}

int ScaleUpSpec::largest_domain() const {
  int largest = max_domain;
  if (topology == ScaleUpTopology::kFullMesh && links > 0) {
    largest = largest > 0 ? std::min(largest, links + 1) : links + 1;
  }
  return largest;
}

int ScaleUpSpec::switches_for(int gpus) const {
  if (topology != ScaleUpTopology::kSwitched || switch_radix <= 0 || gpus <= 1) return 0;
  if (switches > 0 && gpus == domain) return switches;
  const int planes = std::max(1, links);
  if (gpus <= switch_radix) {
    const int links_per_switch = std::max(1, switch_radix / gpus);
    return (planes + links_per_switch - 1) / links_per_switch;
  }
  // Two tiers per plane (one link per GPU each): leaves with radix/2 GPUs below, spines with all radix ports
  // facing the leaves (Al-Fares et al. 2008, folded Clos).
  const int down = std::max(1, switch_radix / 2);
  const int leaves = (gpus + down - 1) / down;
  const int spines = (leaves * down + switch_radix - 1) / switch_radix;
  return planes * (leaves + spines);
}

std::vector<std::string> ScaleUpSpec::domain_problems(int gpus) const {
  std::vector<std::string> problems;
  const std::string fabric = name.empty() ? std::string("the scale-up fabric") : "'" + name + "'";
  if (topology == ScaleUpTopology::kFullMesh && links > 0 && gpus > links + 1) {
    problems.push_back(std::to_string(gpus) + " GPUs is larger than " + fabric +
                       "'s full mesh: " + std::to_string(links) + " links per GPU join at most " +
                       std::to_string(links + 1) + " GPUs");
  } else if (max_domain > 0 && gpus > max_domain) {
    problems.push_back(std::to_string(gpus) + " GPUs is larger than " + fabric + " allows (max_domain " +
                       std::to_string(max_domain) + ")");
  }
  return problems;
}

}  // namespace costmodel::inline COSTMODEL_ABI
