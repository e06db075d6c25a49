// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared pieces of the libFuzzer harnesses: the input as text or as a temporary file, and the rule that only
// costmodel::Error may escape a loader (anything else -- a YAML exception, std::out_of_range, a crash -- is
// a bug the fuzzer reports by aborting).

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "costmodel/error.hpp"
#include "costmodel/io/catalog.hpp"

namespace costmodel::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Writes the input to a per-process temporary file and returns its path.
inline std::string temp_file(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/costmodel-fuzz-" + std::to_string(::getpid()) + ".yaml";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

/// The catalog the cluster and scenario loaders resolve names against (loaded once).
inline const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_FUZZ_DATA_ROOT);
  return c;
}

/// Runs `load`; costmodel::Error is the expected outcome for bad input, anything else aborts.
template <class Load>
void expect_only_costmodel_errors(Load&& load) {
  try {
    load();
  } catch (const Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) std::abort();  // one line, always
  } catch (const std::exception& e) {
    std::fprintf(stderr, "escaped exception: %s\n", e.what());
    std::abort();
  }
}

}  // namespace costmodel::fuzz
