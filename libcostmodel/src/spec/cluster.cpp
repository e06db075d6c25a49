// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/cluster.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "costmodel/spec/names.hpp"
#include "costmodel/spec/nccl_tuner.hpp"

namespace costmodel::inline COSTMODEL_ABI {
std::string_view to_string(Routing routing) {
  return routing == Routing::kMinimal ? "minimal" : "adaptive";
}

std::optional<Routing> parse_routing(std::string_view name) {
  return parse_named(name, kRoutings);
}

ScaleUpSpec ClusterSpec::scale_up_fabric() const {
  if (scale_up) return *scale_up;
  ScaleUpSpec fabric = gpu.scale_up;
  if (fabric.domain <= 8) fabric.domain = std::min(fabric.domain, gpus_per_node);
  return fabric;
}

bool ClusterSpec::scale_up_priced_with_gpu() const {
  return !scale_up || scale_up->name == gpu.scale_up.name;
}

std::shared_ptr<const NcclTuner> ClusterSpec::nccl_tuner() const {
  for (const auto& tuner : link.nccl_tuners) {
    if (tuner && std::find(tuner->gpus.begin(), tuner->gpus.end(), gpu.name) != tuner->gpus.end())
      return tuner;
  }
  return nullptr;
}

int ClusterSpec::scale_up_domain() const {
  return std::min(scale_up_fabric().domain, gpus);
}

std::vector<std::string> validate(const ClusterSpec& c) {
  std::vector<std::string> reasons;
  if (c.gpus <= 0) reasons.push_back("gpus must be positive, got " + std::to_string(c.gpus));
  if (c.gpus_per_node <= 0) {
    reasons.push_back("gpus_per_node must be positive, got " + std::to_string(c.gpus_per_node));
  }
  if (c.nics_per_node <= 0) {
    reasons.push_back("nics_per_node must be positive, got " + std::to_string(c.nics_per_node));
  }
  if (c.gpus > 0 && c.gpus_per_node > 0 && c.gpus > c.gpus_per_node && c.gpus % c.gpus_per_node != 0) {
    reasons.push_back("gpus (" + std::to_string(c.gpus) + ") is not a multiple of gpus_per_node (" +
                      std::to_string(c.gpus_per_node) + ")");
  }
  // Counts of ports, links and transceivers stay far inside int: at most 2^24 NIC ports (16.8M).
  constexpr long long kMaxPorts = 1LL << 24;
  if (c.gpus > 0 && c.gpus_per_node > 0 && c.nics_per_node > 0 &&
      static_cast<long long>(c.nodes()) * c.nics_per_node > kMaxPorts) {
    reasons.push_back(
        "nodes x nics_per_node = " + std::to_string(static_cast<long long>(c.nodes()) * c.nics_per_node) +
        " NIC ports; at most 16777216 are supported");
  }
  const ScaleUpSpec scale_up = c.scale_up_fabric();
  if (scale_up.domain <= 0) reasons.push_back("scale_up.domain must be positive");
  if (scale_up.domain > 0 && c.gpus_per_node > 0 && scale_up.domain % c.gpus_per_node != 0 &&
      c.gpus_per_node % scale_up.domain != 0) {
    reasons.push_back("scale_up.domain (" + std::to_string(scale_up.domain) +
                      ") must be a multiple or a divisor of gpus_per_node (" +
                      std::to_string(c.gpus_per_node) + ")");
  }
  if (scale_up.domain > 0) {
    for (const std::string& problem : scale_up.domain_problems(scale_up.domain))
      reasons.push_back("scale_up.domain: " + problem);
  }
  if (!(scale_up.bandwidth.value > 0.0)) reasons.push_back("scale_up.bandwidth must be positive");
  if (!(c.link.line_rate.value > 0.0)) reasons.push_back("link bandwidth must be positive");
  if (!(c.link.efficiency > 0.0 && c.link.efficiency <= 1.0)) {
    reasons.push_back("link efficiency must be in (0, 1]");
  }
  if (!(c.oversubscription >= 1.0) || !std::isfinite(c.oversubscription)) {
    reasons.push_back("oversubscription must be a finite ratio >= 1");
  }
  if (c.switch_spec.radix < 2 && traits(c.topology).switched) {
    reasons.push_back("switch radix must be at least 2");
  }
  for (const PortMode& mode : c.switch_spec.breakouts) {
    if (mode.radix < 2 || !(mode.port_bandwidth.value > 0.0)) {
      reasons.push_back("switch breakouts need at least 2 ports of a positive bandwidth");
      break;
    }
  }
  if (c.switch_spec.cages < 0) reasons.push_back("switch cages must not be negative");
  if (!(c.gpu.hbm.value > 0.0)) reasons.push_back("gpu hbm must be positive");
  const bool switched = traits(c.topology).switched;
  if (c.in_network == InNetworkReduction::kNvls) {
    reasons.push_back("scale_out.in_network must be sharp or none (NVLS is the scale-up switch's)");
  } else if (c.in_network == InNetworkReduction::kSharp && switched &&
             c.switch_spec.in_network_reduction != InNetworkReduction::kSharp) {
    reasons.push_back(
        "scale_out.in_network: sharp needs a switch that reduces in-network; switch '" + c.switch_spec.name +
        "' has in_network_reduction: " + std::string(to_string(c.switch_spec.in_network_reduction)));
  }
  return reasons;
}

}  // namespace costmodel::inline COSTMODEL_ABI
