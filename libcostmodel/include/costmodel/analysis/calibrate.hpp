// SPDX-License-Identifier: Apache-2.0
#pragma once
// Calibration from nccl-tests measurements: fit the alpha-beta line t(n) = alpha + beta·n per collective by
// weighted least squares, and turn the fit into the cluster constants (latency, bandwidth, efficiency) under
// which the model reproduces it. Reading the logs is io/nccl_tests.hpp's job, writing the calibrated
// cluster io/cluster_writer.hpp's.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/network/collective.hpp"
#include "costmodel/spec/catalog.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/units.hpp"

namespace costmodel {

/// One measurement of an nccl-tests table (out-of-place or in-place half of a row).
struct NcclTestsPoint {
  int line = 0;                       ///< 1-based line of the log it was read from
  bool in_place = false;              ///< the right half of the row
  Bytes size;                         ///< nccl-tests' message size (column `size`)
  Seconds time;                       ///< average time of one operation (column `time`, printed in us)
  BytesPerSecond algbw;               ///< size / time as printed (GB/s in the log)
  BytesPerSecond busbw;               ///< algbw x bus factor as printed (GB/s in the log)
  std::optional<std::int64_t> wrong;  ///< `#wrong` (errors found); nullopt when printed as N/A
};

/// What one nccl-tests log says. Counts are 0 when the log does not show them.
struct NcclTestsLog {
  std::string file;                         ///< name used in error messages
  std::optional<Collective> collective;     ///< from the test name in the log or, failing that, the file name
  std::string algorithm;                    ///< NCCL_ALGO when the log shows it (lower case), else ""
  int ranks = 0;                            ///< "#  Rank" lines, else nThread x nGpus of the header
  int nodes = 0;                            ///< distinct hosts of the "#  Rank" lines
  std::string device;                       ///< GPU name of rank 0, e.g. "NVIDIA H100 80GB HBM3"
  std::string type;                         ///< element type of the table, e.g. "float"
  std::vector<NcclTestsPoint> points;       ///< both halves of every row, in log order
  std::optional<BytesPerSecond> avg_busbw;  ///< the "# Avg bus bandwidth" footer (GB/s in the log)
};

/// The weighted least-squares line through measured (size, time) points.
struct AlphaBetaLine {
  Seconds alpha;              ///< intercept: the per-operation latency, s
  double beta = 0;            ///< slope, s/B (seconds per byte of nccl-tests' message size)
  double r_squared = 0;       ///< weighted coefficient of determination, dimensionless (1 = exact)
  int points = 0;             ///< measurements used
  Bytes worst_size;           ///< the size whose relative residual is largest
  Seconds worst_measured;     ///< its measured time
  Seconds worst_predicted;    ///< alpha + beta x worst_size
  double worst_residual = 0;  ///< (measured - predicted) / measured at worst_size, dimensionless
};

/// Fits t = alpha + beta·n minimising Σ((t_i - alpha - beta·n_i) / t_i)²: weight 1/t_i² makes every point's
/// relative error count alike, so the microsecond-scale latency of small messages is not drowned by the
/// seconds of large ones (weighted least squares, e.g. Björck 1996 §4.4; solved by Householder QR in Eigen).
/// Throws Error (kInput) for fewer than two distinct sizes, a non-positive time or mismatched lengths.
[[nodiscard]] AlphaBetaLine fit_alpha_beta(const std::vector<Bytes>& sizes,
                                           const std::vector<Seconds>& times);

/// The fit of one collective (and algorithm, and rank count) over one or more logs.
struct CollectiveFit {
  Collective collective = Collective::kAllReduce;
  std::string algorithm;           ///< NCCL_ALGO of the logs, "" when NCCL chose
  int ranks = 0;                   ///< ranks of the communicator measured
  int nodes = 0;                   ///< hosts it spanned (0 unknown)
  std::string device;              ///< GPU name printed by nccl-tests
  std::vector<std::string> files;  ///< logs that contributed
  AlphaBetaLine line;
  BytesPerSecond algbw;  ///< 1 / beta: what a large message achieves, per rank
  BytesPerSecond busbw;  ///< bus_factor(collective, ranks) / beta: nccl-tests' busbw of a large message
  std::optional<double> efficiency;  ///< busbw / the line rate given to fit_collectives(), dimensionless
  std::int64_t wrong = 0;            ///< sum of the logs' #wrong columns (non-zero: results were incorrect)
};

/// One fit per (collective, algorithm, ranks) found in `logs`, in order of first appearance. `line_rate`,
/// when given, is the per-rank bus bandwidth the efficiency is measured against. Throws Error naming the
/// file when a log's collective or rank count is unknown.
[[nodiscard]] std::vector<CollectiveFit> fit_collectives(const std::vector<NcclTestsLog>& logs,
                                                         std::optional<BytesPerSecond> line_rate = {});

/// Which part of the cluster a measurement characterises.
enum class FabricLevel { kScaleUp, kScaleOut };
/// "scale-up", "scale-out".
[[nodiscard]] std::string_view to_string(FabricLevel level);

/// Cluster constants under which the model's collective (ring for AllReduce, ReduceScatter, AllGather,
/// Broadcast, Reduce; direct for AllToAll and SendRecv) reproduces a fit on `fit.ranks` ranks.
struct ClusterCalibration {
  FabricLevel level = FabricLevel::kScaleOut;  ///< scale-up when the communicator stays in one node
  BytesPerSecond bandwidth;        ///< line rate to write: the cluster's, raised only if the fit beats it
  double efficiency = 1;           ///< achievable fraction of `bandwidth`, in [0.01, 1]
  Seconds latency;                 ///< scale-up: per hop; scale-out: the link's per-message latency (>= 0)
  BytesPerSecond ceiling_busbw;    ///< the model's busbw for this communicator at efficiency 1
  double measured_efficiency = 0;  ///< fit busbw / ceiling_busbw, unclamped (> 1: faster than line rate)
  bool latency_clamped = false;    ///< alpha was below the model's fixed (base) latency; latency set to 0
  int ranks_per_node = 1;          ///< how the measured ranks were placed on the cluster
};

/// The constants of `cluster`'s scale-up (fit within one node) or scale-out (fit across nodes) level that
/// make the model reproduce `fit`: efficiency by bisection on the model's bandwidth term, latency by solving
/// its (affine) latency term; the cluster's line rates are kept unless the measurement exceeds them.
/// Throws Error (kInput) if the fit has no rank count or the cluster cannot place its ranks.
[[nodiscard]] ClusterCalibration calibrate_cluster(const ClusterSpec& cluster, const CollectiveFit& fit);

/// `cluster` with `calibration` applied to its scale-up domain or scale-out link.
[[nodiscard]] ClusterSpec apply_calibration(ClusterSpec cluster, const ClusterCalibration& calibration);

/// One fit and the cluster constants it implies (none when the cluster cannot place its ranks).
struct FitCalibration {
  CollectiveFit fit;
  std::optional<ClusterCalibration> calibration;
  std::optional<double> efficiency;  ///< vs the given line rate, else vs the model's line-rate busbw
};

/// Every log's fits mapped onto a cluster, and the cluster calibrated by the most telling fit of each level.
struct LogCalibration {
  std::vector<FitCalibration> fits;
  std::vector<std::string> notes;         ///< fits that could not be mapped, logs with wrong results
  std::optional<ClusterSpec> calibrated;  ///< nullopt when no fit maps onto the cluster
  std::vector<std::string> comment;       ///< what was applied, one line per level, for the emitted file
};

/// Fits `logs` (fit_collectives()) and maps each fit onto `cluster` (calibrate_cluster()); the calibrated
/// cluster takes, per level, the AllReduce fit with the most ranks (else the fit with the most ranks).
/// `files` name the logs in the comment. Throws Error (kInput) when a log's collective or ranks are
/// unknown.
[[nodiscard]] LogCalibration calibrate_logs(const std::vector<NcclTestsLog>& logs, const ClusterSpec& cluster,
                                            std::optional<BytesPerSecond> line_rate,
                                            const std::vector<std::string>& files);

/// The catalog GPU an nccl-tests device name most likely is ("NVIDIA H100 80GB HBM3" -> h100-sxm): the entry
/// whose first name part appears in the device name, preferring one whose other parts appear too.
[[nodiscard]] std::optional<std::string> guess_gpu(const std::string& device, const Catalog& catalog);

}  // namespace costmodel
