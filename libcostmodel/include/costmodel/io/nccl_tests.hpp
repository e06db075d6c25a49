// SPDX-License-Identifier: Apache-2.0
#pragma once
// nccl-tests logs: the standard stdout of all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, sendrecv_perf, broadcast_perf (and reduce_perf), read into analysis/calibrate.hpp's
// NcclTestsLog.

#include <optional>
#include <string>
#include "costmodel/version.hpp"

#include "costmodel/analysis/calibrate.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Parses the stdout of one nccl-tests run. Comment lines, NCCL INFO/WARN lines and launcher warnings are
/// tolerated; the table must have nccl-tests' header and end with its footer. Throws Error at FILE:LINE for
/// a row that cannot be read and for a log that ends inside the table (truncated); Error at FILE when the
/// log holds no table.
[[nodiscard]] NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& filename);
/// The same, reading `path`; throws Error if it cannot be read.
[[nodiscard]] NcclTestsLog load_nccl_tests_log(const std::string& path);
/// The collective an nccl-tests binary measures ("all_reduce_perf" -> AllReduce), or nullopt.
[[nodiscard]] std::optional<Collective> collective_of_nccl_test(const std::string& binary_name);

}  // namespace costmodel::inline COSTMODEL_ABI
