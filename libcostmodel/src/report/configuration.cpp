// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/configuration.hpp"

#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include "cells.hpp"
#include "costmodel/estimate/memory.hpp"
#include "costmodel/spec/nccl_tuner.hpp"
#include "costmodel/units.hpp"
#include "knob_columns.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

/// TFLOP/s, the unit the configuration's keys name.
double tflops(FlopsPerSecond rate) {
  return rate.value / 1e12;
}

/// {capex, facility, energy, support, other} in USD: the lifetime TCO by kind (DESIGN.md §5).
Json tco_breakdown_json(const LifetimeCost& life) {
  Json o = Json::object();
  o.set("capex", life.capex.value)
      .set("facility", life.facility.value)
      .set("energy", life.energy.value)
      .set("support", life.support.value)
      .set("other", life.other.value);
  return o;
}

/// Days, the unit `training_days` names; null without a token budget.
/// Null where the event never happens (+infinity: no interruptions, no checkpoints).
Json finite_seconds(Seconds time) {
  return std::isfinite(time.value) ? Json(time.value) : Json();
}

}  // namespace

ClusterSpec cluster_of(const StepEstimate& e, const ClusterSpec& base) {
  ClusterSpec c = base;
  const Strategy& st = e.strategy;
  if (e.valid()) c.gpus = st.tp * st.pp * st.dp * st.cp;
  if (c.topology != e.topology) c.torus_dims.clear();
  c.topology = e.topology;
  c.oversubscription = e.oversubscription;
  return c;
}

Json cluster_json(const ClusterSpec& c) {
  const ScaleUpSpec up = c.scale_up_fabric();
  Json scale_up = Json::object();
  scale_up.set("fabric", up.name.empty() ? Json() : Json(up.name))
      .set("topology", std::string(to_string(up.topology)))
      .set("bandwidth_Bps", up.bandwidth.value)
      .set("domain", c.scale_up_domain())
      .set("latency_s", up.latency.value)
      .set("efficiency", up.efficiency)
      .set("in_network_reduction", up.in_network_reduction);
  Json scale_out = Json::object();
  scale_out.set("topology", std::string(to_string(c.topology)))
      .set("link", c.link.name)
      .set("line_rate_Bps", c.link.line_rate.value)
      .set("nics_per_node", c.nics_per_node)
      .set("switch", c.switch_spec.name)
      .set("oversubscription", c.oversubscription);
  Json o = Json::object();
  o.set("gpu", c.gpu.name)
      .set("library", c.gpu.library)
      .set("gpus", c.gpus)
      .set("gpus_per_node", c.gpus_per_node)
      .set("scale_up", std::move(scale_up))
      .set("scale_out", std::move(scale_out));
  return o;
}

std::string scale_up_label(const ClusterSpec& c) {
  const ScaleUpSpec up = c.scale_up_fabric();
  if (up.name.empty() || up.name.rfind("nvlink", 0) == 0) return "NVLink domain";
  return up.name + (up.topology == ScaleUpTopology::kFullMesh ? " full mesh" : " domain");
}

namespace {

// A count for people: 3.146M, 15T.
std::string count_text(double v) {
  constexpr std::pair<double, const char*> kScales[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, suffix] : kScales) {
    if (v >= scale) return format_number(v / scale, 4) + suffix;
  }
  return format_number(v, 4);
}

}  // namespace

std::string describe_run(const ModelSpec& model, int global_batch, std::optional<double> tokens) {
  const double per_step = static_cast<double>(global_batch) * static_cast<double>(model.seq_len);
  std::string text = "training: " + (model.name.empty() ? std::string("model") : model.name) +
                     ", global batch " + std::to_string(global_batch) + " x " +
                     std::to_string(model.seq_len) + " tokens (" + count_text(per_step) + " tokens per step)";
  if (tokens) text += ", " + count_text(*tokens) + " tokens";
  return text;
}

