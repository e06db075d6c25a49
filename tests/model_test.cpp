// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/model.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "costmodel/io/catalog.hpp"

using namespace costmodel;

namespace {

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

// Narayanan et al. 2021, Table 1 footnote: P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)): per layer 12h²
// weights and 13h biases and LayerNorm parameters, plus tied word and learned position embeddings.
// Our count adds the final LayerNorm (2h), which that formula leaves out.
double narayanan_parameters(const ModelSpec& m) {
  const double l = m.layers, h = static_cast<double>(m.hidden);
  const double V = static_cast<double>(m.vocab), s = static_cast<double>(m.seq_len);
  return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (V + s) / (12.0 * l * h));
}

double billions(double n) {
  return std::round(n / 1e8) / 10.0;
}

}  // namespace

TEST_CASE("GPT family parameter counts match Narayanan et al. 2021 Table 1 to one decimal") {
  const struct {
    const char* name;
    double billions;
  } table1[] = {{"megatron-1.7b", 1.7},     {"megatron-3.6b", 3.6},     {"megatron-7.5b", 7.5},
                {"megatron-18.4b", 18.4},   {"megatron-39.1b", 39.1},   {"megatron-76.1b", 76.1},
                {"megatron-145.6b", 145.6}, {"megatron-310.1b", 310.1}, {"megatron-529.6b", 529.6},
                {"megatron-1t", 1008.0},    {"gpt3-175b", 174.6}};
  for (const auto& row : table1) {
    CAPTURE(row.name);
    const ModelSpec& m = catalog().model(row.name);
    const ParameterCount p = count_parameters(m);
    // The 1.7B row is 1.652B by the formula (Table 1 rounds it up); compare the formula exactly instead.
    CHECK(p.total ==
          doctest::Approx(narayanan_parameters(m) + 2.0 * static_cast<double>(m.hidden)).epsilon(1e-12));
    if (std::string(row.name) != "megatron-1.7b") CHECK(billions(p.total) == doctest::Approx(row.billions));
  }
}

TEST_CASE("Llama and Mixtral parameter counts") {
  // Llama-3 405B: 126 x (2·16384² + 2·16384·1024 + 3·16384·53248 + 2·16384) + 2·128256·16384 + 16384
  //             = 126 x 3,187,703,808 + 4,202,692,608 + 16,384 = 405,853,388,800.
  CHECK(count_parameters(catalog().model("llama3-405b")).total == doctest::Approx(405853388800.0));
  // Llama-2 70B: 80 x (2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192) + 2·32000·8192 + 8192 = 68.98B.
  CHECK(count_parameters(catalog().model("llama2-70b")).total == doctest::Approx(68976648192.0));
  // Mixtral 8x7B: 32 x (2·4096² + 2·4096·1024 + 8·3·4096·14336 + 4096·8 + 2·4096) + 2·32000·4096 + 4096
  // = 46.70B total; active replaces 8 experts by 2: 12.88B (Jiang et al. 2024: 46.7B / 12.9B).
  const ParameterCount mixtral = count_parameters(catalog().model("mixtral-8x7b"));
  CHECK(mixtral.total == doctest::Approx(46702792704.0));
  CHECK(mixtral.active == doctest::Approx(12879925248.0));
  CHECK(billions(mixtral.total) == doctest::Approx(46.7));
  CHECK(billions(mixtral.active) == doctest::Approx(12.9));
}

TEST_CASE("Megatron-LM FLOPs per iteration reproduced exactly for GPT models") {
  // 72·B·s·l·h²·(1 + s/6h + V/(12·l·h)) is 3 forward passes of 24·l·h² + 4·l·s·h + 2·h·V FLOPs per token
  // (Narayanan et al. 2021 eq. 3); with full recompute 96·B·s·l·h²(1 + s/6h + V/16lh) is 4 passes over the
  // layers and 3 over the logits (which are not recomputed).
  for (const char* name : {"gpt3-175b", "megatron-1t", "megatron-1.7b", "megatron-145.6b"}) {
    CAPTURE(name);
    const ModelSpec& m = catalog().model(name);
    const std::int64_t B = 1536, s = m.seq_len;
    const FlopsPerToken f = flops_per_token(m, s);
    const double tokens = static_cast<double>(B * s);
    CHECK((f.forward + f.backward) * tokens ==
          doctest::Approx(megatron_flops_per_iteration(m, B, s, false)).epsilon(1e-12));
    CHECK((f.forward + f.backward + f.recompute_full) * tokens ==
          doctest::Approx(megatron_flops_per_iteration(m, B, s, true)).epsilon(1e-12));
  }
  // GPT-3 175B, B = 1536: 72·1536·2048·96·12288² = 3.2831e18, x (1 + 2048/73728 + 51200/14155776) = 1.03139
  // gives 3.3862e18 FLOPs per iteration.
  CHECK(megatron_flops_per_iteration(catalog().model("gpt3-175b"), 1536, 2048, false) ==
        doctest::Approx(3.3862e18).epsilon(1e-4));
}

