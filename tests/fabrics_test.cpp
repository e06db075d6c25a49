// SPDX-License-Identifier: Apache-2.0
// One home per fabric: every file of libcostmodel/src/network/fabrics/ is one fabric, data/topologies.yaml
// holds one entry per fabric, and everything else (CLI names, plan --topology auto, compare_fabrics, the
// catalog listing) reads the registry, so adding a fabric is its file and its entry (CONTRIBUTING.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "costmodel/analysis/fabrics.hpp"
#include "costmodel/error.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/search/planner.hpp"
#include "network_fixtures.hpp"

using namespace costmodel;

namespace {

namespace fs = std::filesystem;

// A copy of the source tree's catalog whose data/topologies.yaml says `topologies`.
fs::path catalog_with_topologies(const std::string& name, const std::string& topologies) {
  const fs::path root = fs::temp_directory_path() / ("costmodel-fabrics-test-" + name);
  fs::remove_all(root);
  fs::create_directories(root / "data");
  const fs::path source(COSTMODEL_TEST_SOURCE_DIR);
  for (const auto& entry : fs::directory_iterator(source / "data")) {
    if (entry.path().filename() != "topologies.yaml")
      fs::copy(entry.path(), root / "data" / entry.path().filename());
  }
  fs::create_directory_symlink(source / "models", root / "models");
  std::ofstream(root / "data" / "topologies.yaml") << topologies;
  return root;
}

}  // namespace

TEST_CASE("the catalog lists every fabric the library builds, each with its sources") {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  std::set<std::string> listed;
  for (const TopologyEntry& entry : catalog.topologies) {
    CAPTURE(entry.name);
    CHECK(entry.source.size() > 40);
    CHECK(parse_topology_kind(entry.name).has_value());
    listed.insert(entry.name);
  }
  const std::vector<std::string> built = topology_names();
  CHECK(listed == std::set<std::string>(built.begin(), built.end()));
  // The six built-in kinds keep their public names and values.
  CHECK(built.size() >= static_cast<std::size_t>(kTopologyKindCount));
  CHECK(to_string(TopologyKind::kFatTree) == "fat-tree");
  CHECK(to_string(TopologyKind::kTorus3D) == "torus-3d");
  CHECK(parse_topology_kind("dragonfly-plus") == TopologyKind::kDragonflyPlus);
  CHECK_FALSE(parse_topology_kind("fat_tree").has_value());
}

TEST_CASE("every catalog fabric builds 1,024 H100 and routes a data-parallel ring across it") {
  const Catalog catalog = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  for (const TopologyEntry& entry : catalog.topologies) {
    CAPTURE(entry.name);
    const TopologyKind kind = parse_topology_kind(entry.name).value();
    const ClusterSpec cluster = test::dgx_h100(1024, kind);
    const Topology topology = build_topology(cluster);
    CHECK(topology.kind == kind);
    CHECK(topology.nodes == 128);
    // A switched fabric has switches and host links; a direct one neither, and one link per NIC pair.
    CHECK((topology.inventory.switches > 0) == traits(kind).switched);
    CHECK((topology.inventory.host_links == 128 * 8) == traits(kind).switched);
    CHECK((topology.inventory.direct_links == 128 * 8 / 2) == !traits(kind).switched);
    // GPU 0 of every node: 128 ranks, one per node, all 8 GPU groups at once.
    const LinkPath path = link_path(topology, Communicator{128, 8, 8, 0});
    CHECK(path.scale_out.ranks == 128);
    CHECK(path.scale_out.bandwidth.value > 0.0);
    CHECK(path.scale_out.all_to_all_bandwidth.value > 0.0);
    // Never above one rank's NIC share: 8 NDR ports x 0.9 (the fixture's efficiency) over 8 GPUs.
    CHECK(path.scale_out.bandwidth.value <= topology.nic_bandwidth.value * 1.000001);
  }
}

TEST_CASE("plan --topology auto, compare_fabrics and the CLI's names read the same registry") {
  // fat-tree at 1:1, 2:1 and 4:1, then every other fabric its file names for auto (torus-2d names none).
  const std::vector<TopologyChoice> choices = auto_topologies();
  REQUIRE(choices.size() == 7);
  CHECK(choices[0].kind == TopologyKind::kFatTree);
  CHECK(choices[2].oversubscription == 4.0);
  CHECK(choices.back().kind == TopologyKind::kTorus3D);
  CHECK(std::none_of(choices.begin(), choices.end(),
                     [](const TopologyChoice& c) { return c.kind == TopologyKind::kTorus2D; }));
  const std::vector<FabricOption> options = compare_fabrics(test::dgx_h100(1024));
  CHECK(options.size() == topology_names().size());
  CHECK(parse_topology_choices("rail-only:2,torus-2d").size() == 2);
}

TEST_CASE("data/topologies.yaml: an entry without a fabric, and a fabric without an entry, are errors") {
  const std::string all =
      "topologies:\n"
      "  - {name: fat-tree, source: s}\n  - {name: rail-optimized, source: s}\n"
      "  - {name: rail-only, source: s}\n  - {name: dragonfly-plus, source: s}\n"
      "  - {name: torus-2d, source: s}\n  - {name: torus-3d, source: s}\n";
  CHECK(load_catalog(catalog_with_topologies("all", all).string()).topologies.size() == 6);
  try {
    (void)load_catalog(catalog_with_topologies("typo", all + "  - {name: fat-trees, source: s}\n").string());
    FAIL("an unknown fabric loaded");
  } catch (const Error& e) {
    CHECK(e.field() == "topologies[6].name");
    CHECK(e.location().line == 8);
    CHECK(e.hint() == "did you mean 'fat-tree'?");
  }
  const std::string without_torus = all.substr(0, all.find("  - {name: torus-2d"));
  try {
    (void)load_catalog(catalog_with_topologies("missing", without_torus).string());
    FAIL("a fabric without an entry loaded");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("fabric 'torus-2d'") != std::string::npos);
  }
  for (const char* name : {"all", "typo", "missing"}) {
    fs::remove_all(fs::temp_directory_path() / (std::string("costmodel-fabrics-test-") + name));
  }
}