std::string describe_cluster(const ClusterSpec& c) {
  std::string text = "cluster: " + std::to_string(c.gpus) + " x " + c.gpu.name + ", " +
                     std::to_string(c.gpus_per_node) + " per node, " + std::to_string(c.nics_per_node) +
                     " x " + c.link.name + " per node, " + std::string(to_string(c.topology));
  if (traits(c.topology).switched) {
    text.append(" ").append(format_number(c.oversubscription, 3)).append(":1 of ").append(c.switch_spec.name);
    text += " switches";
    // The in-network setting wherever the switch could reduce (off unless enabled, as NCCL keeps CollNet).
    if (c.switch_spec.in_network_reduction != InNetworkReduction::kNone) {
      text += c.in_network == InNetworkReduction::kSharp ? " with SHARP on" : " (SHARP off)";
    }
    if (traits(c.topology).routed && c.routing == Routing::kMinimal) text += ", minimal routing";
  }
  text += ", " + scale_up_label(c) + " of " + std::to_string(c.scale_up_domain()) + ", " + c.gpu.library;
  if (!c.stack.empty()) text += ", stack " + c.stack;
  return text;
}

namespace {

// "allreduce ring/ll128": one communicator's collective and what carries it; "... (aws-ofi-nccl tuner)"
// when the cluster's tuner plug-in chose it.
std::string choice_text(const CollectiveChoice& c, std::string_view tuner) {
  std::string text = std::string(to_string(c.collective)) + " " + std::string(to_string(c.algorithm)) + "/" +
                     std::string(to_string(c.protocol));
  if (c.tuned) text += " (" + std::string(tuner) + ")";
  return text;
}

}  // namespace

std::string describe_collectives(const StepEstimate& e, std::string_view tuner) {
  std::string text;
  for (int g = 0; g < kCommGroupCount; ++g) {
    const CollectiveChoice& c = e.collectives.at(static_cast<std::size_t>(g));
    if (!c.used()) continue;
    if (!text.empty()) text += ", ";
    text += std::string(to_string(static_cast<CommGroup>(g))) + " " + choice_text(c, tuner);
  }
  return text;
}

std::string tuner_label(const ClusterSpec& cluster) {
  const auto tuner = cluster.nccl_tuner();
  return tuner ? tuner->plugin + " tuner" : std::string("tuner plug-in");
}

namespace {

// {"tp": {"collective": "allreduce", "library": "NCCL", "algorithm": "ring", "protocol": "ll128", "tuner":
// null}, "cp": null, ...}: every communicator, null where it runs nothing (or the estimate was not
// described); "tuner" names the tuner plug-in that chose the algorithm, null where NCCL's own tuner did.
Json collectives_json(const StepEstimate& e, const ClusterSpec& cluster) {
  Json o = Json::object();
  const auto plugin = cluster.nccl_tuner();
  for (int g = 0; g < kCommGroupCount; ++g) {
    const CollectiveChoice& c = e.collectives.at(static_cast<std::size_t>(g));
    Json used;
    if (c.used()) {
      used = Json::object();
      used.set("collective", std::string(to_string(c.collective)))
          .set("library", cluster.gpu.library)
          .set("algorithm", std::string(to_string(c.algorithm)))
          .set("protocol", std::string(to_string(c.protocol)))
          .set("tuner", c.tuned && plugin ? Json(plugin->plugin) : Json());
    }
    o.set(std::string(to_string(static_cast<CommGroup>(g))), std::move(used));
  }
  return o;
}

}  // namespace

namespace {

// The interval's end relative to the step (low or high / step), or nullopt without an interval.
std::optional<double> interval_ratio(const StepEstimate& e, bool high) {
  if (e.interval_coverage <= 0.0 || !(e.step_time.value > 0.0)) return std::nullopt;
  return (high ? e.step_time_high.value : e.step_time_low.value) / e.step_time.value;
}

// A time or cost scaled by the interval's end: days and cost are linear in the wall-clock time per step
// (goodput, amortised capex, energy and rental all scale with it), so their interval is the step's.
Json scaled_cell(std::optional<double> value, const StepEstimate& e, bool high) {
  const auto ratio = interval_ratio(e, high);
  return value && ratio ? Json(*value * *ratio) : Json();
}

Json unvalidated_json(const StepEstimate& e) {
  Json list = Json::array();
  for (const auto& flag : e.unvalidated) list.push_back(Json(flag));
  return list;
}

}  // namespace

