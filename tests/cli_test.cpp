// SPDX-License-Identifier: Apache-2.0
// The `costmodel` binary end to end: dispatch, --help/--version, exit codes, `catalog`, --format and -o.

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "costmodel/version.hpp"

using costmodel::Json;
using costmodel::test::check_one_line_error;
using costmodel::test::CliResult;
using costmodel::test::contains;
using costmodel::test::number;
using costmodel::test::parse_json;
using costmodel::test::run_cli;
using costmodel::test::TempDir;

namespace {

/// The "name" members of a JSON array of objects.
std::set<std::string> names_in(const Json& array) {
  std::set<std::string> names;
  REQUIRE(array.is_array());
  for (const auto& entry : array.as_array()) {
    REQUIRE(entry.is_object());
    const Json* name = entry.find("name");
    REQUIRE(name != nullptr);
    names.insert(std::get<std::string>(name->value()));
  }
  return names;
}

/// Parses `catalog WHICH --format json` and checks every name of DESIGN.md §3 is there.
Json catalog_json(const std::string& which, const std::vector<std::string>& required_names) {
  const CliResult result = run_cli({"catalog", which, "--format", "json"});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  CHECK(result.err.empty());
  Json json;
  REQUIRE_NOTHROW(json = parse_json(result.out));
  const auto names = names_in(json);
  for (const auto& name : required_names) CHECK_MESSAGE(names.count(name) == 1, which << ": " << name);
  return json;
}

}  // namespace

TEST_CASE("--version prints the library version and the data directory in use") {
  const CliResult result = run_cli({"--version"});
  CHECK(result.exit_code == 0);
  // CTest sets COSTMODEL_DATA_DIR to the source root: the first place searched.
  CHECK(result.out == "costmodel " + std::string(costmodel::version()) +
                          "\ndata: " + std::string(COSTMODEL_TEST_SOURCE_DIR) + "\n");
  CHECK(result.err.empty());
}

TEST_CASE("--help lists the commands; no command is a usage error") {
  for (const std::string flag : {"--help", "-h"}) {
    const CliResult result = run_cli({flag});
    CHECK(result.exit_code == 0);
    CHECK(contains(result.out, "usage: costmodel <command>"));
    CHECK(contains(result.out, "catalog"));
    CHECK(result.err.empty());
  }
  const CliResult none = run_cli({});
  CHECK(none.exit_code == 2);
  CHECK(none.out.empty());
  CHECK(contains(none.err, "usage: costmodel <command>"));
}

TEST_CASE("an unknown command exits 2 with a suggestion") {
  const CliResult result = run_cli({"catalgo", "gpus"});
  check_one_line_error(result, 2);
  CHECK(result.err == "costmodel: error: unknown command 'catalgo'; did you mean 'catalog'?\n");

  const CliResult far = run_cli({"frobnicate"});
  check_one_line_error(far, 2);
  CHECK(contains(far.err, "unknown command 'frobnicate'"));

  const CliResult option = run_cli({"--verison"});
  check_one_line_error(option, 2);
  CHECK(contains(option.err, "did you mean '--version'?"));
}

TEST_CASE("catalog --help lists its options") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"catalog", "--help"}, std::vector<std::string>{"help", "catalog"}}) {
    const CliResult result = run_cli(args);
    CHECK(result.exit_code == 0);
    CHECK(contains(result.out, "usage: costmodel catalog"));
    CHECK(contains(result.out, "--format"));
    CHECK(contains(result.out, "-o"));
    CHECK(result.err.empty());
  }
}

