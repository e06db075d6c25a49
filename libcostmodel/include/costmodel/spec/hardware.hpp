// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hardware catalogs' plain data: GPUs, network links and switches (data/gpus.yaml, links.yaml,
// switches.yaml).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Numeric formats whose dense tensor-core peak a GPU entry lists.
enum class Dtype { kFp32, kTf32, kBf16, kFp16, kFp8 };
inline constexpr int kDtypeCount = 5;  ///< values of Dtype

/// "fp32", "tf32", "bf16", "fp16", "fp8".
[[nodiscard]] std::string_view to_string(Dtype dtype);
/// The dtype named `name`, or nullopt.
[[nodiscard]] std::optional<Dtype> parse_dtype(std::string_view name);
/// Bytes of one element of `dtype` (fp8: 1, bf16/fp16: 2, tf32/fp32: 4).
[[nodiscard]] constexpr double bytes_per_element(Dtype dtype) {
  return dtype == Dtype::kFp8 ? 1.0 : (dtype == Dtype::kBf16 || dtype == Dtype::kFp16) ? 2.0 : 4.0;
}

/// A GPU's generation, as NCCL indexes its per-generation tuning constants (src/tuning/tuning_general.cc
/// ncclTuningGetCompCapIndex: compute capability < 8.0 Volta, 8.x Ampere, 9.x Hopper, >= 10.0 Blackwell).
enum class GpuArchitecture { kVolta, kAmpere, kHopper, kBlackwell };
inline constexpr int kGpuArchitectureCount = 4;  ///< values of GpuArchitecture
/// "volta", "ampere", "hopper", "blackwell".
[[nodiscard]] std::string_view to_string(GpuArchitecture architecture);
/// The architecture named `name`, or nullopt.
[[nodiscard]] std::optional<GpuArchitecture> parse_gpu_architecture(std::string_view name);

/// NCCL's protocols, in the order of its tables (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
inline constexpr int kNcclProtocols = 3;
/// A set of NCCL protocols: bit p for protocol p of the order above (NCCL_PROTO's mask, src/graph/tuning.cc).
using NcclProtocolMask = std::uint8_t;
/// LL, LL128 and Simple: what NCCL enables by default (NCCL_PROTO unset).
inline constexpr NcclProtocolMask kAllNcclProtocols = 0b111;
/// The protocols' names in that order, as NCCL_PROTO and the catalogs spell them.
inline constexpr std::array<std::string_view, kNcclProtocols> kNcclProtocolNames{"ll", "ll128", "simple"};

/// NCCL's algorithms as NCCL_ALGO names them: Ring, Tree, NVLS (and CollNet, the switches' reduction),
/// NVLSTree, PAT. A set of them: bit i for kNcclAlgorithmNames[i].
inline constexpr int kNcclAlgorithms = 6;
using NcclAlgorithmMask = std::uint8_t;
inline constexpr NcclAlgorithmMask kAllNcclAlgorithms = 0b111111;
inline constexpr std::array<std::string_view, kNcclAlgorithms> kNcclAlgorithmNames{
    "ring", "tree", "nvls", "collnet", "nvls-tree", "pat"};

/// The names of the bits set in `mask` (a set of NCCL protocols or algorithms), in `names`' order.
template <std::size_t N>
[[nodiscard]] std::vector<std::string_view> names_in(std::uint8_t mask,
                                                     const std::array<std::string_view, N>& names) {
  std::vector<std::string_view> set;
  for (std::size_t i = 0; i < N; ++i)
    if (((mask >> i) & 1U) != 0) set.push_back(names.at(i));
  return set;
}

/// What nccl-tests measured on one fabric level, per NCCL protocol (LL, LL128, Simple), written by
/// `costmodel calibrate`: the time of one ring step over the level, which replaces NCCL's per-step constant
/// (src/tuning/cost_model.cc hwLatencies, ring row; the other algorithms' rows scale alike) and the level's
/// own latency; and a factor on the protocol's bandwidth (Simple's is the level's `efficiency`). Unset
/// (step latency 0, factor 1): NCCL's model as is.
struct ProtocolCalibration {
  std::array<Seconds, kNcclProtocols> step_latency{};  ///< 0: NCCL's constant plus the level's latency
  std::array<double, kNcclProtocols> bandwidth{1.0, 1.0, 1.0};  ///< factor on the protocol's bandwidth
  /// True when nothing is set (the model runs NCCL's constants).
  [[nodiscard]] bool empty() const {
    for (int p = 0; p < kNcclProtocols; ++p) {
      if (step_latency[static_cast<std::size_t>(p)].value > 0.0 ||
          bandwidth[static_cast<std::size_t>(p)] != 1.0)
        return false;
    }
    return true;
  }
};

