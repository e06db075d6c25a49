#pragma once
// Compute time of the transformer's operations on one GPU: a roofline with a shape-dependent GEMM efficiency.

#include <cstdint>

#include "costmodel/spec/hardware.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Fraction of dense peak a GEMM of shape m x n x k reaches on `gpu` (dimensionless, in (0, gemm]):
/// efficiency.gemm · d / (d + efficiency.gemm_half_size) with d the smallest of m, n, k — small GEMMs
/// (tensor parallelism, small micro-batches) under-fill the GPU's tiles and waves.
[[nodiscard]] double gemm_efficiency(const GpuSpec& gpu, double m, double n, double k);

/// Time of one GEMM m x n x k (2mnk FLOPs) by the roofline: max(FLOPs / (peak · efficiency),
/// bytes / (HBM bandwidth · efficiency.hbm)), bytes = (mk + kn + mn) elements of `dtype`.
[[nodiscard]] Seconds gemm_time(const GpuSpec& gpu, Dtype dtype, double m, double n, double k);

/// Time of a memory-bound operation that moves `bytes` through HBM.
[[nodiscard]] Seconds memory_bound_time(const GpuSpec& gpu, Bytes bytes);

}  // namespace costmodel
