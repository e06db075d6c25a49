# SPDX-License-Identifier: Apache-2.0
# Installs the outer build into a temporary prefix, checks the package's files, builds examples/api against
# it with find_package(costmodel), runs the installed CLI and the example without $COSTMODEL_DATA_DIR, then
# moves the prefix and runs both again (catalogs found beside the executable).
# -D: COSTMODEL_SOURCE_DIR COSTMODEL_BINARY_DIR WORK_DIR CONFIG GENERATOR CXX_COMPILER LINKER_FLAGS
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(REAL_PATH "${WORK_DIR}" WORK_DIR)
set(prefix "${WORK_DIR}/prefix")
set(install_config)
if(CONFIG)
  set(install_config --config ${CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install "${COSTMODEL_BINARY_DIR}" --prefix "${prefix}" ${install_config})

# The package's files.
foreach(path include/costmodel/costmodel.hpp include/costmodel/io/cluster_writer.hpp bin/costmodel
             share/costmodel/data/gpus.yaml share/costmodel/data/links.yaml share/costmodel/data/switches.yaml
             share/costmodel/models/gpt3-175b.yaml)
  if(NOT EXISTS "${prefix}/${path}")
    message(FATAL_ERROR "not installed: ${path}")
  endif()
endforeach()
file(GLOB_RECURSE config "${prefix}/*/costmodelConfig.cmake")
file(GLOB_RECURSE config_version "${prefix}/*/costmodelConfigVersion.cmake")
file(GLOB_RECURSE pc_file "${prefix}/*/pkgconfig/costmodel.pc")
file(GLOB_RECURSE library "${prefix}/*/libcostmodel.*")
if(NOT config OR NOT config_version OR NOT pc_file OR NOT library)
  message(FATAL_ERROR "missing package files: config '${config}' version '${config_version}' pc '${pc_file}' "
                      "library '${library}'")
endif()

# yaml-cpp, Boost and Eigen stay out of the public headers.
file(GLOB_RECURSE headers "${prefix}/include/costmodel/*.hpp")
foreach(header ${headers})
  file(STRINGS "${header}" includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${includes})
    if(line MATCHES "yaml-cpp|yaml\\.h|boost/|Eigen")
      message(FATAL_ERROR "${header} includes a private dependency: ${line}")
    endif()
  endforeach()
endforeach()

# The installed CLI finds its catalogs.
run("installed costmodel catalog" "${prefix}/bin/costmodel" catalog gpus --format csv)
expect_in("${RUN_OUTPUT}" "h100-sxm" "installed costmodel catalog gpus")

# examples/api against the package: find_package(costmodel) + costmodel::costmodel only.
set(app_build "${WORK_DIR}/api-build")
run("configure examples/api" ${CMAKE_COMMAND} -S "${COSTMODEL_SOURCE_DIR}/examples/api" -B "${app_build}"
    ${NESTED_CONFIGURE_ARGS} "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
run("build examples/api" ${CMAKE_COMMAND} --build "${app_build}" ${NESTED_BUILD_ARGS})
run("install examples/api" ${CMAKE_COMMAND} --install "${app_build}" --prefix "${prefix}" --config Debug)
run("run the example" "${prefix}/bin/procurement")
expect_in("${RUN_OUTPUT}" "cheapest plan:" "procurement")
expect_in("${RUN_OUTPUT}" "catalogs: ${prefix}/share/costmodel" "procurement (catalogs from the package)")
message(STATUS "procurement:\n${RUN_OUTPUT}")

# A relocated prefix: the CLI and the example find the catalogs beside their bin/.
set(moved "${WORK_DIR}/moved")
file(RENAME "${prefix}" "${moved}")
run("relocated costmodel catalog" "${moved}/bin/costmodel" catalog links --format csv)
expect_in("${RUN_OUTPUT}" "ib-ndr-400g" "relocated costmodel catalog links")
run("relocated example" "${moved}/bin/procurement" --days 60 --gpu-price 30000 --format markdown)
expect_in("${RUN_OUTPUT}" "${moved}/share/costmodel" "relocated procurement")
run("relocated costmodel --version" "${moved}/bin/costmodel" --version)
expect_in("${RUN_OUTPUT}" "data: ${moved}/share/costmodel" "relocated costmodel --version")

# A program built against the relocated prefix and run from its own build folder, outside the prefix: the
# package registers its catalogs' folder with the library (costmodel_data_dir.cpp), no $COSTMODEL_DATA_DIR.
set(outside_build "${WORK_DIR}/api-outside")
run("configure examples/api against the relocated prefix" ${CMAKE_COMMAND} -S "${COSTMODEL_SOURCE_DIR}/examples/api"
    -B "${outside_build}" ${NESTED_CONFIGURE_ARGS} "-DCMAKE_PREFIX_PATH=${moved}"
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
run("build examples/api against the relocated prefix" ${CMAKE_COMMAND} --build "${outside_build}" ${NESTED_BUILD_ARGS})
file(GLOB_RECURSE outside_procurement "${outside_build}/procurement")
run("the API example outside the prefix" ${outside_procurement})
expect_in("${RUN_OUTPUT}" "catalogs: ${moved}/share/costmodel" "procurement built outside the prefix")

# pkg-config sees the relocated prefix through ${pcfiledir}.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  get_filename_component(pc_dir "${pc_file}" DIRECTORY)
  string(REPLACE "${prefix}" "${moved}" pc_dir "${pc_dir}")
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  run("pkg-config" "${PKG_CONFIG}" --cflags --libs costmodel)
  expect_in("${RUN_OUTPUT}" "-lcostmodel" "pkg-config --libs costmodel")
  expect_in("${RUN_OUTPUT}" "-I${moved}/" "pkg-config --cflags costmodel")
  # The pkg-config consumer: examples/api/procurement.cpp compiled with nothing but pkg-config's flags
  # against the moved prefix, run from its own folder outside it: the catalogs come from the moved package
  # (costmodel.pc's datadir, through costmodel/version.hpp), with no $COSTMODEL_DATA_DIR.
  string(STRIP "${RUN_OUTPUT}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  separate_arguments(linker_flags UNIX_COMMAND "${LINKER_FLAGS}")
  set(pc_consumer "${WORK_DIR}/pkg-config-consumer/procurement")
  file(MAKE_DIRECTORY "${WORK_DIR}/pkg-config-consumer")
  run("build examples/api/procurement.cpp with pkg-config" "${CXX_COMPILER}" -std=c++20 -O0
      "${COSTMODEL_SOURCE_DIR}/examples/api/procurement.cpp" ${pc_flags} ${linker_flags} -o "${pc_consumer}")
  run("the pkg-config consumer outside the prefix" "${pc_consumer}" --days 60)
  expect_in("${RUN_OUTPUT}" "catalogs: ${moved}/share/costmodel" "procurement built with pkg-config")
endif()
