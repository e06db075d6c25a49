# SPDX-License-Identifier: Apache-2.0
# Warnings for every target of ours: -Wall -Wextra -Wpedantic, and -Werror with COSTMODEL_WERROR (`make test`).
function(costmodel_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(COSTMODEL_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
      # "Sanitizers tend to increase the rate of false positive warnings, most notably those around
      # -Wmaybe-uninitialized" (GCC manual, Instrumentation Options): GCC 12 reports them inside libstdc++'s
      # <regex> and <functional> at -O3 under AddressSanitizer. Still printed, no longer fatal there.
      if(COSTMODEL_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        target_compile_options(${target} PRIVATE -Wno-error=maybe-uninitialized)
      endif()
    endif()
  endif()
endfunction()
