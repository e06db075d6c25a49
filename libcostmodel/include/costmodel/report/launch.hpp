// SPDX-License-Identifier: Apache-2.0
#pragma once
// A configuration as the arguments that launch it: Megatron-LM / Megatron-Core flags (pretrain_gpt.py) and
// NeMo 2 recipe overrides (`nemo llm pretrain ... key=value`), one block per configuration, each headed by a
// comment line with the predicted step time. `plan --format megatron|nemo` and `estimate --format ...`.

#include <ostream>
#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/estimate/step.hpp"
#include "costmodel/report/table.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/model.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The Megatron-LM arguments of `estimate` (the architecture, MoE and MLA, parallel degrees, batch, sequence,
/// the run's samples, recompute, optimizer sharding, overlap, precision), one per line with shell
/// continuations, then `# costmodel:` comment lines: pasted after `torchrun ... pretrain_gpt.py \` they are
/// one command. ZeRO-3 maps to --use-torch-fsdp2. `options` adds what is not part of the strategy
/// (--tp-comm-overlap, --train-samples from the tokens). Throws Error (kInput, field "--format") for what
/// Megatron-LM cannot run: ZeRO-2, a stack other than megatron-* or nemo, ALiBi.
[[nodiscard]] std::string megatron_arguments(const StepEstimate& estimate, const ModelSpec& model,
                                             const ClusterSpec& cluster, const EstimateOptions& options = {});

/// torchtitan's configuration of `estimates` (pytorch/torchtitan @b5bcd76c: a run is a Python function that
/// returns a Trainer.Config, torchtitan/config/README.md; the `--section.option` flags are frozen and TOML
/// files are gone): a module whose functions, one per estimate, start from torchtitan's own configuration of
/// the model (torchtitan/models/<family>/config_registry.py) and set its parallelism, batch, sequence,
/// steps, activation checkpointing, async TP and FP8. Throws Error (kInput, field "--format") for a plan of
/// another stack, a model torchtitan does not ship, and what the export cannot state: uneven stages,
/// tensor-parallel experts, FP8 outside Llama 3.
[[nodiscard]] std::string torchtitan_config(const std::vector<StepEstimate>& estimates,
                                            const ModelSpec& model, const ClusterSpec& cluster,
                                            const EstimateOptions& options = {});

/// The NeMo 2 recipe overrides of `estimate` (trainer.strategy.*, data.*, model.config.*), one per line.
/// Throws Error as megatron_arguments() for what NeMo's Megatron-Core cannot run.
[[nodiscard]] std::string nemo_overrides(const StepEstimate& estimate, const ModelSpec& model,
                                         const ClusterSpec& cluster, const EstimateOptions& options = {});

/// One block per estimate in `format` (kMegatron or kNemo), separated by blank lines.
void write_launch(std::ostream& out, const std::vector<StepEstimate>& estimates, const ModelSpec& model,
                  const ClusterSpec& cluster, Format format, const EstimateOptions& options = {});

}  // namespace costmodel::inline COSTMODEL_ABI
