// SPDX-License-Identifier: Apache-2.0
// NCCL tuner plug-ins (data/nccl-tuners.yaml, network/nccl_tuner.cpp): which cluster selects which platform,
// the point-in-polygon test with its edges included, and the (algorithm, protocol) aws-ofi-nccl's region
// tuner picks in place of NCCL's own, each expectation derived by hand from the region's corners.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "allocation_counter.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/network/collective.hpp"
#include "costmodel/report/configuration.hpp"
#include "network/nccl_tuner.hpp"
#include "report/collective.hpp"

namespace costmodel {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

// `gpus` GPUs, 8 per node, as the EC2 instance of `gpu` on `link` with `nics` NICs per node.
ClusterSpec instance(const std::string& gpu, const std::string& link, int nics, int gpus) {
  ClusterOptions o;
  o.gpu = gpu;
  o.gpus = gpus;
  o.gpus_per_node = 8;
  o.link = link;
  o.nics_per_node = nics;
  return apply_cluster_options(default_cluster(catalog(), gpu), o, catalog());
}

ClusterSpec p5(int gpus) {
  return instance("h100-sxm", "efa-100g", 32, gpus);
}

// The same cluster without any tuner plug-in: NCCL's own choice.
ClusterSpec untuned(ClusterSpec c) {
  c.link.nccl_tuners.clear();
  return c;
}

CommCost allreduce(const ClusterSpec& c, double bytes, int ranks, int stride = 1,
                   Algorithm a = Algorithm::kAuto) {
  return collective_cost(Collective::kAllReduce, a, Bytes(bytes), ranks, stride, c);
}

// A region over (bytes, ranks) corners, as the catalog reader builds it.
TunerRegion region_of(std::initializer_list<std::pair<double, double>> corners) {
  TunerRegion r;
  for (const auto& [bytes, ranks] : corners) r.vertices.push_back(tuner_vertex(bytes, ranks));
  return r;
}

}  // namespace

TEST_CASE("the catalog: a platform per entry, selected by GPU and scale-out link") {
  const Catalog& c = catalog();
  REQUIRE(c.nccl_tuners.size() == 4);
  // 88 regions in all (aws-ofi-nccl @2daf7d30: p5/p5e 18, p5en 22, p6-b200 24, p6-b300 24).
  std::size_t regions = 0;
  for (const auto& t : c.nccl_tuners) regions += t->regions.size();
  CHECK(regions == 88);
  CHECK(p5(64).nccl_tuner()->name == "aws-ofi-nccl-p5");
  CHECK(instance("h200-sxm", "efa-100g", 32, 64).nccl_tuner()->name == "aws-ofi-nccl-p5");  // p5e
  CHECK(instance("b200", "efa-400g", 8, 64).nccl_tuner()->name == "aws-ofi-nccl-p6-b200");
  CHECK(instance("h100-sxm", "ib-ndr-400g", 8, 64).nccl_tuner() == nullptr);  // not EFA: no plug-in
  CHECK(instance("b200", "efa-100g", 32, 64).nccl_tuner() == nullptr);        // no such instance
  // p5en (H200, 16 x 200G EFA) and p6-b300 have no GPU and link pair in the catalogs.
  for (const auto& t : c.nccl_tuners) {
    if (t->platform == "p5en" || t->platform == "p6-b300") CHECK((t->gpus.empty() && t->links.empty()));
  }
}

