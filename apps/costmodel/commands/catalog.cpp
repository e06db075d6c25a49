// SPDX-License-Identifier: Apache-2.0
// `costmodel catalog [gpus|links|switches|scale-up|models|topologies|knobs]`: the catalogs with every number.

#include <algorithm>
#include <string>
#include <vector>

#include "cli/parser.hpp"
#include "cli/sink.hpp"
#include "costmodel/io/catalog.hpp"
#include "report/catalog.hpp"

namespace costmodel::cli {

int run_catalog(const std::vector<std::string>& args, const Context& context) {
  CommandParser parser(
      context, "costmodel catalog [gpus|links|switches|scale-up|models|topologies|knobs] [options]",
      "Prints a catalog with every number: SI values under unit-suffixed keys in json/csv,\n"
      "readable units in table/markdown. Without a catalog name, lists each catalog's names.\n"
      "Catalogs are read from $COSTMODEL_DATA_DIR (data/*.yaml, models/*.yaml).");
  parser.add_positional("catalog", po::value<std::string>()->value_name("CATALOG"), 1);
  add_output_options(parser.options());
  if (!parser.parse(args)) return 0;
  OutputSink output(read_output_options(parser.values(), context), context);

  const auto which = string_option(parser.values(), "catalog");
  const auto& names = catalog_names();
  if (which && std::find(names.begin(), names.end(), *which) == names.end()) {
    const std::string hint = did_you_mean(*which, names);
    throw usage_error(context, "", "unknown catalog '" + *which + "'",
                      hint.empty() ? "expected one of " + join(names, ", ") : hint);
  }
  // The knobs are the model's own: no catalog file needed.
  const Catalog catalog = which == "knobs" ? Catalog{} : load_catalog();
  emit(output, which ? catalog_table(*which, catalog) : catalog_summary_table(catalog));
  return 0;
}

}  // namespace costmodel::cli
