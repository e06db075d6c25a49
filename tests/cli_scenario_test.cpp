// SPDX-License-Identifier: Apache-2.0
// `costmodel scenario` and `costmodel plan --plot` driven through the real binary: formats, -o, --plot,
// exit codes and FILE:LINE:COL errors.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace costmodel::test {
namespace {

std::string example(const std::string& name) {
  return std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/" + name;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// Every element opened is closed, in order (the writer puts one element or text run per line).
bool balanced(const std::string& xml) {
  std::vector<std::string> stack;
  for (size_t lt = xml.find('<'); lt != std::string::npos; lt = xml.find('<', lt + 1)) {
    const size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) return false;
    const std::string tag = xml.substr(lt + 1, gt - lt - 1);
    if (tag.empty() || tag.front() == '?') continue;
    if (tag.front() == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return false;
      stack.pop_back();
    } else if (tag.back() != '/') {
      stack.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  return stack.empty();
}

}  // namespace

TEST_CASE("costmodel scenario prints the table, with the deltas' note") {
  const auto result = run_cli({"scenario", example("optics-power.yaml")});
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  CHECK(result.out.find("ndr-400g-cpo") != std::string::npos);
  CHECK(result.out.find("net power +/- (kW)") != std::string::npos);
  CHECK(result.out.find("deltas against variant = ndr-400g-pluggable") != std::string::npos);
}

TEST_CASE("costmodel scenario --format json|csv|markdown") {
  const auto json = run_cli({"scenario", example("compression.yaml"), "--format", "json"});
  REQUIRE(json.exit_code == 0);
  const Json document = parse_json(json.out);
  REQUIRE(document.find("rows") != nullptr);
  CHECK(document.find("rows")->as_array().size() == 16);
  const Json& first = document.find("rows")->as_array().front();
  REQUIRE(first.find("configurations") != nullptr);
  CHECK(first.find("configurations")->as_array().size() == 1);
  CHECK(first.find("speedup") != nullptr);

  const auto csv = run_cli({"scenario", example("compression.yaml"), "--format", "csv"});
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.rfind("variant,training.overlap,training.compression,", 0) == 0);
  CHECK(count(csv.out, "\n") == 17);

  const auto markdown = run_cli({"scenario", example("compression.yaml"), "--format", "markdown"});
  REQUIRE(markdown.exit_code == 0);
  CHECK(markdown.out.find("| variant |") != std::string::npos);
}

TEST_CASE("--plot writes a well-formed SVG with one series per line, and -o the table, atomically") {
  const TempDir dir;
  const std::string svg_path = (dir.path() / "compression.svg").string();
  const std::string out_path = (dir.path() / "compression.txt").string();
  const auto result = run_cli({"scenario", example("compression.yaml"), "--plot", svg_path, "-o", out_path});
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.empty());
  const std::string svg = read_file(svg_path);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(balanced(svg));
  // Lines: 2 clusters x overlap on/off; categories: the 4 compressions.
  CHECK(count(svg, "class=\"series\"") == 4);
  CHECK(svg.find("data-name=\"tcp-1x100g, overlap on\"") != std::string::npos);
  CHECK(svg.find(">topk:0.01<") != std::string::npos);
  CHECK(svg.find("step time (s)") != std::string::npos);
  CHECK(read_file(out_path).find("rdma-8x400g") != std::string::npos);
  // No temporary files left behind.
  CHECK(dir.entries().size() == 2);
}

TEST_CASE("costmodel plan --plot draws the Pareto front") {
  const TempDir dir;
  const std::string svg_path = (dir.path() / "pareto.svg").string();
  const auto result = run_cli({"plan", "--model", "llama2-7b", "--gpus", "64", "--topology", "auto",
                               "--tokens", "100B", "--plot", svg_path, "--format", "json"});
  REQUIRE(result.exit_code == 0);
  const std::string svg = read_file(svg_path);
  CHECK(balanced(svg));
  CHECK(svg.find("Pareto front") != std::string::npos);
  CHECK(svg.find("marker area: switches") != std::string::npos);
  CHECK(count(svg, "class=\"series\"") >= 1);
}

TEST_CASE("scenario errors: FILE:LINE:COL on stderr, exit 2, nothing written") {
  const TempDir dir;
  const std::string fixture = std::string(COSTMODEL_TEST_FIXTURES) + "/bad/scenario-unknown-path.yaml";
  const std::string svg_path = (dir.path() / "x.svg").string();
  const auto result = run_cli({"scenario", fixture, "--plot", svg_path});
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK(result.err.find(fixture + ":9:3: error: sweep: unknown path 'cluster.scale_out.lnk'") == 0);
  CHECK(dir.entries().empty());

  const auto missing = run_cli({"scenario"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("expected a scenario file") != std::string::npos);
}

}  // namespace costmodel::test
