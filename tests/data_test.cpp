// SPDX-License-Identifier: Apache-2.0
#include "estimate/data.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "catalog_fixture.hpp"
#include "costmodel/error.hpp"
#include "costmodel/spec/names.hpp"
#include "costmodel/spec/training.hpp"
#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

namespace {

double cost(Collective c, double bytes, const LinkPath& path) {
  return collective_cost(c, Algorithm::kAuto, Bytes(bytes), path).time.value;
}

// Toy GPT at dp 8 over one node, 2 micro-batches per step, ZeRO `zero`.
TermCase dp8(int zero) {
  TermCase c;
  c.strategy.dp = 8;
  c.strategy.global_batch = 16;
  c.strategy.zero = zero;
  c.place(8);
  return c;
}

// The toy GPT with GPT-3's layer (h 12288, 96 heads of 128, f 4h) at dp 8 under ZeRO-3.
TermCase gpt3_layer_dp8() {
  TermCase c = dp8(3);
  c.model.hidden = 12288;
  c.model.heads = 96;
  c.model.kv_heads = 96;
  c.model.ffn_hidden = 49152;
  c.place(8);
  return c;
}

}  // namespace

TEST_CASE("gradient bytes on the wire: fp32 main gradients, halved by fp16, quartered by int8") {
  Strategy s;
  CHECK(wire_bytes_per_gradient(s) == 4.0);
  s.compression.kind = CompressionKind::kFp16;
  CHECK(wire_bytes_per_gradient(s) == 2.0);
  s.compression.kind = CompressionKind::kInt8;
  CHECK(wire_bytes_per_gradient(s) == 1.0);
  s.compression.kind = CompressionKind::kNone;
  s.dtype = Dtype::kFp16;  // fp16 training keeps fp16 gradients
  CHECK(wire_bytes_per_gradient(s) == 2.0);
  s.dtype = Dtype::kBf16;
  s.bf16_gradients = true;  // Megatron-LM --grad-reduce-in-bf16
  CHECK(wire_bytes_per_gradient(s) == 2.0);
}

TEST_CASE("ZeRO 0-3: which collectives of which parameters, once a step or every micro-batch") {
  // The toy GPT on one stage: 8 layers of L parameters, an embedding and an untied output layer of V·h.
  TermCase c = dp8(0);
  (void)c.inputs();
  const double layer = c.terms.params_per_layer;
  const double vh = 32768.0 * 1024;
  const double embedding = c.terms.params_embedding;  // V·h + learned positions s·h
  const double stage = 8 * layer + embedding + vh;
  const LinkPath& path = c.paths.dp;
  // ZeRO-0: the stage's fp32 gradients all-reduced once a step.
  DataParallelStreams s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == doctest::Approx(cost(Collective::kAllReduce, 4 * stage, path)));
  CHECK(s.step_gather.value == 0.0);
  CHECK(s.layer_reduce.value == 0.0);
  CHECK(s.layer_gather.value == 0.0);
  // ZeRO-1 (distributed optimizer): reduce-scatter once a step, all-gather the bf16 weights once a step.
  c = dp8(1);
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * stage, path)));
  CHECK(s.step_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * stage, path)));
  CHECK(s.layer_reduce.value == 0.0);
  // ZeRO-2 (DeepSpeed): every micro-batch reduce-scatters each layer (and the ends); the weights are
  // gathered once a step.
  c = dp8(2);
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == 0.0);
  CHECK(s.layer_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * layer, path)));
  CHECK(s.first_end_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * embedding, path)));
  CHECK(s.last_end_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * vh, path)));
  CHECK(s.step_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * stage, path)));
  CHECK(s.layer_gather.value == 0.0);
  // ZeRO-3 / FSDP: each layer gathered (forward and again backward) and reduce-scattered every micro-batch,
  // nothing once a step.
  c = dp8(3);
  s = data_parallel_streams(c.inputs());
  CHECK(s.layer_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * layer, path)));
  CHECK(s.layer_reduce.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * layer, path)));
  CHECK(s.step_reduce.value == 0.0);
  CHECK(s.step_gather.value == 0.0);
  // Top-k 1% with ZeRO-1: every rank all-gathers everyone's values and indices, 8 x 0.01 x stage x 8 B;
  // the updated weights are still gathered.
  c = dp8(1);
  c.strategy.compression = Compression{CompressionKind::kTopK, 0.01};
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce.value == doctest::Approx(cost(Collective::kAllGather, 8 * 0.01 * stage * 8, path)));
  CHECK(s.step_gather.value == doctest::Approx(cost(Collective::kAllGather, 2 * stage, path)));
  // One replica has no one to exchange with.
  TermCase one;
  one.place(1);
  CHECK(data_parallel_streams(one.inputs()).step_reduce.value == 0.0);
}

