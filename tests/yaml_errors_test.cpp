// SPDX-License-Identifier: Apache-2.0
// Every file in tests/fixtures/bad/ is a bad input; its first line names the loader (`# kind: model`) and its
// last line the exact one-line message expected (`# expect: FILE:LINE:COL: error: FIELD: MESSAGE`), FILE
// standing for the fixture's path.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/io/runs.hpp"
#include "costmodel/io/scenario.hpp"

using namespace costmodel;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string path;
  std::string kind;
  std::string expected;
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

Fixture read_fixture(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  Fixture f{path.string(), "", ""};
  if (!lines.empty() && lines.front().rfind("# kind: ", 0) == 0) f.kind = lines.front().substr(8);
  if (!lines.empty() && lines.back().rfind("# expect: ", 0) == 0) {
    f.expected = replace_all(lines.back().substr(10), "FILE", f.path);
  }
  return f;
}

std::string load_error(const Fixture& f, const Catalog& catalog) {
  try {
    if (f.kind == "model")
      (void)load_model_file(f.path);
    else if (f.kind == "cluster")
      (void)load_cluster_file(f.path, catalog);
    else if (f.kind == "gpus")
      (void)load_gpus_file(f.path);
    else if (f.kind == "links")
      (void)load_links_file(f.path);
    else if (f.kind == "switches")
      (void)load_switches_file(f.path);
    else if (f.kind == "nccl-tuners")
      (void)load_nccl_tuners_file(f.path, catalog);
    else if (f.kind == "scenario")
      (void)load_scenario_file(f.path, catalog);
    else if (f.kind == "runs")
      (void)load_published_runs(f.path, catalog);
    else
      return "unknown fixture kind '" + f.kind + "'";
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kInput);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every bad fixture fails with its exact one-line message") {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(COSTMODEL_TEST_FIXTURES) / "bad")) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  CHECK(files.size() >= 15);
  for (const auto& path : files) {
    const Fixture f = read_fixture(path);
    CAPTURE(f.path);
    REQUIRE_MESSAGE(!f.expected.empty(), "fixture has no '# expect:' last line");
    const std::string message = load_error(f, catalog);
    CHECK(message == f.expected);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("a missing file or a directory where a file is expected") {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  const std::string missing = std::string(COSTMODEL_TEST_FIXTURES) + "/no-such-file.yaml";
  const std::string directory = std::string(COSTMODEL_TEST_FIXTURES) + "/bad";
  const auto message = [](auto&& load) {
    try {
      load();
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::kInput);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { (void)load_model_file(missing); }) == missing + ": error: no such file");
  CHECK(message([&] { (void)load_cluster_file(directory, catalog); }) ==
        directory + ": error: is a directory, expected a YAML file");
  CHECK(message([&] { (void)load_published_runs(directory, catalog); }) ==
        directory + ": error: is a directory, expected a YAML file");
  CHECK(message([&] { (void)load_catalog(missing); }).find("catalog not found") != std::string::npos);
}
