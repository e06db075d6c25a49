// SPDX-License-Identifier: Apache-2.0
#include "spec/plausibility.hpp"

#include <cmath>

#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// a within 5% of b.
bool near(double a, double b) {
  return b > 0.0 && std::fabs(a / b - 1.0) < 0.05;
}

std::string rate(BytesPerSecond r) {
  return format_quantity(r.value, Dimension::kBytesPerSecond);
}

// The most NICs a server carries: 8 GPUs x16 plus 8 NICs x16 already use 256 PCIe lanes through the PCIe
// switches of an HGX baseboard (NVIDIA DGX H100 user guide: 8 compute NICs for 8 GPUs); two NICs per GPU is
// the most any shipping server has.
constexpr int kMaxNicsPerGpu = 2;

void check_scale_up(const ClusterSpec& c, std::vector<Warning>& out) {
  if (!c.scale_up) return;  // the GPU entry's own fabric
  // Another catalog fabric swapped in (--scale-up ualink-1.0) has its own bandwidth, not a slip of the GPU's.
  if (!c.scale_up->name.empty() && c.scale_up->name != c.gpu.scale_up.name) return;
  const BytesPerSecond given = c.scale_up->bandwidth;
  const BytesPerSecond catalog = c.gpu.scale_up.bandwidth;
  if (near(given.value, 2.0 * catalog.value)) {
    out.push_back({"scale_up.bandwidth", rate(given) + " is " + c.gpu.name +
                                             "'s two-way NVLink figure; the field is per direction (" +
                                             rate(catalog) + ")"});
  } else if (near(given.value, 2.0 * catalog.value / kBitsPerByte)) {
    // "900Gbps" for an H100: the datasheet's 900 GB/s two-way figure, typed as bits.
    out.push_back({"scale_up.bandwidth", rate(given) + " is " + c.gpu.name +
                                             "'s two-way NVLink figure read as "
                                             "bits; the field is per direction, in bytes (" +
                                             rate(catalog) + ")"});
  } else if (near(given.value, catalog.value / kBitsPerByte)) {
    out.push_back({"scale_up.bandwidth", rate(given) + " is " + c.gpu.name + "'s " + rate(catalog) +
                                             " read as bits; did you mean bytes (GB/s, not Gbps)?"});
  }
}

void check_link(const ClusterSpec& c, const Catalog& catalog, std::vector<Warning>& out) {
  const BytesPerSecond given = c.link.line_rate;
  double fastest = 0.0;
  double slowest = 0.0;
  bool known = false;
  for (const auto& link : catalog.links) {
    fastest = std::max(fastest, link.line_rate.value);
    slowest = slowest == 0.0 ? link.line_rate.value : std::min(slowest, link.line_rate.value);
    known = known || near(given.value, link.line_rate.value);
  }
  if (!known && given.value > fastest) {
    for (const auto& link : catalog.links) {
      if (near(given.value / kBitsPerByte, link.line_rate.value)) {
        out.push_back({"scale_out.link.line_rate", rate(given) + " per NIC is 8x " + link.name + "'s " +
                                                       rate(link.line_rate) +
                                                       "; did you mean bits (Gbps, not GB/s)?"});
        break;
      }
    }
  } else if (!known && given.value < slowest) {
    for (const auto& link : catalog.links) {
      if (near(given.value * kBitsPerByte, link.line_rate.value)) {
        out.push_back({"scale_out.link.line_rate", rate(given) + " per NIC is 1/8 of " + link.name + "'s " +
                                                       rate(link.line_rate) +
                                                       "; did you mean bytes (GB/s, not Gbps)?"});
        break;
      }
    }
  }
  if (c.link.nic_price.value <= 0.0) {
    out.push_back({"scale_out.link.nic_price",
                   "link '" + c.link.name + "' has no NIC price: the network's capex counts its NICs at $0"});
  }
  if (c.link.media.rfind("optical", 0) == 0 && c.link.transceiver_price.value <= 0.0) {
    out.push_back({"scale_out.link.transceiver_price",
                   "optical link '" + c.link.name + "' has no transceiver price: its optics cost $0"});
  }
  const bool switched = traits(c.topology).switched;
  if (switched && c.switch_spec.price.value <= 0.0) {
    out.push_back({"scale_out.switch.price",
                   "switch '" + c.switch_spec.name + "' has no price: the network's capex counts it at $0"});
  }
}

}  // namespace

std::vector<Warning> plausibility_warnings(const ClusterSpec& c, const Catalog& catalog) {
  std::vector<Warning> out;
  check_scale_up(c, out);
  check_link(c, catalog, out);
  if (c.nics_per_node > kMaxNicsPerGpu * std::max(1, c.gpus_per_node)) {
    out.push_back({"scale_out.nics_per_node",
                   std::to_string(c.nics_per_node) + " NICs per node of " + std::to_string(c.gpus_per_node) +
                       " GPUs: more than a server's PCIe lanes carry (at most " +
                       std::to_string(kMaxNicsPerGpu) + " per GPU; DGX H100 has 8 for 8 GPUs)"});
  }
  if (c.gpu.price.value <= 0.0) {
    out.push_back({"gpu.price", "GPU '" + c.gpu.name + "' has no price: capex counts it at $0"});
  }
  return out;
}

}  // namespace costmodel::inline COSTMODEL_ABI
