// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/configuration.hpp"

#include <string>

namespace costmodel {
namespace {

/// TFLOP/s, the unit the configuration's keys name.
double tflops(FlopsPerSecond rate) {
  return rate.value / 1e12;
}

/// Days, the unit `training_days` names; null without a token budget.
Json days(const std::optional<Seconds>& time) {
  return time ? Json(time->value / kSecondsPerDay) : Json();
}

}  // namespace

Json configuration_json(const StepEstimate& e) {
  const Strategy& st = e.strategy;
  Json breakdown = Json::object();
  breakdown.set("compute_s", e.breakdown.compute.value)
      .set("tp_comm_s", e.breakdown.tp_comm.value)
      .set("cp_comm_s", e.breakdown.cp_comm.value)
      .set("ep_comm_s", e.breakdown.ep_comm.value)
      .set("pp_comm_s", e.breakdown.pp_comm.value)
      .set("pp_bubble_s", e.breakdown.pp_bubble.value)
      .set("dp_comm_s", e.breakdown.dp_comm.value)
      .set("dp_comm_exposed_s", e.breakdown.dp_comm_exposed.value)
      .set("optimizer_s", e.breakdown.optimizer.value);
  Json memory = Json::object();
  memory.set("weights_bytes", e.memory.weights.value)
      .set("gradients_bytes", e.memory.gradients.value)
      .set("optimizer_bytes", e.memory.optimizer.value)
      .set("activations_bytes", e.memory.activations.value)
      .set("logits_bytes", e.memory.logits.value)
      .set("error_feedback_bytes", e.memory.error_feedback.value)
      .set("reserve_bytes", e.memory.reserve.value)
      .set("capacity_bytes", e.memory.capacity.value)
      .set("overflow",
           e.memory.overflow == MemoryTerm::kNone ? Json() : Json(std::string(to_string(e.memory.overflow))));

  Json o = Json::object();
  o.set("tp", st.tp)
      .set("pp", st.pp)
      .set("dp", st.dp)
      .set("cp", st.cp)
      .set("ep", st.ep)
      .set("vpp", st.vpp)
      .set("micro_batch", st.micro_batch)
      .set("global_batch", st.global_batch)
      .set("recompute", std::string(to_string(st.recompute)))
      .set("zero", st.zero)
      .set("dtype", std::string(to_string(st.dtype)))
      .set("sequence_parallel", st.sequence_parallel)
      .set("overlap", st.overlap)
      .set("compression", to_string(st.compression))
      .set("topology", std::string(to_string(e.topology)))
      .set("oversubscription", e.oversubscription)
      .set("step_time_s", e.step_time.value)
      .set("tokens_per_s", e.tokens_per_s)
      .set("model_tflops_per_gpu", tflops(e.model_flops_per_gpu))
      .set("hardware_tflops_per_gpu", tflops(e.hardware_flops_per_gpu))
      .set("mfu", e.mfu)
      .set("hfu", e.hfu)
      .set("memory_per_gpu_bytes", e.memory.total.value)
      .set("fits_memory", e.fits_memory)
      .set("breakdown", std::move(breakdown))
      .set("memory", std::move(memory))
      .set("training_days", days(e.training_time))
      .set("cost_usd", e.rental_cost ? Json(e.rental_cost->value) : Json())
      .set("energy_kwh", e.energy ? Json(e.energy->value / kJoulesPerKwh) : Json())
      .set("switches", e.switches)
      .set("network_cost_usd", e.network_capex.value)
      .set("power_w", e.power.value);
  return o;
}

Table configurations_table(const std::vector<StepEstimate>& estimates, const std::string& title, bool rank) {
  Table table;
  table.title = title;
  if (rank) table.columns.push_back({"rank", "#", "", 1.0, 4});
  table.columns.insert(table.columns.end(), {{"tp", "tp", "", 1.0, 4},
                                             {"pp", "pp", "", 1.0, 4},
                                             {"dp", "dp", "", 1.0, 6},
                                             {"cp", "cp", "", 1.0, 4},
                                             {"ep", "ep", "", 1.0, 4},
                                             {"vpp", "vpp", "", 1.0, 4},
                                             {"micro_batch", "mb", "", 1.0, 4},
                                             {"recompute", "recompute", "", 1.0, 4},
                                             {"zero", "zero", "", 1.0, 2},
                                             {"sequence_parallel", "sp", "", 1.0, 1},
                                             {"overlap", "overlap", "", 1.0, 1},
                                             {"topology", "topology", "", 1.0, 4},
                                             {"step_time_s", "step", "s", 1.0, 4},
                                             {"model_tflops_per_gpu", "model", "TFLOP/s", 1.0, 4},
                                             {"mfu", "MFU", "%", 1.0, 3},
                                             {"memory_per_gpu_gib", "memory", "GiB", 1.0, 3},
                                             {"fits_memory", "fits", "", 1.0, 1},
                                             {"comm_share", "exposed comm", "%", 1.0, 3},
                                             {"training_days", "days", "", 1.0, 4},
                                             {"cost_musd", "cost", "M$", 1.0, 4},
                                             {"switches", "switches", "", 1.0, 6}});
  int position = 0;
  for (const auto& e : estimates) {
    const auto& st = e.strategy;
    const auto& b = e.breakdown;
    const double exposed =
        b.tp_comm.value + b.cp_comm.value + b.ep_comm.value + b.pp_comm.value + b.dp_comm_exposed.value;
    std::vector<Json> row;
    if (rank) row.emplace_back(++position);
    row.insert(row.end(), {Json(st.tp),
                           Json(st.pp),
                           Json(st.dp),
                           Json(st.cp),
                           Json(st.ep),
                           Json(st.vpp),
                           Json(st.micro_batch),
                           Json(std::string(to_string(st.recompute))),
                           Json(st.zero),
                           Json(st.sequence_parallel),
                           Json(st.overlap),
                           Json(std::string(to_string(e.topology))),
                           Json(e.step_time.value),
                           Json(tflops(e.model_flops_per_gpu)),
                           Json(100.0 * e.mfu),
                           Json(e.memory.total.value / 1073741824.0),
                           Json(e.fits_memory),
                           Json(e.step_time.value > 0 ? 100.0 * exposed / e.step_time.value : 0.0),
                           days(e.training_time),
                           e.rental_cost ? Json(e.rental_cost->value / 1e6) : Json(),
                           Json(e.switches)});
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table estimate_table(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& cluster) {
  const auto& st = e.strategy;
  const auto& b = e.breakdown;
  const auto& m = e.memory;
  Table t;
  t.title = model.name + " on " + std::to_string(cluster.gpus) + " x " + cluster.gpu.name + ", " +
            std::string(to_string(cluster.topology)) + " of " + cluster.link.name;
  t.columns = {{"field", "field", ""}, {"value", "value", ""}};
  const auto row = [&](const std::string& label, Json value) {
    t.rows.push_back({Json(label), std::move(value)});
  };
  constexpr double kGiB = 1073741824.0;
  row("split tp x pp x dp x cp (ep, vpp)", std::to_string(st.tp) + " x " + std::to_string(st.pp) + " x " +
                                               std::to_string(st.dp) + " x " + std::to_string(st.cp) + " (" +
                                               std::to_string(st.ep) + ", " + std::to_string(st.vpp) + ")");
  row("micro-batch / global batch (sequences)",
      std::to_string(st.micro_batch) + " / " + std::to_string(st.global_batch));
  row("recompute, zero, dtype", std::string(to_string(st.recompute)) + ", " + std::to_string(st.zero) + ", " +
                                    std::string(to_string(st.dtype)));
  row("step time (s)", e.step_time.value);
  row("tokens/s", e.tokens_per_s);
  row("model TFLOP/s per GPU", tflops(e.model_flops_per_gpu));
  row("hardware TFLOP/s per GPU", tflops(e.hardware_flops_per_gpu));
  row("MFU (%)", 100.0 * e.mfu);
  row("HFU (%)", 100.0 * e.hfu);
  row("  compute (s)", b.compute.value);
  row("  TP communication (s)", b.tp_comm.value);
  row("  CP communication, exposed (s)", b.cp_comm.value);
  row("  EP communication (s)", b.ep_comm.value);
  row("  PP send/recv (s)", b.pp_comm.value);
  row("  PP bubble (s)", b.pp_bubble.value);
  row("  DP communication, total (s)", b.dp_comm.value);
  row("  DP communication, exposed (s)", b.dp_comm_exposed.value);
  row("  optimizer (s)", b.optimizer.value);
  row("memory per GPU (GiB)", m.total.value / kGiB);
  row("  weights (GiB)", m.weights.value / kGiB);
  row("  gradients (GiB)", m.gradients.value / kGiB);
  row("  optimizer states (GiB)", m.optimizer.value / kGiB);
  row("  activations (GiB)", m.activations.value / kGiB);
  row("  logits (GiB)", m.logits.value / kGiB);
  row("  error feedback (GiB)", m.error_feedback.value / kGiB);
  row("  reserve (GiB)", m.reserve.value / kGiB);
  row("HBM (GiB)", m.capacity.value / kGiB);
  row("fits in memory",
      e.fits_memory ? Json("yes") : Json("no, largest term: " + std::string(to_string(m.overflow))));
  if (e.training_time) row("days to train", days(e.training_time));
  if (e.rental_cost) row("GPU cost (USD)", e.rental_cost->value);
  if (e.energy) row("energy, GPUs at TDP + fabric (MWh)", e.energy->value / kJoulesPerKwh / 1000.0);
  row("switches", e.switches);
  row("network capex (USD)", e.network_capex.value);
  row("power, GPUs at TDP + fabric (kW)", e.power.value / 1000.0);
  return t;
}

}  // namespace costmodel