/// How a scale-up domain joins its GPUs: through switches (NVLink/NVSwitch, UALink, scale-up Ethernet), or
/// by point-to-point links between every pair (AMD Infinity Fabric on an 8-GPU baseboard, Gaudi 3's
/// on-die RoCE ports in an HLS-3 box). A torus is not modelled (no catalog entry needs it).
enum class ScaleUpTopology { kSwitched, kFullMesh };
/// "switched", "full-mesh".
[[nodiscard]] std::string_view to_string(ScaleUpTopology topology);
/// The topology named `name`, or nullopt.
[[nodiscard]] std::optional<ScaleUpTopology> parse_scale_up_topology(std::string_view name);

/// The scale-up fabric a GPU sits in (data/scale_up.yaml, or a GPU entry's own `scale_up:`).
struct ScaleUpSpec {
  std::string name;  ///< catalog name, e.g. "nvlink4-nvswitch"; "" for an unnamed fabric
  ScaleUpTopology topology = ScaleUpTopology::kSwitched;
  BytesPerSecond bandwidth;  ///< per GPU, per direction (all its links)
  int domain = 8;            ///< GPUs in one scale-up domain
  /// The largest domain the fabric builds (UALink 1.0: 1,024 per pod; a full mesh: links + 1); 0: no limit.
  int max_domain = 0;
  /// Links per GPU: point-to-point links to its peers in a full mesh, ports to the switches otherwise; 0 when
  /// unknown (the whole bandwidth is one link).
  int links = 0;
  BytesPerSecond link_bandwidth;      ///< one link, per direction; 0: bandwidth / links
  Seconds latency;                    ///< per hop through the scale-up switch (or link)
  bool in_network_reduction = false;  ///< NVLS / NVLink SHARP available
  double efficiency = 1.0;            ///< achievable fraction of `bandwidth` for large collectives
  /// NVLS: NCCL's NVLS efficiency (src/tuning/nvls.cc nvlsEfficiency: Hopper 0.85, Blackwell 0.74), the
  /// fraction of each NVLS channel's NVLink bandwidth the switch's reduction achieves; unused without
  /// in_network_reduction.
  double in_network_efficiency = 1.0;
  int switch_radix = 0;  ///< ports (links) per scale-up switch; 0: switchless
  int switches = 0;      ///< switches per domain of `domain` GPUs when the design fixes it; 0: from the radix
  Watts switch_power;    ///< one scale-up switch (chip or tray as `switch_radix` counts), W
  Usd switch_price;      ///< one scale-up switch, USD
  bool price_estimate = true;  ///< switch_price is an estimate
  std::string source;          ///< where the numbers come from

  /// One link per direction: link_bandwidth, else bandwidth / links (the whole bandwidth without links).
  [[nodiscard]] BytesPerSecond per_link() const;
  /// The largest domain: max_domain, or for a full mesh links + 1 when smaller; 0 when unlimited.
  [[nodiscard]] int largest_domain() const;
  /// Scale-up switches in one domain of `gpus` GPUs: `switches` at the catalog's own domain size; else one
  /// tier when the switch has a port per GPU (each GPU's links spread over ⌈links / ⌊radix / gpus⌋⌉
  /// switches: GB200 NVL72's 18 links over 18 72-port NVLink switch chips), or a two-tier folded Clos per
  /// link plane (leaves of radix/2 GPUs, half as many spines); 0 for a switchless fabric.
  [[nodiscard]] int switches_for(int gpus) const;
  /// Every reason this fabric cannot hold a domain of `gpus` GPUs (a full mesh wider than its links, a domain
  /// beyond max_domain), one sentence each; empty when it can.
  [[nodiscard]] std::vector<std::string> domain_problems(int gpus) const;
  ProtocolCalibration protocols;  ///< measured per-protocol constants (calibrate); empty: NCCL's
};

