// SPDX-License-Identifier: Apache-2.0
#include "network/nccl_tuner.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

// The plug-in's tolerance for comparisons in its plane (is_inside_region eps), and the far end of its ray:
// twice its largest message (TUNER_MAX_SIZE, 100 GiB) and ranks (TUNER_MAX_RANKS, 2^20),
// include/tuner/nccl_ofi_tuner_region.h.
constexpr double kEps = 1e-10;
constexpr double kRayEndBytes = 2.0 * 100.0 * 1024 * 1024 * 1024;
constexpr double kRayEndRanks = 2.0 * 1024.0 * 1024.0;

struct Vec {
  double x = 0.0;
  double y = 0.0;
};

Vec sub(Vec a, Vec b) {
  return {a.x - b.x, a.y - b.y};
}
double cross(Vec a, Vec b) {
  return a.x * b.y - a.y * b.x;
}
Vec at(TunerVertex v) {
  return {v.log2_bytes, v.log2_ranks};
}

enum class Crossing { kNo, kAtEnd, kYes };

// Whether segment x0-x1 crosses segment y0-y1 (the plug-in's intersect()): kAtEnd when they are parallel or
// cross within eps of y0 or y1, whose crossing it does not count; `where` the crossing on y0-y1's line.
Crossing crossing(Vec x0, Vec x1, Vec y0, Vec y1, Vec* where) {
  const Vec dx = sub(x1, x0);
  const Vec dy = sub(y1, y0);
  const double d = cross(dy, dx);
  if (std::fabs(d) < kEps) return Crossing::kAtEnd;
  // The plug-in divides in long double here; so does this restatement, to place points on edges the same.
  const long double a = static_cast<long double>(cross(x0, dx) - cross(y0, dx)) / d;
  if (where != nullptr) {
    where->x = static_cast<double>(y0.x + a * dy.x);
    where->y = static_cast<double>(y0.y + a * dy.y);
  }
  if (a < -kEps || a > 1 + kEps) return Crossing::kNo;
  if (a < kEps || a > 1 - kEps) return Crossing::kAtEnd;
  const long double b = (cross(x0, dy) - cross(y0, dy)) / d;
  if (b < 0 || b > 1) return Crossing::kNo;
  return Crossing::kYes;
}

// The distance from p to the segment y0-y1 along its normal, infinite when the foot misses it (distance()).
double distance(Vec p, Vec y0, Vec y1) {
  const Vec dy = sub(y1, y0);
  const Vec normal_end{p.x + dy.y, p.y - dy.x};
  Vec foot{0.0, 0.0};
  if (crossing(p, normal_end, y0, y1, &foot) == Crossing::kNo) return std::numeric_limits<double>::infinity();
  const Vec r = sub(foot, p);
  return std::sqrt(r.x * r.x + r.y * r.y);
}

}  // namespace

bool region_holds(const TunerRegion& region, TunerVertex point) {
  const auto& v = region.vertices;
  const std::size_t count = v.size();
  if (count < 2) return false;
  const Vec p = at(point);
  for (std::size_t i = 0; i < count; ++i) {
    if (distance(p, at(v[i]), at(v[(i + 1) % count])) < kEps) return true;
  }
  double min_x = v[0].log2_bytes;
  double max_x = min_x;
  double min_y = v[0].log2_ranks;
  double max_y = min_y;
  for (const TunerVertex& u : v) {
    min_x = std::min(min_x, u.log2_bytes);
    max_x = std::max(max_x, u.log2_bytes);
    min_y = std::min(min_y, u.log2_ranks);
    max_y = std::max(max_y, u.log2_ranks);
  }
  if (p.x < min_x || p.x > max_x || p.y < min_y || p.y > max_y) return false;
  const Vec end = at(tuner_vertex(kRayEndBytes, kRayEndRanks));
  int crosses = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (crossing(p, end, at(v[i]), at(v[(i + 1) % count]), nullptr) == Crossing::kYes) ++crosses;
  }
  return (crosses & 1) != 0;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
