// SPDX-License-Identifier: Apache-2.0
// Beyond one vendor (issue 17): the scale-up fabric catalog (data/scale_up.yaml), AMD and Intel accelerator
// entries against their datasheets, collectives on a full mesh against hand derivations and published
// rccl-tests / hccl_demo results, a 1,024-GPU UALink pod, and the pricing of swapped-in fabrics.
#include <doctest/doctest.h>

#include <string>

#include "costmodel/error.hpp"
#include "costmodel/estimate/economics.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/network/collective.hpp"
#include "costmodel/network/topology.hpp"

using namespace costmodel;

namespace {

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

ClusterSpec cluster(const std::string& yaml) {
  return load_cluster_text(yaml, "cluster.yaml", catalog());
}

// One all-reduce of `bytes` on the first `ranks` GPUs of `c`, Simple protocol unless asked otherwise.
CommCost allreduce(const ClusterSpec& c, int ranks, double bytes, Algorithm a = Algorithm::kAuto,
                   Protocol p = Protocol::kSimple) {
  return collective_cost(Collective::kAllReduce, a, Bytes(bytes), ranks, 1, c, p);
}

double busbw(const CommCost& cost, int ranks, double bytes) {
  return costmodel::busbw(Collective::kAllReduce, Bytes(bytes), ranks, cost.time).value;
}

}  // namespace

TEST_CASE("the scale-up catalog loads every fabric of issue 17 with a source") {
  for (const char* name : {"nvlink4-nvswitch", "nvlink5-nvl72", "ualink-1.0", "infinity-fabric-mi300x",
                           "infinity-fabric-mi355x", "gaudi3-roce-mesh", "ethernet-scale-up"}) {
    CAPTURE(name);
    const ScaleUpSpec& f = catalog().scale_up(name);
    CHECK(!f.source.empty());
    CHECK(f.bandwidth.value > 0.0);
    CHECK(f.domain_problems(f.domain).empty());
  }
  // UALink 200G 1.0: x4 ports of 200G lanes = 100 GB/s per direction, up to 1,024 accelerators per pod.
  const ScaleUpSpec& ualink = catalog().scale_up("ualink-1.0");
  CHECK(ualink.per_link().value == doctest::Approx(100e9));
  CHECK(ualink.largest_domain() == 1024);
  CHECK_FALSE(ualink.in_network_reduction);
  // MI300X: 7 x16 links, 896 GB/s bidirectional aggregate = 448 per direction (CDNA 3 white paper).
  const ScaleUpSpec& mesh = catalog().scale_up("infinity-fabric-mi300x");
  CHECK(mesh.topology == ScaleUpTopology::kFullMesh);
  CHECK(mesh.bandwidth.value == doctest::Approx(448e9));
  CHECK(mesh.largest_domain() == 8);
  // Gaudi 3 HLS-3: 21 ports, 3 x 200G to each of 7 peers = 525 GB/s (Habana Network Configuration docs).
  CHECK(catalog().scale_up("gaudi3-roce-mesh").bandwidth.value == doctest::Approx(525e9));
  // GPU entries name their own fabric.
  CHECK(catalog().gpu("h100-sxm").scale_up.name == "nvlink4-nvswitch");
  CHECK(catalog().gpu("gb200").scale_up.name == "nvlink5-nvl72");
  CHECK(catalog().gpu("mi300x").scale_up.name == "infinity-fabric-mi300x");
  CHECK(catalog().gpu("gaudi3").scale_up.name == "gaudi3-roce-mesh");
}

TEST_CASE("scale-up switches per domain") {
  // GB200 NVL72: 18 links per GPU over 18 NVLink switch chips of 72 ports (9 trays x 2).
  CHECK(catalog().scale_up("nvlink5-nvl72").switches_for(72) == 18);
  // HGX H100: 4 NVSwitch chips, as the design fixes it.
  CHECK(catalog().scale_up("nvlink4-nvswitch").switches_for(8) == 4);
  // UALink, 8 ports per GPU on 128-port switches: a 72-GPU pod takes one switch per port plane (8); a
  // 1,024-GPU pod two tiers per plane: 1024 / 64 = 16 leaves + 16 x 64 / 128 = 8 spines, x 8 planes = 192.
  const ScaleUpSpec& ualink = catalog().scale_up("ualink-1.0");
  CHECK(ualink.switches_for(72) == 8);
  CHECK(ualink.switches_for(1024) == 192);
  // A full mesh has none.
  CHECK(catalog().scale_up("infinity-fabric-mi355x").switches_for(8) == 0);
}

