// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/catalog.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "costmodel/io/load.hpp"

using namespace costmodel;

namespace {
const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}
}  // namespace

TEST_CASE("every catalog name of DESIGN.md §3 is present") {
  for (const char* gpu : {"v100-32gb", "a100-40gb", "a100-80gb", "a800-80gb", "h100-sxm", "h800-sxm",
                          "h200-sxm", "b200", "gb200"}) {
    CAPTURE(gpu);
    CHECK_NOTHROW((void)catalog().gpu(gpu));
  }
  for (const char* link : {"ib-edr-100g", "ib-hdr-200g", "ib-ndr-400g", "ib-xdr-800g", "roce-100g",
                           "roce-200g", "roce-400g", "roce-800g", "eth-1.6t"}) {
    CAPTURE(link);
    CHECK_NOTHROW((void)catalog().link(link));
  }
  for (const char* sw : {"qm8700", "qm9700", "q3400", "sn5600", "tomahawk4", "tomahawk5", "tomahawk6"}) {
    CAPTURE(sw);
    CHECK_NOTHROW((void)catalog().switch_spec(sw));
  }
  for (const char* model :
       {"gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b",
        "mixtral-8x7b", "mixtral-8x22b", "bloom-176b", "opt-175b", "mt-nlg-530b", "nemotron-4-340b",
        "gpt-oss-120b", "megatron-1.7b", "megatron-1t"}) {
    CAPTURE(model);
    CHECK_NOTHROW((void)catalog().model(model));
  }
}

TEST_CASE("every entry is physically sane and cites a source") {
  for (const auto& g : catalog().gpus) {
    CAPTURE(g.name);
    CHECK(!g.source.empty());
    // Half precision on tensor cores: FP16, or BF16 only (Intel publishes no FP16 peak for Gaudi 3).
    CHECK((g.supports(Dtype::kFp16) || g.supports(Dtype::kBf16)));
    CHECK(g.hbm.value >= 16e9);
    CHECK(g.hbm_bandwidth.value >= 500e9);
    CHECK(g.scale_up.bandwidth.value > 0);
    CHECK(g.scale_up.domain >= 8);
    CHECK(g.tdp.value >= 200);
    // Dense tensor-core half precision is at least 4x the FP32 CUDA-core peak on every GPU since Volta.
    CHECK(std::max(g.peak(Dtype::kFp16), g.peak(Dtype::kBf16)).value >= 4 * g.peak(Dtype::kFp32).value);
  }
  for (const auto& l : catalog().links) {
    CAPTURE(l.name);
    CHECK(!l.source.empty());
    CHECK(l.efficiency > 0.3);
    CHECK(l.efficiency <= 1.0);
    CHECK(l.line_rate.value >= 12.5e9);  // 100 Gb/s and up
  }
  for (const auto& s : catalog().switches) {
    CAPTURE(s.name);
    CHECK(!s.source.empty());
    CHECK(s.radix >= 32);
  }
}

TEST_CASE("datasheet numbers survive the unit parser") {
  // H100 SXM: 989 TFLOP/s dense BF16, 3.35 TB/s HBM3, NVLink4 450 GB/s per direction (NVIDIA datasheet).
  const GpuSpec& h100 = catalog().gpu("h100-sxm");
  CHECK(h100.peak(Dtype::kBf16).value == doctest::Approx(989e12).epsilon(0.002));
  CHECK(h100.hbm_bandwidth.value == doctest::Approx(3.35e12).epsilon(0.01));
  CHECK(h100.scale_up.bandwidth.value == doctest::Approx(450e9));
  CHECK(!catalog().gpu("a100-80gb").supports(Dtype::kFp8));
  CHECK(!catalog().gpu("v100-32gb").supports(Dtype::kBf16));
  // HDR: 200 Gb/s = 25 GB/s line rate; 0.96 of it from nccl-tests (192 GB/s per 8-NIC node).
  const LinkSpec& hdr = catalog().link("ib-hdr-200g");
  CHECK(hdr.line_rate.value == doctest::Approx(25e9));
  CHECK(hdr.effective_bandwidth().value == doctest::Approx(24e9));
  CHECK(catalog().gpu("gb200").scale_up.domain == 72);
}

TEST_CASE("a link's default switch runs at its speed") {
  CHECK(catalog().default_switch_for(catalog().link("ib-hdr-200g")).name == "qm8700");
  CHECK(catalog().default_switch_for(catalog().link("ib-ndr-400g")).name == "qm9700");
  CHECK(catalog().default_switch_for(catalog().link("ib-xdr-800g")).name == "q3400");
  CHECK(catalog().default_switch_for(catalog().link("eth-1.6t")).name == "tomahawk6");
}

