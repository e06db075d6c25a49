// SPDX-License-Identifier: Apache-2.0
#pragma once
// Calibration from nccl-tests measurements: fit the alpha-beta line t(n) = alpha + beta·n per collective by
// weighted least squares, and turn the fit into the cluster constants (latency, bandwidth, efficiency) under
// which the model reproduces it. Reading the logs is io/nccl_tests.hpp's job, writing the calibrated
// cluster io/cluster_writer.hpp's.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/network/collective.hpp"
#include "costmodel/spec/catalog.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

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
  std::string file;                      ///< name used in error messages
  std::optional<Collective> collective;  ///< from the test name in the log or, failing that, the file name
  std::string algorithm;                 ///< NCCL_ALGO when the log shows it (lower case), else ""
  int ranks = 0;                         ///< see ranks_from
  /// Where `ranks` comes from: "device lines" (the "#  Rank" lines), "nGpus x MPI world" (nThread x nGpus of
  /// the header times the launcher's -np), "busbw/algbw" (the bus factor of the largest row), "" unknown.
  std::string ranks_from;
  int nodes = 0;  ///< distinct hosts of the "#  Rank" lines
  /// GPUs one host thread drove (nGpus of the header, nccl-tests -g), 0 when the log does not say.
  int gpus_per_thread = 0;
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

/// Two weighted least-squares lines split at the knee between NCCL's latency-bound protocols (LL, LL128) and
/// its bandwidth-bound one (Simple): the split that minimises the summed squared relative residuals.
struct TwoRegimeFit {
  AlphaBetaLine small;  ///< sizes below the split
  AlphaBetaLine large;  ///< sizes from the split on
  Bytes knee;           ///< where the two lines cross (the split when they do not)
  bool found = false;   ///< false when the log has fewer than four distinct sizes
};
/// Fits two lines to (size, time), each side with at least two distinct sizes.
[[nodiscard]] TwoRegimeFit fit_two_regimes(const std::vector<Bytes>& sizes,
                                           const std::vector<Seconds>& times);

/// The fit of one collective (and algorithm, and rank count) over one or more logs.
struct CollectiveFit {
  Collective collective = Collective::kAllReduce;
  std::string algorithm;           ///< NCCL_ALGO of the logs, "" when NCCL chose
  int ranks = 0;                   ///< ranks of the communicator measured
  int nodes = 0;                   ///< hosts it spanned (0 unknown)
  std::string device;              ///< GPU name printed by nccl-tests
  std::vector<std::string> files;  ///< logs that contributed
  std::string ranks_from;          ///< how the first log's rank count was read (NcclTestsLog::ranks_from)
  AlphaBetaLine line;
  TwoRegimeFit regimes;        ///< latency-bound and bandwidth-bound lines with their knee
  std::vector<Bytes> sizes;    ///< distinct sizes measured, ascending
  std::vector<Seconds> times;  ///< per size: the mean of every measurement (both halves, every log)
  BytesPerSecond algbw;        ///< 1 / beta: what a large message achieves, per rank
  BytesPerSecond busbw;        ///< bus_factor(collective, ranks) / beta: nccl-tests' busbw of a large message
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

/// The model against one measured size, before and after calibration.
struct SizeResidual {
  std::string file;  ///< the first log of the fit
  Collective collective = Collective::kAllReduce;
  int ranks = 0;
  Bytes size;
  Seconds measured;                        ///< mean of the measurements at this size
  Seconds before;                          ///< the uncalibrated cluster's time (Auto)
  Seconds after;                           ///< the calibrated cluster's time (Auto)
  Algorithm algorithm = Algorithm::kRing;  ///< what Auto picks on the calibrated cluster
  Protocol protocol = Protocol::kSimple;   ///< with this protocol
  [[nodiscard]] double error_before() const { return (before.value - measured.value) / measured.value; }
  [[nodiscard]] double error_after() const { return (after.value - measured.value) / measured.value; }
};

/// The band a size's error should stay in: 10% for latency-bound (<= 64 KiB) and bandwidth-bound (>= 256 MiB)
/// messages, 20% between, where the protocols hand over.
[[nodiscard]] double residual_band(Bytes size);

/// The constants fitted for one fabric level from every log that measures it: Levenberg-Marquardt on the
/// log of model / measured time at every size, the model being collective_cost() with Auto.
struct LevelCalibration {
  FabricLevel level = FabricLevel::kScaleOut;
  std::vector<std::string> files;
  int points = 0;                 ///< sizes fitted
  BytesPerSecond bandwidth;       ///< line rate written (raised only if the logs beat it)
  double efficiency = 1;          ///< fraction of it Simple reaches
  ProtocolCalibration protocols;  ///< step latencies and bandwidth factors of LL, LL128, Simple
  /// Relative standard error of each protocol's step latency and bandwidth factor, and of the efficiency
  /// (Simple's bandwidth); infinite when the logs do not constrain it.
  std::array<double, kNcclProtocols> step_latency_error{};
  std::array<double, kNcclProtocols> bandwidth_error{};
  double efficiency_error = 0;
  /// Protocols no measured size is decided by (their constants stay as fitted, unconstrained).
  std::vector<Protocol> unconstrained;
  bool in_network_reduction = false;  ///< scale-up: NVLS kept (the logs show it); scale-out: SHARP
  double worst_before = 0;            ///< largest |error| before, over the level's sizes
  double worst_after = 0;             ///< and after
  int outside_band = 0;               ///< sizes whose error after exceeds residual_band()
};

/// Every log's fits mapped onto a cluster, and the cluster calibrated by the most telling fit of each level.
struct LogCalibration {
  std::vector<FitCalibration> fits;
  std::vector<LevelCalibration> levels;   ///< scale-up first, then scale-out; only levels some log measures
  std::vector<SizeResidual> residuals;    ///< every fit's sizes, in fit order
  std::vector<std::string> notes;         ///< fits that could not be mapped, logs with wrong results
  std::optional<ClusterSpec> calibrated;  ///< nullopt when no fit maps onto the cluster
  std::vector<std::string> comment;       ///< what was applied, one line per level, for the emitted file
};

/// Fits `logs` (fit_collectives()), maps each fit onto `cluster` (calibrate_cluster(): the Simple ring's
/// efficiency, the starting point), then fits each level's constants to every size of every log of that
/// level (LevelCalibration), single-node logs first; NVLS stays on only when the logs are better explained
/// with it, SHARP is turned off unless `cluster` has it on and the logs need it. `files` name the logs in
/// the comment. Throws Error (kInput) when a log's collective or ranks are unknown.
[[nodiscard]] LogCalibration calibrate_logs(const std::vector<NcclTestsLog>& logs, const ClusterSpec& cluster,
                                            std::optional<BytesPerSecond> line_rate,
                                            const std::vector<std::string>& files);

/// The catalog GPU an nccl-tests device name most likely is ("NVIDIA H100 80GB HBM3" -> h100-sxm): the entry
/// whose first name part appears in the device name, preferring one whose other parts appear too.
[[nodiscard]] std::optional<std::string> guess_gpu(const std::string& device, const Catalog& catalog);

}  // namespace costmodel::inline COSTMODEL_ABI