TEST_CASE("AMD and Intel peaks match their datasheets") {
  const auto peak = [](const char* gpu, Dtype d) { return catalog().gpu(gpu).peak(d).value; };
  // MI300X (ROCm docs, MI300X peak table, dense): BF16/FP16 = 304 CU x 2048 FLOP/clk x 2.1 GHz = 1,307.4
  // TFLOPS; FP8 2,614.9; TF32 653.7; FP32 matrix 163.4; 192 GB at 5.3 TB/s; 750 W.
  CHECK(peak("mi300x", Dtype::kBf16) == doctest::Approx(304 * 2048 * 2.1e9).epsilon(1e-3));
  CHECK(peak("mi300x", Dtype::kFp8) == doctest::Approx(2614.9e12));
  CHECK(peak("mi300x", Dtype::kTf32) == doctest::Approx(653.7e12));
  CHECK(peak("mi300x", Dtype::kFp32) == doctest::Approx(163.4e12));
  CHECK(catalog().gpu("mi300x").hbm.value == doctest::Approx(192e9));
  CHECK(catalog().gpu("mi300x").hbm_bandwidth.value == doctest::Approx(5.3e12));
  CHECK(catalog().gpu("mi300x").tdp.value == doctest::Approx(750.0));
  // MI325X: MI300X compute, 256 GB HBM3E at 6 TB/s, 1,000 W.
  CHECK(peak("mi325x", Dtype::kBf16) == doctest::Approx(1307.4e12));
  CHECK(peak("mi325x", Dtype::kFp8) == doctest::Approx(2614.9e12));
  CHECK(catalog().gpu("mi325x").hbm.value == doctest::Approx(256e9));
  CHECK(catalog().gpu("mi325x").hbm_bandwidth.value == doctest::Approx(6e12));
  // MI355X (CDNA 4 white paper Table 1): 256 CU x 4096 (BF16) / 8192 (FP8) FLOP/clk x 2.4 GHz; no TF32.
  CHECK(peak("mi355x", Dtype::kBf16) == doctest::Approx(256.0 * 4096 * 2.4e9).epsilon(1e-4));
  CHECK(peak("mi355x", Dtype::kFp8) == doctest::Approx(256.0 * 8192 * 2.4e9).epsilon(1e-4));
  CHECK_FALSE(catalog().gpu("mi355x").supports(Dtype::kTf32));
  CHECK(catalog().gpu("mi355x").hbm.value == doctest::Approx(288e9));
  CHECK(catalog().gpu("mi355x").tdp.value == doctest::Approx(1400.0));
  // Gaudi 3 (Hot Chips 2024): MME BF16 = FP8 = 1,835 TFLOPS dense, 128 GB HBM2e at 3.67 TB/s, 900 W air.
  CHECK(peak("gaudi3", Dtype::kBf16) == doctest::Approx(1835e12));
  CHECK(peak("gaudi3", Dtype::kFp8) == doctest::Approx(1835e12));
  CHECK(catalog().gpu("gaudi3").hbm.value == doctest::Approx(128e9));
  CHECK(catalog().gpu("gaudi3").hbm_bandwidth.value == doctest::Approx(3.67e12));
  CHECK(catalog().gpu("gaudi3").tdp.value == doctest::Approx(900.0));
  // Their collective libraries, and efficiencies marked unfitted.
  CHECK(catalog().gpu("h100-sxm").library == "NCCL");
  for (const char* gpu : {"mi300x", "mi325x", "mi355x"}) {
    CAPTURE(gpu);
    CHECK(catalog().gpu(gpu).library == "RCCL");
    CHECK(catalog().gpu(gpu).efficiency.fitted.rfind("unfitted", 0) == 0);
  }
  CHECK(catalog().gpu("gaudi3").library == "HCCL");
  CHECK(catalog().gpu("gaudi3").efficiency.fitted.rfind("unfitted", 0) == 0);
}

