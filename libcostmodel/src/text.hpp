// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small text helpers shared by the library's sources (private).

#include <string>
#include <vector>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// `items` joined by `separator`: join({"a", "b"}, ", ") == "a, b".
[[nodiscard]] inline std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

}  // namespace costmodel::inline COSTMODEL_ABI