TEST_CASE("causal attention halves the score FLOPs; selective recompute repeats them") {
  const ModelSpec& m = catalog().model("llama3-8b");
  const FlopsPerToken full = flops_per_token(m, 8192, false);
  const FlopsPerToken causal = flops_per_token(m, 8192, true);
  // 4·s·h per layer: 4 x 8192 x 4096 x 32 layers.
  CHECK(full.attention_scores == doctest::Approx(4.0 * 8192 * 4096 * 32));
  CHECK(causal.attention_scores == doctest::Approx(full.attention_scores / 2));
  CHECK(full.forward - causal.forward == doctest::Approx(full.attention_scores / 2));
  CHECK(full.recompute_selective == full.attention_scores);
  CHECK(full.backward == doctest::Approx(2 * full.forward));
}

TEST_CASE("activation memory per layer reproduces Korthikanti et al. 2022 Table 2") {
  // GPT-3 175B: s = 2048, h = 12288, a = 96; micro-batch 1.
  const ModelSpec& m = catalog().model("gpt3-175b");
  const double s = 2048, b = 1, h = 12288, a = 96;
  const double sbh = s * b * h;
  for (int t : {1, 2, 4, 8}) {
    CAPTURE(t);
    // no parallelism / tensor parallel only: sbh(10 + 24/t + 5as/(ht))
    CHECK(activation_bytes_per_layer(m, 2048, 1, t, false, Recompute::kNone) ==
          doctest::Approx(sbh * (10 + 24.0 / t + 5 * a * s / (h * t))));
    // tensor + sequence parallel: sbh/t (34 + 5as/h)
    CHECK(activation_bytes_per_layer(m, 2048, 1, t, true, Recompute::kNone) ==
          doctest::Approx(sbh / t * (34 + 5 * a * s / h)));
    // selective recompute: sbh/t x 34 with sequence parallelism, sbh(10 + 24/t) without
    CHECK(activation_bytes_per_layer(m, 2048, 1, t, true, Recompute::kSelective) ==
          doctest::Approx(sbh / t * 34));
    CHECK(activation_bytes_per_layer(m, 2048, 1, t, false, Recompute::kSelective) ==
          doctest::Approx(sbh * (10 + 24.0 / t)));
    // full recompute: 2sbh (2sbh/t with sequence parallelism)
    CHECK(activation_bytes_per_layer(m, 2048, 1, t, false, Recompute::kFull) == doctest::Approx(2 * sbh));
    CHECK(activation_bytes_per_layer(m, 2048, 1, t, true, Recompute::kFull) == doctest::Approx(2 * sbh / t));
  }
  // t = 1: sbh(34 + 5as/h), the unparallelised formula.
  CHECK(activation_bytes_per_layer(m, 2048, 1, 1, false, Recompute::kNone) ==
        doctest::Approx(sbh * (34 + 5 * a * s / h)));
  // Micro-batch scales linearly.
  CHECK(activation_bytes_per_layer(m, 2048, 4, 8, true, Recompute::kNone) ==
        doctest::Approx(4 * activation_bytes_per_layer(m, 2048, 1, 8, true, Recompute::kNone)));
}

TEST_CASE("MoE activations: k experts' intermediates and the k dispatched copies of each token") {
  // Mixtral 8x7B (every layer MoE, top-2 of 8, f_e 14336, h 4096, 32 heads, 8 K/V heads of 128, no dropout),
  // s = 4096, b = 1, t = 1, no recompute, flash attention's scores not kept (counted apart): per token
  // replicated 8h; Q 4h and K, V 4 kv (kv = 1024); the experts' gated intermediates 6 x 2 f_e; and the
  // dispatched copies as the experts' fc1 input, 2 bytes x k h (Megatron-Core weighs by the routing
  // probabilities inside the activation since commit 2659630721, so unpermute keeps nothing).
  const ModelSpec& m = catalog().model("mixtral-8x7b");
  const double s = 4096, h = 4096, kv = 1024, fe = 14336, k = 2;
  const double expected = s * (8 * h + 4 * h + 4 * kv + 6 * fe * k + 2 * h * k) + 2.0 * 32 * s * s;
  CHECK(activation_bytes_per_layer(m, 4096, 1, 1, false, Recompute::kNone) == doctest::Approx(expected));

  // Megatron-Core's recompute modules, per token at t = 1 (selective: no scores):
  // moe_act drops fc2's input 2 f_e k; layernorm the MoE layer's norm output (its input) 2h; moe all of the
  // experts' intermediates and dispatched copies (6 f_e k + 2 h k), keeping the layer's input.
  const double selective = activation_bytes_per_layer(m, 4096, 1, 1, false, Recompute::kSelective);
  CHECK(selective == doctest::Approx(expected - 2.0 * 32 * s * s));
  const auto with = [&](unsigned modules) {
    return activation_bytes_per_layer(m, 4096, 1, 1, false, Recompute::kSelective, false, modules);
  };
  CHECK(selective - with(kRecomputeMoeAct) == doctest::Approx(s * 2 * fe * k));
  CHECK(selective - with(kRecomputeLayernorm) == doctest::Approx(s * 2 * h));
  CHECK(selective - with(kRecomputeMoe) == doctest::Approx(s * (6 * fe * k + 2 * h * k)));
  CHECK(selective - with(kRecomputeMoeAct | kRecomputeLayernorm) ==
        doctest::Approx(s * (2 * fe * k + 2 * h)));
  // Under FP8 the dropped inputs are FP8 copies: 1 byte.
  const double fp8 = activation_bytes_per_layer(m, 4096, 1, 1, false, Recompute::kSelective, true);
  CHECK(fp8 -
            activation_bytes_per_layer(m, 4096, 1, 1, false, Recompute::kSelective, true, kRecomputeMoeAct) ==
        doctest::Approx(s * fe * k));
}

