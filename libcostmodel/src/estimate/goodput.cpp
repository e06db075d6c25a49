// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace costmodel::inline COSTMODEL_ABI {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

Seconds young_daly_interval(Seconds checkpoint_time, Seconds mtbf) {
  const double c = checkpoint_time.value;
  const double m = mtbf.value;
  if (!std::isfinite(m)) return Seconds(kInfinity);
  // Young 1974: tau = sqrt(2 C M); Daly 2006: tau = M once C >= 2M.
  if (c >= 2.0 * m) return mtbf;
  return Seconds(std::sqrt(2.0 * c * m));
}

double daly_goodput(Seconds interval, Seconds checkpoint_time, Seconds restart_cost, Seconds mtbf) {
  const double tau = interval.value;
  const double c = checkpoint_time.value;
  const double r = restart_cost.value;
  const double m = mtbf.value;
  if (!std::isfinite(m)) return std::isfinite(tau) ? tau / (tau + c) : 1.0;
  if (!std::isfinite(tau)) return 0.0;  // never checkpointing: a long run never finishes
  // Daly 2006: T_w / T_s = M e^{R/M} (e^{(tau + C)/M} - 1) / tau. expm1 keeps it exact for (tau + C) << M;
  // as tau + C -> 0 the ratio tends to e^{R/M}.
  const double per_segment = m * std::expm1((tau + c) / m);
  if (!(per_segment > 0.0)) return std::exp(-r / m);
  const double ratio = std::exp(r / m) * per_segment / tau;
  return std::isfinite(ratio) && ratio > 0.0 ? std::min(1.0, 1.0 / ratio) : 0.0;
}

Goodput goodput(double parameters, const ClusterSpec& cluster, const ReliabilitySpec& reliability) {
  Goodput g;
  const double gpus = std::max(1, cluster.gpus);
  const double nodes = std::max(1, cluster.nodes());
  g.cluster_mtbf = reliability.failures() ? Seconds(reliability.gpu_mtbf.value / gpus) : Seconds(kInfinity);
  g.checkpoint_bytes = Bytes(parameters * kCheckpointBytesPerParameter);
  g.checkpoint_write = g.checkpoint_bytes / (reliability.checkpoint_bandwidth * nodes);
  g.checkpoint_time = g.checkpoint_write;
  g.restart_cost = reliability.restart_time;
  const BytesPerSecond host = cluster.gpu.node.host_bandwidth;
  const bool async = reliability.async_checkpoint && host.value > 0.0;
  if (async) {
    // Each GPU copies its share of the (sharded) checkpoint to pinned host memory, then training resumes
    // (PyTorch DCP async_save; Megatron-LM --async-save). An interruption during the background write loses
    // that checkpoint too: on average the write time more work (exact for write <= interval).
    g.checkpoint_time = Bytes(g.checkpoint_bytes.value / gpus) / host;
    g.restart_cost = reliability.restart_time + g.checkpoint_write;
  }
  g.checkpoint_interval =
      reliability.checkpoint_interval.value_or(young_daly_interval(g.checkpoint_time, g.cluster_mtbf));
  // The next asynchronous save waits for the previous write (PyTorch DCP async_save's future, Megatron-LM's
  // --async-save finalising the previous save first); an operator may allow no less than a floor.
  g.checkpoint_floor = std::max(async ? g.checkpoint_write : Seconds(0.0),
                                reliability.checkpoint_floor.value_or(Seconds(0.0)));
  g.checkpoint_interval = std::max(g.checkpoint_interval, g.checkpoint_floor);
  g.fraction = daly_goodput(g.checkpoint_interval, g.checkpoint_time, g.restart_cost, g.cluster_mtbf);
  // Planned interruptions (ReliabilitySpec::planned_gpu_mtbf) lose no work: each takes a checkpoint and a
  // restart, R + C of wall-clock time every M_p of it, so the useful share falls by (R + C) / M_p.
  g.planned_mtbf = std::isfinite(reliability.planned_gpu_mtbf.value)
                       ? Seconds(reliability.planned_gpu_mtbf.value / gpus)
                       : Seconds(kInfinity);
  if (std::isfinite(g.planned_mtbf.value)) {
    const double lost = (reliability.restart_time.value + g.checkpoint_time.value) / g.planned_mtbf.value;
    g.planned_factor = std::max(0.0, 1.0 - lost);
    g.fraction *= g.planned_factor;
  }
  return g;
}

double interruptions_per_day(const Goodput& goodput) {
  const Seconds day(kSecondsPerDay);
  return expected_interruptions(day, goodput.cluster_mtbf) +
         expected_interruptions(day, goodput.planned_mtbf);
}

double expected_interruptions(Seconds wall_clock, Seconds cluster_mtbf) {
  if (!std::isfinite(cluster_mtbf.value) || !(cluster_mtbf.value > 0.0)) return 0.0;
  return wall_clock.value / cluster_mtbf.value;
}

}  // namespace costmodel::inline COSTMODEL_ABI
