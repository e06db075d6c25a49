// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstddef>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

// NVLS and NVLSTree move each channel's share in loops of one chunk per head GPU (NVIDIA/nccl
// @761454383f0e6cd77e72805cb53517867d3f97f1 src/device/all_reduce.h, RunWorkColl NVLS and NVLS_TREE:
// loopCount = nvls->nHeads x chunkSize; scatter, reduce and gather pipelined loop by loop; nHeads is the
// domain's GPUs up to NCCL_MAX_NVLS_ARITY, 32, src/include/device.h), so the ramp of a domain of H heads at n
// bytes is that of 8 heads at 8n / H. NCCL's correction table, which the model applies to both (below), is
// read at that size: 8-GPU domains as before; a 72-GPU NVL72 rack (32 heads) ramps 4x later (CoreWeave's
// NVL72 all-reduce, tests/fixtures/nccl-holdout.yaml: 586 GB/s at 512 MiB, 839 at 4 GiB).
constexpr double kNvlsReferenceHeads = 8.0;
inline void nvls_ramp(Entry& e, const Model& m) {
  e.correction = nccl::kNvlsTreeCorrectionEntries;
  e.correction_scale = kNvlsReferenceHeads / std::max(1, std::min(m.local, nccl::kMaxNvlsArity));
}

// NVLS inside one NVLink domain (src/tuning/nvls.cc ncclTuningNvlsModelInit): per channel bwIntra x
// nvlsEfficiency x (nCh-1)/nCh, x2 for AllReduce (the switch reduces: each byte crosses a GPU's link once
// each way), x(L-1)/L for AllGather/ReduceScatter; algorithm bandwidth nCh x that x nRanks / nsteps.
double nvls_busbw(Collective c, const Model& m) {
  const double channels = m.nvls_channels;
  double per_channel = m.nvls_bw_intra * m.nvls_efficiency * (channels - 1.0) / channels;
  per_channel *= c == Collective::kAllReduce ? 2.0 : (m.local - 1.0) / m.local;
  return channels * per_channel;
}

// In-network reduction. One domain: NVLS, latency hwLat[NVLINK][NVLS] = 25 us, its bandwidth taken down at
// mid sizes by NCCL's treeCorrectionFactor: NCCL applies it to NVLSTree on Blackwell (nvls.cc); the NVLS
// kernels pipeline their chunks the same way, and measured NVLS curves show the same ramp (8 x H200:
// 140 GB/s busbw at 4 MiB, 242 at 16 MiB, 370 at 64 MiB against 476 at 1 GiB; ../shared/reference/
// nccl-busbw.yaml), so the model applies it on every generation. Across domains with SHARP on: NVLS inside,
// the switches reduce each rank's n/L slice across (NCCL's multi-node NVLS, latency NVLink + network step);
// one GPU per domain: CollNet (CollNetChain latency, 30 us). Across domains the volume is the physical one:
// n/L per rank each way over the NICs (Graham et al. 2016, SHARP).
bool in_network_applies(Collective c, const LinkPath& path, const Why& why) {
  const bool up = path.scale_up.ranks > 1;
  const bool out = path.scale_out.ranks > 1;
  const bool nvls = path.scale_up.reduction_bandwidth.value > 0.0;
  const auto op = [c] { return std::string(to_string(c)); };
  if (c != Collective::kAllReduce && c != Collective::kReduceScatter && c != Collective::kAllGather) {
    return why.fail([&] {
      return "in-network reduction implements allreduce (and reducescatter/allgather inside one NVLink "
             "domain), not " +
             op();
    });
  }
  // NVLS reduce-scatter / all-gather: inside one NVLink domain of at most NCCL_MAX_NVLS_ARITY ranks.
  if (c != Collective::kAllReduce && out) {
    return why.fail([&] {
      return "in-network " + op() + " runs inside one NVLink domain only; this communicator spans " +
             std::to_string(path.scale_out.ranks) + " domains";
    });
  }
  if (c != Collective::kAllReduce && path.scale_up.ranks > nccl::kMaxNvlsArity) {
    return why.fail([&] {
      return "in-network " + op() + " (NVLS) takes at most 32 ranks per NVLink domain, this communicator " +
             std::to_string(path.scale_up.ranks);
    });
  }
  if (up && !nvls) {
    return why.fail([&] { return "the " + why.gpu() + "NVLink domain has no in-network reduction (NVLS)"; });
  }
  if (up && path.scale_up.ranks <= 2) {
    return why.fail([] { return std::string("NVLS needs more than 2 GPUs in the NVLink domain (NCCL)"); });
  }
  if (out && path.scale_out.reduction_bandwidth.value <= 0.0) {
    return why.fail([&] {
      if (is_torus(path.kind))
        return "a " + std::string(to_string(path.kind)) + " has no switches to reduce in";
      if (why.cluster != nullptr &&
          why.cluster->switch_spec.in_network_reduction != InNetworkReduction::kSharp)
        return "switch '" + why.cluster->switch_spec.name + "' has no in-network reduction (SHARP)";
      return std::string(
          "in-network reduction across nodes (SHARP, NCCL's CollNet) is off; turn it on "
          "with scale_out.in_network: sharp or --in-network sharp");
    });
  }
  if (!up && !out) {
    return why.fail([] { return std::string("in-network reduction is not available on this communicator"); });
  }
  return true;
}

