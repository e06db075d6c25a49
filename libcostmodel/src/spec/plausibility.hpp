// SPDX-License-Identifier: Apache-2.0
#pragma once
// Values that parse but are almost certainly a slip: a scale-up bandwidth equal to the GPU's two-way (or
// bit-rate) figure, a link rate 8x off every catalog link (bytes for bits), a custom entry without a price,
// more NICs than a node's PCIe lanes carry. A warning never changes a result; the CLI prints each on one
// line (and `--strict` makes them errors).

#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/spec/catalog.hpp"
#include "costmodel/spec/cluster.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One implausible value: the cluster field (as a cluster file spells it) and why.
struct Warning {
  std::string field;    ///< "scale_up.bandwidth", "scale_out.link.line_rate", "scale_out.nics_per_node", ...
  std::string message;  ///< what looks wrong and what was probably meant
};

/// Every implausible value of `cluster`, compared with the catalog's entries (empty when none).
[[nodiscard]] std::vector<Warning> plausibility_warnings(const ClusterSpec& cluster, const Catalog& catalog);

}  // namespace costmodel::inline COSTMODEL_ABI
