// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hand-built hardware for the network tests: datasheet numbers (NVIDIA A100/H100, ConnectX-6/7, Quantum
// QM8700/QM9700), NCCL's PCIe and NVLS figures, and the nccl-tests efficiencies of
// ../shared/reference/nccl-busbw.yaml, independent of the YAML catalogs so that a catalog edit cannot move
// these tests.

#include <algorithm>

#include "costmodel/spec/cluster.hpp"

namespace costmodel::test {

inline GpuSpec a100() {
  GpuSpec gpu;
  gpu.name = "a100-80gb";
  gpu.architecture = GpuArchitecture::kAmpere;
  gpu.host_link = BytesPerSecond(24e9);            // PCIe Gen4 x16 (NCCL src/graph/topo.cc)
  gpu.scale_up.bandwidth = BytesPerSecond(300e9);  // 12 NVLink3 x 25 GB/s per direction
  gpu.scale_up.domain = 8;
  gpu.scale_up.latency = Seconds(0.7e-6);
  gpu.scale_up.efficiency = 0.77;
  return gpu;
}

inline GpuSpec h100() {
  GpuSpec gpu;
  gpu.name = "h100-sxm";
  gpu.architecture = GpuArchitecture::kHopper;
  gpu.host_link = BytesPerSecond(48e9);            // PCIe Gen5 x16 (NCCL src/graph/topo.cc)
  gpu.scale_up.bandwidth = BytesPerSecond(450e9);  // 18 NVLink4 x 25 GB/s per direction
  gpu.scale_up.domain = 8;
  gpu.scale_up.latency = Seconds(0.7e-6);
  gpu.scale_up.in_network_reduction = true;
  gpu.scale_up.efficiency = 0.82;
  gpu.scale_up.in_network_efficiency = 0.85;  // NCCL src/tuning/nvls.cc nvlsEfficiency, Hopper
  return gpu;
}

inline LinkSpec hdr() {
  LinkSpec link;
  link.name = "ib-hdr-200g";
  link.line_rate = BytesPerSecond(25e9);  // 200 Gb/s
  link.efficiency = 0.96;
  link.latency = Seconds(1e-6);
  link.media = "optical";
  link.transceiver_power = Watts(4.5);
  link.transceiver_price = Usd(700);
  link.nic_power = Watts(20);
  link.nic_price = Usd(1500);
  return link;
}

inline LinkSpec ndr() {
  LinkSpec link;
  link.name = "ib-ndr-400g";
  link.line_rate = BytesPerSecond(50e9);  // 400 Gb/s
  link.efficiency = 0.94;
  link.latency = Seconds(1e-6);
  link.media = "optical";
  link.transceiver_power = Watts(8.5);
  link.transceiver_price = Usd(1000);
  link.nic_power = Watts(25);
  link.nic_price = Usd(2200);
  return link;
}

inline LinkSpec xdr() {
  LinkSpec link = ndr();
  link.name = "ib-xdr-800g";
  link.line_rate = BytesPerSecond(100e9);  // 800 Gb/s
  return link;
}

inline SwitchSpec qm8700() {
  SwitchSpec sw;
  sw.name = "qm8700";
  sw.radix = 40;
  sw.port_bandwidth = BytesPerSecond(25e9);
  sw.latency = Seconds(130e-9);
  sw.power = Watts(253);
  sw.price = Usd(18000);
  sw.in_network_reduction = InNetworkReduction::kSharp;
  return sw;
}

inline SwitchSpec qm9700() {
  SwitchSpec sw;
  sw.name = "qm9700";
  sw.radix = 64;
  sw.port_bandwidth = BytesPerSecond(50e9);
  sw.cages = 32;  // twin-port OSFP
  sw.latency = Seconds(130e-9);
  sw.power = Watts(750);
  sw.price = Usd(30000);
  sw.in_network_reduction = InNetworkReduction::kSharp;
  return sw;
}

// NVIDIA Quantum-X800 Q3400: 144 x 800G XDR in 72 twin-port OSFP cages.
inline SwitchSpec q3400() {
  SwitchSpec sw;
  sw.name = "q3400";
  sw.radix = 144;
  sw.port_bandwidth = BytesPerSecond(100e9);
  sw.cages = 72;
  sw.latency = Seconds(200e-9);
  sw.power = Watts(3000);
  sw.price = Usd(120000);
  sw.in_network_reduction = InNetworkReduction::kSharp;
  return sw;
}

// Broadcom Tomahawk 5 (51.2 Tb/s): 64 x 800G in 64 OSFP cages, or 128 x 400G, or 256 x 200G.
inline SwitchSpec tomahawk5() {
  SwitchSpec sw;
  sw.name = "tomahawk5";
  sw.radix = 64;
  sw.port_bandwidth = BytesPerSecond(100e9);
  sw.breakouts = {{128, BytesPerSecond(50e9)}, {256, BytesPerSecond(25e9)}};
  sw.cages = 64;
  sw.latency = Seconds(600e-9);
  sw.power = Watts(1000);
  sw.price = Usd(40000);
  return sw;
}

inline ClusterSpec cluster(const GpuSpec& gpu, int gpus, int gpus_per_node, const LinkSpec& link, int nics,
                           const SwitchSpec& sw, TopologyKind kind = TopologyKind::kFatTree,
                           double oversubscription = 1.0) {
  ClusterSpec c;
  c.gpu = gpu;
  c.gpus = gpus;
  c.gpus_per_node = gpus_per_node;
  // One NVLink domain per node unless a test builds a multi-node domain (NVL72) itself.
  c.scale_up = gpu.scale_up;
  c.scale_up->domain = std::min(gpu.scale_up.domain, gpus_per_node);
  c.topology = kind;
  c.link = link;
  c.nics_per_node = nics;
  c.switch_spec = sw;
  c.oversubscription = oversubscription;
  return c;
}

inline ClusterSpec dgx_a100(int gpus, TopologyKind kind = TopologyKind::kFatTree, double r = 1.0) {
  return cluster(a100(), gpus, 8, hdr(), 8, qm8700(), kind, r);
}
inline ClusterSpec dgx_h100(int gpus, TopologyKind kind = TopologyKind::kFatTree) {
  return cluster(h100(), gpus, 8, ndr(), 8, qm9700(), kind);
}

}  // namespace costmodel::test
