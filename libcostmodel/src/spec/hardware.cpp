// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/hardware.hpp"

namespace costmodel {

std::string_view to_string(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp32:
      return "fp32";
    case Dtype::kTf32:
      return "tf32";
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kFp8:
      return "fp8";
  }
  return "bf16";
}

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (int i = 0; i < kDtypeCount; ++i) {
    const auto dtype = static_cast<Dtype>(i);
    if (to_string(dtype) == name) return dtype;
  }
  return std::nullopt;
}

std::string_view to_string(GpuArchitecture architecture) {
  switch (architecture) {
    case GpuArchitecture::kVolta:
      return "volta";
    case GpuArchitecture::kAmpere:
      return "ampere";
    case GpuArchitecture::kHopper:
      return "hopper";
    case GpuArchitecture::kBlackwell:
      return "blackwell";
  }
  return "hopper";
}

std::optional<GpuArchitecture> parse_gpu_architecture(std::string_view name) {
  for (int i = 0; i < kGpuArchitectureCount; ++i) {
    const auto architecture = static_cast<GpuArchitecture>(i);
    if (to_string(architecture) == name) return architecture;
  }
  return std::nullopt;
}

std::string_view to_string(Transport transport) {
  return transport == Transport::kRdma ? "rdma" : "tcp";
}

std::string_view to_string(InNetworkReduction reduction) {
  switch (reduction) {
    case InNetworkReduction::kNone:
      return "none";
    case InNetworkReduction::kSharp:
      return "sharp";
    case InNetworkReduction::kNvls:
      return "nvls";
  }
  return "none";
}

}  // namespace costmodel
