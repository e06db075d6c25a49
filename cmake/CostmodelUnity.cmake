# SPDX-License-Identifier: Apache-2.0
# costmodel_unity(target): with COSTMODEL_UNITY (make test), the target compiles as a few unity sources (CMake
# UNITY_BUILD), which parse the standard, yaml-cpp, Eigen and Boost headers once per batch instead of once per
# source file. make test's clang-tidy reads these unity sources too: every source of ours is an included file
# that .clang-tidy's header filter matches. The generated #include of each .cpp is the one thing
# bugprone-suspicious-include must not flag.
function(costmodel_unity target)
  if(COSTMODEL_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16
      UNITY_BUILD_CODE_BEFORE_INCLUDE "// NOLINTNEXTLINE(bugprone-suspicious-include): CMake's unity source")
  endif()
endfunction()
