# SPDX-License-Identifier: Apache-2.0
# Builds tests/package/subdir, a project that adds costmodel's source tree with add_subdirectory, and runs it.
# -D: COSTMODEL_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
run("configure the add_subdirectory consumer" ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/subdir"
    -B "${WORK_DIR}" ${NESTED_CONFIGURE_ARGS} "-DCOSTMODEL_SOURCE_DIR=${COSTMODEL_SOURCE_DIR}"
    # The library as unity sources: the whole source tree compiles here, and this also checks that the unity
    # build (make test's) still compiles for a consumer.
    -DCOSTMODEL_UNITY=ON)
run("build the add_subdirectory consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}" ${NESTED_BUILD_ARGS})
file(GLOB_RECURSE consumer "${WORK_DIR}/procurement" "${WORK_DIR}/procurement.exe")
if(NOT consumer)
  message(FATAL_ERROR "the consumer was not built")
endif()
list(GET consumer 0 consumer)
# Built from the source tree: the catalogs come from it.
set(ENV{COSTMODEL_DATA_DIR} "${COSTMODEL_SOURCE_DIR}")
run("run the add_subdirectory consumer" "${consumer}" --days 60)
expect_in("${RUN_OUTPUT}" "cheapest plan:" "procurement")