/// Fitted efficiency parameters of a GPU (data/gpus.yaml `efficiency:`); dimensionless.
struct GpuEfficiency {
  double gemm = 0.8;  ///< best fraction of dense peak on large GEMMs
  double gemm_half_size =
      256.0;               ///< GEMM size (elements along the smallest dimension) at which efficiency halves
  double hbm = 0.85;       ///< achievable fraction of HBM bandwidth for memory-bound kernels
  double attention = 0.5;  ///< fraction of dense peak fused (flash) attention kernels reach
  double overlap = 1.0;    ///< fraction of communication overlapped with compute that is actually hidden
  /// The same for the expert all-to-alls overlapped with another micro-batch's compute (--ep-comm-overlap):
  /// what the dispatch and combine kernels keep running beside GEMMs and attention, measured, not fitted.
  double ep_overlap = 1.0;
  std::string fitted;  ///< how these values were obtained
};

/// The typical server of a GPU and its scale-out fabric (data/gpus.yaml `node:`): what a cluster built from
/// the GPU's name alone assumes. Names refer to the link and switch catalogs; empty when the entry has none.
struct NodeSpec {
  int gpus = 8;      ///< GPUs per node
  std::string link;  ///< scale-out link catalog name, e.g. "ib-ndr-400g"
  int nics = 8;      ///< scale-out NICs per node
  /// NIC ports one pluggable module at the node serves: 2 where the node's NIC ports pair into twin-port
  /// cages (DGX H100: 8 ConnectX-7 ports in 4 OSFP cages); 1 for a NIC card per port.
  int nic_ports_per_module = 1;
  std::string switch_name;  ///< scale-out switch catalog name, e.g. "qm9700"
  /// The server without its GPUs and scale-out NICs (CPUs, memory, NVSwitch baseboard, chassis, power
  /// supplies): what owning a GPU adds to GpuSpec::price, per node of `gpus` GPUs; 0 when in the GPU price.
  Usd server_price;
  bool price_estimate = true;  ///< server_price is an estimate, not a list price
  Watts server_power;          ///< rated power of the same parts (node maximum - GPUs at TDP - NICs)
  /// Fraction of the node's rated power (GPUs at TDP + server_power) drawn while training; 1 when unknown.
  double load_power = 1.0;
  /// GPU -> host memory copy bandwidth per GPU (PCIe or chip-to-chip link): the blocking part of an
  /// asynchronous checkpoint; 0 when unknown (the whole write then blocks).
  BytesPerSecond host_bandwidth;
  /// The node's CPU time per framework op dispatched from Python, per kernel issued from C++, and per host
  /// synchronisation with the GPU (estimate/host_terms.hpp); 0 when unknown (no host term).
  Seconds host_op;
  Seconds host_launch;  ///< see host_op
  Seconds host_sync;    ///< see host_op
  /// Persistent stragglers: the share of hosts slower than the rest, and how much slower that makes a
  /// job's step once it holds one of them (dimensionless; 0: not modelled). The step waits for the slowest
  /// host: step x slow_host_slowdown x P(at least one of the job's hosts is slow) (estimate/step.hpp,
  /// Estimator::straggler_share()).
  double slow_host_share = 0;
  double slow_host_slowdown = 0;  ///< see slow_host_share
  std::string source;             ///< where the node's description comes from
};

/// One GPU model of the catalog.
struct GpuSpec {
  std::string name;                                         ///< catalog name, e.g. "h100-sxm"
  std::string vendor;                                       ///< "nvidia", "amd", ...
  std::array<FlopsPerSecond, kDtypeCount> peak_flops{};     ///< dense peak per Dtype; 0 where unsupported
  Bytes hbm;                                                ///< HBM capacity, B
  BytesPerSecond hbm_bandwidth;                             ///< HBM bandwidth, B/s
  NodeSpec node;                                            ///< its typical server and scale-out fabric
  GpuArchitecture architecture = GpuArchitecture::kHopper;  ///< NCCL's per-generation constants
  ScaleUpSpec scale_up;                                     ///< its own scale-up fabric (priced with it)
  /// The collective library its programs call: "NCCL" (NVIDIA), "RCCL" (AMD), "HCCL" (Intel Gaudi), or a
  /// torus library a user names for a torus of accelerators: "ICI" (TPU), "Neuron" (Trainium).
  std::string library = "NCCL";
  /// The GPU's host link (PCIe) per direction: the most one GPU can move to and from its NICs, whatever their
  /// number (NCCL's GPU-to-NIC path bandwidth, src/graph/topo.cc); 0 when unknown (no limit).
  BytesPerSecond host_link;
  Watts tdp;                   ///< board power, W
  Usd price;                   ///< purchase price per GPU, USD
  bool price_estimate = true;  ///< price is an estimate, not a list price
  UsdPerSecond rental_price;   ///< renting one GPU, all-in (catalogs write it per hour: `hourly_price`)
  GpuEfficiency efficiency;
  Bytes memory_reserve;  ///< HBM not available to the model: CUDA context, NCCL buffers, fragmentation
  std::string source;    ///< where the numbers come from

