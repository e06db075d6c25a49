// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hugging Face transformers `config.json` files as models: the decoder-only families of the catalog (Llama,
// Mistral, Mixtral, Qwen2/2.5/3 dense and MoE, GPT-NeoX, OPT, Falcon), their fields mapped onto the model
// schema (DESIGN.md §4). Fields the model does not need are ignored; a missing required field is an error
// naming it at FILE:LINE:COL. DeepSeek-V2/V3 use multi-head latent attention, which the model does not
// describe: a clear error.

#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/model.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The model a config.json describes; named after its `_name_or_path`, else the file's folder. The training
/// sequence length is `max_position_embeddings` (override it with --seq-len or training.seq_len).
[[nodiscard]] ModelSpec load_hf_config_file(const std::string& path);
/// The same from the file's text; `filename` is used in error messages.
[[nodiscard]] ModelSpec load_hf_config_text(const std::string& json, const std::string& filename);

/// "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gpt_neox", "opt", "falcon".
[[nodiscard]] const std::vector<std::string>& hf_model_types();

}  // namespace costmodel::inline COSTMODEL_ABI