TEST_CASE("the once-a-step streams carry the first stage's parameters") {
  // Toy GPT, pp 2, dp 4: the first stage holds 4 layers and the embedding.
  TermCase c;
  c.strategy.pp = 2;
  c.strategy.dp = 4;
  c.strategy.global_batch = 8;
  c.strategy.zero = 1;
  c.place(8);
  (void)c.inputs();
  const double first = 4 * c.terms.params_per_layer + c.terms.params_embedding;
  CHECK(data_parallel_streams(c.inputs()).step_reduce.value ==
        doctest::Approx(cost(Collective::kReduceScatter, 4 * first, c.paths.dp)));
}

TEST_CASE("DDP buckets: the last gradient bucket and the first gathered one wait on no compute") {
  // Megatron-Core's DDP (distributed_data_parallel.py): buckets of max(params, params_per_rank x dp)
  // parameters; the last one reduced after the backward, the first one gathered before the forward. The
  // toy GPT's stage (8 layers, embedding, output layer) at dp 8, ZeRO-1.
  TermCase c = dp8(1);
  (void)c.inputs();
  const double stage = 8 * c.terms.params_per_layer + c.terms.params_embedding + 32768.0 * 1024;
  const LinkPath& path = c.paths.dp;
  // No buckets (the default): nothing singled out.
  DataParallelStreams s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce_tail.value == 0.0);
  CHECK(s.step_gather_head.value == 0.0);
  // A bucket of max(1M, 0.5M per rank) = 4M parameters at dp 8: one such reduce-scatter (4 B gradients) and
  // all-gather (2 B weights) exposed.
  c.options.dp_bucket = DataParallelBucket{1e6, 5e5};
  REQUIRE(stage > 4e6);
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce_tail.value == doctest::Approx(cost(Collective::kReduceScatter, 4 * 4e6, path)));
  CHECK(s.step_gather_head.value == doctest::Approx(cost(Collective::kAllGather, 2 * 4e6, path)));
  CHECK(s.step_reduce_tail.value < s.step_reduce.value);
  // A bucket larger than the stage: one bucket, the whole exchange exposed.
  c.options.dp_bucket = DataParallelBucket{2 * stage, 0};
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce_tail.value == doctest::Approx(s.step_reduce.value));
  CHECK(s.step_gather_head.value == doctest::Approx(s.step_gather.value));
  // ZeRO-0 has no parameter gather; its all-reduce's last bucket is exposed all the same.
  c = dp8(0);
  c.options.dp_bucket = DataParallelBucket{1e6, 5e5};
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce_tail.value == doctest::Approx(cost(Collective::kAllReduce, 4 * 4e6, path)));
  CHECK(s.step_gather_head.value == 0.0);
  // Without overlap the whole exchange is exposed already: no tail to single out.
  c.strategy.overlap = false;
  s = data_parallel_streams(c.inputs());
  CHECK(s.step_reduce_tail.value == 0.0);
  CHECK(s.step_reduce.value > 0.0);
  CHECK(DataParallelBucket{4e7, 1e6}.size(512) == 5.12e8);  // Megatron-Core's max(40M, 1M x dp)
  CHECK(DataParallelBucket{4e7, 1e6}.size(16) == 4e7);
}

