// SPDX-License-Identifier: Apache-2.0
// io/hf_config: Hugging Face config.json files as models, checked against the parameter counts the model
// cards publish (exact, from the public config.json values in tests/fixtures/hf/).

#include <doctest/doctest.h>

#include <string>

#include "costmodel/error.hpp"
#include "costmodel/io/hf_config.hpp"
#include "costmodel/io/load.hpp"

using namespace costmodel;

namespace {

std::string fixture(const std::string& name) {
  return std::string(COSTMODEL_TEST_FIXTURES) + "/hf/" + name + "/config.json";
}

std::string error_of(const std::string& json) {
  try {
    (void)load_hf_config_text(json, "config.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Llama 3 8B: 8,030,261,248 parameters") {
  // 2·V·h (untied) + L·(q 4096² + k,v 2·4096·1024 + o 4096² + 3·4096·14336 + 2·4096) + 4096
  // = 1,050,673,152 + 32 · 218,112,000 + 4,096 = 8,030,261,248.
  const ModelSpec m = load_hf_config_file(fixture("Meta-Llama-3-8B"));
  CHECK(m.name == "Meta-Llama-3-8B");
  CHECK(m.layers == 32);
  CHECK(m.kv_heads == 8);
  CHECK(m.ffn == FfnKind::kSwiglu);
  CHECK(m.seq_len == 8192);
  CHECK(m.dropout == 0.0);  // attention_dropout 0.0, no hidden dropout in LlamaConfig
  CHECK(count_parameters(m).total == 8030261248.0);
}

TEST_CASE("Qwen2 7B: 7,615,616,512 parameters, its Q, K and V biases among them") {
  // Qwen/Qwen2-7B-Instruct's model.safetensors.index.json: total_size 15,231,233,024 bytes of BF16
  // = 7,615,616,512 parameters. 2·V·h (untied) + L·(q 3584² + k,v 2·3584·512 + o 3584² + biases 3584 + 2·512
  // + 3·3584·18944 + 2·3584) + 3584 = 1,089,994,752 + 28 · 233,057,792 + 3,584 = 7,615,616,512; without the
  // biases 4,608 x 28 = 129,024 fewer.
  const ModelSpec m = load_hf_config_file(fixture("Qwen2-7B-Instruct"));
  CHECK(m.qkv_bias);
  CHECK_FALSE(m.bias);
  CHECK(count_parameters(m).total == 7615616512.0);
  ModelSpec without = m;
  without.qkv_bias = false;
  CHECK(count_parameters(without).total == 7615616512.0 - 129024.0);
}

TEST_CASE("Mixtral 8x7B: 46,702,792,704 parameters, 12,879,925,248 active (\"12.9B\")") {
  // Per layer: attention 2·4096² + 2·4096·1024 = 41,943,040, router 4096·8, norms 2·4096, and 2 of the 8
  // experts of 3·4096·14336 active: 394,305,536 · 32 layers + 2·32000·4096 + 4096 = 12,879,925,248.
  const ModelSpec m = load_hf_config_file(fixture("Mixtral-8x7B-v0.1"));
  REQUIRE(m.is_moe());
  CHECK(m.moe->experts == 8);
  CHECK(m.moe->top_k == 2);
  CHECK(count_parameters(m).total == 46702792704.0);
  CHECK(count_parameters(m).active == 12879925248.0);
}

TEST_CASE("--model takes a config.json wherever it takes a model") {
  const Catalog catalog = load_catalog();
  CHECK(resolve_model(fixture("Meta-Llama-3-8B"), catalog).hidden == 4096);
}

TEST_CASE("errors name the field: MLA, missing fields, unknown families") {
  CHECK(error_of(R"({"model_type": "llama", "hidden_size": 4096})") ==
        "config.json:1:1: error: num_hidden_layers: missing required field 'num_hidden_layers'");
  CHECK(error_of(R"({"model_type": "bert", "hidden_size": 768})").find("unsupported model_type 'bert'") !=
        std::string::npos);
  // MLA is read from DeepSeek's model types (deepseek_test); elsewhere kv_lora_rank is refused, not ignored.
  try {
    (void)load_hf_config_text(R"({"model_type": "llama", "hidden_size": 64, "kv_lora_rank": 16,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
      "max_position_embeddings": 32})",
                              "config.json");
    FAIL("kv_lora_rank in a llama config loaded");
  } catch (const Error& e) {
    CHECK(e.field() == "kv_lora_rank");
    CHECK(e.location().line == 1);
    CHECK(std::string(e.what()).find("multi-head latent attention") != std::string::npos);
  }
}

TEST_CASE("top-k above the routed experts is refused at num_experts_per_tok") {
  // Mixtral's config with 9 of its 8 experts per token would count 52.3B active of 46.7B total.
  const std::string mixtral = R"({"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
    "max_position_embeddings": 32768, "num_local_experts": 8,
    "num_experts_per_tok": )";
  CHECK(error_of(mixtral + "2}").find("no error") != std::string::npos);
  CHECK(error_of(mixtral + "9}") ==
        "config.json:4:28: error: num_experts_per_tok: routes each token to 9 of 8 experts; top-k is at most "
        "the "
        "routed experts");
}

TEST_CASE("dropout from config.json: the largest of the family's dropout fields, its default when absent") {
  const std::string llama = R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
    "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 32)";
  CHECK(load_hf_config_text(llama + "}", "config.json").dropout == 0.0);
  CHECK(load_hf_config_text(llama + R"(, "attention_dropout": 0.1})", "config.json").dropout ==
        doctest::Approx(0.1));
  // OPTConfig's dropout defaults to 0.1.
  const std::string opt = R"({"model_type": "opt", "num_hidden_layers": 2, "hidden_size": 64,
    "num_attention_heads": 4, "ffn_dim": 256, "vocab_size": 100, "max_position_embeddings": 32)";
  CHECK(load_hf_config_text(opt + "}", "config.json").dropout == doctest::Approx(0.1));
  CHECK(load_hf_config_text(opt + R"(, "dropout": 0.0})", "config.json").dropout == 0.0);
  CHECK(error_of(llama + R"(, "attention_dropout": 2})").find("attention_dropout") != std::string::npos);
}
