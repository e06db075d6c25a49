# SPDX-License-Identifier: Apache-2.0
# Install rules (only when costmodel is the top-level project, {fmt}'s convention): headers, the library,
# the CLI as `costmodel`, the catalogs under share/costmodel/{data,models}, the CMake package
# (costmodelConfig.cmake + version file exporting costmodel::costmodel) and costmodel.pc.
include(CMakePackageConfigHelpers)

set(COSTMODEL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/costmodel)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/libcostmodel/include/costmodel
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT costmodel_development
        FILES_MATCHING PATTERN "*.hpp")
install(TARGETS costmodel EXPORT costmodelTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT costmodel_development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT costmodel_runtime
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT costmodel_runtime)
if(TARGET costmodel_cli)
  install(TARGETS costmodel_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT costmodel_runtime)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/costmodel/data
        COMPONENT costmodel_runtime FILES_MATCHING PATTERN "*.yaml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/costmodel/models
        COMPONENT costmodel_runtime FILES_MATCHING PATTERN "*.yaml")

# A static costmodel carries its private dependencies as $<LINK_ONLY:...> in the export; the package config
# finds them again (yaml-cpp under whichever target name its version exports, Threads).
install(EXPORT costmodelTargets NAMESPACE costmodel:: DESTINATION ${COSTMODEL_CMAKE_DIR}
        COMPONENT costmodel_development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/costmodelConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/costmodelConfig.cmake
                              INSTALL_DESTINATION ${COSTMODEL_CMAKE_DIR} PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: minor versions may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/costmodelConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/costmodelConfig.cmake ${PROJECT_BINARY_DIR}/costmodelConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/costmodel_data_dir.cpp
        DESTINATION ${COSTMODEL_CMAKE_DIR} COMPONENT costmodel_development)

# pkg-config: paths relative to the .pc file, so that a relocated prefix keeps working.
set(COSTMODEL_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH COSTMODEL_PC_TO_PREFIX /prefix/${COSTMODEL_PC_DIR} /prefix)
string(REGEX REPLACE "/$" "" COSTMODEL_PC_TO_PREFIX "${COSTMODEL_PC_TO_PREFIX}")
if(BUILD_SHARED_LIBS)
  set(COSTMODEL_PC_REQUIRES_PRIVATE "Requires.private: yaml-cpp")
  set(COSTMODEL_PC_LIBS_PRIVATE "Libs.private: -pthread")
  set(COSTMODEL_PC_REQUIRES "")
  set(COSTMODEL_PC_THREADS "")
else()
  # A static library cannot link without yaml-cpp: a plain `pkg-config --libs costmodel` must name it.
  set(COSTMODEL_PC_REQUIRES "Requires: yaml-cpp")
  set(COSTMODEL_PC_THREADS " -pthread")
  set(COSTMODEL_PC_REQUIRES_PRIVATE "")
  set(COSTMODEL_PC_LIBS_PRIVATE "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/costmodel.pc.in ${PROJECT_BINARY_DIR}/costmodel.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/costmodel.pc DESTINATION ${COSTMODEL_PC_DIR}
        COMPONENT costmodel_development)