TEST_CASE("full-mesh all-reduce on 8 GPUs against a hand derivation") {
  const ClusterSpec mi300x = cluster("gpu: mi300x\ngpus: 8\nscale_out: {link: roce-400g}\n");
  // One link per pair: 64 GB/s x efficiency 0.71 = 45.44 GB/s. A ring uses one link per GPU; RCCL runs a
  // ring per peer link, so 8 ranks drive all 7: bus bandwidth 7 x 45.44 = 318.08 GB/s, and the ring's
  // bandwidth term is 2(p-1)/p x n / busbw (Thakur et al. 2005 §4).
  const double pair = 64e9 * 0.71;
  const double n = 8.0 * 1073741824.0;
  const CommCost ring = allreduce(mi300x, 8, n, Algorithm::kRing);
  CHECK(ring.bandwidth_term.value == doctest::Approx(2.0 * 7 / 8 * n / (7 * pair)));
  // One-shot (direct): every rank sends its whole buffer to each peer over their own link at once, so the
  // bandwidth term is n / pair, 4x the ring's 2n / (8 pair), with one step of latency instead of 14.
  const CommCost one_shot = allreduce(mi300x, 8, n, Algorithm::kDirect);
  CHECK(one_shot.bandwidth_term.value == doctest::Approx(n / pair));
  CHECK(one_shot.latency_term.value < ring.latency_term.value / 4.0);
  // Auto takes one-shot for small messages (latency-bound), the ring for large ones.
  CHECK(allreduce(mi300x, 8, 4096, Algorithm::kAuto, Protocol::kAuto).algorithm == Algorithm::kDirect);
  CHECK(allreduce(mi300x, 8, n, Algorithm::kAuto, Protocol::kAuto).algorithm == Algorithm::kRing);
  // A 4-rank communicator (TP=4) has 3 peers, so 3 links: busbw 3 x 45.44 GB/s, where a switch would give a
  // rank the GPU's whole 448 x 0.71; a ring of 4 then moves 2 x 3/4 x n over 3 x pair.
  const CommCost four = allreduce(mi300x, 4, n, Algorithm::kRing);
  CHECK(four.bandwidth_term.value == doctest::Approx(2.0 * 3 / 4 * n / (3 * pair)));
  // A switched domain of the same per-GPU bandwidth does not lose links on a sub-communicator.
  const ClusterSpec switched = cluster(
      "gpu: mi300x\ngpus: 8\nscale_up: {topology: switched, links: 7, link_bandwidth: 64GB/s}\n"
      "scale_out: {link: roce-400g}\n");
  CHECK(allreduce(switched, 4, n, Algorithm::kRing).bandwidth_term.value ==
        doctest::Approx(2.0 * 3 / 4 * n / (7 * pair)));
  // One-shot needs a full mesh.
  CHECK_THROWS_AS((void)allreduce(switched, 8, n, Algorithm::kDirect), Error);
}

TEST_CASE("published 8-GPU all-reduce results on a full mesh") {
  // rccl-tests all_reduce_perf on 8 x MI300X, in place (Azure AI-benchmarking-guide, ND MI300X v5 results,
  // RCCL 2.22.3): busbw 316.8 GB/s at 8 GB (the point efficiency 0.71 comes from: a calibration check) and
  // 290.8 GB/s at 134 MB (held out).
  const ClusterSpec mi300x = cluster("gpu: mi300x\ngpus: 8\nscale_out: {link: roce-400g}\n");
  const auto measured_busbw = [&](double bytes) {
    return busbw(allreduce(mi300x, 8, bytes, Algorithm::kAuto, Protocol::kAuto), 8, bytes) / 1e9;
  };
  CHECK(measured_busbw(8589934592.0) == doctest::Approx(316.8).epsilon(0.01));
  CHECK(measured_busbw(134217728.0) == doctest::Approx(290.8).epsilon(0.03));
  // hccl_demo all_reduce, 8 Gaudi 3 ranks, 256 MB: "NW Bandwidth" 513.0 GB/s (Habana docs, Collectives
  // Performance): the model's ring reaches 483 GB/s (-6%): its NCCL ring latency (14 steps) is the gap.
  const ClusterSpec gaudi3 =
      cluster("gpu: gaudi3\ngpus: 8\nscale_out: {link: roce-800g, nics_per_node: 6}\n");
  const double gaudi =
      busbw(allreduce(gaudi3, 8, 268435456.0, Algorithm::kAuto, Protocol::kAuto), 8, 268435456.0) / 1e9;
  CHECK(gaudi == doctest::Approx(513.0).epsilon(0.07));
  CHECK(gaudi < 513.0);
}

