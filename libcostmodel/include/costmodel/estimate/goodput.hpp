// SPDX-License-Identifier: Apache-2.0
#pragma once
// Goodput: the share of wall-clock time a run spends on steps that count, once interruptions, checkpoints and
// restarts are paid for. Interruptions arrive as a Poisson process at a per-GPU rate; the run checkpoints
// every Young/Daly interval (or a pinned one) and, when interrupted, loses the restart time plus the work
// since its last checkpoint (Daly 2006). Everything here depends on the model and the cluster only, so the
// estimator prepares it once (Estimator's constructor) and every configuration divides its failure-free time
// by the same goodput.

#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/economics.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// Bytes per parameter of a checkpoint: half-precision weights (MemoryBreakdown::weights) and the
/// optimizer's fp32 master weights, momentum and variance (kOptimizerStateBytes): 2 + 12. BLOOM-176B's
/// checkpoint with optimizer states was 2.3 TB (Le Scao et al. 2022; HF blog "The Technology Behind BLOOM
/// Training"): 176e9 x 14 B = 2.46 TB = 2.24 TiB.
inline constexpr double kCheckpointBytesPerParameter = 2.0 + 12.0;

/// What a run's reliability settings imply on one cluster. Times are +infinity where the event never happens.
struct Goodput {
  Seconds cluster_mtbf;      ///< mean time between unplanned interruptions of the job: per-GPU MTBF / GPUs
  Seconds planned_mtbf;      ///< mean time between planned interruptions of the job: per-GPU / GPUs
  Bytes checkpoint_bytes;    ///< one checkpoint: parameters x kCheckpointBytesPerParameter, written once
  Seconds checkpoint_write;  ///< checkpoint_bytes over the nodes' aggregate checkpoint bandwidth
  Seconds checkpoint_time;   ///< what one checkpoint stalls training: the write, or the async snapshot copy
  Seconds
      checkpoint_interval;  ///< training time between checkpoints (Young/Daly unless pinned), >= the floor
  /// The least interval: ReliabilitySpec::checkpoint_floor, one training step (checkpoints are taken between
  /// steps: Megatron-LM's --save-interval and torchtitan's checkpoint.interval count steps) and, with
  /// asynchronous checkpoints, one write (the next save waits for the previous one).
  Seconds checkpoint_floor;
  double planned_factor = 1.0;  ///< the share planned interruptions leave (1 - (R + C) / M_planned)
  /// Lost per interruption besides the work since the checkpoint: the restart time, plus (asynchronous
  /// checkpoints) the expected write still in flight, whose checkpoint is then lost.
  Seconds restart_cost;
  double fraction =
      1.0;  ///< goodput: useful time / wall-clock time, in [0, 1]; 0 when interruptions outpace progress
};

/// Young's optimum checkpoint interval sqrt(2 C M) for a checkpoint stalling C on a job interrupted every M
/// on average (Young 1974, CACM 17(9):530); Daly's higher-order estimate (2006, FGCS 22(3):303) differs from
/// it by a few percent where C << M and is M where C >= 2M, which is kept. +infinity without interruptions.
[[nodiscard]] Seconds young_daly_interval(Seconds checkpoint_time, Seconds mtbf);

/// Goodput of a job checkpointing every `interval` of useful work, each checkpoint stalling
/// `checkpoint_time`, interrupted as a Poisson process of mean `mtbf`, each interruption costing
/// `restart_cost` plus the work since the last checkpoint. Daly's complete cost function (2006, restarts may
/// fail too): wall-clock time per unit of useful time T_w / T_s = M e^{R/M} (e^{(tau + C)/M} - 1) / tau;
/// goodput is its inverse. Without interruptions (M infinite) it is tau / (tau + C), and 1 when no checkpoint
/// is taken.
[[nodiscard]] double daly_goodput(Seconds interval, Seconds checkpoint_time, Seconds restart_cost,
                                  Seconds mtbf);

/// The goodput of training a model of `parameters` parameters on `cluster` under `reliability`. The
/// checkpoint is written once (distributed checkpointing shards it over the data-parallel replicas) by every
/// node at its checkpoint bandwidth. Asynchronous checkpoints stall only for each GPU's share of it copied to
/// host memory over NodeSpec::host_bandwidth (the whole write when that is unknown); the next one waits for
/// the write to finish, so the interval is at least the write.
[[nodiscard]] Goodput goodput(double parameters, const ClusterSpec& cluster,
                              const ReliabilitySpec& reliability);

/// Expected interruptions over `wall_clock` for a job whose mean time between them is `cluster_mtbf`
/// (wall-clock time x GPUs / per-GPU MTBF); 0 without interruptions.
[[nodiscard]] double expected_interruptions(Seconds wall_clock, Seconds cluster_mtbf);

/// Interruptions per wall-clock day, planned and unplanned together; 0 without either.
[[nodiscard]] double interruptions_per_day(const Goodput& goodput);

}  // namespace costmodel::inline COSTMODEL_ABI