std::string describe_interval(const StepEstimate& e) {
  if (e.interval_coverage <= 0.0) return {};
  std::string text = format_number(100 * e.interval_coverage, 3) + "% interval " +
                     format_number(e.step_time_low.value, 4) + "-" +
                     format_number(e.step_time_high.value, 4) + " s";
  text += e.unvalidated.empty() ? "; every feature validated" : "; unvalidated: ";
  for (std::size_t i = 0; i < e.unvalidated.size(); ++i) text += (i ? ", " : "") + e.unvalidated[i];
  return text;
}

Json configuration_json(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& base,
                        const EstimateOptions& options) {
  const std::optional<double> days =
      e.training_time ? std::optional(e.training_time->value / kSecondsPerDay) : std::nullopt;
  const std::optional<double> cost = e.cost() ? std::optional(e.cost()->value) : std::nullopt;
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
      .set("optimizer_s", e.breakdown.optimizer.value)
      .set("host_s", e.breakdown.host.value)
      .set("stragglers_s", e.breakdown.stragglers.value)
      .set("hidden_comm_s", e.breakdown.hidden_comm.value);
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

  // The knobs: the contract's keys where they have always been, then every other declared knob.
  const auto knob = [&](std::string_view key) { return detail::knob_cell(key, st, options); };
  Json o = Json::object();
  o.set("tp", knob("tp"))
      .set("pp", knob("pp"))
      .set("dp", knob("dp"))
      .set("cp", knob("cp"))
      .set("ep", knob("ep"))
      .set("etp", knob("etp"))
      .set("vpp", knob("vpp"))
      .set("first_stage_layers", knob("first_stage_layers"))
      .set("last_stage_layers", knob("last_stage_layers"))
      .set("micro_batch", knob("micro_batch"))
      .set("global_batch", knob("global_batch"))
      .set("seq_len", model.seq_len)
      .set("tokens_per_step", static_cast<double>(st.global_batch) * static_cast<double>(model.seq_len))
      .set("recompute", knob("recompute"))
      .set("recompute_layers", knob("recompute_layers"))
      .set("recompute_modules", knob("recompute_modules"))
      .set("zero", knob("zero"))
      .set("dtype", knob("dtype"))
      .set("grad_reduce_dtype", knob("grad_reduce_dtype"))
      .set("optimizer_dtype", knob("optimizer_dtype"))
      .set("fp8_params", knob("fp8_params"))
      .set("sequence_parallel", knob("sequence_parallel"))
      .set("overlap", knob("overlap"))
      .set("compression", knob("compression"));
  detail::add_knob_columns(o, st, options);
  o.set("stack", base.stack.empty() ? Json() : Json(base.stack))
      .set("topology", std::string(to_string(e.topology)))
      .set("oversubscription", e.oversubscription)
      .set("step_time_s", e.step_time.value)
      .set("step_time_s_low", e.interval_coverage > 0.0 ? Json(e.step_time_low.value) : Json())
      .set("step_time_s_high", e.interval_coverage > 0.0 ? Json(e.step_time_high.value) : Json())
      .set("interval_coverage", e.interval_coverage > 0.0 ? Json(e.interval_coverage) : Json())
      .set("unvalidated", unvalidated_json(e))
      .set("tokens_per_s", e.tokens_per_s)
      .set("model_tflops_per_gpu", tflops(e.model_flops_per_gpu))
      .set("hardware_tflops_per_gpu", tflops(e.hardware_flops_per_gpu))
      .set("mfu", e.mfu)
      .set("mfu_bf16_peak", e.mfu_bf16_peak)
      .set("hfu", e.hfu)
      .set("memory_per_gpu_bytes", e.memory.total.value)
      .set("fits_memory", e.fits_memory)
      .set("breakdown", std::move(breakdown))
      .set("collectives", collectives_json(e, base))
      .set("memory", std::move(memory))
      .set("training_days", detail::days_cell(e.training_time))
      .set("training_days_low", scaled_cell(days, e, false))
      .set("training_days_high", scaled_cell(days, e, true))
      .set("cost_usd", detail::usd_cell(e.cost()))
      .set("cost_usd_low", scaled_cell(cost, e, false))
      .set("cost_usd_high", scaled_cell(cost, e, true))
      .set("energy_kwh", e.energy ? Json(e.energy->value / kJoulesPerKwh) : Json())
      .set("switches", e.switches)
      .set("network_cost_usd", e.network_capex.value)
      .set("power_w", e.power.value)
      .set("cost_basis", std::string(to_string(e.cost_basis)))
      .set("rental_cost_usd", detail::usd_cell(e.rental_cost))
      .set("capex_usd", e.capex.value)
      .set("gpu_capex_usd", e.gpu_capex.value)
      .set("network_capex_usd", e.network_capex.value)
      .set("scale_up_capex_usd", e.scale_up_capex.value)
      .set("scale_up_power_w", e.scale_up_power.value)
      .set("tco_usd", detail::usd_cell(e.tco))
      .set("energy_usd", detail::usd_cell(e.energy_cost))
      .set("run_cost_usd", detail::usd_cell(e.run_cost))
      .set("lifetime_tco_usd", e.lifetime.total().value)
      .set("tco_breakdown", tco_breakdown_json(e.lifetime))
      .set("power_at_load_w", e.power_at_load.value)
      .set("goodput", e.goodput.fraction)
      .set("ideal_days", detail::days_cell(e.ideal_time))
      .set("interruptions", e.interruptions ? Json(*e.interruptions) : Json())
      .set("unplanned_interruptions", e.interruptions ? Json(*e.interruptions) : Json())
      .set("planned_interruptions", e.planned_interruptions ? Json(*e.planned_interruptions) : Json())
      .set("interruptions_per_day", interruptions_per_day(e.goodput))
      .set("cluster_mtbf_s", finite_seconds(e.goodput.cluster_mtbf))
      .set("planned_mtbf_s", finite_seconds(e.goodput.planned_mtbf))
      .set("checkpoint_time_s", e.goodput.checkpoint_time.value)
      .set("checkpoint_interval_s", finite_seconds(e.goodput.checkpoint_interval))
      .set("checkpoint_interval_floor_s", e.goodput.checkpoint_floor.value);
  const ParameterCount parameters = count_parameters(model);
  const ClusterSpec cluster = cluster_of(e, base);
  o.set("gpus", cluster.gpus)
      .set("parameters", exact_count(parameters.total))
      .set("active_parameters", exact_count(parameters.active))
      .set("cluster", cluster_json(cluster))
      .set("schema_version", kSchemaVersion);
  return o;
}

