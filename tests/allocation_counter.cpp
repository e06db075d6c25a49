// SPDX-License-Identifier: Apache-2.0
// The one replacement of the global operator new in costmodel_tests: it counts, then allocates with malloc.
#include "allocation_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations{0};  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's buffer uses it): every allocation that reaches our delete must
// come from malloc, or AddressSanitizer reports a new/free mismatch.
void* operator new(std::size_t size, const std::nothrow_t& /*tag*/) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
// The replacement pair is malloc/free; GCC cannot see that new and delete were both replaced.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t /*size*/) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t& /*tag*/) noexcept {
  std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace costmodel::test {

long allocations() {
  return g_allocations.load(std::memory_order_relaxed);
}

}  // namespace costmodel::test
