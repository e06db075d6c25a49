// SPDX-License-Identifier: Apache-2.0
// Inputs the fuzzers once crashed on (tests/fuzz/regressions/), replayed through every loader and the
// nccl-tests log parser: only costmodel::Error may come out, and its message is one line.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/io/nccl_tests.hpp"
#include "costmodel/units.hpp"

using namespace costmodel;

namespace {

template <class Load>
void only_one_line_errors(Load&& load) {
  try {
    load();
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("fuzzer regressions: every loader rejects them with a one-line error") {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  int replayed = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(COSTMODEL_TEST_SOURCE_DIR "/tests/fuzz/regressions")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string input = buffer.str();
    CAPTURE(entry.path().string());
    for (int d = 0; d <= static_cast<int>(Dimension::kUsdPerSecond); ++d) {
      only_one_line_errors([&] { (void)parse_quantity(input, static_cast<Dimension>(d)); });
    }
    only_one_line_errors([&] { (void)load_model_text(input, "regression.yaml"); });
    only_one_line_errors([&] { (void)load_cluster_text(input, "regression.yaml", catalog); });
    only_one_line_errors([&] { (void)load_gpus_file(entry.path().string()); });
    only_one_line_errors([&] { (void)parse_nccl_tests_log(input, "regression.txt"); });
    ++replayed;
  }
  CHECK(replayed >= 4);
}

TEST_CASE("control characters from the input are escaped in diagnostics") {
  try {
    (void)parse_bandwidth("4\n00Gbps");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "error: unknown unit '\\n00Gbps'; expected a bandwidth such as 400Gbps or 50GB/s, "
          "got '4\\n00Gbps'");
  }
}