namespace {

/// One row of the configurations table: the estimate and its 1-based rank.
struct RankedEstimate {
  int rank = 0;
  const StepEstimate* estimate = nullptr;
  const EstimateOptions* options = nullptr;  // the estimator's, for the knobs' columns
};

/// Exposed communication: what the step waits for (DP only where not hidden).
double exposed_communication(const StepEstimate& e) {
  const auto& b = e.breakdown;
  return b.tp_comm.value + b.cp_comm.value + b.ep_comm.value + b.pp_comm.value + b.dp_comm_exposed.value;
}

// The cell function of the declared knob `key`, its declaration looked up once, not per cell.
auto knob_column(std::string_view key) {
  const TrainingField* field = &detail::column_knob(key);
  return [field](const RankedEstimate& r) {
    return detail::knob_cell(*field, r.estimate->strategy, *r.options);
  };
}

// SI values (fractions, bytes, USD) for machines; %, GiB, M$ for people (DESIGN.md §3).
std::vector<ColumnOf<RankedEstimate>> configuration_columns() {
  using R = const RankedEstimate&;
  return {
      {"tp", "tp", "", 1, knob_column("tp")},
      {"pp", "pp", "", 1, knob_column("pp")},
      {"dp", "dp", "", 1, knob_column("dp"), 6},
      {"cp", "cp", "", 1, knob_column("cp")},
      {"ep", "ep", "", 1, knob_column("ep")},
      {"etp", "etp", "", 1, knob_column("etp"), 4, Audience::kMachines},
      {"vpp", "vpp", "", 1, knob_column("vpp")},
      {"micro_batch", "mb", "", 1, knob_column("micro_batch")},
      {"recompute", "recompute", "", 1, knob_column("recompute")},
      {"recompute_layers", "rc layers", "", 1, knob_column("recompute_layers")},
      {"zero", "zero", "", 1, knob_column("zero"), 2},
      {"sequence_parallel", "sp", "", 1, knob_column("sequence_parallel"), 1},
      {"overlap", "overlap", "", 1, knob_column("overlap"), 1},
      // People read the leaves' taper beside the fabric ("fat-tree 4:1"); machines get it as a number.
      {"topology", "topology", "", 1, [](R r) { return Json(detail::fabric_label(*r.estimate)); }, 4,
       Audience::kPeople},
      {"topology", "topology", "", 1, [](R r) { return Json(std::string(to_string(r.estimate->topology))); },
       4, Audience::kMachines},
      {"step_time_s", "step", "s", 1, [](R r) { return Json(r.estimate->step_time.value); }},
      {"step_time_range", "80% range", "s", 1,
       [](R r) {
         const StepEstimate& e = *r.estimate;
         if (e.interval_coverage <= 0.0) return Json("-");
         return Json(format_number(e.step_time_low.value, 4) + "-" +
                     format_number(e.step_time_high.value, 4));
       },
       4, Audience::kPeople},
      {"step_time_s_low", "step low", "s", 1,
       [](R r) {
         return r.estimate->interval_coverage > 0.0 ? Json(r.estimate->step_time_low.value) : Json();
       },
       4, Audience::kMachines},
      {"step_time_s_high", "step high", "s", 1,
       [](R r) {
         return r.estimate->interval_coverage > 0.0 ? Json(r.estimate->step_time_high.value) : Json();
       },
       4, Audience::kMachines},
      {"model_tflops_per_gpu", "model", "TFLOP/s", 1,
       [](R r) { return Json(tflops(r.estimate->model_flops_per_gpu)); }},
      {"mfu", "MFU", "%", 0.01, [](R r) { return Json(r.estimate->mfu); }, 3},
      {"memory_per_gpu_bytes", "memory", "GiB", kGibi,
       [](R r) { return Json(r.estimate->memory.total.value); }, 3},
      {"fits_memory", "fits", "", 1, [](R r) { return Json(r.estimate->fits_memory); }, 1},
      {"comm_share", "exposed comm", "%", 0.01,
       [](R r) {
         const double step = r.estimate->step_time.value;
         return Json(step > 0 ? exposed_communication(*r.estimate) / step : 0.0);
       },
       3},
      {"training_days", "days", "", 1, [](R r) { return detail::days_cell(r.estimate->training_time); }},
      {"cost_usd", "cost", "M$", 1e6, [](R r) { return detail::usd_cell(r.estimate->cost()); }},
      {"capex_usd", "capex", "M$", 1e6, [](R r) { return Json(r.estimate->capex.value); }},
      {"switches", "switches", "", 1, [](R r) { return Json(r.estimate->switches); }, 6},
      {"mfu_bf16_peak", "MFU bf16", "%", 0.01, [](R r) { return Json(r.estimate->mfu_bf16_peak); }, 3,
       Audience::kMachines},
      {"unvalidated", "unvalidated", "", 1,
       [](R r) {
         // The features beyond the validation runs, without the "(validated up to N)" the JSON keeps.
         std::string text;
         for (const auto& flag : r.estimate->unvalidated)
           text += (text.empty() ? "" : "; ") + flag.substr(0, flag.find(" ("));
         return Json(text.empty() ? "-" : text);
       }},
      {"collectives", "collectives", "", 1,
       [](R r) {
         const std::string text = describe_collectives(*r.estimate);
         return text.empty() ? Json() : Json(text);
       },
       4, Audience::kMachines},
  };
}

}  // namespace

