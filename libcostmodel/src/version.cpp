// SPDX-License-Identifier: Apache-2.0
#include "costmodel/version.hpp"

namespace costmodel {

std::string_view version() {
  return COSTMODEL_VERSION_STRING;
}

}  // namespace costmodel
