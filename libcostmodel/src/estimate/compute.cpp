#include "costmodel/estimate/compute.hpp"

#include <algorithm>

namespace costmodel {

namespace {

inline double efficiency_of(const GpuSpec& gpu, double m, double n, double k) {
  const double d = std::min({m, n, k});
  if (!(d > 0.0)) return gpu.efficiency.gemm;
  return gpu.efficiency.gemm * d / (d + gpu.efficiency.gemm_half_size);
}

}  // namespace

Seconds gemm_time(const GpuSpec& gpu, Dtype dtype, double m, double n, double k) {
  // Roofline (Williams, Waterman & Patterson 2009): the slower of arithmetic and memory traffic.
  const double flops = 2.0 * m * n * k;
  const double peak = gpu.peak(dtype).value;
  const double arithmetic = peak > 0.0 ? flops / (peak * efficiency_of(gpu, m, n, k)) : 0.0;
  const double bytes = (m * k + k * n + m * n) * bytes_per_element(dtype);
  const double memory = bytes / (gpu.hbm_bandwidth.value * gpu.efficiency.hbm);
  return Seconds(std::max(arithmetic, memory));
}

// Tile and wave quantisation make small GEMMs under-fill the GPU (NVIDIA, "Matrix Multiplication Background
// User's Guide", §2-3); a saturating curve in the smallest dimension captures the trend.
double gemm_efficiency(const GpuSpec& gpu, double m, double n, double k) {
  return efficiency_of(gpu, m, n, k);
}

Seconds memory_bound_time(const GpuSpec& gpu, Bytes bytes) {
  return Seconds(bytes.value / (gpu.hbm_bandwidth.value * gpu.efficiency.hbm));
}

}  // namespace costmodel
