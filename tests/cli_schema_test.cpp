// SPDX-License-Identifier: Apache-2.0
// Schema goldens (google/benchmark's reporter_output_test idea): the keys of every command's JSON and the
// header of every CSV, never the numbers. Users' scripts depend on these names (../shared/DESIGN.md §3):
// a rename or a removal fails here; an addition is added here on purpose.
//
// A JSON shape is one line per object: its path ("configs[]" for the elements of an array, whose first
// element stands for all) and its keys in order.

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "costmodel/spec/training.hpp"

namespace {

using costmodel::Json;
using costmodel::test::parse_json;
using costmodel::test::run_cli;

void shape_of(const Json& value, const std::string& path, std::ostringstream& out) {
  if (value.is_object()) {
    out << path << "{";
    bool first = true;
    for (const auto& [key, member] : value.as_object()) {
      out << (first ? "" : ",") << key;
      first = false;
    }
    out << "}\n";
    for (const auto& [key, member] : value.as_object()) {
      if (member.is_object() || member.is_array()) shape_of(member, path + key + ".", out);
    }
  } else if (value.is_array() && !value.as_array().empty()) {
    shape_of(value.as_array().front(), path.empty() ? "[]" : path.substr(0, path.size() - 1) + "[].", out);
  }
}

std::string json_shape(const std::vector<std::string>& args) {
  const auto result = run_cli(args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::ostringstream out;
  shape_of(parse_json(result.out), "", out);
  return out.str();
}

std::string csv_header(const std::vector<std::string>& args) {
  const auto result = run_cli(args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return result.out.substr(0, result.out.find('\n'));
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const std::string kConfiguration =
    "{tp,pp,dp,cp,ep,etp,vpp,first_stage_layers,last_stage_layers,micro_batch,global_batch,seq_len,"
    "tokens_per_step,recompute,"
    "recompute_layers,recompute_modules,zero,dtype,"
    "grad_reduce_dtype,optimizer_dtype,fp8_params,sequence_parallel,overlap,compression,"
    // The other declared knobs with a column (spec/training.cpp), in declaration order.
    "attention,attention_dtype,moe_capacity_factor,tp_comm_overlap,grad_accumulation_fusion,ep_comm_overlap,"
    "pp_comm_overlap,cuda_graphs,moe_dispatcher,zero3_gather,dp_algorithm,tp_algorithm,stack,"
    "topology,oversubscription,step_time_s,step_time_s_low,step_time_s_high,interval_coverage,unvalidated,"
    "tokens_per_s,model_tflops_per_gpu,hardware_tflops_per_gpu,mfu,mfu_"
    "bf16_peak,hfu,"
    "memory_per_gpu_bytes,fits_memory,breakdown,collectives,memory,training_days,training_days_low,"
    "training_days_high,cost_usd,cost_usd_low,cost_usd_high,energy_kwh,"
    "switches,"
    "network_cost_usd,power_w,cost_basis,rental_cost_usd,capex_usd,gpu_capex_usd,network_capex_usd,scale_up_"
    "capex_usd,scale_up_power_w,tco_usd,"
    "energy_usd,run_cost_usd,lifetime_tco_usd,tco_breakdown,power_at_load_w,goodput,ideal_days,interruptions,"
    "unplanned_interruptions,planned_interruptions,interruptions_per_day,cluster_mtbf_s,"
    "planned_mtbf_s,"
    "checkpoint_time_s,checkpoint_interval_s,checkpoint_interval_floor_s,gpus,"
    "parameters,active_parameters,cluster,schema_version}\n";
const std::string kBreakdown =
    "{compute_s,tp_comm_s,cp_comm_s,ep_comm_s,pp_comm_s,pp_bubble_s,dp_comm_s,dp_comm_exposed_s,optimizer_s,"
    "host_s,stragglers_s,hidden_comm_s}"
    "\n";
const std::string kCollectives = "{tp,cp,ep,pp,dp,expert_dp,embedding}\n";
const std::string kCollective = "{collective,library,algorithm,protocol,tuner}\n";
const std::string kMemory =
    "{weights_bytes,gradients_bytes,optimizer_bytes,activations_bytes,logits_bytes,error_feedback_bytes,"
    "reserve_bytes,capacity_bytes,overflow}\n";

const std::string kTcoBreakdown = "{capex,facility,energy,support,other}\n";
const std::string kCluster = "{gpu,library,gpus,gpus_per_node,scale_up,scale_out}\n";
const std::string kClusterScaleUp =
    "{fabric,topology,bandwidth_Bps,domain,latency_s,efficiency,in_network_reduction}\n";
const std::string kClusterScaleOut = "{topology,link,line_rate_Bps,nics_per_node,switch,oversubscription}\n";

// `used`: the communicators whose collective the configuration names (an object each; the others null).
std::string configuration_at(const std::string& path,
                             const std::vector<std::string>& used = {"tp", "pp", "dp", "embedding"}) {
  std::string collectives = path + "collectives." + kCollectives;
  for (const std::string& group : used) collectives += path + "collectives." + group + "." + kCollective;
  return path + kConfiguration + path + "breakdown." + kBreakdown + collectives + path + "memory." + kMemory +
         path + "tco_breakdown." + kTcoBreakdown + path + "cluster." + kCluster + path + "cluster.scale_up." +
         kClusterScaleUp + path + "cluster.scale_out." + kClusterScaleOut;
}

const std::vector<std::string> kPlan = {"plan", "--model",  "gpt3-175b", "--gpus", "1024", "--global-batch",
                                        "1536", "--tokens", "300e9",     "--top",  "2"};
const std::vector<std::string> kEstimate = {
    "estimate", "--model", "gpt3-175b", "--gpus", "1024",           "--tp", "8",
    "--pp",     "8",       "--dp",      "16",     "--global-batch", "1536"};

}  // namespace

TEST_CASE("plan and estimate: the configuration object of DESIGN.md §3") {
  CHECK(json_shape(with(kEstimate, {"--format", "json"})) == configuration_at(""));
  CHECK(
      json_shape(with(kPlan, {"--format", "json"})) ==
      "{configs,pareto,gpu_counts,evaluated,feasible,elapsed_s,rejected,skipped_topologies,schema_version}"
      "\n" +
          configuration_at("configs[].") + configuration_at("pareto[].") +
          "rejected.{bad_product,heads_indivisible,layers_indivisible,batch_indivisible,seq_indivisible,"
          "experts_indivisible,dtype_unsupported,bad_degree,zero_unsupported,stack_unsupported,out_of_memory,"
          "deadline_missed,over_power_cap}"
          "\n");
  const std::string plan_csv =
      "tp,pp,dp,cp,ep,etp,vpp,micro_batch,recompute,recompute_layers,zero,sequence_parallel,overlap,topology,"
      "step_time_s,step_time_s_low,step_time_s_high,"
      "model_tflops_per_gpu,mfu,memory_per_gpu_bytes,fits_memory,comm_share,training_days,cost_"
      "usd,capex_usd,"
      "switches,mfu_bf16_peak,unvalidated,collectives,global_batch,seq_len,stack,oversubscription,goodput,"
      "interruptions_per_day,"
      // The other declared knobs with a column, in declaration order, after every earlier column.
      "recompute_modules,dtype,grad_reduce_dtype,optimizer_dtype,fp8_params,compression,attention,"
      "attention_dtype,moe_capacity_factor,tp_comm_overlap,grad_accumulation_fusion,ep_comm_overlap,"
      "pp_comm_overlap,cuda_graphs,moe_dispatcher,zero3_gather,dp_algorithm,tp_algorithm,first_stage_layers,"
      "last_stage_"
      "layers,"
      "schema_version";
  CHECK(csv_header(with(kPlan, {"--format", "csv"})) == "rank," + plan_csv);
  // A deadline search: gpus in every configuration and a row per GPU count searched.
  const std::vector<std::string> deadline = {
      "plan", "--model",      "llama3-8b", "--gpu", "h100-sxm", "--tokens", "1T", "--deadline-days",
      "20",   "--gpus-range", "64:128",    "--top", "1"};
  CHECK(csv_header(with(deadline, {"--format", "csv"})) == "rank,gpus," + plan_csv);
  const std::string shape = json_shape(with(deadline, {"--format", "json"}));
  CHECK(shape.find("gpu_counts[].{gpus,feasible,global_batch,topology,oversubscription,switches,capex_usd,"
                   "training_days,cost_usd,fastest_days,none_reason}\n") != std::string::npos);
  CHECK(csv_header(with(kEstimate, {"--format", "csv"})) == "key,value");
}

TEST_CASE("collective: nccl-tests' columns") {
  const std::vector<std::string> args = {"collective", "--op",        "allreduce", "--gpus",
                                         "16",         "--max-bytes", "1MiB"};
  CHECK(json_shape(with(args, {"--format", "json"})) ==
        "{op,algo,proto,ranks,stride,first_gpu,nodes,topology,scale_up,library,ring_tree_crossover_bytes,"
        "nccl_tuner,rows,schema_version}\n"
        "rows[].{size,count,time_us,algbw_GBps,busbw_GBps,algorithm,protocol,latency_us,bandwidth_us,"
        "chosen_by}\n");
  CHECK(csv_header(with(args, {"--format", "csv"})) ==
        "size,count,time_us,algbw_GBps,busbw_GBps,algorithm,protocol,latency_us,bandwidth_us,chosen_by,"
        "schema_version");
}

TEST_CASE("topology: inventory of one fabric and of all") {
  const std::string row =
      "{topology,gpus,nodes,tiers,switch_radix,tier_names,switches_per_tier,switches_by_tier,switches,host_"
      "links,switch_links,global_links,direct_links,optical_transceivers,optical_modules,node_modules,switch_"
      "modules,nics,cables,scale_up_domains,capex_usd,power_w,diameter_hops,bisection_Bps,note}\n";
  const std::string keys = row.substr(1, row.size() - 3);
  CHECK(json_shape({"topology", "--gpus", "1024", "--format", "json"}) ==
        "{" + keys +
            ",bill_of_materials,schema_version}\nbill_of_materials[].{item,part,count,unit_price_usd,"
            "price_usd,unit_power_w,power_w,kind,total_usd}\n");
  CHECK(json_shape({"topology", "--gpus", "1024", "--topology", "all", "--format", "json"}) ==
        "{gpus,gpu,link,switch,topologies,schema_version}\ntopologies[]." + row);
  CHECK(csv_header({"topology", "--gpus", "1024", "--topology", "all", "--format", "csv"}) ==
        keys + ",schema_version");
}

TEST_CASE("catalog: every catalog's fields") {
  const std::string gpus =
      "name,vendor,architecture,peak_fp32_flops,peak_tf32_flops,peak_bf16_flops,peak_fp16_flops,peak_fp8_"
      "flops,"
      "hbm_bytes,hbm_bandwidth_Bps,host_link_Bps,scale_up,library,scale_up_bandwidth_Bps,scale_up_domain,"
      "scale_up_latency_s,"
      "scale_up_in_network_"
      "reduction,"
      "scale_up_efficiency,tdp_w,price_usd,price_estimate,hourly_price_usd_per_h,server_price_usd_per_gpu,"
      "server_power_w_per_gpu,efficiency_gemm,"
      "efficiency_gemm_half_size,efficiency_hbm,efficiency_attention,efficiency_overlap,"
      "efficiency_ep_overlap,memory_reserve_bytes,"
      "scale_up_in_network_efficiency,efficiency_fitted,source";
  const std::string links =
      "name,line_rate_Bps,efficiency,effective_bandwidth_Bps,latency_s,transport,nccl_protocols,nccl_"
      "algorithms,nccl_devices,"
      "gpudirect,"
      "multipath,ecmp_flows,media,"
      "transceiver_power_w,transceiver_price_usd,nic_power_w,nic_price_usd,price_estimate,source";
  const std::string switches =
      "name,vendor,radix,port_bandwidth_Bps,breakout_radix,breakout_port_bandwidth_Bps,cages,latency_s,"
      "power_w,price_usd,price_estimate,in_network_reduction,source";
  const std::string scale_up =
      "name,topology,bandwidth_Bps,links,link_bandwidth_Bps,domain,max_domain,latency_s,in_network_reduction,"
      "efficiency,switches_per_domain,switch_power_w,switch_price_usd,price_estimate,source";
  const std::string models =
      "name,layers,hidden,heads,kv_heads,ffn_hidden,ffn,vocab,seq_len,tied_embeddings,bias,qkv_bias,norm,"
      "position,"
      "dropout,moe_experts,moe_top_k,moe_every,moe_expert_ffn_hidden,moe_shared_experts,parameters_total,"
      "parameters_active,source";
  const std::pair<const char*, std::string> catalogs[] = {{"gpus", gpus},
                                                          {"links", links},
                                                          {"switches", switches},
                                                          {"scale-up", scale_up},
                                                          {"models", models},
                                                          {"topologies", "name,description,switched,source"},
                                                          {"knobs", "key,flag,split,column,help"}};
  for (const auto& catalog : catalogs) {
    const char* name = catalog.first;  // clang < 16 cannot capture a structured binding
    const std::string& keys = catalog.second;
    CAPTURE(name);
    CHECK(csv_header({"catalog", name, "--format", "csv"}) == keys + ",schema_version");
    CHECK(json_shape({"catalog", name, "--format", "json"}) == "[]{" + keys + ",schema_version}\n");
  }
  CHECK(json_shape({"catalog", "--format", "json"}) == "[]{catalog,count,names,schema_version}\n");
}

TEST_CASE("validate, calibrate and scenario") {
  const std::string runs = std::string(COSTMODEL_TEST_SOURCE_DIR) + "/data/published-runs.yaml";
  const std::string validate_row =
      "id,gpu,gpus,convention,measured_as,measured_tflops_per_gpu,predicted_tflops_per_gpu,error,split,"
      "recompute,recompute_layers,"
      "zero,"
      "measured_days,predicted_days";
  CHECK(
      json_shape({"validate", runs, "--format", "json"}) ==
      "{runs,median_abs_error,mean_abs_error,max_abs_error,interval_coverage,interval_inside,interval_total,"
      "median_half_width,loo_coverage,schema_version}\nruns[].{" +
          validate_row + "}\n");
  CHECK(csv_header({"validate", runs, "--format", "csv"}) == validate_row + ",schema_version");

  const std::string log = std::string(COSTMODEL_TEST_FIXTURES) + "/nccl/multinode_run.txt";
  const std::string calibrate_row =
      "collective,algorithm,ranks,ranks_from,nodes,points,alpha_s,beta_s_per_B,r_squared,worst_size_B,"
      "worst_residual,algbw_Bps,busbw_Bps,knee_B,small_alpha_s,large_busbw_Bps,efficiency,level,"
      "line_rate_busbw_Bps,latency_s,device,wrong";
  const std::string level_row =
      "level,points,in_network_reduction,bandwidth_Bps,efficiency,efficiency_error,ll_step_latency_s,"
      "ll_step_latency_error,ll_bandwidth_factor,ll_bandwidth_error,ll128_step_latency_s,"
      "ll128_step_latency_error,ll128_bandwidth_factor,ll128_bandwidth_error,simple_step_latency_s,"
      "simple_step_latency_error,worst_error_before,worst_error_after,outside_band";
  const std::string residual_row =
      "file,collective,ranks,size_B,measured_s,before_s,error_before,after_s,error_after,band,algorithm,"
      "protocol";
  CHECK(json_shape({"calibrate", log, "--format", "json"}) ==
        "{fits,levels,residuals,notes,schema_version}\nfits[].{" + calibrate_row + "}\nlevels[].{" +
            level_row + "}\nresiduals[].{" + residual_row + "}\n");
  CHECK(csv_header({"calibrate", log, "--format", "csv"}) == calibrate_row + ",schema_version");

  // calibrate --runs: the GPU fit (one A100 parameter, to stay quick).
  CHECK(json_shape({"calibrate", "--runs", runs, "--gpu", "a100-80gb", "--fit", "gemm", "--objective",
                    "minimax", "--format", "json"}) ==
        "{gpu,objective,runs,parameters,rms_error_before,rms_error_after,max_abs_error_before,"
        "max_abs_error_after,replans,notes,schema_version}\n"
        "runs[].{id,fitted,configuration,convention,measured_flops_per_gpu,before_flops_per_gpu,error_before,"
        "after_flops_per_gpu,error_after}\n"
        "parameters[].{parameter,before,value,standard_error,lower,upper,identifiable}\n");

  const std::string scenario = std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/compression.yaml";
  CHECK(
      csv_header({"scenario", scenario, "--format", "csv"}) ==
      "variant,training.overlap,training.compression,split,zero,step_time_s,mfu,dp_comm_s,dp_comm_exposed_s,"
      "optimizer_s,comm_share,training_days,cost_usd,speedup,cost_delta,note,schema_version");
  const std::string sizes = std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/cluster-size.yaml";
  CHECK(csv_header({"scenario", sizes, "--format", "csv"}) ==
        "training.restart_time,cluster.gpus,split,mfu,ideal_days,goodput,interruptions,checkpoint_interval_s,"
        "training_days,capex_usd,energy_usd,tco_usd,cost_delta,note,schema_version");
  CHECK(json_shape({"scenario", scenario, "--format", "json"}) ==
        "{scenario,dimensions,rows,elapsed_s,schema_version}\n"
        "rows[].{variant,training.overlap,training.compression,configurations,evaluated,feasible,comm_share,"
        "transceivers,diameter,network_power_w,speedup,cost_delta,switches_delta,network_cost_delta_usd,"
        "network_power_delta_w,power_delta_w,baseline_row,note}\n" +
            configuration_at("rows[].configurations[].", {"cp", "pp", "dp"}));
}

// One declaration per knob (spec/training.hpp): every declared knob is a flag of the commands that take
// [training] (the split knobs only where a split is given), and a row of `catalog knobs`, the docs'
// reference.
TEST_CASE("knobs: every declared knob is a flag in --help and a row of catalog knobs") {
  const auto plan = run_cli({"plan", "--help"});
  const auto scenario_free = run_cli({"validate", "--help"});
  const auto knobs = run_cli({"catalog", "knobs", "--format", "csv"});
  REQUIRE(plan.exit_code == 0);
  REQUIRE(knobs.exit_code == 0);
  for (const costmodel::TrainingField& field : costmodel::training_fields()) {
    CAPTURE(field.key);
    CHECK(plan.out.find("--" + std::string(field.flag) + " ") != std::string::npos);
    CHECK(knobs.out.find("\n" + std::string(field.key) + ",--" + std::string(field.flag) + ",") !=
          std::string::npos);
  }
  // validate takes no [training] flags: the declaration does not leak into every command.
  CHECK(scenario_free.out.find("--global-batch") == std::string::npos);
}
