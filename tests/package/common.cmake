# SPDX-License-Identifier: Apache-2.0
# Helpers of the package tests (run with cmake -P).

# run(<what> COMMAND...): runs the command, fails the test with its output unless it exits 0; the output is
# left in RUN_OUTPUT.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${ARGN}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  set(RUN_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

# expect_in(<text> <part> <what>): fails unless <part> occurs in <text>.
function(expect_in text part what)
  string(FIND "${text}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected '${part}' in:\n${text}")
  endif()
endfunction()

# The nested builds: same generator and compiler as the outer build, but none of its flags (no sanitizer) and
# no optimisation: they check that the package and the source tree can be consumed, not the code (the outer
# build's tests do that), so they compile as fast as the compiler can (-O0, no debug information), -j2.
# LINKER_FLAGS: only what linking the outer build's installed library needs (its sanitizer runtimes).
set(NESTED_CONFIGURE_ARGS -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
set(NESTED_BUILD_ARGS --config Debug -j2)

# Catalogs must come from the package, never from $COSTMODEL_DATA_DIR.
unset(ENV{COSTMODEL_DATA_DIR})
