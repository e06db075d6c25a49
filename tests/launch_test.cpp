// SPDX-License-Identifier: Apache-2.0
// `--format megatron` is a launch line: pasted after `torchrun ... pretrain_gpt.py \` it is one command,
// every flag in it is one Megatron-LM's parser accepts (tests/fixtures/megatron-flags.txt, extracted by
// tools/megatron_flags.py from NVIDIA/Megatron-LM @d98e8a64), and it carries the architecture, the MoE
// layers and the run's length. What Megatron-LM cannot run is refused with exit 2.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using costmodel::test::contains;
using costmodel::test::run_cli;
using costmodel::test::run_program;

namespace {

std::set<std::string> megatron_flags() {
  std::ifstream in(std::string(COSTMODEL_TEST_SOURCE_DIR) + "/tests/fixtures/megatron-flags.txt");
  std::set<std::string> flags;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("--", 0) == 0) flags.insert(line);
  }
  return flags;
}

// The argument lines of an export (before its comment lines), split at white space; the one quoted value
// (--moe-layer-freq '(...)') has no spaces.
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind('#', 0) == 0) break;
    std::istringstream in(line);
    for (std::string word; in >> word;) {
      if (word == "\\") continue;
      if (word.size() > 2 && word.front() == '\'' && word.back() == '\'')
        word = word.substr(1, word.size() - 2);
      words.push_back(word);
    }
  }
  return words;
}

// What bash passes to torchrun when the export follows `torchrun --nproc-per-node 8 pretrain_gpt.py \`.
std::vector<std::string> pasted(const std::string& exported, const std::string& name) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string script = dir + "/costmodel-launch-" + name + ".sh";
  const std::string args = dir + "/costmodel-launch-" + name + ".args";
  std::ofstream(script) << "torchrun() { printf '%s\\n' \"$@\" > '" << args << "'; }\n"
                        << "torchrun --nproc-per-node 8 pretrain_gpt.py \\\n"
                        << exported << "echo pasted\n";
  const auto run = run_program("/bin/bash", {script});
  REQUIRE(run.exit_code == 0);
  CHECK(run.out == "pasted\n");
  std::ifstream in(args);
  std::vector<std::string> words;
  for (std::string line; std::getline(in, line);) words.push_back(line);
  std::filesystem::remove(script);
  std::filesystem::remove(args);
  return words;
}

void check_launch_line(const std::string& exported, const std::string& name) {
  const std::set<std::string> known = megatron_flags();
  REQUIRE(known.size() > 800);
  const std::vector<std::string> words = words_of(exported);
  for (const std::string& word : words) {
    if (word.rfind("--", 0) == 0) CHECK_MESSAGE(known.count(word) == 1, word);
  }
  // One command: torchrun gets its own three words and then every word of the export.
  std::vector<std::string> expected{"--nproc-per-node", "8", "pretrain_gpt.py"};
  expected.insert(expected.end(), words.begin(), words.end());
  CHECK(pasted(exported, name) == expected);
}

}  // namespace

TEST_CASE("Mixtral 8x7B's Megatron export is one command of Megatron-LM's flags, MoE and length included") {
  const auto run = run_cli({"estimate",  "--model",  "mixtral-8x7b",
                            "--gpu",     "h100-sxm", "--gpus",
                            "64",        "--tp",     "2",
                            "--pp",      "4",        "--dp",
                            "8",         "--ep",     "8",
                            "--seq-len", "4096",     "--global-batch",
                            "1024",      "--tokens", "1T",
                            "--format",  "megatron"});
  REQUIRE(run.exit_code == 0);
  check_launch_line(run.out, "mixtral");
  // A dense script given these arguments trains Mixtral: 8 experts, top-2, 14,336 wide (Mistral AI's
  // config.json), 32 layers of 4,096 with 8 KV groups; 1T tokens of 4,096 = 244,140,625 sequences.
  for (const char* expected :
       {"--num-layers 32 \\\n", "--hidden-size 4096 \\\n", "--num-attention-heads 32 \\\n",
        "--group-query-attention \\\n", "--num-query-groups 8 \\\n", "--swiglu \\\n",
        "--normalization RMSNorm \\\n", "--num-experts 8 \\\n", "--moe-router-topk 2 \\\n",
        "--moe-ffn-hidden-size 14336 \\\n", "--expert-model-parallel-size 8 \\\n",
        "--train-samples 244140625 \\\n"}) {
    CHECK_MESSAGE(contains(run.out, expected), expected);
  }
  CHECK(contains(run.out, "\n# costmodel: mixtral-8x7b on 64 x h100-sxm"));
  CHECK(contains(run.out, "--moe-token-dispatcher-type alltoall \\\n"));
  // The flex dispatcher the estimate priced is the one launched (Megatron-Core's arguments.py).
  const auto flex = run_cli({"estimate",
                             "--model",
                             "mixtral-8x7b",
                             "--gpu",
                             "h100-sxm",
                             "--gpus",
                             "64",
                             "--tp",
                             "2",
                             "--pp",
                             "4",
                             "--dp",
                             "8",
                             "--ep",
                             "8",
                             "--seq-len",
                             "4096",
                             "--global-batch",
                             "1024",
                             "--moe-dispatcher",
                             "hybridep",
                             "--format",
                             "megatron"});
  REQUIRE(flex.exit_code == 0);
  CHECK(
      contains(flex.out, "--moe-token-dispatcher-type flex \\\n--moe-flex-dispatcher-backend hybridep \\\n"));
}

