// SPDX-License-Identifier: Apache-2.0
// The table of algorithms: each one's rule and entry, from its own file in this folder.
#include <array>
#include <cstddef>

#include "algorithm.hpp"

namespace costmodel::inline COSTMODEL_ABI::detail {
namespace {

// Indexed by Algorithm (spec/collective.hpp), Auto excluded.
constexpr std::array<const AlgorithmRule*, kAlgorithmCount - 1> kRules{
    &kRingRule,      &kTreeRule,     &kHalvingDoublingRule, &kHierarchicalRule, &kDirectRule,
    &kInNetworkRule, &kNvlsTreeRule, &kTorusBucketRule,     &kPatRule};

}  // namespace

const AlgorithmRule& rule_of(Algorithm a) {
  return *kRules[static_cast<std::size_t>(a)];
}

// A measured factor on the protocol's bandwidth (ProtocolCalibration) of the level the communicator spans.
Entry evaluate(Collective c, Algorithm a, int proto, const Model& m) {
  if (a == Algorithm::kAuto) return {};
  Entry e = rule_of(a).entry(c, proto, m);
  const double factor = (m.multi ? m.out_bw_factor : m.up_bw_factor)[static_cast<std::size_t>(proto)];
  if (e.runs() && factor != 1.0) {
    e.seconds_per_byte /= factor;
    e.channel_seconds_per_byte /= factor;
    e.pipeline.seconds_per_byte /= factor;
    e.pipeline.first_seconds_per_byte /= factor;
    e.pipeline.delay_seconds_per_byte /= factor;
  }
  return e;
}

}  // namespace costmodel::inline COSTMODEL_ABI::detail