TEST_CASE("tied embeddings: their gradients all-reduced between the first and the last stage") {
  TermCase c;
  c.model.tied_embeddings = true;
  c.strategy.pp = 2;
  c.strategy.dp = 4;
  c.strategy.global_batch = 8;
  c.place(8);
  (void)c.inputs();
  REQUIRE(c.paths.embedding.ranks == 2);
  CHECK(data_parallel_streams(c.inputs()).tied_embedding.value ==
        doctest::Approx(cost(Collective::kAllReduce, 4 * c.terms.params_embedding, c.paths.embedding)));
  c.strategy.pp = 1;
  c.strategy.dp = 8;
  c.place(8);
  CHECK(data_parallel_streams(c.inputs()).tied_embedding.value == 0.0);
}

TEST_CASE(
    "MoE: expert gradients are reduced over the expert-data-parallel group at every ep, ep 1 included") {
  // Toy MoE on 8 GPUs, dp 8. At ep 1 every rank holds all 8 experts, reduced over the 8 ranks; at ep 2 each
  // holds 4, reduced over 4 ranks. The expert traffic per GPU at ep 1 is at least that at ep 2.
  const auto dp_traffic = [](int ep) {
    TermCase c;
    c.model = test::toy_moe();
    c.strategy.dp = 8;
    c.strategy.ep = ep;
    c.strategy.global_batch = 8;
    c.strategy.zero = 1;
    c.place(8);
    const DataParallelStreams s = data_parallel_streams(c.inputs());
    return s.step_reduce.value + s.step_gather.value;
  };
  CHECK(dp_traffic(1) >= dp_traffic(2));
  // ... and at ep 1 the experts are exchanged at all: more than the dense parameters alone.
  TermCase dense;
  dense.model = test::toy_moe();
  dense.strategy.dp = 8;
  dense.strategy.global_batch = 8;
  dense.strategy.zero = 1;
  dense.place(8);
  (void)dense.inputs();
  const double dense_params = 8 * (dense.terms.params_per_layer - dense.terms.expert_params_per_layer) +
                              dense.terms.params_embedding + 32768.0 * 1024;
  CHECK(dp_traffic(1) > cost(Collective::kReduceScatter, 4 * dense_params, dense.paths.dp) +
                            cost(Collective::kAllGather, 2 * dense_params, dense.paths.dp));
}

