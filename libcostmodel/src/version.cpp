// SPDX-License-Identifier: Apache-2.0
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::string_view version() {
  return COSTMODEL_VERSION_STRING;
}

}  // namespace costmodel::inline COSTMODEL_ABI
