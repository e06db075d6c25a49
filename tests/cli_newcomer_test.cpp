// SPDX-License-Identifier: Apache-2.0
// What a new user ran into (issue "newcomer fixes and interop"), one test per problem, driving the real
// binary: honest defaults per GPU, one unit convention, unit-slip warnings, knobs without effect, impossible
// pins, configurations that do not fit, output paths checked first, Hugging Face configs in, Megatron-LM
// arguments out. (The relocated install is tests/package/test_install.cmake.)

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "costmodel/report/table.hpp"

namespace {

using costmodel::Json;
using costmodel::test::contains;
using costmodel::test::parse_json;
using costmodel::test::run_cli;
using costmodel::test::TempDir;

const Json& at(const Json& object, const std::string& key) {
  const Json* member = object.find(key);
  REQUIRE_MESSAGE(member != nullptr, key);
  return *member;
}

std::string text(const Json& value) {
  return std::get<std::string>(value.value());
}

std::int64_t integer(const Json& value) {
  return std::get<std::int64_t>(value.value());
}

std::string write(const TempDir& dir, const std::string& name, const std::string& content) {
  const std::string path = (dir.path() / name).string();
  std::ofstream(path) << content;
  return path;
}

}  // namespace

TEST_CASE("2. --gpu NAME assumes the GPU's typical node, and every result says which cluster it used") {
  // DGX H100 user guide: 8 x ConnectX-7 NDR 400G per node on QM9700 switches (data/gpus.yaml node:).
  const auto h100 =
      run_cli({"estimate", "--gpu", "h100-sxm", "--gpus", "64", "--model", "llama3-8b", "--tp", "2", "--pp",
               "1", "--dp", "32", "--global-batch", "256", "--zero", "1", "--format", "json"});
  REQUIRE(h100.exit_code == 0);
  const Json cluster = at(parse_json(h100.out), "cluster");
  CHECK(text(at(at(cluster, "scale_out"), "link")) == "ib-ndr-400g");
  CHECK(text(at(at(cluster, "scale_out"), "switch")) == "qm9700");
  CHECK(integer(at(at(cluster, "scale_out"), "nics_per_node")) == 8);
  // GB200 NVL72: 4 GPUs per tray, one 800G NIC per GPU, a 72-GPU NVLink domain.
  const auto gb200 =
      run_cli({"estimate", "--gpu", "gb200", "--gpus", "144", "--model", "llama3-8b", "--tp", "4", "--pp",
               "1", "--dp", "36", "--global-batch", "288", "--zero", "1", "--format", "json"});
  REQUIRE(gb200.exit_code == 0);
  const Json nvl72 = at(parse_json(gb200.out), "cluster");
  CHECK(integer(at(nvl72, "gpus_per_node")) == 4);
  CHECK(integer(at(at(nvl72, "scale_up"), "domain")) == 72);
  CHECK(text(at(at(nvl72, "scale_out"), "link")) == "ib-xdr-800g");
  // People see the cluster on the first line of plan and estimate.
  const auto table =
      run_cli({"plan", "--gpu", "h100-sxm", "--gpus", "64", "--model", "llama3-8b", "--top", "1"});
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.rfind(
            "cluster: 64 x h100-sxm, 8 per node, 8 x ib-ndr-400g per node, fat-tree 1:1 of qm9700", 0) == 0);
}