Table configurations_table(const std::vector<StepEstimate>& estimates, const EstimateOptions& options,
                           const std::string& title, bool rank, bool gpus, std::string_view stack,
                           std::int64_t seq_len) {
  std::vector<RankedEstimate> rows;
  for (const auto& e : estimates) rows.push_back({static_cast<int>(rows.size()) + 1, &e, &options});
  auto columns = configuration_columns();
  if (seq_len > 0) {
    columns.push_back(
        {"global_batch", "global batch", "", 1, knob_column("global_batch"), 6, Audience::kMachines});
    columns.push_back({"seq_len", "seq len", "", 1,
                       [seq_len](const RankedEstimate&) { return Json(seq_len); }, 6, Audience::kMachines});
  }
  if (!stack.empty()) {
    columns.push_back({"stack", "stack", "", 1,
                       [name = std::string(stack)](const RankedEstimate&) { return Json(name); }, 4,
                       Audience::kMachines});
  }
  // The leaves' taper (downlink : uplink), which the table shows beside the fabric's name.
  columns.push_back({"oversubscription", "taper", "", 1,
                     [](const RankedEstimate& r) { return Json(r.estimate->oversubscription); }, 3,
                     Audience::kMachines});
  // What the days column already includes: the useful share of wall-clock time, and how often the run stops.
  columns.push_back({"goodput", "goodput", "", 1,
                     [](const RankedEstimate& r) { return Json(r.estimate->goodput.fraction); }, 4,
                     Audience::kMachines});
  columns.push_back({"interruptions_per_day", "interruptions/day", "", 1,
                     [](const RankedEstimate& r) { return Json(interruptions_per_day(r.estimate->goodput)); },
                     4, Audience::kMachines});
  // Every other declared knob, for machines (the table keeps its width), after the columns above so that
  // theirs keep their places.
  for (auto& column : detail::knob_columns(
           columns, [](const RankedEstimate& r) -> const Strategy& { return r.estimate->strategy; },
           [](const RankedEstimate& r) -> const EstimateOptions& { return *r.options; }, Audience::kMachines))
    columns.push_back(std::move(column));
  if (gpus) {
    columns.insert(columns.begin(), {"gpus", "GPUs", "", 1,
                                     [](const RankedEstimate& r) { return Json(r.estimate->gpus); }, 6});
  }
  if (rank)
    columns.insert(columns.begin(),
                   {"rank", "#", "", 1, [](const RankedEstimate& r) { return Json(r.rank); }});
  Table table = make_table(columns, rows);
  table.title = title;
  return table;
}

