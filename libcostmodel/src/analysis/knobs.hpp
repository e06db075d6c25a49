// SPDX-License-Identifier: Apache-2.0
#pragma once
// Settings that change nothing for a chosen configuration (a DP algorithm that ZeRO's reduce-scatter never
// uses, compression without data parallelism, ...), so that a tool can say so once instead of letting the
// user believe the knob was honoured.

#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"
#include "costmodel/spec/training.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// A set knob without effect: its TrainingField key and why.
struct IneffectiveKnob {
  std::string key;     ///< "dp_algorithm", "tp_algorithm", "compression", "sequence_parallel", "overlap"
  std::string reason;  ///< "ZeRO 1 exchanges gradients by reduce-scatter and all-gather, ..."
};

/// The knobs `training` sets that leave `estimate` (of `model` on `cluster`) unchanged: re-evaluated without
/// the knob where that is the test (the same step time), or by rule where the knob cannot apply.
[[nodiscard]] std::vector<IneffectiveKnob> ineffective_knobs(const StepEstimate& estimate,
                                                             const ModelSpec& model,
                                                             const ClusterSpec& cluster,
                                                             const TrainingSpec& training);

}  // namespace costmodel::inline COSTMODEL_ABI
