// SPDX-License-Identifier: Apache-2.0
#pragma once
// Heap allocations of the whole test process (tests/allocation_counter.cpp replaces the global operator new),
// so that a suite can show that a hot path allocates nothing: read allocations() before and after it.

namespace costmodel::test {

/// Calls to the global operator new so far.
[[nodiscard]] long allocations();

}  // namespace costmodel::test