TEST_CASE("a region holds the points inside it and on its edges, and no other") {
  // The square 2..16 bytes x 2..16 ranks: 1..4 on both log2 axes.
  const TunerRegion square = region_of({{2, 2}, {16, 2}, {16, 16}, {2, 16}});
  CHECK(detail::region_holds(square, tuner_vertex(4, 4)));    // inside
  CHECK(detail::region_holds(square, tuner_vertex(4, 2)));    // on the bottom edge
  CHECK(detail::region_holds(square, tuner_vertex(16, 16)));  // a corner
  CHECK(detail::region_holds(square, tuner_vertex(16, 8)));   // on the right edge
  CHECK_FALSE(detail::region_holds(square, tuner_vertex(32, 4)));
  CHECK_FALSE(detail::region_holds(square, tuner_vertex(4, 1)));
  // A triangle: (4, 8) lies left of its hypotenuse from (2, 2) to (16, 16) in log2 space, (8, 4) right.
  const TunerRegion triangle = region_of({{2, 2}, {16, 2}, {16, 16}});
  CHECK(detail::region_holds(triangle, tuner_vertex(8, 4)));
  CHECK(detail::region_holds(triangle, tuner_vertex(8, 8)));  // on the hypotenuse
  CHECK_FALSE(detail::region_holds(triangle, tuner_vertex(4, 8)));
  // The plug-in's line regions (3 corners, the first repeated) hold their segment only.
  const TunerRegion line = region_of({{31457281, 16}, {107374182400.0, 16}, {31457281, 16}});
  CHECK(detail::region_holds(line, tuner_vertex(64 * kMiB, 16)));
  CHECK_FALSE(detail::region_holds(line, tuner_vertex(64 * kMiB, 17)));
  CHECK_FALSE(detail::region_holds(line, tuner_vertex(16 * kMiB, 16)));
}

TEST_CASE("aws-ofi-nccl on p5, 8 ranks per node: the region tuner's pick replaces NCCL's") {
  const ClusterSpec c = p5(64);  // 8 nodes
  // tree/ll128, the first region: its right edge runs from (37748736 B, 32) to (117440512 B, 64), so at 64
  // ranks it holds every size up to 112 MiB.
  const CommCost small = allreduce(c, 64 * kMiB, 64);
  CHECK(small.tuned);
  CHECK(small.algorithm == Algorithm::kDoubleBinaryTree);
  CHECK(small.protocol == Protocol::kLL128);
  // 112 MiB at 64 ranks is that corner: on tree/ll128's edge, which the first region takes.
  const CommCost corner = allreduce(c, 117440512.0, 64);
  CHECK(corner.tuned);
  CHECK(corner.algorithm == Algorithm::kDoubleBinaryTree);
  // ring/ll128 holds 112 MiB to 2 GiB at 64 ranks (its corners (117440512, 64) and (2147483648, 64)).
  for (const double bytes : {128 * kMiB, 256 * kMiB, 1 * kGiB, 2 * kGiB}) {
    CAPTURE(bytes);
    const CommCost mid = allreduce(c, bytes, 64);
    CHECK(mid.tuned);
    CHECK(mid.algorithm == Algorithm::kRing);
    CHECK(mid.protocol == Protocol::kLL128);
  }
  // ring/simple from 2.5 GiB at 64 ranks (its corner (2684354560, 64)).
  const CommCost large = allreduce(c, 4 * kGiB, 64);
  CHECK(large.tuned);
  CHECK(large.algorithm == Algorithm::kRing);
  CHECK(large.protocol == Protocol::kSimple);
  // Between 2 GiB and 2.5 GiB at 64 ranks no region applies (NVLSTree's start at 128 ranks): NCCL's own.
  const CommCost gap = allreduce(c, 2.25 * kGiB, 64);
  const CommCost own = allreduce(untuned(c), 2.25 * kGiB, 64);
  CHECK_FALSE(gap.tuned);
  CHECK(gap.algorithm == own.algorithm);
  CHECK(gap.protocol == own.protocol);
  CHECK(gap.time.value == doctest::Approx(own.time.value));
  // The pick costs what the pinned pair costs.
  const CommCost pinned = collective_cost(Collective::kAllReduce, Algorithm::kRing, Bytes(256 * kMiB), 64, 1,
                                          c, Protocol::kLL128);
  CHECK_FALSE(pinned.tuned);
  CHECK(allreduce(c, 256 * kMiB, 64).time.value == doctest::Approx(pinned.time.value));
  // An algorithm asked for is not the plug-in's business.
  CHECK_FALSE(allreduce(c, 64 * kMiB, 64, 1, Algorithm::kRing).tuned);
}

