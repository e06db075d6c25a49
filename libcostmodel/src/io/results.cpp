#include "costmodel/io/results.hpp"

#include <string>

namespace costmodel {
namespace {

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json();
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
      .set("overflow", e.memory.overflow.empty() ? Json() : Json(std::string(e.memory.overflow)));

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
      .set("model_tflops_per_gpu", e.model_tflops_per_gpu)
      .set("hardware_tflops_per_gpu", e.hardware_tflops_per_gpu)
      .set("mfu", e.mfu)
      .set("hfu", e.hfu)
      .set("memory_per_gpu_bytes", e.memory.total.value)
      .set("fits_memory", e.fits_memory)
      .set("breakdown", std::move(breakdown))
      .set("memory", std::move(memory))
      .set("training_days", optional_number(e.training_days))
      .set("cost_usd", e.cost ? Json(e.cost->value) : Json())
      .set("energy_kwh", optional_number(e.energy_kwh))
      .set("switches", e.switches)
      .set("network_cost_usd", e.network_cost.value)
      .set("power_w", e.power.value);
  return o;
}

Table configurations_table(const std::vector<StepEstimate>& estimates, const std::string& title, bool rank) {
  Table table;
  table.title = title;
  if (rank) table.columns.push_back({"rank", "#", "", 4});
  table.columns.insert(table.columns.end(), {{"tp", "tp", "", 4},
                                             {"pp", "pp", "", 4},
                                             {"dp", "dp", "", 6},
                                             {"cp", "cp", "", 4},
                                             {"ep", "ep", "", 4},
                                             {"vpp", "vpp", "", 4},
                                             {"micro_batch", "mb", "", 4},
                                             {"recompute", "recompute", "", 4},
                                             {"zero", "zero", "", 2},
                                             {"sequence_parallel", "sp", "", 1},
                                             {"overlap", "overlap", "", 1},
                                             {"topology", "topology", "", 4},
                                             {"step_time_s", "step", "s", 4},
                                             {"model_tflops_per_gpu", "model", "TFLOP/s", 4},
                                             {"mfu", "MFU", "%", 3},
                                             {"memory_per_gpu_gib", "memory", "GiB", 3},
                                             {"fits_memory", "fits", "", 1},
                                             {"comm_share", "exposed comm", "%", 3},
                                             {"training_days", "days", "", 4},
                                             {"cost_musd", "cost", "M$", 4},
                                             {"switches", "switches", "", 6}});
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
                           Json(e.model_tflops_per_gpu),
                           Json(100.0 * e.mfu),
                           Json(e.memory.total.value / 1073741824.0),
                           Json(e.fits_memory),
                           Json(e.step_time.value > 0 ? 100.0 * exposed / e.step_time.value : 0.0),
                           optional_number(e.training_days),
                           e.cost ? Json(e.cost->value / 1e6) : Json(),
                           Json(e.switches)});
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace costmodel
