// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstddef>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

// NVLS and NVLSTree pipeline their data loop by loop, each loop one chunk per head GPU on every launched
// channel (NVIDIA/nccl @86fa684d3bd5b6ac3414d6d024fdc6f65441cb81 src/device/all_reduce.h, RunWorkColl NVLS
// and NVLS_TREE: loopCount = nHeads x chunkSize), the chunk NCCL's for n (collective.cpp nvls_chunk_bytes).
// Each loop passes through the kernel's warp groups in turn: AllReduce in one domain scatter, reduce and
// broadcast through the switch, gather (3 stages); NVLSTree and NVLS across domains scatter, reduce and send
// to the network, receive and broadcast, gather (4); ReduceScatter scatter and reduce, AllGather broadcast
// and gather (2; reduce_scatter.h, all_gather.h). Before the loops stream, the first crosses every stage, a
// fill of (stages - 1) loops. NCCL's tuner does not see it (it compares latency + n / bandwidth), what runs
// pays it. Nothing in it is fitted: with it the 8 x H200 NVLS curve of ../shared/reference/nccl-busbw.yaml is
// within 6% from 4 MiB, the 2 x 8 H100 and B200 NVLSTree curves within 9.1% and 6.8% median, and the held-out
// NVLS curves of tests/fixtures/nccl-holdout.yaml (8 x H100, 8 x H200, 4 x 8 H100, NVL72) within 12% from
// 2 MiB but for a dip and NVL72's 512 MiB (nccl_holdout_test.cpp).
inline void nvls_loops(Entry& e, const Model& m, bool tree, int stages) {
  e.nvls_loop_chunks = static_cast<double>(m.nvls_ctas) * std::min(m.local, nccl::kMaxNvlsArity);
  e.nvls_max_chunk_bytes = tree ? std::min(m.nvls_chunk, m.nvls_tree_chunk) : m.nvls_chunk;
  e.nvls_fill_loops = static_cast<std::uint8_t>(stages - 1);
  e.nvls_tree = tree;
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

// In-network reduction. One domain: NVLS, latency hwLat[NVLINK][NVLS] = 25 us, its loops filling the
// kernel's stages at mid sizes (nvls_loops). Across domains with SHARP on: NVLS inside,
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
    nvls_loops(e, m, false, c == Collective::kAllReduce ? 3 : 2);
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
  nvls_loops(e, m, false, 4);
  // Across nodes NCCL keeps NVLS's chunks at 32 KiB while its AllReduce bandwidth is under 150 GB/s.
  if (e.seconds_per_byte * 150.0 * kGiga > 1.0)
    e.nvls_max_chunk_bytes = std::min(e.nvls_max_chunk_bytes, 32.0 * kKibi);
  return e;
}

// NVLSTree, AllReduce across domains (src/tuning/nvls.cc): NVLS inside each domain, a tree across them; per
// channel min(NVLS's intra bandwidth, the NICs' per channel x2 on up to two nodes, perChMaxNVLSTreeBw);
// latency NVLink NVLS step + 2⌊log2 N⌋ network steps; its loops fill 4 stages (nvls_loops). NCCL's tuner also
// divides its bandwidth below 1 GiB by the tree correction on Blackwell with x86 hosts (nvls.cc), which sways
// only its choice; the model leaves that out (the path does not know the host CPU).
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
  nvls_loops(e, m, true, 4);
  return e;
}

}  // namespace

const AlgorithmRule kInNetworkRule{in_network_applies, in_network};
const AlgorithmRule kNvlsTreeRule{nvls_tree_applies, nvls_tree};

}  // namespace costmodel::inline COSTMODEL_ABI::detail