TEST_CASE("aws-ofi-nccl leaves 2 nodes or fewer, and communicators without regions, to NCCL") {
  const ClusterSpec c = p5(64);
  for (const double bytes : {64 * kMiB, 256 * kMiB, 4 * kGiB}) {
    CAPTURE(bytes);
    const CommCost two_nodes = allreduce(c, bytes, 16);  // 2 nodes x 8
    const CommCost own = allreduce(untuned(c), bytes, 16);
    CHECK_FALSE(two_nodes.tuned);
    CHECK(two_nodes.algorithm == own.algorithm);
    CHECK(two_nodes.protocol == own.protocol);
  }
  // Every other GPU of 8 nodes, 4 ranks on each: no region set for 4 per node (only 8, 2 and 1).
  CHECK_FALSE(allreduce(c, 256 * kMiB, 32, 2).tuned);
  // All-to-all has no region on p5.
  CHECK_FALSE(collective_cost(Collective::kAllToAll, Algorithm::kAuto, Bytes(256 * kMiB), 64, 1, c).tuned);
}

TEST_CASE(
    "aws-ofi-nccl on p5, one rank per node: ring/ll128 below the (4736000 B, 2)-(269484032 B, 128) edge") {
  // 8 ranks 8 GPUs apart: one per node of 8 nodes. In log2 space that edge is at x = 22.175 + (28.006 -
  // 22.175) x (3 - 1) / 6 = 24.12 for 8 ranks (log2 8 = 3): 18.2 MB. ring/ll128 to its left, ring/simple to
  // its right; tree/ll128 starts at 16 ranks.
  const ClusterSpec c = p5(64);
  const CommCost below = allreduce(c, 1 * kMiB, 8, 8);
  CHECK(below.tuned);
  CHECK(below.algorithm == Algorithm::kRing);
  CHECK(below.protocol == Protocol::kLL128);
  const CommCost above = allreduce(c, 64 * kMiB, 8, 8);
  CHECK(above.tuned);
  CHECK(above.algorithm == Algorithm::kRing);
  CHECK(above.protocol == Protocol::kSimple);
}

TEST_CASE("the plug-in's pick from a prepared table: the same cost, and no allocation") {
  const ClusterSpec c = p5(256);
  const LinkPath path = link_path(c, Communicator{64, 1, 1, 0});
  const CollectivePath prepared = collective_path(path);
  const long before = test::allocations();
  double total = 0.0;
  for (const double bytes : {64 * kMiB, 256 * kMiB, 4 * kGiB}) {
    const CommCost a = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(bytes), path);
    const CommCost b = collective_cost(Collective::kAllReduce, Algorithm::kAuto, Bytes(bytes), prepared);
    CHECK(a.tuned);
    CHECK(b.tuned);
    CHECK(a.algorithm == b.algorithm);
    CHECK(a.protocol == b.protocol);
    CHECK(a.time.value == doctest::Approx(b.time.value));
    total += a.time.value + b.time.value;
  }
  CHECK(test::allocations() == before);
  CHECK(total > 0.0);
}

TEST_CASE("reports name the tuner where it chose") {
  const ClusterSpec c = p5(64);
  const std::vector<Bytes> sizes{Bytes(64 * kMiB), Bytes(2.25 * kGiB)};
  const CollectiveSweep sweep =
      sweep_collective(c, Collective::kAllReduce, Algorithm::kAuto, 64, 1, sizes, Protocol::kAuto);
  const Table table = collective_table(sweep, c);
  bool named = false;
  for (const std::string& note : table.notes)
    named = named || note.find("aws-ofi-nccl's tuner") != std::string::npos;
  CHECK(named);
  StepEstimate e;
  e.collectives[static_cast<std::size_t>(CommGroup::kDp)] = {Collective::kAllReduce, Algorithm::kRing,
                                                             Protocol::kLL128, true};
  CHECK(describe_collectives(e, tuner_label(c)) == "dp allreduce ring/ll128 (aws-ofi-nccl tuner)");
  CHECK(tuner_label(untuned(c)) == "tuner plug-in");
}

}  // namespace costmodel