TEST_CASE("a 1,024-GPU UALink pod keeps the all-to-all inside the domain") {
  const ClusterSpec pod = cluster(
      "gpu: mi355x\ngpus: 2048\ngpus_per_node: 8\nscale_up: {name: ualink-1.0, domain: 1024}\n"
      "scale_out: {link: roce-800g, nics_per_node: 8}\n");
  CHECK(pod.scale_up_domain() == 1024);
  const LinkPath path = link_path(pod, Communicator{1024, 1, 1});
  CHECK(path.scale_up.ranks == 1024);
  CHECK(path.scale_out.ranks == 1);
  // Inside the pod every rank sends (L-1)/L of its buffer at the GPU's UALink bandwidth: 8 x 100 GB/s x 0.8.
  const double n = 1073741824.0;
  const CommCost a2a =
      collective_cost(Collective::kAllToAll, Algorithm::kDirect, Bytes(n), path, Protocol::kSimple);
  CHECK(a2a.bandwidth_term.value == doctest::Approx(1023.0 / 1024.0 * n / (800e9 * 0.8)));
  // The same 1,024 ranks on 72-GPU pods cross 15 domains over 100 GB/s NICs: several times slower.
  const ClusterSpec racks = cluster(
      "gpu: mi355x\ngpus: 2048\ngpus_per_node: 8\nscale_up: {name: ualink-1.0, domain: 72}\n"
      "scale_out: {link: roce-800g, nics_per_node: 8}\n");
  const LinkPath across = link_path(racks, Communicator{1024, 1, 1});
  CHECK(across.scale_out.ranks == 15);
  const CommCost slower =
      collective_cost(Collective::kAllToAll, Algorithm::kDirect, Bytes(n), across, Protocol::kSimple);
  CHECK(slower.time.value > 4.0 * a2a.time.value);
}

TEST_CASE("a swapped-in fabric is bought on top of the GPUs; the GPU's own is in their price") {
  // 9,216 MI355X in 72-GPU UALink pods: 128 pods x 8 switches x $70,000 (estimate) = $71.68M and
  // 1,024 x 1.8 kW, both added; NVL72's 128 x 18 chips x $25,000 = $57.6M is inside the GB200 price.
  const ClusterSpec ualink = cluster(
      "gpu: mi355x\ngpus: 9216\ngpus_per_node: 8\nscale_up: {name: ualink-1.0, domain: 72}\n"
      "scale_out: {link: roce-800g, nics_per_node: 8}\n");
  const Topology t = build_topology(ualink);
  CHECK(t.inventory.scale_up_switches == 1024);
  const Ownership o = ownership(ualink, t.inventory, EconomicsSpec{});
  CHECK(o.scale_up_capex.value == doctest::Approx(71.68e6));
  CHECK(o.capex.value == doctest::Approx(o.gpu_capex.value + o.network_capex.value + 71.68e6));
  CHECK(o.power.value ==
        doctest::Approx(9216 * (1400.0 + 4400.0 / 8) + t.inventory.power.value + 1024 * 1800.0));
  const ClusterSpec nvl72 =
      cluster("gpu: gb200\ngpus: 9216\ngpus_per_node: 4\nscale_out: {link: ib-xdr-800g, nics_per_node: 4}\n");
  const Topology n = build_topology(nvl72);
  const Ownership own = ownership(nvl72, n.inventory, EconomicsSpec{});
  CHECK(own.scale_up_capex.value == doctest::Approx(128 * 18 * 25000.0));
  CHECK(own.capex.value == doctest::Approx(own.gpu_capex.value + own.network_capex.value));
}

TEST_CASE("a cluster file swaps the scale-up fabric; impossible domains are errors naming the field") {
  const ClusterSpec swapped = cluster(
      "gpu: h100-sxm\ngpus: 64\nscale_up: ualink-1.0\n"
      "scale_out: {link: ib-ndr-400g}\n");
  CHECK(swapped.scale_up_fabric().name == "ualink-1.0");
  CHECK(swapped.scale_up_domain() == 64);  // the 72-GPU pod, capped at the cluster
  CHECK_FALSE(swapped.scale_up_priced_with_gpu());
  const auto error_of = [](const std::string& yaml) {
    try {
      (void)cluster(yaml);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A full mesh larger than its links: MI300X's 7 links join at most 8 GPUs.
  const std::string mesh = error_of(
      "gpu: mi300x\ngpus: 32\ngpus_per_node: 16\nscale_up: {name: infinity-fabric-mi300x, domain: 16}\n"
      "scale_out: {link: roce-400g}\n");
  CHECK(mesh.find("scale_up.domain") != std::string::npos);
  CHECK(mesh.find("7 links per GPU join at most 8 GPUs") != std::string::npos);
  CHECK(mesh.find("cluster.yaml:4:") != std::string::npos);
  // A domain larger than the fabric allows: UALink 1.0 pods hold 1,024.
  const std::string pod = error_of(
      "gpu: mi355x\ngpus: 4096\nscale_up: {name: ualink-1.0, domain: 2048}\n"
      "scale_out: {link: roce-800g}\n");
  CHECK(pod.find("scale_up.domain") != std::string::npos);
  CHECK(pod.find("max_domain 1024") != std::string::npos);
  // An unknown fabric gets a suggestion.
  CHECK(error_of("gpu: h100-sxm\ngpus: 8\nscale_up: ualink-1\nscale_out: {link: ib-ndr-400g}\n")
            .find("did you mean 'ualink-1.0'") != std::string::npos);
}
