// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/nccl_tuner.hpp"

#include <cmath>

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// What the plug-in's transform_log2 puts in place of a 0 coordinate before taking log2.
constexpr double kZeroCoordinate = 1e-6;

double plugin_log2(double x) {
  return std::log2(x == 0.0 ? kZeroCoordinate : x);
}

}  // namespace

TunerVertex tuner_vertex(double bytes, double ranks) {
  return {plugin_log2(bytes), plugin_log2(ranks)};
}

}  // namespace costmodel::inline COSTMODEL_ABI