TEST_CASE("switch catalog: native ports, breakouts and cages as the datasheets state them") {
  // Tomahawk 5: 51.2 Tb/s as 64 x 800G, 128 x 400G or 256 x 200G in 64 OSFP cages; QM9700: 32 twin-port OSFP
  // cages of 2 x 400G NDR (128 x 200G NDR200 split); Q3400: 72 twin-port cages of 2 x 800G XDR.
  const SwitchSpec& th5 = catalog().switch_spec("tomahawk5");
  CHECK(th5.radix == 64);
  REQUIRE(th5.breakouts.size() == 2);
  CHECK(th5.breakouts[0].radix == 128);
  CHECK(th5.breakouts[0].port_bandwidth.value == doctest::Approx(50e9));
  CHECK(th5.cages == 64);
  const SwitchSpec& qm9700 = catalog().switch_spec("qm9700");
  CHECK(qm9700.cages == 32);
  CHECK(qm9700.breakouts.at(0).radix == 128);
  CHECK(catalog().switch_spec("q3400").cages == 72);
  // Every breakout keeps the switch's capacity (radix x port rate) and spreads over its cages.
  for (const SwitchSpec& s : catalog().switches) {
    CAPTURE(s.name);
    for (const PortMode& mode : s.breakouts) {
      CHECK(mode.radix * mode.port_bandwidth.value == doctest::Approx(s.radix * s.port_bandwidth.value));
      if (s.cages > 0) CHECK(mode.radix % s.cages == 0);
    }
  }
}

TEST_CASE("cluster files: routing, and an inline switch restating its ports drops the entry's breakouts") {
  const ClusterSpec c = load_cluster_text(R"(gpu: h100-sxm
gpus: 4096
scale_out:
  topology: dragonfly-plus
  link: roce-400g
  routing: minimal
  switch: {name: tomahawk5, radix: 32, port_bandwidth: 1600Gbps}
)",
                                          "routing.yaml", catalog());
  CHECK(c.routing == Routing::kMinimal);
  CHECK(c.switch_spec.radix == 32);
  CHECK(c.switch_spec.breakouts.empty());
  CHECK(c.switch_spec.cages == 0);
  const ClusterSpec d = load_cluster_text(R"(gpu: h100-sxm
gpus: 64
scale_out: {link: roce-400g, switch: {name: tomahawk5, price: $30000}}
)",
                                          "price.yaml", catalog());
  CHECK(d.routing == Routing::kAdaptive);  // the default
  CHECK(d.switch_spec.breakouts.size() == 2);
  CHECK(d.switch_spec.price.value == doctest::Approx(30000));
  ClusterOptions o;
  o.routing = "minimal";
  CHECK(apply_cluster_options(default_cluster(catalog()), o, catalog()).routing == Routing::kMinimal);
}

TEST_CASE("cluster files: catalog names, inline entries and overrides") {
  const ClusterSpec c = load_cluster_text(R"(gpu: h100-sxm
gpus: 1024
gpus_per_node: 8
scale_up: {bandwidth: 300GB/s, latency: 1us}
scale_out:
  topology: rail-optimized
  link: {bandwidth: 200Gbps, latency: 2us}
  nics_per_node: 4
  switch: {radix: 40, port_bandwidth: 200Gbps, price_usd: $20000, power_w: 300W}
  oversubscription: 2
)",
                                          "inline.yaml", catalog());
  CHECK(c.gpu.name == "h100-sxm");
  CHECK(c.scale_up_fabric().bandwidth.value == doctest::Approx(300e9));
  CHECK(c.scale_up_fabric().domain == 8);  // kept from the GPU entry
  CHECK(c.topology == TopologyKind::kRailOptimized);
  CHECK(c.link.line_rate.value == doctest::Approx(25e9));
  CHECK(c.link.latency.value == doctest::Approx(2e-6));
  CHECK(c.switch_spec.radix == 40);
  CHECK(c.switch_spec.price.value == doctest::Approx(20000));
  CHECK(c.nics_per_node == 4);
  CHECK(c.oversubscription == 2.0);
  CHECK(c.nodes() == 128);

  const std::string kOut = "scale_out: {link: ib-ndr-400g, nics_per_node: 8}\n";
  // A GPU override keeps what it does not restate: the measured EP-overlap share comes with the entry
  // (data/gpus.yaml: 0.3655 for h100-sxm) unless the override sets its own.
  const ClusterSpec kept = load_cluster_text(
      "gpu: {name: h100-sxm, efficiency: {overlap: 0.5}}\ngpus: 8\n" + kOut, "kept.yaml", catalog());
  CHECK(kept.gpu.efficiency.overlap == 0.5);
  CHECK(kept.gpu.efficiency.ep_overlap == catalog().gpu("h100-sxm").efficiency.ep_overlap);
  CHECK(kept.gpu.efficiency.ep_overlap == 0.3655);
  const ClusterSpec set = load_cluster_text(
      "gpu: {name: h100-sxm, efficiency: {ep_overlap: 0.2}}\ngpus: 8\n" + kOut, "set.yaml", catalog());
  CHECK(set.gpu.efficiency.ep_overlap == 0.2);
  CHECK(set.gpu.efficiency.overlap == catalog().gpu("h100-sxm").efficiency.overlap);
  CHECK_THROWS_WITH(
      load_cluster_text("gpu: {name: h100-sxm, efficiency: {ep_overlap: 1.5}}\ngpus: 8\n" + kOut, "bad.yaml",
                        catalog()),
      doctest::Contains("ep_overlap"));

  ClusterOptions options;
  options.link = "ib-ndr-400g";
  options.gpus = 2048;
  const ClusterSpec d = apply_cluster_options(default_cluster(catalog()), options, catalog());
  CHECK(d.switch_spec.name == "qm9700");
  CHECK(d.gpus == 2048);
  CHECK(d.gpu.name == "a100-80gb");
}
