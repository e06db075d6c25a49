// SPDX-License-Identifier: Apache-2.0
#pragma once
// Context parallelism: the ring-attention exchange of K/V blocks (Liu et al. 2023).

#include "costmodel/estimate/inputs.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// Context-parallel K/V exchange of one layer for one micro-batch left exposed after overlap with
/// `attention_core` (the layer's forward attention core, s): cp - 1 send/recv of the local K and V blocks
/// forward, of K, V and their gradients backward, on SplitPaths::cp; 0 when cp == 1. Seconds.
[[nodiscard]] Seconds context_parallel_layer_time(const StepInputs& in, Seconds attention_core) noexcept;

}  // namespace costmodel
