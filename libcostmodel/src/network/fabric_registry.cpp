// SPDX-License-Identifier: Apache-2.0
// The table of fabrics: every file of fabrics/ (CMake lists them in fabric_list.inc, one
// COSTMODEL_FABRIC(file stem) line each), numbered by TopologyKind: the built-in kinds first, at their
// enumerator, then the others in file-name order.
#include <algorithm>
#include <string>
#include <vector>

#include "costmodel/error.hpp"
#include "fabric.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace detail {

// Each file of fabrics/ defines fabric_rules_<stem>().
#define COSTMODEL_FABRIC(stem) std::span<const FabricRule> fabric_rules_##stem();
#include "fabric_list.inc"
#undef COSTMODEL_FABRIC

namespace {

std::vector<const FabricRule*> make_registry() {
  std::vector<const FabricRule*> rules(kTopologyKindCount, nullptr);
  std::vector<const FabricRule*> added;
  const auto take = [&](std::span<const FabricRule> defined) {
    for (const FabricRule& rule : defined) {
      if (rule.builtin) {
        rules[static_cast<std::size_t>(*rule.builtin)] = &rule;
      } else {
        added.push_back(&rule);
      }
    }
  };
#define COSTMODEL_FABRIC(stem) take(fabric_rules_##stem());
#include "fabric_list.inc"
#undef COSTMODEL_FABRIC
  for (const FabricRule* rule : rules) {
    if (rule == nullptr)
      throw Error("a built-in topology kind has no file in network/fabrics/", ErrorKind::kInternal);
  }
  rules.insert(rules.end(), added.begin(), added.end());
  return rules;
}

const std::vector<const FabricRule*>& registry() {
  static const std::vector<const FabricRule*> rules = make_registry();
  return rules;
}

}  // namespace

const FabricRule& fabric_rule(TopologyKind kind) {
  const auto& rules = registry();
  const auto index = static_cast<std::size_t>(kind);
  if (index >= rules.size())
    throw Error("topology kind " + std::to_string(index) + " has no fabric", ErrorKind::kInternal);
  return *rules[index];
}

}  // namespace detail

std::vector<TopologyKind> topology_kinds() {
  std::vector<TopologyKind> kinds;
  for (std::size_t i = 0; i < detail::registry().size(); ++i) kinds.push_back(static_cast<TopologyKind>(i));
  return kinds;
}

const TopologyTraits& traits(TopologyKind kind) {
  return detail::fabric_rule(kind).traits;
}

std::string_view to_string(TopologyKind kind) {
  return traits(kind).name;
}

std::string_view describe(TopologyKind kind) {
  return traits(kind).description;
}

std::optional<TopologyKind> parse_topology_kind(std::string_view name) {
  const auto& rules = detail::registry();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (rules[i]->traits.name == name) return static_cast<TopologyKind>(i);
  }
  return std::nullopt;
}

std::string fabric_note(const Topology& topology) {
  const auto note = detail::fabric_rule(topology.kind).note;
  return note == nullptr ? std::string() : note(topology);
}

std::vector<std::string> topology_names() {
  std::vector<std::string> names;
  for (const detail::FabricRule* rule : detail::registry()) names.emplace_back(rule->traits.name);
  return names;
}

}  // namespace costmodel::inline COSTMODEL_ABI