TEST_CASE("recompute modules: Megatron-Core's names, parsed and printed") {
  bool core = true;
  CHECK(parse_recompute_modules("moe_act, layernorm", core) == (kRecomputeMoeAct | kRecomputeLayernorm));
  CHECK_FALSE(core);
  CHECK(parse_recompute_modules("core_attn,mla_up_proj", core) == kRecomputeMlaUpProj);
  CHECK(core);
  CHECK(parse_recompute_modules("none", core) == 0u);
  CHECK(recompute_modules_text(kRecomputeMoeAct | kRecomputeLayernorm, true) ==
        "core_attn,moe_act,layernorm");
  CHECK(recompute_modules_text(0, false).empty());
  try {
    (void)parse_recompute_modules("moe_acts", core);
    FAIL("an unknown module was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.hint()).find("did you mean 'moe_act'") != std::string::npos);
  }
  // A dense MLP recomputed keeps none of its intermediates nor its fc1 input (Llama 2 7B: f = 11008,
  // per token 6f + 2h at t = 1).
  const ModelSpec& llama = catalog().model("llama2-7b");
  const double dropped =
      activation_bytes_per_layer(llama, 4096, 1, 1, false, Recompute::kSelective) -
      activation_bytes_per_layer(llama, 4096, 1, 1, false, Recompute::kSelective, false, kRecomputeMlp);
  CHECK(dropped == doctest::Approx(4096.0 * (6 * 11008 + 2 * 4096)));
}

TEST_CASE("full recompute never keeps more activations than selective, selective never more than none") {
  for (const auto& m : catalog().models) {
    for (int t : {1, 2, 8}) {
      for (bool sp : {false, true}) {
        const double none = activation_bytes_per_layer(m, m.seq_len, 1, t, sp, Recompute::kNone);
        const double selective = activation_bytes_per_layer(m, m.seq_len, 1, t, sp, Recompute::kSelective);
        const double full = activation_bytes_per_layer(m, m.seq_len, 1, t, sp, Recompute::kFull);
        CHECK(full <= selective);
        CHECK(selective <= none);
      }
    }
  }
}

TEST_CASE("without dropout no masks are kept: Korthikanti's 34sbh becomes 32sbh, the scores 5as²b 2as²b") {
  // Korthikanti et al. 2022 §4.1 count two 1-byte dropout masks (2sbh) and, for standard attention, the
  // softmax's dropout mask and output (3as²b of 5as²b). With p = 0 PyTorch's dropout returns its input
  // (aten/src/ATen/native/Dropout.cpp, _dropout_impl), so none of them exist: GPT-3 175B with dropout 0.
  ModelSpec m = catalog().model("gpt3-175b");
  REQUIRE(m.has_dropout());
  const double s = 2048, h = 12288, a = 96, t = 8;
  const double sbh = s * h;
  m.dropout = 0.0;
  CHECK(activation_bytes_per_layer(m, 2048, 1, 8, true, Recompute::kNone) ==
        doctest::Approx(sbh / t * (32 + 2 * a * s / h)));
  CHECK(activation_bytes_per_layer(m, 2048, 1, 8, true, Recompute::kSelective) ==
        doctest::Approx(sbh / t * 32));
  // Full recompute keeps the layer input only, dropout or not.
  CHECK(activation_bytes_per_layer(m, 2048, 1, 8, true, Recompute::kFull) == doctest::Approx(2 * sbh / t));
}

TEST_CASE("model files: GPT-style models keep Megatron-LM's dropout 0.1, Llama-style ones none") {
  CHECK(catalog().model("gpt3-175b").dropout == doctest::Approx(0.1));
  CHECK(catalog().model("llama3-70b").dropout == 0.0);
  CHECK(catalog().model("mixtral-8x7b").dropout == 0.0);
}