  /// Dense peak FLOP/s for `dtype`; 0 when the GPU has no tensor-core support for it.
  [[nodiscard]] FlopsPerSecond peak(Dtype dtype) const { return peak_flops[static_cast<int>(dtype)]; }
  /// True when the GPU lists a dense peak for `dtype`.
  [[nodiscard]] bool supports(Dtype dtype) const { return peak(dtype).value > 0.0; }
};

struct NcclTuner;  // costmodel/spec/nccl_tuner.hpp

/// How a link moves data: RDMA (InfiniBand, RoCE) or kernel TCP.
enum class Transport { kRdma, kTcp };
/// Every Transport, in the order messages list them.
inline constexpr std::array kTransports{Transport::kRdma, Transport::kTcp};
/// "rdma", "tcp".
[[nodiscard]] std::string_view to_string(Transport transport);

/// How the fabric spreads a NIC port's flows over the equal-cost uplinks of its leaf. kBalanced: no two
/// flows share an uplink while another is idle (InfiniBand's subnet-manager or adaptive routing); kEcmp: each
/// flow hashes onto one uplink (RoCE over standard Ethernet ECMP), so flows collide; kSpray: packets of every
/// flow spread over all uplinks (AWS SRD, Spectrum-X adaptive routing, Ultra Ethernet).
enum class Multipath { kBalanced, kEcmp, kSpray };
/// Every Multipath, in the order messages list them.
inline constexpr std::array kMultipaths{Multipath::kBalanced, Multipath::kEcmp, Multipath::kSpray};
/// "balanced", "ecmp", "spray".
[[nodiscard]] std::string_view to_string(Multipath multipath);
[[nodiscard]] std::optional<Multipath> parse_multipath(std::string_view name);

/// The network devices NCCL sees on a node. kPerNic: one per NIC (NCCL's own InfiniBand and RoCE transport).
/// kPerGpu: one per GPU made of the NICs next to it, at their summed speed (aws-ofi-nccl's RDMA protocol
/// groups a GPU's EFA rails into one device, src/nccl_ofi_rdma.cpp get_properties: port_speed x
/// max_group_size), so NCCL's graph search sets one channel's speed to the group's path.
enum class NcclDevices { kPerNic, kPerGpu };
/// Every NcclDevices, in the order messages list them.
inline constexpr std::array kNcclDevicesKinds{NcclDevices::kPerNic, NcclDevices::kPerGpu};
/// "per_nic", "per_gpu".
[[nodiscard]] std::string_view to_string(NcclDevices devices);
[[nodiscard]] std::optional<NcclDevices> parse_nccl_devices(std::string_view name);

