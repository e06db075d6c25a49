// SPDX-License-Identifier: Apache-2.0
// Price books (issue 30): data/prices.yaml's lifetime costs, and a buyer's quotes (--prices FILE) over the
// catalog's estimates.

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "costmodel/error.hpp"
#include "costmodel/io/catalog.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// What one item of a book prices: the catalog list its `name` must be in (none: no name) and its price's
/// dimension (nullopt: a share of capex, written `share:`).
struct PricedItem {
  std::string_view item;
  std::string_view catalog;  ///< "gpus", "links", "switches", "scale_ups", or empty
  std::optional<Dimension> dimension;
};

constexpr std::array<PricedItem, 13> kItems{{
    {"gpu", "gpus", Dimension::kUsd},
    {"server", "gpus", Dimension::kUsd},
    {"rental", "gpus", Dimension::kUsdPerSecond},
    {"switch", "switches", Dimension::kUsd},
    {"nic", "links", Dimension::kUsd},
    {"optics", "links", Dimension::kUsd},
    {"scale_up_switch", "scale_ups", Dimension::kUsd},
    {"electricity", "", Dimension::kUsdPerJoule},
    {"facility", "", Dimension::kUsdPerWattSecond},
    {"support", "", std::nullopt},
    {"storage", "", std::nullopt},
    {"spares", "", std::nullopt},
    {"cables", "", std::nullopt},
}};

const PricedItem* priced_item(std::string_view name) {
  for (const PricedItem& item : kItems) {
    if (item.item == name) return &item;
  }
  return nullptr;
}

template <class Entries>
std::vector<std::string> names_of(const Entries& entries) {
  std::vector<std::string> names;
  for (const auto& entry : entries) names.push_back(entry.name);
  return names;
}

std::vector<std::string> catalog_names(const Catalog& catalog, std::string_view list) {
  if (list == "gpus") return names_of(catalog.gpus);
  if (list == "links") return names_of(catalog.links);
  if (list == "switches") return names_of(catalog.switches);
  return names_of(catalog.scale_ups);
}

/// "2025-02-26": a date as ISO 8601 writes it.
bool is_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i != 4 && i != 7 && (text[i] < '0' || text[i] > '9')) return false;
  }
  return true;
}

PriceQuote read_quote(yaml::Map& map, const Catalog& catalog) {
  PriceQuote quote;
  std::vector<std::string> items;
  for (const PricedItem& item : kItems) items.emplace_back(item.item);
  quote.item = map.choice("item", items);
  const PricedItem& item = *priced_item(quote.item);
  if (!item.catalog.empty()) {
    quote.name = map.string("name");
    const std::vector<std::string> known = catalog_names(catalog, item.catalog);
    if (std::find(known.begin(), known.end(), quote.name) == known.end()) {
      const std::string suggestion = closest_name(quote.name, known);
      const std::string noun = item.catalog == "gpus"       ? "GPU"
                               : item.catalog == "links"    ? "link"
                               : item.catalog == "switches" ? "switch"
                                                            : "scale-up fabric";
      throw map.error_at("name", "no " + noun + " '" + quote.name + "' in the catalog",
                         suggestion.empty() ? "" : "did you mean '" + suggestion + "'?");
    }
  }
  if (item.dimension) {
    quote.value = map.quantity("price", *item.dimension, true);
  } else {
    const YAML::Node share = map.required("share");
    try {
      quote.value = parse_share(yaml::as_string(map.file(), share, map.field("share")));
    } catch (const Error& e) {
      throw map.error_at("share", e.message(), "a share of capex: 6% or 0.06");
    }
  }
  quote.date = map.string("date");
  if (!is_date(quote.date)) throw map.error_at("date", "expected YYYY-MM-DD, got '" + quote.date + "'");
  quote.source = map.string("source");
  if (quote.source.empty()) throw map.error_at("source", "empty: say who quoted it or where it is published");
  const ErrorLocation at = map.location();
  quote.where = at.file + ":" + std::to_string(at.line);
  map.finish();
  return quote;
}

/// "gpu price quoted 2026-10-01 (ACME quote 17); ": what a catalog entry's source says of a buyer's quote.
std::string quoted(const PriceQuote& q) {
  return q.item + " price quoted " + q.date + " (" + q.source + "); ";
}

}  // namespace

PriceBook load_price_book(const std::string& path, const Catalog& catalog) {
  const yaml::Document document = yaml::parse_file(path);
  yaml::Map top(document.file, document.root, "");
  const YAML::Node list = top.required("quotes");
  top.finish();
  if (!list.IsSequence()) {
    throw Error(yaml::location_of(path, list), "quotes",
                "expected a list of quotes, got " + yaml::describe(list));
  }
  PriceBook book;
  for (size_t i = 0; i < list.size(); ++i) {
    yaml::Map entry(path, list[i], "quotes[" + std::to_string(i) + "]");
    PriceQuote quote = read_quote(entry, catalog);
    if (book.find(quote.item, quote.name) != nullptr) {
      throw Error(yaml::location_of(path, list[i]), "quotes[" + std::to_string(i) + "]",
                  "a second quote of " + quote.item + (quote.name.empty() ? "" : " " + quote.name),
                  "keep one quote per item and name");
    }
    book.put(std::move(quote));
  }
  return book;
}

void apply_price_book(Catalog& catalog, const PriceBook& book) {
  for (const PriceQuote& q : book.quotes) {
    if (q.item == "gpu" || q.item == "server" || q.item == "rental") {
      for (GpuSpec& gpu : catalog.gpus) {
        if (gpu.name != q.name) continue;
        if (q.item == "gpu") {
          gpu.price = Usd(q.value);
          gpu.price_estimate = false;
          gpu.source = quoted(q) + gpu.source;
        } else if (q.item == "server") {
          gpu.node.server_price = Usd(q.value);
          gpu.node.price_estimate = false;
          gpu.node.source = quoted(q) + gpu.node.source;
        } else {
          gpu.rental_price = UsdPerSecond(q.value);
          gpu.source = quoted(q) + gpu.source;
        }
      }
    } else if (q.item == "switch") {
      for (SwitchSpec& s : catalog.switches) {
        if (s.name != q.name) continue;
        s.price = Usd(q.value);
        s.price_estimate = false;
        s.source = quoted(q) + s.source;
      }
    } else if (q.item == "nic" || q.item == "optics") {
      for (LinkSpec& link : catalog.links) {
        if (link.name != q.name) continue;
        (q.item == "nic" ? link.nic_price : link.transceiver_price) = Usd(q.value);
        link.price_estimate = false;
        link.source = quoted(q) + link.source;
      }
    } else if (q.item == "scale_up_switch") {
      // A GPU entry holds a copy of its own fabric: both are quoted.
      const auto quote_fabric = [&q](ScaleUpSpec& fabric) {
        if (fabric.name != q.name) return;
        fabric.switch_price = Usd(q.value);
        fabric.price_estimate = false;
        fabric.source = quoted(q) + fabric.source;
      };
      for (ScaleUpSpec& fabric : catalog.scale_ups) quote_fabric(fabric);
      for (GpuSpec& gpu : catalog.gpus) quote_fabric(gpu.scale_up);
    } else {
      catalog.prices.put(q);  // electricity and the lifetime costs
    }
  }
}

}  // namespace costmodel::inline COSTMODEL_ABI