TEST_CASE(
    "3. one unit convention: plan's CSV in fractions and SI units, as JSON; schema_version everywhere") {
  const std::vector<std::string> plan = {
      "plan", "--model", "gpt3-175b", "--global-batch", "1536", "--tokens", "300e9", "--top", "1"};
  auto csv_args = plan;
  csv_args.insert(csv_args.end(), {"--format", "csv"});
  auto json_args = plan;
  json_args.insert(json_args.end(), {"--format", "json"});
  const auto csv = run_cli(csv_args);
  const auto json = run_cli(json_args);
  REQUIRE(csv.exit_code == 0);
  REQUIRE(json.exit_code == 0);
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  CHECK(contains(header, ",mfu,memory_per_gpu_bytes,"));
  CHECK(contains(header, ",cost_usd,"));
  CHECK(contains(header, ",schema_version"));
  // The CSV's mfu is the JSON's fraction (was percent: 54.95 beside JSON's 0.5495).
  const Json config = at(parse_json(json.out), "configs").as_array().front();
  const double mfu = std::get<double>(at(config, "mfu").value());
  CHECK(mfu < 1.0);
  CHECK(contains(csv.out, costmodel::Json(mfu).dump(0)));
  CHECK(integer(at(config, "schema_version")) == costmodel::kSchemaVersion);
}

TEST_CASE("4. unit slips are warned about, naming FILE:LINE:COL or the flag; --strict makes them errors") {
  const TempDir dir;
  const std::string cluster = write(dir, "slip.yaml", R"(gpu: h100-sxm
gpus: 64
scale_up: {bandwidth: 900GB/s}
scale_out:
  link: {name: my-nic, line_rate: 400GB/s, latency: 1us}
  nics_per_node: 8
)");
  const auto warned = run_cli({"topology", "--cluster", cluster});
  CHECK(warned.exit_code == 0);
  // NVIDIA's 900 GB/s is two-way: the field is per direction.
  CHECK(contains(warned.err, cluster + ":3:23: warning: scale_up.bandwidth: 900 GB/s is h100-sxm's two-way"));
  // 400 GB/s per NIC is 8 x an NDR 400 Gb/s port: a bits/bytes slip.
  CHECK(contains(warned.err, "warning: scale_out.link.line_rate: 400 GB/s per NIC is 8x ib-ndr-400g's"));
  CHECK(contains(warned.err, "warning: scale_out.link.nic_price: link 'my-nic' has no NIC price"));
  const auto strict = run_cli({"topology", "--cluster", cluster, "--strict"});
  CHECK(strict.exit_code == 2);
  CHECK(contains(strict.err, cluster + ":3:23: error: scale_up.bandwidth:"));
  // "900Gbps": the same two-way figure typed as bits, 1/4 of H100's 450 GB/s per direction.
  const std::string bits =
      write(dir, "bits.yaml",
            "gpu: h100-sxm\ngpus: 16\nscale_up: {bandwidth: 900Gbps}\nscale_out: {link: ib-ndr-400g}\n");
  const auto bits_run = run_cli({"topology", "--cluster", bits});
  CHECK(bits_run.exit_code == 0);
  CHECK(contains(bits_run.err,
                 bits + ":3:23: warning: scale_up.bandwidth: 112.5 GB/s is h100-sxm's two-way "
                        "NVLink figure read as bits; the field is per direction, in bytes (450 GB/s)"));
  const auto nics = run_cli({"topology", "--nics-per-node", "64"});
  CHECK(nics.exit_code == 0);
  CHECK(contains(nics.err, "costmodel topology: warning: --nics-per-node: 64 NICs per node of 8 GPUs"));
  CHECK(run_cli({"topology", "--nics-per-node", "64", "--strict"}).exit_code == 2);
}

TEST_CASE("5. a knob that changes nothing says so; impossible pins name the rule") {
  const auto knob = run_cli({"estimate", "--tp", "8", "--pp", "8", "--dp", "16", "--global-batch", "1536",
                             "--zero", "1", "--dp-algo", "tree"});
  CHECK(knob.exit_code == 0);
  CHECK(contains(knob.err,
                 "costmodel estimate: warning: --dp-algo: has no effect on the chosen configuration"));
  const auto pins = run_cli({"plan", "--tp", "3"});
  CHECK(pins.exit_code == 3);
  CHECK(pins.err ==
        "costmodel plan: error: nothing feasible among 0 candidates: tp 3 does not divide the 1024 GPUs\n");
  const auto product = run_cli({"plan", "--tp", "8", "--pp", "8", "--dp", "32", "--cp", "1"});
  CHECK(contains(product.err, "the pinned degrees multiply to 2048, not the 1024 GPUs"));
}

