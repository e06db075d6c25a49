// SPDX-License-Identifier: Apache-2.0
#pragma once
// Synthesizes the stdout of an nccl-tests binary from a known alpha-beta line, with multiplicative Gaussian
// noise, in nccl-tests' exact format (src/common.cu: "%12li  %12li  %8s  %6s  %6i" then, per half,
// "  %7s  %6.2f  %6.2f  %5s"; times "%7.2f" below 100 us, "%7.1f" below 10 ms, "%7.0f" above).

#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>

namespace costmodel::test {

struct SyntheticLog {
  std::string binary = "all_reduce_perf";
  double alpha_s = 20e-6;
  double beta_s_per_byte = 1.0 / 200e9;
  double bus_factor = 1.75;  ///< busbw / algbw printed (nccl-tests doc/PERFORMANCE.md)
  int ranks = 8;
  int nodes = 1;
  double noise = 0.01;  ///< relative standard deviation of each time
  std::int64_t min_bytes = 8;
  std::int64_t max_bytes = 8589934592;
  unsigned seed = 1;
  /// The noise-free time of `n` bytes, s; when set it replaces alpha + beta n (e.g. a two-regime truth).
  std::function<double(double)> time_of;
  bool device_lines = true;  ///< print the "#  Rank" lines (nccl-tests does; some launchers drop them)
};

inline std::string nccl_time(double us) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
  return buffer;
}

inline std::string synthesize_nccl_log(const SyntheticLog& spec) {
  std::mt19937 random(spec.seed);
  std::normal_distribution<double> noise(0.0, spec.noise);
  char buffer[256];
  std::string out = "# Collective test starting: " + spec.binary + "\n";
  std::snprintf(
      buffer, sizeof buffer,
      "# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: 2(factor) warmup iters: 5 iters: 20 agg "
      "iters: 1 validation: 1 graph: 0\n#\n# Using devices\n",
      static_cast<long long>(spec.min_bytes), static_cast<long long>(spec.max_bytes));
  out += buffer;
  const int per_node = spec.ranks / spec.nodes;
  for (int r = 0; r < (spec.device_lines ? spec.ranks : 0); ++r) {
    std::snprintf(buffer, sizeof buffer,
                  "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] %s\n", r, 1000 + r,
                  ("node-" + std::to_string(r / per_node)).c_str(), r % per_node, 0x18 + r % per_node,
                  "NVIDIA H100 80GB HBM3");
    out += buffer;
  }
  out +=
      "#\n"
      "#                                                              out-of-place                       "
      "in-place  "
      "        \n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw "
      "#wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s) "
      " (GB/s) "
      "      \n";
  for (std::int64_t n = spec.min_bytes; n <= spec.max_bytes; n *= 2) {
    std::snprintf(buffer, sizeof buffer, "%12lld  %12lld  %8s  %6s  %6i", static_cast<long long>(n),
                  static_cast<long long>(n / 4), "float", "sum", -1);
    out += buffer;
    for (int half = 0; half < 2; ++half) {
      const double exact = spec.time_of ? spec.time_of(static_cast<double>(n))
                                        : spec.alpha_s + spec.beta_s_per_byte * static_cast<double>(n);
      const double t = exact * (1.0 + noise(random));
      const std::string time = nccl_time(t * 1e6);
      const double algbw = static_cast<double>(n) / (std::stod(time) * 1e-6) / 1e9;
      std::snprintf(buffer, sizeof buffer, "  %7s  %6.2f  %6.2f  %5s", time.c_str(), algbw,
                    algbw * spec.bus_factor, "0");
      out += buffer;
    }
    out += "\n";
  }
  out += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.000 \n#\n";
  return out;
}

}  // namespace costmodel::test