TEST_CASE("ZeRO-3 with list collectives (DeepSpeed 2021): a collective per tensor, world_size copies each") {
  // GPT-3's layer (h 12288, 96 heads of 128, f 4h, biases, LayerNorm) on dp 8. Per tp rank the linear
  // modules hold QKV 12288 x 36864 = 453M, projection 151M, fc1 and fc2 604M elements (+ biases of at most
  // 49152 < 1e5: never gathered). Reduce-scattered per micro-batch: 4 weights + 4 biases + 2 norms x 2 = 12
  // tensors. Without recompute: 4 gathers forward + 4 backward + 12 = 20 list collectives per layer. With
  // full recompute: 4 forward + 4 recompute + 3 backward (fc2 is used again at once, distance 0 < 1e9;
  // fc1's distance is fc2 twice, 2 x 604M = 1.21e9 >= 1e9, so fc1, the projection and QKV are gathered
  // again) + 12 = 23. Each costs world_size = 8 copies of 6 us (cudaMemcpyAsync's 5-7 us submission) and
  // 8 shard views of 3.3 us (an eager narrow() from Python), two per rank for a reduce-scatter (view(-1),
  // then narrow()).
  TermCase c = gpt3_layer_dp8();
  const DataParallelStreams flat_streams = data_parallel_streams(c.inputs());
  CHECK(flat_streams.layer_copies.value == 0.0);  // flat: the default
  CHECK_FALSE(flat_streams.reduce_serialized);
  CHECK(flat_streams.layer_gather_backward.value == flat_streams.layer_gather.value);
  c.options.zero3_gather = Zero3Gather::kList;
  c.place(8);
  const double per_gather = 6e-6 + 3.3e-6, per_reduce = 6e-6 + 2 * 3.3e-6;
  const auto copies = [&](double gathers) { return 8 * (gathers * per_gather + 12 * per_reduce); };
  CHECK(data_parallel_streams(c.inputs()).layer_copies.value == doctest::Approx(copies(8)));
  // One collective per tensor, bf16 weights (2 B) and fp32 gradients (4 B); on the GPU each gather also
  // zero-fills and copies the gathered weights (3 x 2 B each) and each reduce-scatter copies the gradients in
  // (2 x 4 B), at the round GPU's 1 TB/s.
  const double h = 12288, qkv = h * 3 * h, proj = h * h, fc = h * 4 * h;
  const LinkPath& dp = c.paths.dp;
  const auto ag = [&](double elements) { return cost(Collective::kAllGather, 2 * elements, dp); };
  const auto rs = [&](double elements) { return cost(Collective::kReduceScatter, 4 * elements, dp); };
  const double layer = c.terms.params_per_layer;
  const double gathers = ag(qkv) + ag(proj) + 2 * ag(fc);
  const DataParallelStreams list = data_parallel_streams(c.inputs());
  CHECK(list.layer_gather.value == doctest::Approx(gathers + 6 * layer / 1e12));
  CHECK(list.layer_gather_backward.value == doctest::Approx(list.layer_gather.value));
  CHECK(list.layer_reduce.value == doctest::Approx(rs(qkv) + rs(proj) + 2 * rs(fc) + rs(3 * h) + rs(h) +
                                                   rs(4 * h) + rs(h) + 4 * rs(h) + 8 * layer / 1e12));
  CHECK(list.reduce_serialized);
  // Per-tensor latencies: the list gathers cost more than one flat gather of the layer.
  CHECK(list.layer_gather.value - 6 * layer / 1e12 > flat_streams.layer_gather.value);
  // Full recompute: the backward gathers the recomputed forward's four modules, then fc1, the projection and
  // QKV again; the device copies follow the elements, (1812M + 1208M) / 1812M = 5/3 of the forward's.
  c.strategy.recompute = Recompute::kFull;
  const DataParallelStreams recomputed = data_parallel_streams(c.inputs());
  CHECK(recomputed.layer_copies.value == doctest::Approx(copies(11)));
  CHECK(recomputed.layer_gather_backward.value ==
        doctest::Approx(gathers + ag(qkv) + ag(proj) + ag(fc) + 5.0 / 3.0 * 6 * layer / 1e12));
  // The toy GPT (h 1024): every module is used again within 1e9 elements after its recompute, so the
  // backward gathers nothing again: 4 + 4 + 0 + 12 = 20.
  TermCase toy = dp8(3);
  toy.options.zero3_gather = Zero3Gather::kList;
  toy.strategy.recompute = Recompute::kFull;
  toy.place(8);
  CHECK(data_parallel_streams(toy.inputs()).layer_copies.value == doctest::Approx(copies(8)));
  // ZeRO-2 gathers nothing per layer: no copies.
  toy.strategy.zero = 2;
  CHECK(data_parallel_streams(toy.inputs()).layer_copies.value == 0.0);
  // The step pays the host's copies in full, every micro-batch and layer (2 micro-batches x 8 layers), and
  // the reduce-scatters unhidden; the whole difference is exposed data-parallel time.
  c.options.zero3_gather = Zero3Gather::kFlat;
  const StepEstimate flat = Estimator(c.model, test::round_cluster(8), c.options).evaluate(c.strategy);
  c.options.zero3_gather = Zero3Gather::kList;
  const StepEstimate listed = Estimator(c.model, test::round_cluster(8), c.options).evaluate(c.strategy);
  const double more = listed.step_time.value - flat.step_time.value;
  CHECK(more >= 2 * 8 * (copies(11) + recomputed.layer_reduce.value));
  CHECK(listed.breakdown.dp_comm_exposed.value - flat.breakdown.dp_comm_exposed.value ==
        doctest::Approx(more));
}

TEST_CASE("ZeRO-3 holds two layers gathered (FSDP units), DeepSpeed's list gathers two modules and a copy") {
  // GPT-3's layer at tp 1: QKV 453M, projection 151M, fc1 and fc2 604M elements gathered. DeepSpeed holds
  // the largest adjacent pair (fc1 + fc2, 1208M) plus PyTorch's flat staging copy of the largest (604M):
  // 1812M elements, one layer's linear weights; FSDP holds two whole layers. 2 B each.
  TermCase c = gpt3_layer_dp8();
  (void)c.inputs();
  const MemoryBreakdown flat = Estimator(c.model, test::round_cluster(8), c.options).memory(c.strategy);
  c.options.zero3_gather = Zero3Gather::kList;
  const MemoryBreakdown list = Estimator(c.model, test::round_cluster(8), c.options).memory(c.strategy);
  const double h = 12288;
  CHECK(flat.weights.value - list.weights.value ==
        doctest::Approx(2 * (2 * c.terms.params_per_layer - 12 * h * h)));
}