TEST_CASE("Qwen2's Q, K and V biases export as --add-qkv-bias beside --disable-bias-linear") {
  // Megatron-LM: --disable-bias-linear drops every linear layer's bias, --add-qkv-bias gives the fused QKV
  // projection one back (megatron/training/arguments.py add_qkv_bias), which is Qwen2's layout.
  const std::string config =
      std::string(COSTMODEL_TEST_SOURCE_DIR) + "/tests/fixtures/hf/Qwen2-7B-Instruct/config.json";
  const auto run =
      run_cli({"estimate", "--model",        config, "--gpu",    "h100-sxm", "--gpus", "16", "--tp",
               "2",        "--pp",           "1",    "--dp",     "8",        "--zero", "1",  "--seq-len",
               "4096",     "--global-batch", "256",  "--format", "megatron"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  check_launch_line(run.out, "qwen2");
  CHECK(contains(run.out, "--disable-bias-linear \\\n--add-qkv-bias \\\n"));
}

TEST_CASE("Meta's Llama 3 405B split exports as one command with uneven stages") {
  // Llama 3 paper §3.3.2: TP 8, PP 16 with one layer fewer on the first and the last stage (126 = 7 +
  // 14 x 8 + 7), DP 128 on 16,384 H100; ZeRO-1 here, as Megatron-LM has no ZeRO-2.
  const auto run = run_cli({"estimate",    "--model",
                            "llama3-405b", "--gpu",
                            "h100-sxm",    "--gpus",
                            "16384",       "--tp",
                            "8",           "--pp",
                            "16",          "--dp",
                            "128",         "--first-stage-layers",
                            "7",           "--last-stage-layers",
                            "7",           "--zero",
                            "1",           "--seq-len",
                            "8192",        "--global-batch",
                            "2048",        "--tokens",
                            "15.6T",       "--recompute",
                            "full",        "--format",
                            "megatron"});
  REQUIRE(run.exit_code == 0);
  check_launch_line(run.out, "llama3-405b");
  for (const char* expected :
       {"--num-layers 126 \\\n", "--decoder-first-pipeline-num-layers 7 \\\n",
        "--decoder-last-pipeline-num-layers 7 \\\n", "--use-distributed-optimizer \\\n",
        "--overlap-param-gather \\\n", "--untie-embeddings-and-output-weights \\\n"}) {
    CHECK_MESSAGE(contains(run.out, expected), expected);
  }
}

TEST_CASE("DeepSeek-V3's export names MLA, the first dense layers and MTP") {
  const auto run = run_cli({"estimate",    "--model",
                            "deepseek-v3", "--gpu",
                            "h100-sxm",    "--gpus",
                            "2048",        "--tp",
                            "2",           "--pp",
                            "16",          "--dp",
                            "64",          "--ep",
                            "64",          "--first-stage-layers",
                            "1",           "--last-stage-layers",
                            "4",           "--zero",
                            "1",           "--format",
                            "megatron"});
  REQUIRE(run.exit_code == 0);
  check_launch_line(run.out, "deepseek-v3");
  // DeepSeek-V3 config.json: first_k_dense_replace 3 of 61 layers, q_lora_rank 1536, kv_lora_rank 512,
  // qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, 1 shared expert of 2,048, 1 MTP module.
  for (const char* expected :
       {"--multi-latent-attention \\\n", "--q-lora-rank 1536 \\\n", "--kv-lora-rank 512 \\\n",
        "--qk-head-dim 128 \\\n", "--qk-pos-emb-head-dim 64 \\\n", "--v-head-dim 128 \\\n",
        "--moe-shared-expert-intermediate-size 2048 \\\n", "--moe-layer-freq '([0]*3+[1]*58)' \\\n",
        "--mtp-num-layers 1 \\\n"}) {
    CHECK_MESSAGE(contains(run.out, expected), expected);
  }
}

TEST_CASE("what Megatron-LM cannot run is not exported") {
  const std::vector<std::string> llama = {"estimate", "--model", "llama3-8b", "--gpu", "h100-sxm",
                                          "--gpus",   "64",      "--tp",      "1",     "--pp",
                                          "1",        "--dp",    "64"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = llama;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  const auto zero2 = with({"--zero", "2", "--format", "megatron"});
  CHECK(zero2.exit_code == 2);
  CHECK(zero2.out.empty());
  CHECK(contains(zero2.err, "Megatron-LM has no ZeRO-2"));
  CHECK(with({"--zero", "2", "--format", "nemo"}).exit_code == 2);
  const auto deepspeed = with({"--zero", "1", "--stack", "deepspeed", "--format", "megatron"});
  CHECK(deepspeed.exit_code == 2);
  CHECK(contains(deepspeed.err, "stack 'deepspeed' does not run on Megatron-LM"));
  // ALiBi (BLOOM's position embedding, Press et al. 2022) has no Megatron-LM flag.
  const std::string model = std::filesystem::temp_directory_path().string() + "/costmodel-launch-alibi.yaml";
  std::ofstream(model) << "name: alibi-test\nlayers: 4\nhidden: 1024\nheads: 16\nffn: gelu\nvocab: 32000\n"
                          "seq_len: 2048\nposition: alibi\n";
  const auto alibi = run_cli({"estimate", "--model", model, "--gpu", "h100-sxm", "--gpus", "8", "--tp", "1",
                              "--pp", "1", "--dp", "8", "--format", "megatron"});
  std::filesystem::remove(model);
  CHECK(alibi.exit_code == 2);
  CHECK(contains(alibi.err, "no ALiBi"));
  // NeMo's distributed optimizer overlaps its parameter gather as Megatron's --overlap-param-gather does.
  const auto nemo = with({"--zero", "1", "--recompute", "full", "--format", "nemo"});
  REQUIRE(nemo.exit_code == 0);
  CHECK(contains(nemo.out, "trainer.strategy.ddp.overlap_param_gather=true\n"));
}

namespace {

/// The CLASS.field names of tests/fixtures/torchtitan-config-fields.txt.
std::set<std::string> torchtitan_fields() {
  std::ifstream in(std::string(COSTMODEL_TEST_SOURCE_DIR) + "/tests/fixtures/torchtitan-config-fields.txt");
  std::set<std::string> fields;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() != '#') fields.insert(line);
  }
  return fields;
}

/// Every field the export sets, as CLASS.field: `config.training.x =` (TrainingConfig), `config.compile.x =`
/// (CompileConfig), `config.x =` (Trainer.Config) and the keywords of ParallelismConfig(...).
std::vector<std::string> torchtitan_assignments(const std::string& text) {
  std::vector<std::string> set;
  bool in_parallelism = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const std::string code = line.substr(first);
    if (in_parallelism) {
      if (code == ")") {
        in_parallelism = false;
      } else {
        set.push_back("ParallelismConfig." + code.substr(0, code.find('=')));
      }
      continue;
    }
    if (code.rfind("config.parallelism = ParallelismConfig(", 0) == 0) {
      in_parallelism = true;
      set.emplace_back("Trainer.Config.parallelism");
      continue;
    }
    const std::string lhs = code.substr(0, code.find(" = "));
    if (code.find(" = ") == std::string::npos || lhs.rfind("config.", 0) != 0) continue;
    const std::string path = lhs.substr(7);
    if (path.rfind("training.", 0) == 0) {
      set.push_back("TrainingConfig." + path.substr(9));
    } else if (path.rfind("compile.", 0) == 0) {
      set.push_back("CompileConfig." + path.substr(8));
    } else {
      set.push_back("Trainer.Config." + path);
    }
  }
  return set;
}

}  // namespace

