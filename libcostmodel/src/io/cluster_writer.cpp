// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/cluster_writer.hpp"

#include <array>
#include <cstdio>
#include <sstream>

namespace costmodel::inline COSTMODEL_ABI {
namespace {

std::string fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return buffer.data();
}

// The measured per-protocol constants of one level, indented under its mapping; nothing when unset.
void write_protocols(std::ostringstream& out, const ProtocolCalibration& c, const std::string& indent) {
  if (c.empty()) return;
  constexpr std::array<const char*, kNcclProtocols> kNames{"ll", "ll128", "simple"};
  out << indent << "protocols:\n";
  for (std::size_t p = 0; p < kNames.size(); ++p) {
    out << indent << "  " << kNames[p] << ": {";
    if (c.step_latency[p].value > 0.0)
      out << "step_latency: " << fixed(c.step_latency[p].value * 1e6, 4) << "us, ";
    out << "bandwidth_factor: " << fixed(c.bandwidth[p], 6) << "}\n";
  }
}

}  // namespace

std::string cluster_yaml(const ClusterSpec& c, const std::vector<std::string>& comment) {
  const ScaleUpSpec scale_up = c.scale_up_fabric();
  // Units written so that they read back exactly enough: GB/s with 6 decimals (1 kB/s), ns with 3 (1 ps).
  const auto bandwidth = [](BytesPerSecond b) { return fixed(b.value / 1e9, 6) + "GB/s"; };
  const auto seconds = [](Seconds s) { return fixed(s.value * 1e9, 3) + "ns"; };
  const auto number = [](double v) { return fixed(v, 6); };
  std::ostringstream out;
  for (const auto& line : comment) out << "# " << line << '\n';
  out << "gpu: " << c.gpu.name << '\n'
      << "gpus: " << c.gpus << '\n'
      << "gpus_per_node: " << c.gpus_per_node << '\n'
      << "scale_up:\n"
      << "  bandwidth: " << bandwidth(scale_up.bandwidth) << '\n'
      << "  latency: " << seconds(scale_up.latency) << '\n'
      << "  domain: " << scale_up.domain << '\n'
      << "  efficiency: " << number(scale_up.efficiency) << '\n'
      << "  in_network_reduction: " << (scale_up.in_network_reduction ? "true" : "false") << '\n'
      << "  in_network_efficiency: " << number(scale_up.in_network_efficiency) << '\n';
  write_protocols(out, scale_up.protocols, "  ");
  out << "scale_out:\n"
      << "  topology: " << to_string(c.topology) << '\n'
      << "  link:\n"
      << "    name: " << c.link.name << '\n'
      << "    line_rate: " << bandwidth(c.link.line_rate) << '\n'
      << "    latency: " << seconds(c.link.latency) << '\n'
      << "    efficiency: " << number(c.link.efficiency) << '\n';
  write_protocols(out, c.link.protocols, "    ");
  // `key: [a, b]`, written only when the set is not NCCL's default (every name).
  const auto write_set = [&](const char* key, const std::vector<std::string_view>& set, std::size_t all) {
    if (set.size() == all) return;
    out << "    " << key << ": [";
    for (std::size_t i = 0; i < set.size(); ++i) out << (i > 0 ? ", " : "") << set[i];
    out << "]\n";
  };
  write_set("nccl_protocols", names_in(c.link.nccl_protocols, kNcclProtocolNames), kNcclProtocolNames.size());
  write_set("nccl_algorithms", names_in(c.link.nccl_algorithms, kNcclAlgorithmNames),
            kNcclAlgorithmNames.size());
  if (c.link.nccl_devices != NcclDevices::kPerNic)
    out << "    nccl_devices: " << to_string(c.link.nccl_devices) << '\n';
  out << "    transport: " << to_string(c.link.transport) << '\n'
      << "    multipath: " << to_string(c.link.multipath) << '\n'
      << "    ecmp_flows: " << c.link.ecmp_flows << '\n'
      << "    nic_price: " << fixed(c.link.nic_price.value, 2) << "USD\n"
      << "    nic_power: " << fixed(c.link.nic_power.value, 3) << "W\n"
      << "    transceiver_price: " << fixed(c.link.transceiver_price.value, 2) << "USD\n"
      << "    transceiver_power: " << fixed(c.link.transceiver_power.value, 3) << "W\n";
  if (!c.link.media.empty()) out << "    media: " << c.link.media << '\n';
  if (c.link.copper_reach_m > 0.0) {
    out << "    copper_reach_m: " << number(c.link.copper_reach_m) << '\n'
        << "    copper_power: " << fixed(c.link.copper_power.value, 3) << "W\n";
  }
  out << "  nics_per_node: " << c.nics_per_node << '\n'
      << "  switch: " << c.switch_spec.name << '\n'
      << "  oversubscription: " << number(c.oversubscription) << '\n';
  if (c.copper_host_links) out << "  host_cables: copper\n";
  if (traits(c.topology).routed) out << "  routing: " << to_string(c.routing) << '\n';
  if (!c.torus_dims.empty()) {
    out << "  torus_dims: [";
    for (size_t i = 0; i < c.torus_dims.size(); ++i) out << (i ? ", " : "") << c.torus_dims[i];
    out << "]\n";
  }
  if (c.in_network == InNetworkReduction::kSharp) out << "  in_network: sharp\n";
  return out.str();
}

std::string gpu_efficiency_yaml(const GpuSpec& gpu, const std::vector<std::string>& comment) {
  std::ostringstream out;
  for (const auto& line : comment) out << "# " << line << '\n';
  const GpuEfficiency& e = gpu.efficiency;
  std::string fitted = e.fitted;
  for (char& ch : fitted) ch = ch == '"' ? '\'' : ch;
  out << "name: " << gpu.name << '\n'
      << "efficiency:\n"
      << "  gemm: " << fixed(e.gemm, 4) << '\n'
      << "  gemm_half_size: " << fixed(e.gemm_half_size, 1) << '\n'
      << "  hbm: " << fixed(e.hbm, 4) << '\n'
      << "  attention: " << fixed(e.attention, 4) << '\n'
      << "  overlap: " << fixed(e.overlap, 4) << '\n'
      << "  ep_overlap: " << fixed(e.ep_overlap, 4) << '\n'
      << "  fitted: \"" << fitted << "\"\n";
  return out.str();
}

}  // namespace costmodel::inline COSTMODEL_ABI