#include "costmodel/analysis/validate.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// One run of a GPU fit: what it measured and what the model gives before and after the fit, in the run's
/// own quantity (TFLOP/s per GPU in its convention; an `mfu` alone is turned into model TFLOP/s).
struct RunFitRow {
  std::string id;
  bool fitted = true;       ///< false: held out (predicted, not fitted)
  bool feasible = false;    ///< the planner found a configuration that fits
  Strategy strategy;        ///< the configuration the fit evaluates (stated knobs + the planner's)
  FlopsPerSecond measured;  ///< per GPU
  FlopsPerSecond before;    ///< the catalog's efficiencies
  FlopsPerSecond after;     ///< the fitted ones
  bool hardware_convention = false;
  [[nodiscard]] double error_before() const { return before.value / measured.value - 1.0; }
  [[nodiscard]] double error_after() const { return after.value / measured.value - 1.0; }
};

/// One fitted efficiency parameter (data/gpus.yaml `efficiency:`).
struct FittedParameter {
  std::string name;   ///< gemm, gemm_half_size, attention, overlap
  double before = 0;  ///< the GPU entry's value
  double value = 0;   ///< fitted
  double lower = 0;   ///< bounds of the fit
  double upper = 0;
  double standard_error = 0;  ///< Gauss-Newton; infinite when the runs do not constrain it
  bool identifiable = true;   ///< false: no run's time depends on it, or it trades off against another
  bool at_bound = false;
};

/// What a GPU fit minimises over the fitted runs' errors e = model / measured - 1 (`validate`'s error).
enum class FitObjective {
  kLeastSquares,  ///< sum of e^2 (`--objective lsq`)
  kMinimax,       ///< max |e|, by Polya's L_p continuation (`--objective minimax`)
};
/// Every FitObjective, in the order messages list them.
inline constexpr std::array kFitObjectives{FitObjective::kLeastSquares, FitObjective::kMinimax};
[[nodiscard]] const char* to_string(FitObjective objective);
[[nodiscard]] std::optional<FitObjective> parse_fit_objective(const std::string& name);  ///< lsq | minimax

/// What calibrate_gpu() fits and how.
struct GpuFitOptions {
  std::optional<std::string> gpu;       ///< the GPU to fit when the runs use several
  std::vector<std::string> held_out;    ///< run ids predicted, not fitted
  std::vector<std::string> parameters;  ///< the efficiency parameters to fit (empty: all four)
  FitObjective objective = FitObjective::kLeastSquares;
  int threads = 0;  ///< planner threads (0: every core)
};

/// The GPU efficiencies that make the model reproduce measured runs.
struct GpuCalibration {
  GpuSpec gpu;  ///< the GPU entry with the fitted efficiencies
  FitObjective objective = FitObjective::kLeastSquares;
  std::vector<FittedParameter> parameters;
  std::vector<RunFitRow> rows;
  std::vector<std::string> notes;  ///< warnings: unidentifiable parameters, runs left out
  double rms_before = 0;           ///< root mean square of model / measured - 1 over the fitted runs
  double rms_after = 0;
  double max_before = 0;  ///< largest |model / measured - 1| over the fitted runs
  double max_after = 0;
  int replans = 0;  ///< times the planner re-chose the runs' configurations under fitted values
};

/// Fits the efficiency parameters of the GPU `runs` use (gemm, gemm_half_size, attention, overlap) by bounded
/// Levenberg-Marquardt on each run's e = model / measured - 1, minimising `options.objective`. Every run's
/// configuration is the planner's best under the current efficiencies with its stated knobs pinned; the fit
/// is redone on the configurations the fitted values make best until they no longer change (so that the
/// result is a fixed point: `validate` with the fitted values evaluates the same configurations). Standard
/// errors are the Gauss-Newton covariance of e at the fitted values. `options.gpu` picks one GPU when the
/// runs use several (else Error, kInput); runs named in `options.held_out` are predicted, not fitted. Throws
/// Error (kInput) when no run measures TFLOP/s or MFU, or fewer runs than parameters remain.
[[nodiscard]] GpuCalibration calibrate_gpu(const std::vector<PublishedRun>& runs,
                                           const GpuFitOptions& options = {});

}  // namespace costmodel::inline COSTMODEL_ABI