TEST_CASE("7. output paths are checked before any work, naming the flag") {
  const auto missing =
      run_cli({"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/link-speed.yaml", "-o",
               "/nonexistent-dir/out.txt"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err ==
        "costmodel scenario: error: -o: cannot write '/nonexistent-dir/out.txt': no such directory "
        "'/nonexistent-dir'\n");
  const auto plot = run_cli({"plan", "--top", "1", "--plot", "."});
  CHECK(plot.exit_code == 2);
  CHECK(plot.err == "costmodel plan: error: --plot: '.' is a directory, not a file name\n");
  const TempDir dir;
  const auto log = run_cli({"calibrate", dir.path().string()});
  CHECK(log.exit_code == 2);
  CHECK(contains(log.err, "is a directory, expected an nccl-tests log"));
}

TEST_CASE("9. Hugging Face config.json in; Megatron-LM arguments out") {
  const std::string config = std::string(COSTMODEL_TEST_FIXTURES) + "/hf/Meta-Llama-3-8B/config.json";
  // Issue 30: without --seq-len, config.json's max_position_embeddings stands in for the training length,
  // and says so (a Llama 3.1 config says 131,072).
  const auto unstated = run_cli({"estimate", "--model", config, "--gpu", "h100-sxm", "--gpus", "8", "--tp",
                                 "1", "--pp", "1", "--dp", "8", "--zero", "1", "--recompute", "full"});
  CHECK(contains(unstated.err, "warning: --model: seq_len 8192 is config.json's max_position_embeddings"));
  const auto stated =
      run_cli({"estimate", "--model", config, "--gpu", "h100-sxm", "--gpus", "8", "--tp", "1", "--pp", "1",
               "--dp", "8", "--zero", "1", "--recompute", "full", "--seq-len", "4096"});
  CHECK_FALSE(contains(stated.err, "max_position_embeddings"));
  const auto json = run_cli({"estimate", "--model",     config, "--gpu",          "h100-sxm", "--gpus",
                             "8",        "--tp",        "1",    "--pp",           "1",        "--dp",
                             "8",        "--seq-len",   "8192", "--global-batch", "64",       "--zero",
                             "1",        "--recompute", "full", "--format",       "json"});
  REQUIRE(json.exit_code == 0);
  CHECK(integer(at(parse_json(json.out), "parameters")) == 8030261248);
  const auto megatron = run_cli(
      {"estimate",  "--model",        config,    "--gpu",         "h100-sxm", "--gpus", "64", "--tp",
       "2",         "--pp",           "2",       "--dp",          "16",       "--vpp",  "2",  "--seq-len",
       "8192",      "--global-batch", "256",     "--micro-batch", "1",        "--zero", "1",  "--recompute",
       "selective", "--format",       "megatron"});
  REQUIRE(megatron.exit_code == 0);
  // The comment after the last argument: pasted after `torchrun ... \` the arguments are one command.
  CHECK(contains(megatron.out,
                 " \\\n--bf16\n# costmodel: Meta-Llama-3-8B on 64 x h100-sxm (fat-tree): predicted step "));
  for (const char* expected :
       {"--tensor-model-parallel-size 2 \\\n", "--pipeline-model-parallel-size 2 \\\n",
        "--num-virtual-stages-per-pipeline-rank 2 \\\n", "--sequence-parallel \\\n",
        "--micro-batch-size 1 \\\n", "--global-batch-size 256 \\\n", "--recompute-granularity selective \\\n",
        "--use-distributed-optimizer \\\n", "--bf16\n"}) {
    CHECK_MESSAGE(contains(megatron.out, expected), expected);
  }
  // TP communication overlap (on by default, as NVIDIA's published runs) is launched as Megatron-LM's
  // --tp-comm-overlap; the interleaved schedule's send/recv overlap is Megatron-LM's default, so no flag.
  CHECK(contains(megatron.out, "--tp-comm-overlap \\\n"));
  CHECK_FALSE(contains(megatron.out, "--no-overlap-p2p-communication"));
  CHECK_FALSE(contains(megatron.out, "--no-gradient-accumulation-fusion"));
  // --tp-comm-overlap off and --pp-comm-overlap off drop the one and add --no-overlap-p2p-communication;
  // block recompute is launched as --recompute-method block --recompute-num-layers N.
  const auto without_overlap = run_cli({"estimate", "--model",
                                        config,     "--gpu",
                                        "h100-sxm", "--gpus",
                                        "64",       "--tp",
                                        "2",        "--pp",
                                        "2",        "--dp",
                                        "16",       "--vpp",
                                        "2",        "--seq-len",
                                        "8192",     "--global-batch",
                                        "256",      "--micro-batch",
                                        "1",        "--zero",
                                        "1",        "--recompute-layers",
                                        "3",        "--tp-comm-overlap",
                                        "off",      "--pp-comm-overlap",
                                        "off",      "--grad-accumulation-fusion",
                                        "off",      "--format",
                                        "megatron"});
  REQUIRE(without_overlap.exit_code == 0);
  CHECK_FALSE(contains(without_overlap.out, "--tp-comm-overlap"));
  // --grad-accumulation-fusion off as Megatron-LM's --no-gradient-accumulation-fusion.
  for (const char* expected : {"--no-overlap-p2p-communication \\\n",
                               "--no-gradient-accumulation-fusion \\\n", "--recompute-granularity full \\\n",
                               "--recompute-method block \\\n", "--recompute-num-layers 3 \\\n"}) {
    CHECK_MESSAGE(contains(without_overlap.out, expected), expected);
  }
  // MoE parallel folding: --etp 1 keeps each expert whole, so ep 8 spans tp 2 x dp 4, launched as
  // Megatron-Core's --expert-tensor-parallel-size 1 (and --ep-comm-overlap as its
  // --overlap-moe-expert-parallel-comm); with the experts split over tp, ep 8 is refused. (One
  // whole expert per layer and GPU does not fit 80 GB with its Adam states: exit 3, the launch printed.)
  const std::vector<std::string> folded = {"estimate",  "--model",  "mixtral-8x7b",
                                           "--gpu",     "h100-sxm", "--gpus",
                                           "8",         "--tp",     "2",
                                           "--pp",      "1",        "--dp",
                                           "4",         "--ep",     "8",
                                           "--seq-len", "4096",     "--global-batch",
                                           "64"};
  auto with_etp = folded;
  for (const char* extra : {"--etp", "1", "--ep-comm-overlap", "on", "--format", "megatron"})
    with_etp.emplace_back(extra);
  const auto launched = run_cli(with_etp);
  CHECK(launched.exit_code == 3);
  CHECK(contains(launched.out,
                 "--expert-model-parallel-size 8 \\\n--expert-tensor-parallel-size 1 \\\n"
                 "--overlap-moe-expert-parallel-comm \\\n"));
  // Megatron-Core overlaps them only with one stage or interleaved stages: at pp 2 without vpp the flag is
  // neither modelled nor launched.
  const auto staged = run_cli({"estimate",
                               "--model",
                               "mixtral-8x7b",
                               "--gpu",
                               "h100-sxm",
                               "--gpus",
                               "8",
                               "--tp",
                               "2",
                               "--pp",
                               "2",
                               "--dp",
                               "2",
                               "--ep",
                               "4",
                               "--etp",
                               "1",
                               "--seq-len",
                               "4096",
                               "--global-batch",
                               "64",
                               "--ep-comm-overlap",
                               "on",
                               "--format",
                               "megatron"});
  CHECK(contains(staged.out, "--expert-model-parallel-size 4 \\\n"));
  CHECK_FALSE(contains(staged.out, "--overlap-moe-expert-parallel-comm"));
  const auto refused = run_cli(folded);
  CHECK(refused.exit_code == 2);
  CHECK(contains(refused.err, "etp*ep (2*8) does not divide tp*cp*dp (8); etp 1 keeps each expert whole"));
  CHECK(run_cli({"topology", "--format", "megatron"}).exit_code == 2);
  // FP8 weights (on by default under --dtype fp8, with the distributed optimizer) are launched as
  // Megatron-LM's --fp8-param-gather and NeMo's fp8_param_gather; --fp8-params off drops them.
  std::vector<std::string> fp8 = {"estimate", "--model", config,        "--gpu",  "h100-sxm",
                                  "--gpus",   "8",       "--tp",        "1",      "--pp",
                                  "1",        "--dp",    "8",           "--zero", "1",
                                  "--dtype",  "fp8",     "--recompute", "full",   "--format"};
  auto fp8_megatron = fp8, fp8_nemo = fp8;
  fp8_megatron.emplace_back("megatron");
  fp8_nemo.emplace_back("nemo");
  const auto gathered = run_cli(fp8_megatron);
  REQUIRE(gathered.exit_code == 0);
  CHECK(contains(gathered.out, "--fp8-format hybrid \\\n--fp8-param-gather\n"));
  CHECK(contains(run_cli(fp8_nemo).out, "trainer.plugins.fp8_param_gather=true\n"));
  for (const char* extra : {"--fp8-params", "off"}) fp8_nemo.emplace_back(extra);
  CHECK(contains(run_cli(fp8_nemo).out, "trainer.plugins.fp8_param_gather=false\n"));
}

TEST_CASE("--format megatron|nemo of an uneven pipeline: Llama 3 405B's 7 + 14 x 8 + 7 layers") {
  // 126 layers on pp 16: 7 on the first and last stage, (126 - 14) / 14 = 8 on the others. With vpp 8 the
  // ends' 7 layers do not divide by 8, so Megatron-LM is told the embedding and the loss each count as a
  // layer (8 units per stage, 1 per virtual stage); with vpp 1 it takes the first/last layer counts
  // themselves.
  const std::vector<std::string> base = {"estimate",    "--model",
                                         "llama3-405b", "--gpu",
                                         "h100-sxm",    "--gpus",
                                         "16384",       "--tp",
                                         "8",           "--pp",
                                         "16",          "--dp",
                                         "128",         "--first-stage-layers",
                                         "7",           "--last-stage-layers",
                                         "7",           "--global-batch",
                                         "2048",        "--zero",
                                         "1",           "--recompute",
                                         "full"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  const auto interleaved = with({"--vpp", "8", "--format", "megatron"});
  REQUIRE(interleaved.exit_code == 0);
  CHECK(contains(interleaved.out, "--account-for-embedding-in-pipeline-split \\\n"));
  CHECK(contains(interleaved.out, "--account-for-loss-in-pipeline-split \\\n"));
  CHECK(contains(interleaved.out, "--num-virtual-stages-per-pipeline-rank 8 \\\n"));
  CHECK_FALSE(contains(interleaved.out, "--decoder-first-pipeline-num-layers"));
  CHECK_FALSE(contains(interleaved.out, "--num-layers-per-virtual-pipeline-stage"));
  const auto plain = with({"--vpp", "1", "--format", "megatron"});
  REQUIRE(plain.exit_code == 0);
  CHECK(contains(plain.out, "--decoder-first-pipeline-num-layers 7 \\\n"));
  CHECK(contains(plain.out, "--decoder-last-pipeline-num-layers 7 \\\n"));
  const auto nemo = with({"--vpp", "1", "--format", "nemo"});
  REQUIRE(nemo.exit_code == 0);
  CHECK(contains(nemo.out, "trainer.strategy.num_layers_in_first_pipeline_stage=7\n"));
  CHECK(contains(nemo.out, "trainer.strategy.num_layers_in_last_pipeline_stage=7\n"));
}