TEST_CASE("zero3_gather is read as flat or list") {
  TrainingSpec spec;
  CHECK(spec.zero3_gather == Zero3Gather::kFlat);
  set_training_field(spec, "zero3_gather", "list");
  CHECK(spec.zero3_gather == Zero3Gather::kList);
  CHECK(estimate_options(spec).zero3_gather == Zero3Gather::kList);
  CHECK_THROWS_AS(set_training_field(spec, "zero3_gather", "lists"), Error);
}

// Each named value is spelt once (its enum's to_string; spec/names.hpp): what a knob reads, its column
// prints, so that a plan's CSV or JSON row read back as a scenario's training.* sets the same run, and its
// help names it. The spellings are the released ones (0.1.0, docs/knobs.md); the alias "on" of cuda_graphs
// reads as "layer".
TEST_CASE("a named knob value prints as it is read") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> knobs = {
      {"attention", {"flash", "standard"}},      {"attention_dtype", {"bf16", "fp8"}},
      {"cuda_graphs", {"off", "layer", "full"}}, {"moe_dispatcher", {"alltoall", "deepep", "hybridep"}},
      {"zero3_gather", {"flat", "list"}},
  };
  for (const auto& knob : knobs) {
    // Named, not a structured binding: clang before 16 cannot capture a binding (CAPTURE, the lambda).
    const std::string& key = knob.first;
    const std::vector<std::string>& values = knob.second;
    const TrainingField* field = &training_field(key);
    for (const std::string& value : values) {
      CAPTURE(key);
      CAPTURE(value);
      TrainingSpec spec;
      spec.dtype = Dtype::kFp8;  // where attention_dtype fp8 is allowed
      set_training_field(spec, key, value);
      CHECK(std::get<std::string>(field->column(Strategy{}, estimate_options(spec))) == value);
      CHECK(field->help.find(value) != std::string_view::npos);  // --help and docs/knobs.md name it
    }
    TrainingSpec fresh;
    CHECK_THROWS_AS(set_training_field(fresh, key, values.front() + "x"), Error);
  }
  for (const std::string value : {"none", "selective", "full"}) {
    TrainingSpec spec;
    set_training_field(spec, "recompute", value);
    REQUIRE(spec.pins.recompute);
    CHECK(to_string(*spec.pins.recompute) == value);
  }
  for (const std::string value : {"owned", "rental"}) {
    TrainingSpec spec;
    set_training_field(spec, "cost_basis", value);
    CHECK(to_string(spec.economics.cost_basis) == value);
  }
  TrainingSpec spec;
  set_training_field(spec, "cuda_graphs", "on");
  CHECK(spec.cuda_graphs == CudaGraphs::kLayer);
  // The kept states' precisions print through the dtype names too.
  set_training_field(spec, "optimizer_dtype", "bf16");
  set_training_field(spec, "grad_reduce_dtype", "bf16");
  CHECK(spec.bf16_optimizer);
  CHECK(spec.bf16_gradients);
  CHECK_THROWS_AS(set_training_field(spec, "optimizer_dtype", "fp16"), Error);
}

