// SPDX-License-Identifier: Apache-2.0
#pragma once
// The source tree's catalogs, loaded once per test binary, and a cluster of catalog parts: for tests that
// check the model on the shipped data (data/*.yaml, models/*.yaml).

#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"

namespace costmodel::test {

/// data/ and models/ of the source tree.
inline const Catalog& source_catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

/// `gpus` of the catalog GPU `gpu` in its typical nodes and fabric (default_cluster()).
inline ClusterSpec catalog_cluster(const char* gpu, int gpus) {
  ClusterOptions o;
  o.gpus = gpus;
  return apply_cluster_options(default_cluster(source_catalog(), gpu), o, source_catalog());
}

}  // namespace costmodel::test