TEST_CASE("catalog gpus --format json lists every GPU of DESIGN.md with its numbers") {
  const Json gpus = catalog_json("gpus", {"v100-32gb", "a100-40gb", "a100-80gb", "a800-80gb", "h100-sxm",
                                          "h800-sxm", "h200-sxm", "b200", "gb200"});
  for (const auto& gpu : gpus.as_array()) {
    for (const char* key : {"hbm_bytes", "hbm_bandwidth_Bps", "scale_up_bandwidth_Bps", "scale_up_latency_s",
                            "tdp_w", "price_usd"}) {
      CHECK_MESSAGE(number(gpu, key) > 0.0, key);
    }
    // Half precision: FP16, or BF16 only (Intel publishes no FP16 peak for Gaudi 3).
    const Json* fp16 = gpu.find("peak_fp16_flops");
    CHECK(number(gpu, fp16 != nullptr && !fp16->is_null() ? "peak_fp16_flops" : "peak_bf16_flops") > 0.0);
    CHECK(std::holds_alternative<std::int64_t>(gpu.find("scale_up_domain")->value()));
  }
  // Volta has no BF16: an unsupported dtype is null, never 0 or NaN.
  const auto& v100 = gpus.as_array().front();
  REQUIRE(std::get<std::string>(v100.find("name")->value()) == "v100-32gb");
  CHECK(v100.find("peak_bf16_flops")->is_null());
  // 32 GiB in bytes, an integer-valued SI number.
  CHECK(number(v100, "hbm_bytes") == 32.0 * 1024 * 1024 * 1024);
}

TEST_CASE("catalog links --format json lists every link of DESIGN.md") {
  const Json links = catalog_json("links", {"ib-edr-100g", "ib-hdr-200g", "ib-ndr-400g", "ib-xdr-800g",
                                            "roce-100g", "roce-200g", "roce-400g", "roce-800g", "eth-1.6t"});
  for (const auto& link : links.as_array()) {
    CHECK(number(link, "line_rate_Bps") > 0.0);
    CHECK(number(link, "latency_s") > 0.0);
    const double efficiency = number(link, "efficiency");
    CHECK(efficiency > 0.0);
    CHECK(efficiency <= 1.0);
  }
  // 400 Gb/s is 50 GB/s: the JSON holds SI bytes per second.
  for (const auto& link : links.as_array()) {
    if (std::get<std::string>(link.find("name")->value()) == "ib-ndr-400g") {
      CHECK(number(link, "line_rate_Bps") == doctest::Approx(50e9));
    }
  }
}

TEST_CASE("catalog switches --format json lists every switch of DESIGN.md") {
  const Json switches = catalog_json(
      "switches", {"qm8700", "qm9700", "q3400", "sn5600", "tomahawk4", "tomahawk5", "tomahawk6"});
  for (const auto& entry : switches.as_array()) {
    CHECK(std::get<std::int64_t>(entry.find("radix")->value()) > 0);
    CHECK(number(entry, "port_bandwidth_Bps") > 0.0);
    CHECK(number(entry, "power_w") > 0.0);
  }
}

TEST_CASE("catalog models --format json carries the architecture and the parameter counts") {
  const Json models = catalog_json("models", {"gpt3-175b", "llama2-70b", "mixtral-8x7b"});
  for (const auto& model : models.as_array()) {
    const std::string name = std::get<std::string>(model.find("name")->value());
    if (name == "gpt3-175b") {
      CHECK(std::get<std::int64_t>(model.find("layers")->value()) == 96);
      CHECK(std::get<std::int64_t>(model.find("hidden")->value()) == 12288);
      CHECK(model.find("moe_experts")->is_null());
      // Narayanan et al. 2021, Table 1: 174.6B.
      CHECK(number(model, "parameters_total") == doctest::Approx(174.6e9).epsilon(0.001));
      CHECK(number(model, "parameters_active") == number(model, "parameters_total"));
    }
    if (name == "mixtral-8x7b") {
      CHECK(std::get<std::int64_t>(model.find("moe_experts")->value()) == 8);
      CHECK(number(model, "parameters_active") < number(model, "parameters_total"));
    }
  }
}

TEST_CASE("catalog topologies names every topology kind") {
  const Json topologies = catalog_json(
      "topologies", {"fat-tree", "rail-optimized", "rail-only", "dragonfly-plus", "torus-2d", "torus-3d"});
  CHECK(topologies.as_array().size() == 6);
}

TEST_CASE("catalog without an argument summarises every catalog") {
  const CliResult result = run_cli({"catalog", "--format", "json"});
  REQUIRE(result.exit_code == 0);
  const Json summary = parse_json(result.out);
  std::set<std::string> catalogs;
  for (const auto& row : summary.as_array()) {
    catalogs.insert(std::get<std::string>(row.find("catalog")->value()));
    CHECK(row.find("names")->is_array());
  }
  CHECK(catalogs == std::set<std::string>{"gpus", "links", "switches", "scale-up", "models", "topologies",
                                          "knobs", "stacks"});

  const CliResult table = run_cli({"catalog"});
  CHECK(table.exit_code == 0);
  CHECK(contains(table.out, "h100-sxm"));
  CHECK(contains(table.out, "fat-tree"));
}

