// SPDX-License-Identifier: Apache-2.0
#include "estimate/overlap.hpp"

#include <doctest/doctest.h>

using namespace costmodel;

TEST_CASE("one budget: a window hides at most its own compute, shared by every stream") {
  // 10 s of compute, 4 s of it attention core; 3 s of CP ring and 9 s of DP streams.
  Overlapped o = overlap({10.0, 4.0, 3.0, 9.0}, 1.0);
  // The ring takes 3 s of the core, the DP streams the remaining 7 s: 2 s of DP stay exposed.
  CHECK(o.hidden == doctest::Approx(10.0));
  CHECK(o.confined_exposed == doctest::Approx(0.0));
  CHECK(o.free_exposed == doctest::Approx(2.0));
  // The ring cannot spill outside the attention core.
  o = overlap({10.0, 4.0, 6.0, 0.0}, 1.0);
  CHECK(o.confined_exposed == doctest::Approx(2.0));
  CHECK(o.hidden == doctest::Approx(4.0));
  // The efficiency applies once, to what overlaps: 80% of 10 s.
  o = overlap({10.0, 4.0, 3.0, 9.0}, 0.8);
  CHECK(o.hidden == doctest::Approx(8.0));
  CHECK(o.confined_exposed + o.free_exposed == doctest::Approx(12.0 - 8.0));
  // Nothing to hide behind: everything exposed.
  o = overlap({0.0, 0.0, 3.0, 9.0}, 1.0);
  CHECK(o.hidden == 0.0);
  CHECK(o.confined_exposed + o.free_exposed == doctest::Approx(12.0));
}
