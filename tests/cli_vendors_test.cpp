// SPDX-License-Identifier: Apache-2.0
// Beyond one vendor through the real binary (issue 17): `catalog scale-up`, `--scale-up`, the collective
// library in the outputs, bad scale-up domains refused with one line naming the field (exit 2), and the
// numbers of examples/open-scale-up.yaml that docs/examples.md states.

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace costmodel::test {
namespace {

std::string text(const Json& object, std::string_view key) {
  return std::get<std::string>(member(object, key).value());
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n' ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("catalog scale-up lists every fabric; --scale-up swaps one in") {
  const auto catalog = run_cli({"catalog", "scale-up", "--format", "json"});
  REQUIRE_MESSAGE(catalog.exit_code == 0, catalog.err);
  for (const char* name : {"nvlink5-nvl72", "ualink-1.0", "infinity-fabric-mi300x", "gaudi3-roce-mesh"}) {
    CHECK(catalog.out.find(std::string("\"") + name + "\"") != std::string::npos);
  }
  const auto swapped =
      run_cli({"collective", "--op", "alltoall", "--gpu", "mi355x", "--gpus", "144", "--ranks", "64",
               "--scale-up", "ualink-1.0", "--max-bytes", "1MiB", "--format", "json"});
  REQUIRE_MESSAGE(swapped.exit_code == 0, swapped.err);
  const Json sweep = parse_json(swapped.out);
  CHECK(text(sweep, "scale_up") == "ualink-1.0");
  CHECK(text(sweep, "library") == "RCCL");
  CHECK(number(sweep, "nodes") == 8);  // 64 ranks inside one 72-GPU UALink pod: no scale-out hop
  const auto unknown = run_cli({"topology", "--gpu", "mi300x", "--scale-up", "ualink"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("did you mean 'ualink-1.0'") != std::string::npos);
}

TEST_CASE("the collective header names the fabric and the library") {
  const auto mi300x = run_cli({"collective", "--op", "allreduce", "--gpu", "mi300x", "--gpus", "8"});
  REQUIRE_MESSAGE(mi300x.exit_code == 0, mi300x.err);
  CHECK(mi300x.out.find("infinity-fabric-mi300x full mesh of 8, RCCL") != std::string::npos);
  const auto gaudi = run_cli({"collective", "--op", "allreduce", "--gpu", "gaudi3", "--gpus", "8"});
  CHECK(gaudi.out.find("gaudi3-roce-mesh full mesh of 8, HCCL") != std::string::npos);
  const auto h100 = run_cli({"collective", "--op", "allreduce", "--gpu", "h100-sxm", "--gpus", "8"});
  CHECK(h100.out.find("NVLink domain of 8, NCCL") != std::string::npos);
}

TEST_CASE("bad scale-up domains: one line naming the field, exit 2") {
  const TempDir dir;
  const std::map<std::string, std::string> bad = {
      // A full mesh larger than the GPU's links: MI300X has 7, so at most 8 GPUs.
      {"mesh.yaml",
       "gpu: mi300x\ngpus: 64\nscale_up: {name: infinity-fabric-mi300x, domain: 16}\ngpus_per_node: 16\n"
       "scale_out: {link: roce-400g}\n"},
      // A domain larger than the fabric allows: UALink 1.0 pods hold 1,024 accelerators.
      {"pod.yaml",
       "gpu: mi355x\ngpus: 4096\nscale_up: {name: ualink-1.0, domain: 2048}\nscale_out: {link: roce-800g}\n"},
  };
  for (const auto& file : bad) {
    const std::string& name = file.first;  // clang < 16 cannot capture a structured binding
    const std::string& yaml = file.second;
    CAPTURE(name);
    const auto path = dir.path() / name;
    std::ofstream(path) << yaml;
    const auto result = run_cli({"topology", "--cluster", path.string()});
    CHECK(result.exit_code == 2);
    CHECK(lines(result.err) == 1);
    CHECK(result.err.find(name + ":3:") != std::string::npos);  // at the scale_up mapping's domain
    CHECK(result.err.find("scale_up.domain") != std::string::npos);
  }
}

TEST_CASE("examples/open-scale-up.yaml: where each fabric wins") {
  const auto result =
      run_cli({"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/open-scale-up.yaml",
               "--format", "json"});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  const Json document = parse_json(result.out);
  std::map<std::string, const Json*> best;  // "variant/model" -> its best configuration
  for (const Json& row : member(document, "rows").as_array()) {
    const auto& configs = member(row, "configurations").as_array();
    REQUIRE(!configs.empty());
    best[text(row, "variant") + "/" + text(row, "model")] = &configs.front();
  }
  const auto step = [&](const std::string& key) { return number(*best.at(key), "step_time_s"); };
  // Dense 1T: TP stays inside a domain and DP crosses it. 72 = 8 x 9 GPUs hold whole tp-8 groups but not
  // tp-16 ones (a tp-16 group would straddle two racks and all-reduce over the NICs), so NVL72 and UALink-72
  // run tp 8, within 3% of each other; the 1,024-GPU pod holds tp 16 and is >5% faster. The 8-GPU meshes
  // are >35% slower (TP comm over 7 links, and deeper pipelines).
  CHECK(number(*best.at("nvl72/dense-1t-gpt"), "tp") == 8);
  CHECK(number(*best.at("ualink-72/dense-1t-gpt"), "tp") == 8);
  CHECK(number(*best.at("ualink-1024/dense-1t-gpt"), "tp") == 16);
  CHECK(step("ualink-72/dense-1t-gpt") == doctest::Approx(step("nvl72/dense-1t-gpt")).epsilon(0.03));
  CHECK(step("ualink-1024/dense-1t-gpt") < 0.95 * step("nvl72/dense-1t-gpt"));
  CHECK(step("if-mesh-8/dense-1t-gpt") > 1.35 * step("nvl72/dense-1t-gpt"));
  CHECK(step("gaudi3-8/dense-1t-gpt") > 1.35 * step("nvl72/dense-1t-gpt"));
  // MoE 1T: expert groups placed as Megatron-Core does at stride etp with CP folded in
  // (megatron/core/parallel_state.py). The pod holds every such group (its best split runs 32-way, NVL72's
  // 64-way); on 72-GPU racks no 64-way group of 64 or 128 consecutive GPUs lines up with the racks, so the
  // worst-placed one sends most of its all-to-all over the NICs: NVL72's EP comm is more than 1.5x the
  // pod's, and the pod's step >10% shorter.
  CHECK(number(*best.at("ualink-1024/moe-1t"), "ep") >= 32);
  CHECK(number(*best.at("nvl72/moe-1t"), "ep") == 64);
  const auto ep_comm = [&](const std::string& key) {
    return number(member(*best.at(key), "breakdown"), "ep_comm_s");
  };
  CHECK(ep_comm("nvl72/moe-1t") > 1.5 * ep_comm("ualink-1024/moe-1t"));
  CHECK(ep_comm("ualink-72/moe-1t") > 1.5 * ep_comm("ualink-1024/moe-1t"));
  CHECK(step("ualink-1024/moe-1t") < 0.9 * step("nvl72/moe-1t"));
  // On the 8-GPU meshes every 64-way expert group crosses the scale-out network: their EP comm is the
  // highest, several times the pod's.
  for (const std::string mesh : {"gaudi3-8/moe-1t", "if-mesh-8/moe-1t"}) {
    CAPTURE(mesh);
    CHECK(ep_comm(mesh) > ep_comm("nvl72/moe-1t"));
    CHECK(ep_comm(mesh) > ep_comm("ualink-72/moe-1t"));
    CHECK(ep_comm(mesh) > 3.0 * ep_comm("ualink-1024/moe-1t"));
  }
  // Capex: UALink's switches are bought on top (128 pods x 8 x $70k = $71.68M at 72; 9 pods x 192 x $70k =
  // $120.96M at 1,024); NVL72's (128 x 18 x $25k = $57.6M) are inside the GB200 price; the meshes have none.
  CHECK(number(*best.at("ualink-72/moe-1t"), "scale_up_capex_usd") == doctest::Approx(71.68e6));
  CHECK(number(*best.at("ualink-1024/moe-1t"), "scale_up_capex_usd") == doctest::Approx(120.96e6));
  CHECK(number(*best.at("nvl72/moe-1t"), "scale_up_capex_usd") == doctest::Approx(57.6e6));
  CHECK(number(*best.at("if-mesh-8/moe-1t"), "scale_up_capex_usd") == 0);
  const Json& ualink = *best.at("ualink-72/moe-1t");
  CHECK(number(ualink, "capex_usd") ==
        doctest::Approx(number(ualink, "gpu_capex_usd") + number(ualink, "network_capex_usd") + 71.68e6));
  const Json& nvl72 = *best.at("nvl72/moe-1t");
  CHECK(number(nvl72, "capex_usd") ==
        doctest::Approx(number(nvl72, "gpu_capex_usd") + number(nvl72, "network_capex_usd")));
}

}  // namespace costmodel::test
