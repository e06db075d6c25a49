// SPDX-License-Identifier: Apache-2.0
#include "costmodel/spec/economics.hpp"

#include <utility>

#include "costmodel/spec/names.hpp"

namespace costmodel::inline COSTMODEL_ABI {

std::string_view to_string(CostBasis basis) {
  return basis == CostBasis::kRental ? "rental" : "owned";
}

std::optional<CostBasis> parse_cost_basis(std::string_view name) {
  return parse_named(name, kCostBases);
}

const PriceQuote* PriceBook::find(std::string_view item, std::string_view name) const {
  for (const PriceQuote& q : quotes) {
    if (q.item == item && q.name == name) return &q;
  }
  return nullptr;
}

void PriceBook::put(PriceQuote quote) {
  for (PriceQuote& q : quotes) {
    if (q.item == quote.item && q.name == quote.name) {
      q = std::move(quote);
      return;
    }
  }
  quotes.push_back(std::move(quote));
}

void fill_lifetime_costs(EconomicsSpec& economics, const PriceBook& book) {
  const auto take = [&book, &economics](std::optional<double>& field, std::string_view item) {
    if (const PriceQuote* q = book.find(item); q != nullptr && !field) {
      field = q->value;
      economics.quotes.push_back(*q);
    }
  };
  if (const PriceQuote* q = book.find("facility"); q != nullptr && !economics.facility) {
    economics.facility = UsdPerWattSecond(q->value);
    economics.quotes.push_back(*q);
  }
  take(economics.support_share, "support");
  take(economics.storage_share, "storage");
  take(economics.spares_share, "spares");
  take(economics.cables_share, "cables");
}

}  // namespace costmodel::inline COSTMODEL_ABI
