// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "costmodel/version.hpp"
// Private to network/: what topology.cpp (sizing each fabric) and link_path.cpp (a communicator's path
// through it) share.

namespace costmodel::inline COSTMODEL_ABI::detail {

constexpr int ceil_div(long long a, long long b) {
  return static_cast<int>((a + b - 1) / b);
}

/// Expected flows on the busiest of `uplinks` equal links when `flows` flows each hash onto one of them
/// uniformly and independently (ECMP; balls into bins).
[[nodiscard]] double expected_busiest_uplink(double flows, int uplinks);

}  // namespace costmodel::inline COSTMODEL_ABI::detail