TEST_CASE("--format torchtitan writes a Python configuration of torchtitan's own fields") {
  // torchtitan @b5bcd76c runs Python functions returning Trainer.Config (torchtitan/config/README.md).
  const auto run =
      run_cli({"estimate", "--model",     "llama3-70b", "--gpu",     "h100-sxm",  "--gpus",
               "1024",     "--stack",     "torchtitan", "--tp",      "8",         "--pp",
               "4",        "--vpp",       "2",          "--dp",      "32",        "--zero",
               "3",        "--recompute", "full",       "--seq-len", "8192",      "--global-batch",
               "1024",     "--tokens",    "15T",        "--format",  "torchtitan"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::set<std::string> known = torchtitan_fields();
  REQUIRE(known.size() > 40);
  const std::vector<std::string> assigned = torchtitan_assignments(run.out);
  REQUIRE(assigned.size() > 10);
  for (const std::string& field : assigned) CHECK_MESSAGE(known.count(field) == 1, field);
  // 80 layers in 4 x 2 stages of 10; 1,024 / 32 = 32 micro-batches of 1; 15T / (1,024 x 8,192) =
  // 1,788,139.4 -> 1,788,140 steps; FSDP2 over 32 ranks resharding after forward (ZeRO-3).
  for (const char* expected :
       {"from torchtitan.models.llama3.config_registry import llama3_70b\n", "    config = llama3_70b()\n",
        "        pipeline_parallel_schedule=\"Interleaved1F1B\",\n",
        "        pipeline_parallel_layers_per_stage=10,\n", "        num_pp_microbatches=32,\n",
        "    config.training.steps = 1788140\n", "        data_parallel_shard_degree=32,\n",
        "        fsdp_reshard_after_forward=\"always\",\n",
        "    config.activation_checkpoint = FullAC.Config()\n"}) {
    CHECK_MESSAGE(contains(run.out, expected), expected);
  }
  // Python reads it (Debian's interpreter, when there is one).
  if (std::filesystem::exists("/usr/bin/python3")) {
    const std::string path =
        (std::filesystem::temp_directory_path() / "costmodel-torchtitan-export.py").string();
    std::ofstream(path) << run.out;
    const auto parsed =
        run_program("/usr/bin/python3", {"-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", path});
    CHECK_MESSAGE(parsed.exit_code == 0, parsed.err);
    std::filesystem::remove(path);
  }

  // Meta's uneven 405B stages (7 + 14 x 8 + 7 layers): torchtitan's 126 + 1 + 1 effective layers in 16 stages
  // of 8, the first and last one layer short.
  const auto uneven = run_cli({"estimate",    "--model",
                               "llama3-405b", "--gpu",
                               "h100-sxm",    "--gpus",
                               "16384",       "--stack",
                               "torchtitan",  "--tp",
                               "8",           "--pp",
                               "16",          "--dp",
                               "128",         "--first-stage-layers",
                               "7",           "--last-stage-layers",
                               "7",           "--zero",
                               "3",           "--recompute",
                               "full",        "--global-batch",
                               "2048",        "--format",
                               "torchtitan"});
  REQUIRE_MESSAGE(uneven.exit_code == 0, uneven.err);
  CHECK(contains(uneven.out,
                 "        pipeline_parallel_layers_per_stage=8,\n"
                 "        pipeline_parallel_first_stage_less_layers=1,\n"
                 "        pipeline_parallel_last_stage_less_layers=1,\n"));

  // Only torchtitan plans of models torchtitan ships.
  const auto other =
      run_cli({"estimate", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "1024", "--tp", "8",
               "--pp", "4", "--dp", "32", "--zero", "1", "--format", "torchtitan"});
  CHECK(other.exit_code == 2);
  CHECK(contains(other.err, "is not a torchtitan run"));
  const auto gpt3 = run_cli({"estimate", "--model", "gpt3-175b", "--gpu", "h100-sxm", "--gpus", "1024",
                             "--stack", "torchtitan", "--tp", "8", "--pp", "8", "--dp", "16", "--zero", "3",
                             "--format", "torchtitan"});
  CHECK(gpt3.exit_code == 2);
  CHECK(contains(gpt3.err, "torchtitan ships no configuration of gpt3-175b"));
}