Table estimate_table(const StepEstimate& e, const ModelSpec& model, const ClusterSpec& cluster) {
  const auto& st = e.strategy;
  const auto& b = e.breakdown;
  const auto& m = e.memory;
  Table t;
  t.title = model.name + " on " + std::to_string(cluster.gpus) + " x " + cluster.gpu.name + ", " +
            std::string(to_string(cluster.topology)) + " of " + cluster.link.name;
  t.preamble = {describe_cluster(cluster)};
  t.columns = {{"field", "field", ""}, {"value", "value", ""}};
  const auto row = [&](const std::string& label, Json value) {
    t.rows.push_back({Json(label), std::move(value)});
  };
  row("split tp x pp x dp x cp (ep, vpp)", std::to_string(st.tp) + " x " + std::to_string(st.pp) + " x " +
                                               std::to_string(st.dp) + " x " + std::to_string(st.cp) + " (" +
                                               std::to_string(st.ep) + ", " + std::to_string(st.vpp) + ")");
  if (model.is_moe()) {
    row("experts ep x etp (replicas)", std::to_string(st.ep) + " x " + std::to_string(st.expert_tp()) + " (" +
                                           std::to_string(st.expert_replicas()) + ")");
  }
  row("micro-batch / global batch (sequences)",
      std::to_string(st.micro_batch) + " / " + std::to_string(st.global_batch));
  row("sequence length (tokens), tokens per step",
      std::to_string(model.seq_len) + ", " +
          count_text(static_cast<double>(st.global_batch) * static_cast<double>(model.seq_len)));
  row("recompute, zero, dtype",
      std::string(to_string(st.recompute)) +
          (st.recompute_layers > 0 ? " (" + std::to_string(st.recompute_layers) + " layers per chunk)" : "") +
          (st.recompute_modules != 0
               ? " (" + recompute_modules_text(st.recompute_modules, st.recompute == Recompute::kSelective) +
                     ")"
               : "") +
          ", " + std::to_string(st.zero) + ", " + std::string(to_string(st.dtype)));
  row("step time (s)", e.step_time.value);
  if (e.interval_coverage > 0.0) {
    row("  " + format_number(100 * e.interval_coverage, 3) + "% interval (s)",
        format_number(e.step_time_low.value, 4) + " - " + format_number(e.step_time_high.value, 4));
  }
  if (e.interval_coverage > 0.0 || !e.unvalidated.empty()) {
    std::string flags;
    for (const auto& flag : e.unvalidated) flags += (flags.empty() ? "" : ", ") + flag;
    row("  unvalidated features", flags.empty() ? "none" : flags);
  }
  row("tokens/s", e.tokens_per_s);
  row("model TFLOP/s per GPU", tflops(e.model_flops_per_gpu));
  row("hardware TFLOP/s per GPU", tflops(e.hardware_flops_per_gpu));
  if (e.mfu_bf16_peak != e.mfu) {  // under fp8: the BF16-peak figure first, the FP8-peak one labelled
    row("MFU of the BF16 peak (%)", 100.0 * e.mfu_bf16_peak);
    row("MFU of the FP8 peak (%)", 100.0 * e.mfu);
  } else {
    row("MFU (%)", 100.0 * e.mfu);
  }
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
  row("  host launches, exposed (s)", b.host.value);
  row("  slowest host's lag (s)", b.stragglers.value);
  row("memory per GPU (GiB)", m.total.value / kGibi);
  row("  weights (GiB)", m.weights.value / kGibi);
  row("  gradients (GiB)", m.gradients.value / kGibi);
  row("  optimizer states (GiB)", m.optimizer.value / kGibi);
  row("  activations (GiB)", m.activations.value / kGibi);
  row("  logits (GiB)", m.logits.value / kGibi);
  row("  error feedback (GiB)", m.error_feedback.value / kGibi);
  row("  reserve (GiB)", m.reserve.value / kGibi);
  row("HBM (GiB)", m.capacity.value / kGibi);
  row("fits in memory",
      e.fits_memory ? Json("yes") : Json("no, largest term: " + std::string(to_string(m.overflow))));
  const Goodput& g = e.goodput;
  if (e.training_time) row("days to train, wall-clock", detail::days_cell(e.training_time));
  if (e.ideal_time) row("  without interruptions", detail::days_cell(e.ideal_time));
  row("goodput (%)", 100.0 * g.fraction);
  if (e.interruptions) row("  unplanned interruptions (expected)", *e.interruptions);
  if (std::isfinite(g.cluster_mtbf.value))
    row("  mean time between them (h)", g.cluster_mtbf.value / kSecondsPerHour);
  if (e.planned_interruptions && std::isfinite(g.planned_mtbf.value))
    row("  planned interruptions (expected)", *e.planned_interruptions);
  row("  interruptions per day", interruptions_per_day(g));
  row("  checkpoint stall (s)", g.checkpoint_time.value);
  if (std::isfinite(g.checkpoint_interval.value))
    row("  checkpoint interval (min)", g.checkpoint_interval.value / kSecondsPerMinute);
  row("  its floor (min)", g.checkpoint_floor.value / kSecondsPerMinute);
  if (e.cost()) {
    row(e.cost_basis == CostBasis::kOwned ? "cost = TCO, owned (USD)" : "cost = GPU rental (USD)",
        e.cost()->value);
  }
  if (e.tco && e.cost_basis != CostBasis::kOwned) row("TCO, owned (USD)", e.tco->value);
  if (e.rental_cost && e.cost_basis != CostBasis::kRental) row("GPU rental (USD)", e.rental_cost->value);
  if (e.energy) row("energy, with PUE (MWh)", e.energy->value / kJoulesPerKwh / 1000.0);
  if (e.energy_cost) row("energy cost (USD)", e.energy_cost->value);
  if (e.run_cost) row("run cost, slice of lifetime TCO (USD)", e.run_cost->value);
  row("capex (USD)", e.capex.value);
  row("  GPUs and servers (USD)", e.gpu_capex.value);
  row("  network (USD)", e.network_capex.value);
  row("lifetime TCO (USD)", e.lifetime.total().value);
  row("  facility (USD)", e.lifetime.facility.value);
  row("  energy at training load (USD)", e.lifetime.energy.value);
  row("  support (USD)", e.lifetime.support.value);
  row("  storage, spares, cables (USD)", e.lifetime.other.value);
  row("switches", e.switches);
  row("power, GPUs at TDP + servers + fabric (kW)", e.power.value / 1000.0);
  row("  drawn while training (kW)", e.power_at_load.value / 1000.0);
  if (const std::string used = describe_collectives(e, tuner_label(cluster)); !used.empty())
    t.notes.push_back("collectives on " + cluster.gpu.library + ": " + used);
  return t;
}

}  // namespace costmodel::inline COSTMODEL_ABI