/// A scale-out link (NIC + cable/optics) of the catalog.
struct LinkSpec {
  std::string name;               ///< catalog name, e.g. "ib-ndr-400g"
  BytesPerSecond line_rate;       ///< per direction
  double efficiency = 1.0;        ///< achievable fraction of line rate for large messages (nccl-tests busbw)
  Seconds latency;                ///< end-to-end per-message latency excluding switch hops
  ProtocolCalibration protocols;  ///< measured per-protocol constants (calibrate); empty: NCCL's
  /// The protocols NCCL runs over this network (`nccl_protocols:`): those its net plugin leaves enabled or
  /// the vendor's NCCL environment prescribes (NCCL_PROTO); a communicator that spans nodes runs no other.
  NcclProtocolMask nccl_protocols = kAllNcclProtocols;
  /// The NCCL algorithms a communicator over this network may choose (`nccl_algorithms:`): NCCL_ALGO as the
  /// vendor's NCCL environment or the net plugin sets it.
  NcclAlgorithmMask nccl_algorithms = kAllNcclAlgorithms;
  /// The devices NCCL's graph search sees (`nccl_devices:`): one per NIC, or a GPU's NICs as one.
  NcclDevices nccl_devices = NcclDevices::kPerNic;
  /// The tuner plug-ins that ship with this network's NCCL net plug-in, one per platform
  /// (data/nccl-tuners.yaml entries listing this link); the one listing the cluster's GPU applies.
  std::vector<std::shared_ptr<const NcclTuner>> nccl_tuners;
  Transport transport = Transport::kRdma;
  bool gpudirect =
      true;  ///< NIC reads and writes GPU memory directly (GPUDirect RDMA); false: staged in host memory
  Multipath multipath = Multipath::kBalanced;  ///< how flows spread over a leaf's uplinks
  /// Under kEcmp: the flows (queue pairs, each its own hash) one NIC port's traffic to one peer is split
  /// over: NCCL's channels on that NIC x NCCL_IB_QPS_PER_CONNECTION.
  int ecmp_flows = 2;
  std::string media;  ///< optical, copper, optical-cpo, ...
  /// Longest copper cable (DAC, or active copper) this link's speed offers, m; 0: none (NVIDIA lists no
  /// passive copper at XDR's 200G lanes). What `scale_out.host_cables: copper` needs.
  double copper_reach_m = 0.0;
  Watts copper_power;          ///< one copper cable, both ends (passive DAC: about 0.1 W per end)
  Watts transceiver_power;     ///< one optical transceiver, W
  Usd transceiver_price;       ///< one optical transceiver, USD
  Watts nic_power;             ///< one NIC port, W
  Usd nic_price;               ///< one NIC port, USD
  bool price_estimate = true;  ///< prices are estimates, not list prices
  std::string source;          ///< where the numbers come from

  /// line_rate x efficiency: what a large transfer achieves per direction.
  [[nodiscard]] BytesPerSecond effective_bandwidth() const { return line_rate * efficiency; }
};

/// Which reduction a switch performs itself: none, InfiniBand SHARP, NVLink SHARP (NVLS).
enum class InNetworkReduction { kNone, kSharp, kNvls };
/// Every InNetworkReduction, in the order messages list them (a switch's in_network_reduction).
inline constexpr std::array kInNetworkReductions{InNetworkReduction::kNone, InNetworkReduction::kSharp,
                                                 InNetworkReduction::kNvls};
/// The ones a cluster turns on or off (--in-network, scale_out.in_network): NVLS is the scale-up switch's.
inline constexpr std::array kScaleOutReductions{InNetworkReduction::kSharp, InNetworkReduction::kNone};
/// "none", "sharp", "nvls".
[[nodiscard]] std::string_view to_string(InNetworkReduction reduction);

/// One way to run a switch's ports: `radix` ports of `port_bandwidth` each (its native speed, or a breakout
/// of the same SerDes into more, slower ports: a 51.2 Tb/s switch is 64 x 800G or 128 x 400G).
struct PortMode {
  int radix = 0;                  ///< ports
  BytesPerSecond port_bandwidth;  ///< per port, per direction
};

/// A network switch of the catalog.
struct SwitchSpec {
  std::string name;                 ///< catalog name, e.g. "qm9700"
  std::string vendor;               ///< "nvidia", "broadcom", ...
  int radix = 0;                    ///< ports at port_bandwidth (the native speed)
  BytesPerSecond port_bandwidth;    ///< per port, per direction, B/s
  std::vector<PortMode> breakouts;  ///< further port modes the switch supports (split cages), native excluded
  /// Front-panel transceiver cages, one pluggable module each; 0: one per native port. A cage serves
  /// radix/cages ports of a mode (NDR QM9700: 32 twin-port OSFP cages serve 64 x 400G).
  int cages = 0;
  Seconds latency;             ///< port to port, s
  Watts power;                 ///< whole switch, W
  Usd price;                   ///< whole switch, USD
  bool price_estimate = true;  ///< price is an estimate, not a list price
  InNetworkReduction in_network_reduction = InNetworkReduction::kNone;  ///< reductions the switch performs
  std::string source;                                                   ///< where the numbers come from
};

}  // namespace costmodel::inline COSTMODEL_ABI
