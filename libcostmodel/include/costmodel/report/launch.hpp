// SPDX-License-Identifier: Apache-2.0
#pragma once
// A configuration as the arguments that launch it: Megatron-LM / Megatron-Core flags (pretrain_gpt.py) and
// NeMo 2 recipe overrides (`nemo llm pretrain ... key=value`), one block per configuration, each headed by a
// comment line with the predicted step time. `plan --format megatron|nemo` and `estimate --format ...`.

#include <ostream>
#include <string>
#include <vector>

#include "costmodel/estimate/step.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"

namespace costmodel {

/// The Megatron-LM arguments of `estimate` (parallel degrees, batch, sequence, recompute, optimizer
/// sharding, overlap, precision), one per line with shell continuations, after a `# costmodel:` comment line.
/// ZeRO-2 has no Megatron-LM flag and ZeRO-3 maps to --use-torch-fsdp2: both say so in a comment.
/// `options` adds what is not part of the strategy (--tp-comm-overlap).
[[nodiscard]] std::string megatron_arguments(const StepEstimate& estimate, const ModelSpec& model,
                                             const ClusterSpec& cluster, const EstimateOptions& options = {});

/// The NeMo 2 recipe overrides of `estimate` (trainer.strategy.*, data.*, model.config.*), one per line.
[[nodiscard]] std::string nemo_overrides(const StepEstimate& estimate, const ModelSpec& model,
                                         const ClusterSpec& cluster, const EstimateOptions& options = {});

/// One block per estimate in `format` (kMegatron or kNemo), separated by blank lines.
void write_launch(std::ostream& out, const std::vector<StepEstimate>& estimates, const ModelSpec& model,
                  const ClusterSpec& cluster, Format format, const EstimateOptions& options = {});

}  // namespace costmodel
