// SPDX-License-Identifier: Apache-2.0
// Host (CPU) time: the ops and kernels each layer issues (estimate/host_terms.hpp), and the step's share of
// it that the GPU waits for.
#include <doctest/doctest.h>

#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "estimate/host_terms.hpp"
#include "estimate_fixtures.hpp"

using namespace costmodel;
using costmodel::test::TermCase;

namespace {

const Catalog& host_catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

ClusterSpec h100_cluster(int gpus) {
  ClusterOptions o;
  o.gpu = "h100-sxm";
  o.gpus = gpus;
  o.link = "ib-ndr-400g";
  return apply_cluster_options(default_cluster(host_catalog()), o, host_catalog());
}

// Qwen3 30B-A3B's shape (Megatron-Bridge Qwen3MoEModelProvider30B_A3B): 128 experts, top-8.
ModelSpec qwen3_like() {
  ModelSpec m = test::toy_moe();
  m.moe = MoeSpec{128, 8, 1, 768, 0};
  return m;
}

}  // namespace

TEST_CASE(
    "host time per layer: Python ops x host_op + kernels x host_launch, per expert under GroupedLinear") {
  TermCase c;
  c.model = qwen3_like();
  c.gpu =
      host_catalog().gpu("h100-sxm");  // x86 host: 6 us per op, 3 us per kernel, 40 us per synchronisation
  c.strategy.dp = 8;
  c.strategy.ep = 8;  // 16 local experts
  c.strategy.global_batch = 8;
  c.strategy.dtype = Dtype::kBf16;
  detail::HostTerms t = detail::host_terms(c.inputs());
  // BF16 dense layer: 35 ops and 18 kernels forward, 26 and 36 backward.
  CHECK(t.dense.forward == doctest::Approx(35 * 6e-6 + 18 * 3e-6));
  CHECK(t.dense.backward == doctest::Approx(26 * 6e-6 + 36 * 3e-6));
  // BF16 MoE layer: 86 ops; 56 kernels + 16 experts x 2 GEMMs forward; 58 ops, 72 + 16 x 4 backward.
  CHECK(t.moe.forward == doctest::Approx(86 * 6e-6 + (56 + 32) * 3e-6));
  CHECK(t.moe.backward == doctest::Approx(58 * 6e-6 + (72 + 64) * 3e-6));
  CHECK(t.moe.syncs == 1.0);
  CHECK(t.sync_s == doctest::Approx(40e-6));
  // FP8 on Hopper (current scaling: 4 kernels per quantised input): forward 86 + 2 x 16 weight-loop ops;
  // 56 + 2 x 4 (attention) + 16 x (2 + 2 x 4) = 224 kernels, within the 210-230 counted for this shape.
  c.strategy.dtype = Dtype::kFp8;
  t = detail::host_terms(c.inputs());
  CHECK(t.moe.forward == doctest::Approx((86 + 32) * 6e-6 + 224 * 3e-6));
  // Backward: 72 + 3 x 4 + 16 x (4 + 2 x 4) = 276 kernels (270-300 counted).
  CHECK(t.moe.backward == doctest::Approx(58 * 6e-6 + 276 * 3e-6));
  // Per-layer CUDA graphs: a dense layer is one replay each way; a MoE layer keeps its experts, all-to-alls
  // and synchronisation eager (86 - 48 + 2 ops; 56 - 30 kernels + 16 x 10 forward).
  c.options.cuda_graphs = CudaGraphs::kLayer;
  t = detail::host_terms(c.inputs());
  CHECK(t.dense.forward == doctest::Approx(6e-6));
  CHECK(t.moe.forward == doctest::Approx((40 + 32) * 6e-6 + (26 + 160) * 3e-6));
  CHECK(t.moe.syncs == 1.0);
  // The whole iteration in one graph: nothing per layer, no synchronisation.
  c.options.cuda_graphs = CudaGraphs::kFull;
  t = detail::host_terms(c.inputs());
  CHECK(t.moe.forward == 0.0);
  CHECK(t.moe.syncs == 0.0);
  // A GPU whose node states no host figures has no host term.
  c.gpu = test::round_gpu();
  c.options.cuda_graphs = CudaGraphs::kOff;
  t = detail::host_terms(c.inputs());
  CHECK(t.moe.forward == 0.0);
}

TEST_CASE("the GPU waits only for the host time its own work does not cover") {
  // A large dense model: a micro-batch's GPU work (seconds) dwarfs its ~0.3 ms of host time per layer.
  const Catalog& cat = host_catalog();
  const ClusterSpec cluster = h100_cluster(64);
  ModelSpec big = cat.model("llama3-70b");
  const Estimator large(big, cluster);
  Strategy s;
  s.tp = 8;
  s.pp = 4;
  s.dp = 2;
  s.global_batch = 64;
  s.micro_batch = 1;
  const StepEstimate e = large.evaluate(s);
  REQUIRE(e.valid());
  CHECK(e.breakdown.host.value == 0.0);
  // A narrow one (hidden 256) at 64 tokens per micro-batch: the host issues 32 layers' ops for far less
  // GPU work, so the step waits for it: at least the host time less the micro-batch's GPU time.
  ModelSpec small = cat.model("llama3-8b");
  small.hidden = 256;
  small.heads = 4;
  small.kv_heads = 4;
  small.ffn_hidden = 1024;
  small.vocab = 1024;
  small.seq_len = 64;
  const Estimator tiny(small, cluster);
  Strategy t;
  t.tp = 1;
  t.pp = 1;
  t.dp = 64;
  t.global_batch = 64;
  t.micro_batch = 1;
  t.zero = 1;
  const StepEstimate f = tiny.evaluate(t);
  REQUIRE(f.valid());
  // 32 layers x (35 + 26 ops x 6 us + 18 + 36 kernels x 3 us) = 32 x 528 us = 16.9 ms of host time.
  const double host = 32 * (61 * 6e-6 + 54 * 3e-6);
  CHECK(f.breakdown.host.value > 0.0);
  CHECK(f.breakdown.host.value <= host);
  CHECK(f.breakdown.host.value >= host - f.breakdown.compute.value - f.breakdown.tp_comm.value);
  // The exposed terms still add up to the step.
  const auto& b = f.breakdown;
  CHECK(f.step_time.value == doctest::Approx(b.compute.value + b.tp_comm.value + b.cp_comm.value +
                                             b.ep_comm.value + b.pp_comm.value + b.pp_bubble.value +
                                             b.dp_comm_exposed.value + b.optimizer.value + b.host.value));
}