TEST_CASE("every catalog prints in every format") {
  for (const std::string which : {"gpus", "links", "switches", "models", "topologies"}) {
    const CliResult table = run_cli({"catalog", which});
    CHECK_MESSAGE(table.exit_code == 0, which);
    CHECK(contains(table.out, "name"));
    CHECK(contains(table.out, "----"));

    const CliResult csv = run_cli({"catalog", which, "--format", "csv"});
    CHECK_MESSAGE(csv.exit_code == 0, which);
    CHECK(csv.out.rfind("name,", 0) == 0);

    const CliResult markdown = run_cli({"catalog", which, "--format", "markdown"});
    CHECK_MESSAGE(markdown.exit_code == 0, which);
    CHECK(markdown.out.rfind("| name |", 0) == 0);
  }
  // Units in the table headers, SI keys in CSV.
  CHECK(contains(run_cli({"catalog", "gpus"}).out, "HBM bw (GB/s)"));
  CHECK(contains(run_cli({"catalog", "gpus"}).out, "BF16 (TFLOP/s)"));
  CHECK(contains(run_cli({"catalog", "gpus", "--format", "csv"}).out, "hbm_bandwidth_Bps"));
}

TEST_CASE("usage errors exit 2 with one line on stderr") {
  const CliResult xml = run_cli({"catalog", "gpus", "--format", "xml"});
  check_one_line_error(xml, 2);
  CHECK(contains(xml.err, "costmodel catalog: error: --format: unknown format 'xml'"));

  const CliResult typo = run_cli({"catalog", "gpus", "--formt", "json"});
  check_one_line_error(typo, 2);
  CHECK(contains(typo.err, "did you mean '--format'?"));

  const CliResult catalog = run_cli({"catalog", "gpu"});
  check_one_line_error(catalog, 2);
  CHECK(catalog.err == "costmodel catalog: error: unknown catalog 'gpu'; did you mean 'gpus'?\n");

  check_one_line_error(run_cli({"catalog", "gpus", "links"}), 2);
  check_one_line_error(run_cli({"catalog", "--format"}), 2);
}

TEST_CASE("a missing catalog folder is bad input") {
  const TempDir empty;
  const CliResult result = run_cli({"catalog", "gpus"}, {{"COSTMODEL_DATA_DIR", empty.path().string()}});
  check_one_line_error(result, 2);
}

TEST_CASE("-o writes what stdout would, and leaves nothing behind on error") {
  const TempDir dir;
  const std::string path = (dir.path() / "gpus.json").string();
  const CliResult written = run_cli({"catalog", "gpus", "--format", "json", "-o", path});
  CHECK(written.exit_code == 0);
  CHECK(written.out.empty());
  CHECK(written.err.empty());
  CHECK(costmodel::test::read_file(path) == run_cli({"catalog", "gpus", "--format", "json"}).out);
  CHECK(dir.entries() == std::vector<std::string>{"gpus.json"});

  // A failing command neither creates the file nor leaves a temporary one.
  const std::string failed = (dir.path() / "failed.json").string();
  check_one_line_error(run_cli({"catalog", "gpuz", "-o", failed}), 2);
  check_one_line_error(run_cli({"catalog", "gpus", "--format", "xml", "-o", failed}), 2);
  CHECK(dir.entries() == std::vector<std::string>{"gpus.json"});

  // A failing command leaves an existing file as it was.
  const std::string before = costmodel::test::read_file(path);
  check_one_line_error(run_cli({"catalog", "gpus", "--format", "yaml", "-o", path}), 2);
  CHECK(costmodel::test::read_file(path) == before);

  // Unwritable destinations are usage errors.
  const CliResult missing_dir = run_cli({"catalog", "gpus", "-o", (dir.path() / "no" / "x.csv").string()});
  check_one_line_error(missing_dir, 2);
  CHECK(contains(missing_dir.err, "cannot write"));
  check_one_line_error(run_cli({"catalog", "gpus", "-o", dir.path().string()}), 2);
  CHECK(dir.entries() == std::vector<std::string>{"gpus.json"});
}
