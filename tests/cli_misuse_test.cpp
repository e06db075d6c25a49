// SPDX-License-Identifier: Apache-2.0
// Bad command-line values (issue 8): each exits 2 with one line on stderr naming the flag, and nothing on
// stdout.

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using costmodel::test::run_cli;

namespace {

struct Misuse {
  std::vector<std::string> args;
  std::string message;  // the whole stderr line, without its newline
};

}  // namespace

TEST_CASE("bad command-line values exit 2 with one exact line") {
  const std::vector<Misuse> cases = {
      {{"plan", "--gpus", "-8"}, "costmodel plan: error: --gpus: expected a positive integer, got '-8'"},
      {{"plan", "--gpus", "1e30"}, "costmodel plan: error: --gpus: expected a positive integer, got '1e30'"},
      {{"estimate", "--tp", "0", "--pp", "1", "--dp", "8"},
       "costmodel estimate: error: --tp: expected a positive integer, got '0'"},
      {{"catalog", "gpus", "--format", "xml"},
       "costmodel catalog: error: --format: unknown format 'xml'; expected one of table, csv, json, "
       "markdown"},
      {{"collective", "--op", "allreduce", "--min-bytes", "1PB", "--max-bytes", "1B"},
       "costmodel collective: error: --min-bytes: 1PB is larger than --max-bytes 1B; the sweep runs from "
       "--min-bytes up to --max-bytes"},
      {{"plan", "--zero", "5"}, "costmodel plan: error: --zero: expected 0, 1, 2 or 3, got 5"},
      {{"plan", "--recompute", "ful"},
       "costmodel plan: error: --recompute: expected none, selective or full, got 'ful'; did you mean "
       "'full'?"},
      {{"plan", "--recompute", "selective", "--recompute-layers", "2"},
       "costmodel plan: error: --recompute-layers: recompute_layers needs full recompute, but recompute is "
       "selective"},
      // A recompute module the model lacks rules out every split: a usage error, as estimate's.
      {{"plan", "--model", "llama3-8b", "--recompute-modules", "mla_up_proj"},
       "costmodel plan: error: --recompute-modules: recompute module mla_up_proj needs a model with MLA "
       "attention"},
      {{"plan", "--tokens", "lots"},
       "costmodel plan: error: --tokens: expected a token count such as 300e9 or 300B, got 'lots'"},
      {{"plan", "--link", "ib-ndr-40"},
       "costmodel plan: error: unknown link 'ib-ndr-40'; did you mean 'ib-ndr-400g'?"},
      {{"topology", "--oversubscription", "0"},
       "costmodel topology: error: --oversubscription: expected a positive number, got '0'"},
      {{"topology", "--routing", "minimall"},
       "costmodel topology: error: --routing: unknown routing 'minimall'; did you mean 'minimal'?"},
      {{"catalog", "gpu"}, "costmodel catalog: error: unknown catalog 'gpu'; did you mean 'gpus'?"},
      {{"plann"}, "costmodel: error: unknown command 'plann'; did you mean 'plan'?"},
      {{"estimate", "--tp", "8", "--pp", "8", "--dp", "3"},
       "costmodel estimate: error: split: invalid: tp*pp*dp*cp = 8*8*3*1 = 192 is not the cluster's 1024 "
       "GPUs; "
       "global_batch (2048) not divisible by dp*micro_batch (3)"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    CAPTURE(joined);
    const auto result = run_cli(c.args);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK(result.err == c.message + "\n");
  }
}

TEST_CASE("a failed write leaves no file and exits 2") {
  const auto result = run_cli({"catalog", "gpus", "-o", "/nonexistent-dir/gpus.json"});
  CHECK(result.exit_code == 2);
  CHECK(result.err ==
        "costmodel catalog: error: -o: cannot write '/nonexistent-dir/gpus.json': no such directory "
        "'/nonexistent-dir'\n");
}

TEST_CASE("estimate: a split that does not fit still prints, with the overflowing term, and exits 3") {
  const auto result = run_cli({"estimate", "--model", "gpt3-175b", "--gpus", "1024", "--tp", "8", "--pp", "1",
                               "--dp", "128", "--global-batch", "1536", "--recompute", "none"});
  CHECK(result.exit_code == 3);
  CHECK(result.out.find("no, largest term: optimizer") != std::string::npos);
  CHECK(result.err.rfind("costmodel estimate: error: does not fit: needs ", 0) == 0);
  CHECK(result.err.find("largest term: optimizer") != std::string::npos);
}

TEST_CASE("a model file with a misspelled key exits 2 naming FILE:LINE:COL and the right key") {
  const std::string file = std::string(COSTMODEL_TEST_FIXTURES) + "/bad/model-misspelled-key.yaml";
  const auto result = run_cli({"estimate", "--model", file, "--tp", "8", "--pp", "1", "--dp", "128"});
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK(result.err == file + ":4:1: error: hiden: unknown key 'hiden'; did you mean 'hidden'?\n");
}

TEST_CASE("--version on every command; a cluster beyond 2^24 NIC ports is refused, not overflowed") {
  const auto version = run_cli({"plan", "--version"});
  CHECK(version.exit_code == 0);
  CHECK(version.out.rfind("costmodel ", 0) == 0);
  const auto huge =
      run_cli({"topology", "--gpus", "16777216", "--gpus-per-node", "1", "--nics-per-node", "2"});
  CHECK(huge.exit_code == 2);
  CHECK(huge.err ==
        "costmodel topology: error: nodes x nics_per_node = 33554432 NIC ports; at most 16777216 are "
        "supported\n");
}

TEST_CASE("calibrate on a device or a binary file: exit 2 at once, one line, bounded memory") {
  // Issue 30: `calibrate /dev/urandom` read the device until std::bad_alloc (16 s, 2 GB). Only regular
  // files are read, and binary data is refused where it starts.
  const auto device = run_cli({"calibrate", "/dev/urandom"});
  CHECK(device.exit_code == 2);
  CHECK(device.out.empty());
  CHECK(device.err == "/dev/urandom: error: not a regular file, expected an nccl-tests log\n");
  costmodel::test::TempDir dir;
  const std::string binary = (dir.path() / "log.bin").string();
  std::ofstream(binary, std::ios::binary) << "# nccl-tests\n" << std::string("\0\1\2", 3) << "\n";
  const auto refused = run_cli({"calibrate", binary});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err == binary + ":2: error: binary data (a NUL byte), expected an nccl-tests log\n");
}
