// SPDX-License-Identifier: Apache-2.0
// Compiled into every program that links the installed costmodel package (the package's INTERFACE_SOURCES):
// tells the library where this package's catalogs are, as find_package(costmodel) located them, so that a
// program built outside the prefix, and a relocated prefix, find data/ and models/ without
// $COSTMODEL_DATA_DIR. COSTMODEL_PACKAGE_DATA_DIR is set by costmodelConfig.cmake.
#include <costmodel/io/catalog.hpp>

namespace {
[[maybe_unused]] const bool kRegistered = costmodel::register_package_data_dir(COSTMODEL_PACKAGE_DATA_DIR);
}  // namespace
