// SPDX-License-Identifier: Apache-2.0
#pragma once
// The library's version, the one place it is written: CMakeLists.txt's project(VERSION), the packages'
// version files, the Python module's __version__ and `costmodel --version` all read it from here.

#include <string_view>

#define COSTMODEL_VERSION_MAJOR 0
#define COSTMODEL_VERSION_MINOR 1
#define COSTMODEL_VERSION_PATCH 0
/// MAJOR * 10000 + MINOR * 100 + PATCH, for `#if COSTMODEL_VERSION >= 100` (0.1.0).
#define COSTMODEL_VERSION \
  (COSTMODEL_VERSION_MAJOR * 10000 + COSTMODEL_VERSION_MINOR * 100 + COSTMODEL_VERSION_PATCH)

/// The inline namespace every name of the library lives in (costmodel::v0_1::estimate, spelt
/// costmodel::estimate): a program compiled against the headers of one ABI links only with a library of
/// the same ABI, instead of failing at run time. 0.x: each minor version may break the ABI and gets its own.
#define COSTMODEL_ABI v0_1

namespace costmodel::inline COSTMODEL_ABI {

/// The library's version, "MAJOR.MINOR.PATCH" (the macros above, as the library was built).
[[nodiscard]] std::string_view version();

}  // namespace costmodel::inline COSTMODEL_ABI

// A program built with pkg-config (costmodel.pc's Cflags: -DCOSTMODEL_PACKAGE_DATA_DIR_PATH=${datadir}, the
// package's share/costmodel wherever the prefix now is) tells the library where that package's catalogs
// are, as costmodel_data_dir.cpp does for CMake consumers: every public header includes this one. The path
// arrives unquoted (pkg-config strips quotes), so it is turned into a string here, with the macros GNU mode
// predefines for path-like words (linux, unix) set aside. A path with spaces needs $COSTMODEL_DATA_DIR.
#if defined(COSTMODEL_PACKAGE_DATA_DIR_PATH)
#pragma push_macro("linux")
#pragma push_macro("unix")
#undef linux
#undef unix
#define COSTMODEL_DETAIL_STRING(x) #x
#define COSTMODEL_DETAIL_EXPANDED_STRING(x) COSTMODEL_DETAIL_STRING(x)
namespace costmodel::inline COSTMODEL_ABI {
bool register_package_data_dir(const char* path);  // io/catalog.hpp
namespace detail {
inline const bool kPackageDataDirRegistered =
    register_package_data_dir(COSTMODEL_DETAIL_EXPANDED_STRING(COSTMODEL_PACKAGE_DATA_DIR_PATH));
}  // namespace detail
}  // namespace costmodel::inline COSTMODEL_ABI
#pragma pop_macro("unix")
#pragma pop_macro("linux")
#endif
