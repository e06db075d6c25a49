// SPDX-License-Identifier: Apache-2.0
#pragma once
// The parallel degrees a split's short text names beyond tp, pp and dp, shared by the scenario and the
// validation tables.

#include <string>
#include "costmodel/version.hpp"

#include "costmodel/spec/strategy.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {

/// " cp2 ep8 etp1": context parallelism and experts when used, and whole experts (etp other than tp).
[[nodiscard]] inline std::string degrees_beyond_tp_pp_dp(const Strategy& s) {
  std::string text;
  if (s.cp > 1) text += " cp" + std::to_string(s.cp);
  if (s.ep > 1) text += " ep" + std::to_string(s.ep);
  if (s.expert_tp() != s.tp) text += " etp" + std::to_string(s.expert_tp());
  return text;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
