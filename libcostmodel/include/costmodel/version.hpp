// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

namespace costmodel {

/// The library's version, "MAJOR.MINOR.PATCH".
[[nodiscard]] std::string_view version();

}  // namespace costmodel
