// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/economics.hpp"

namespace costmodel {

std::string_view to_string(CostBasis basis) {
  return basis == CostBasis::kRental ? "rental" : "owned";
}

std::optional<CostBasis> parse_cost_basis(std::string_view name) {
  if (name == "owned") return CostBasis::kOwned;
  if (name == "rental") return CostBasis::kRental;
  return std::nullopt;
}

}  // namespace costmodel