TEST_CASE("a knob's help lists every value its reader takes") {
  // --help and docs/knobs.md print these help lines; each value below is read by the knob (the spellings are
  // literals, so a renamed value fails here too) and must be named in its help.
  const auto help_of = [](std::string_view key) { return std::string(training_field(key).help); };
  const std::vector<std::pair<std::string, std::vector<std::string>>> knobs = {
      {"recompute", {"none", "selective", "full"}},
      {"dtype", {"bf16", "fp16", "fp8"}},
      {"grad_reduce_dtype", {"fp32", "bf16"}},
      {"optimizer_dtype", {"fp32", "bf16"}},
      {"cost_basis", {"owned", "rental"}},
      {"compression", {"none", "fp16", "int8"}},  // and topk:FRACTION, below
      // Every algorithm the reader takes, named by its to_string: a new one is listed without an edit here.
      {"dp_algorithm", names_of<Algorithm>(kAlgorithmCount)},
      {"tp_algorithm", names_of<Algorithm>(kAlgorithmCount)},
  };
  for (const auto& knob : knobs) {
    const std::string& key = knob.first;
    const std::vector<std::string>& values = knob.second;
    const std::string help = help_of(key);
    for (const std::string& value : values) {
      CAPTURE(key);
      CAPTURE(value);
      TrainingSpec spec;
      CHECK_NOTHROW(set_training_field(spec, key, value));
      CHECK(help.find(value) != std::string::npos);
    }
  }
  TrainingSpec topk;
  CHECK_NOTHROW(set_training_field(topk, "compression", "topk:0.01"));
  CHECK(help_of("compression").find("topk:FRACTION") != std::string::npos);
  // The stacks are the catalog's (data/stacks.yaml): a new entry must be named in --stack's help too.
  const std::string stacks = help_of("stack");
  for (const StackSpec& stack : costmodel::test::source_catalog().stacks) {
    CAPTURE(stack.name);
    CHECK(stacks.find(stack.name) != std::string::npos);
  }
}

TEST_CASE("the cluster's named values read as they print") {
  // --routing and --in-network (and the cluster file's scale_out.routing and in_network) take the names
  // to_string prints, and refuse others with the list.
  for (const std::string name : {"minimal", "adaptive"}) {
    const auto routing = parse_routing(name);
    REQUIRE(routing);
    CHECK(to_string(*routing) == name);
  }
  CHECK_FALSE(parse_routing("minimall"));
  const Catalog& catalog = costmodel::test::source_catalog();
  for (const std::string name : {"sharp", "none"}) {
    ClusterOptions options;
    options.in_network = name;
    const ClusterSpec cluster = apply_cluster_options(default_cluster(catalog, "h100-sxm"), options, catalog);
    CHECK(to_string(cluster.in_network) == name);
  }
  ClusterOptions nvls;
  nvls.in_network = "nvls";  // the scale-up switch's own, not a cluster's choice
  CHECK_THROWS_WITH_AS(apply_cluster_options(default_cluster(catalog, "h100-sxm"), nvls, catalog),
                       doctest::Contains("unknown in-network reduction 'nvls'; expected sharp or none"),
                       Error);
}

TEST_CASE("the optimizer step moves 32 bytes per local parameter, compression and FP8 casts more") {
  TermCase c = dp8(1);
  MemoryBreakdown memory;
  memory.optimizer = Bytes(12e9);  // 1e9 parameters' Adam states
  memory.dense_parameters = 8e9;
  // 1e9 x 32 B at 1 TB/s = 32 ms.
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032));
  // int8 with error feedback: read the fp32 gradient and residual, write the int8 copy and the residual:
  // 8e9 x (4 + 1 + 8) B at 1 TB/s = 104 ms more.
  c.strategy.compression.kind = CompressionKind::kInt8;
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032 + 0.104));
  // A plain fp16 cast keeps no residual: 8e9 x (4 + 2) B = 48 ms.
  c.strategy.compression.kind = CompressionKind::kFp16;
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032 + 0.048));
  // FP8 with bf16 weights: the stage's weights cast to FP8 with their transposes once a step, 8e9 x (2 + 1 +
  // 1) B = 32 ms.
  c.strategy.compression.kind = CompressionKind::kNone;
  c.strategy.dtype = Dtype::kFp8;
  c.strategy.fp8_params = false;
  c.gpu.peak_flops[static_cast<int>(Dtype::kFp8)] = FlopsPerSecond(200e12);
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032 + 0.032));
  // FP8 weights (--fp8-param-gather, the distributed optimizer of dp8(1)): only the transpose is rebuilt
  // after the gather, 8e9 x (1 + 1) B = 16 ms.
  c.strategy.fp8_params = true;
  REQUIRE(c.strategy.zero >= 1);
  CHECK(optimizer_time(c.inputs(), memory).value == doctest::Approx(0.032 + 0.016));
}