Entry in_network(Collective c, int /*proto*/, const Model& m) {
  if (!m.multi) {
    Entry e = make_entry(nvlink_hop(m, nccl::kNvlsRow, kSimple), nvls_busbw(c, m) * m.p / ring_steps(c, m.p));
    nvls_ramp(e, m);
    return e;
  }
  if (m.local == 1) {
    return make_entry(net_hop(m, nccl::kCollNetChainRow, kSimple, m.far_excess), m.out_reduction_bw);
  }
  const double domain_rate = nvls_busbw(c, m) * m.local / ring_steps(c, m.local);
  const double network_rate = m.local * m.out_reduction_bw;
  Entry e =
      make_entry(nvlink_hop(m, nccl::kNvlsRow, kSimple) + net_hop(m, nccl::kNvlsRow, kSimple, m.far_excess),
                 std::min(domain_rate, network_rate));
  nvls_ramp(e, m);
  return e;
}

// NVLSTree, AllReduce across domains (src/tuning/nvls.cc): NVLS inside each domain, a tree across them; per
// channel min(NVLS's intra bandwidth, the NICs' per channel x2 on up to two nodes, perChMaxNVLSTreeBw);
// latency NVLink NVLS step + 2⌊log2 N⌋ network steps. NCCL applies the tree correction on Blackwell (x86
// hosts); the model on every generation, as for NVLS.
bool nvls_tree_applies(Collective c, const LinkPath& path, const Why& why) {
  const bool nvls = path.scale_up.reduction_bandwidth.value > 0.0;
  if (c != Collective::kAllReduce) {
    return why.fail([] { return std::string("nvls-tree implements only allreduce"); });
  }
  if (path.scale_out.ranks <= 1) {
    return why.fail([] {
      return std::string(
          "nvls-tree runs across NVLink domains; this communicator stays inside one "
          "(use in-network)");
    });
  }
  if (path.scale_up.ranks <= 2 || !nvls) {
    return why.fail([&] {
      if (!nvls) return "the " + why.gpu() + "NVLink domain has no in-network reduction (NVLS)";
      return std::string("nvls-tree needs more than 2 ranks per NVLink domain (NCCL's NVLS)");
    });
  }
  return true;
}

Entry nvls_tree(Collective /*c*/, int /*proto*/, const Model& m) {
  const double channels = m.nvls_channels;
  const double intra = nvls_busbw(Collective::kAllReduce, m) / channels;
  const double inter = m.local * m.out_bw / channels * (m.groups <= 2 ? 2.0 : 1.0);
  const double cap = nccl::kPerChannelMaxNvlsTreeBw[static_cast<std::size_t>(m.arch)]
                                                   [static_cast<std::size_t>(m.nodes_index)] *
                     kGiga;
  const double busbw = channels * std::min({intra, inter, cap});
  const double latency = nvlink_hop(m, nccl::kNvlsTreeRow, kSimple) +
                         2.0 * floor_log2(m.groups) * net_hop(m, nccl::kNvlsTreeRow, kSimple, m.far_excess);
  Entry e = make_entry(latency, busbw * m.p / ring_steps(Collective::kAllReduce, m.p));
  nvls_ramp(e, m);
  return e;
}

}  // namespace

const AlgorithmRule kInNetworkRule{in_network_applies, in_network};
const AlgorithmRule kNvlsTreeRule{nvls_tree_applies, nvls_tree};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
