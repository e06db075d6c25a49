// SPDX-License-Identifier: Apache-2.0
#include "estimate/compute.hpp"

#include "compute_terms.hpp"

namespace costmodel::inline COSTMODEL_ABI {

Seconds gemm_time(const GpuSpec& gpu, Dtype dtype, double m, double n, double k) {
  return Seconds(detail::gemm_seconds(gpu, dtype, m, n, k));
}

double gemm_efficiency(const GpuSpec& gpu, double m, double n, double k) {
  return detail::efficiency_of(gpu, m, n, k);
}

Seconds memory_bound_time(const GpuSpec& gpu, Bytes bytes) {
  return Seconds(detail::memory_bound_seconds(gpu, bytes.value));
}

Seconds attention_gemm_time(const StepInputs& in) noexcept {
  return Seconds(detail::attention_gemms(in));
}

Seconds dense_mlp_time(const StepInputs& in) noexcept {
  return Seconds(detail::dense_mlp(in));
}

Seconds moe_mlp_time(const StepInputs& in) noexcept {
  return Seconds(detail::moe_mlp(in));
}

Seconds attention_core_time(const StepInputs& in) noexcept {
  return Seconds(detail::attention_core(in));
}

Seconds elementwise_time(const StepInputs& in) noexcept {
  return Seconds(detail::elementwise(in));
}

Seconds fp8_cast_time(const StepInputs& in, bool backward) noexcept {
  return Seconds(detail::fp8_casts(in, backward));
}

Seconds attention_core_backward_time(const StepInputs& in, Seconds forward) noexcept {
  return Seconds(detail::attention_core_backward(in, forward.value));
}

LayerBackward layer_backward_time(const StepInputs& in, const LayerForward& forward) noexcept {
  return detail::layer_backward(in, forward);
}

LayerForward layer_forward_time(const StepInputs& in) noexcept {
  return detail::layer_forward(in);
}

Seconds layer_recompute_time(const StepInputs& in, const LayerForward& forward) noexcept {
  return Seconds(detail::layer_recompute(in, forward));
}

Seconds logits_time(const StepInputs& in) noexcept {
  return Seconds(detail::logits(in));
}

StageCompute stage_compute(const StepInputs& in) noexcept {
  return detail::stage(in);
}

}  // namespace costmodel::inline COSTMODEL_ABI
