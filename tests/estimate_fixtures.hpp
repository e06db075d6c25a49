// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hand-built inputs for the step-time terms' tests: a toy GPT and a GPU with round numbers, so that every
// expected time can be derived by hand (no catalog, no GEMM size penalty).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/estimate/step.hpp"
#include "network_fixtures.hpp"

namespace costmodel::test {

/// 100 TFLOP/s dense bf16 and 1 TB/s HBM, both reached in full (efficiency 1, no GEMM size penalty);
/// flash attention at half the peak.
inline GpuSpec round_gpu() {
  GpuSpec gpu = a100();
  gpu.peak_flops[static_cast<int>(Dtype::kBf16)] = FlopsPerSecond(100e12);
  gpu.hbm = Bytes(80e9);
  gpu.hbm_bandwidth = BytesPerSecond(1e12);
  gpu.efficiency.gemm = 1.0;
  gpu.efficiency.gemm_half_size = 0.0;
  gpu.efficiency.hbm = 1.0;
  gpu.efficiency.attention = 0.5;
  gpu.efficiency.overlap = 1.0;
  return gpu;
}

/// A GPT: 8 layers, h = 1024, 8 heads of 128, f = 4h, V = 32768, s = 2048, GELU.
inline ModelSpec toy_gpt() {
  ModelSpec m;
  m.name = "toy-gpt";
  m.layers = 8;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.ffn_hidden = 4096;
  m.vocab = 32768;
  m.seq_len = 2048;
  return m;
}

/// The same with a mixture of 8 experts (top-2, f_e = 2048) in every other layer.
inline ModelSpec toy_moe() {
  ModelSpec m = toy_gpt();
  m.name = "toy-moe";
  m.moe = MoeSpec{8, 2, 2, 2048, 0};
  return m;
}

/// DGX-like nodes of 8 round GPUs on HDR InfiniBand (network_fixtures.hpp).
inline ClusterSpec round_cluster(int gpus) {
  return cluster(round_gpu(), gpus, 8, hdr(), 8, qm8700());
}

/// Everything StepInputs refers to, kept alive together; inputs() after setting the fields.
struct TermCase {
  ModelSpec model = toy_gpt();
  GpuSpec gpu = round_gpu();
  EstimateOptions options;
  Strategy strategy;
  SplitPaths paths;
  ModelTerms terms;  ///< model_terms(model), set by inputs()

  [[nodiscard]] StepInputs inputs() {
    terms = model_terms(model);
    return step_inputs(model, terms, gpu, options, strategy, paths);
  }
  /// Sets `paths` to the strategy's communicators on round_cluster(gpus) (the strategy must be valid there).
  void place(int gpus) { paths = Estimator(model, round_cluster(gpus), options).paths(strategy); }
};

}  // namespace costmodel::test
