// SPDX-License-Identifier: Apache-2.0
#include "cli/flags.hpp"

#include <iostream>

#include "analysis/knobs.hpp"
#include "costmodel/io/runs.hpp"
#include "costmodel/spec/names.hpp"
#include "costmodel/spec/stack.hpp"
#include "spec/plausibility.hpp"

namespace costmodel::cli {

// ---------------------------------------------------------------------------------------------------
// [cluster]

void add_cluster_options(po::options_description& options) {
  options.add_options()                                                                                //
      ("cluster", po::value<std::string>()->value_name("FILE.yaml"), "cluster description (YAML)")     //
      ("gpu", po::value<std::string>()->value_name("NAME"), "GPU catalog name, e.g. h100-sxm")         //
      ("gpus", po::value<std::string>()->value_name("N"), "number of GPUs")                            //
      ("gpus-per-node", po::value<std::string>()->value_name("N"), "GPUs per node (server)")           //
      ("link", po::value<std::string>()->value_name("NAME"), "scale-out link, e.g. ib-ndr-400g")       //
      ("nics-per-node", po::value<std::string>()->value_name("N"), "scale-out NICs per node")          //
      ("topology", po::value<std::string>()->value_name("KIND"), join(topology_names(), "|").c_str())  //
      ("switch", po::value<std::string>()->value_name("NAME"), "switch catalog name, e.g. qm9700")     //
      ("scale-up", po::value<std::string>()->value_name("NAME"),
       "scale-up fabric catalog name, e.g. ualink-1.0 (costmodel catalog scale-up); default: the GPU's "
       "own")  //
      ("oversubscription", po::value<std::string>()->value_name("R"),
       "leaf downlink:uplink bandwidth ratio (1 = non-blocking)")  //
      ("routing", po::value<std::string>()->value_name("MODE"),
       "dragonfly-plus routing between groups: adaptive (default; detours through another group when the "
       "direct links are busy) or minimal (direct links only)")                      //
      ("strict", "treat implausible values (unit slips, missing prices) as errors")  //
      ("in-network", po::value<std::string>()->value_name("MODE"),
       (listed(kScaleOutReductions) + ": whether the switches' in-network reduction (SHARP, "
                                      "NCCL's CollNet) is in use (default none, as NCCL)")
           .c_str());
}

ClusterArgs read_cluster_args(const po::variables_map& values, const Context& context) {
  ClusterArgs args;
  args.file = string_option(values, "cluster");
  args.strict = values.count("strict") > 0;
  args.options.gpu = string_option(values, "gpu");
  args.options.gpus = positive_int(values, "gpus", context);
  args.options.gpus_per_node = positive_int(values, "gpus-per-node", context);
  args.options.link = string_option(values, "link");
  args.options.nics_per_node = positive_int(values, "nics-per-node", context);
  args.options.switch_name = string_option(values, "switch");
  args.options.scale_up = string_option(values, "scale-up");
  args.options.oversubscription = positive_number(values, "oversubscription", context);
  if (const auto in_network = string_option(values, "in-network")) {
    if (!parse_named(*in_network, kScaleOutReductions)) {
      const std::vector<std::string> known = names_of(kScaleOutReductions);
      const std::string hint = did_you_mean(*in_network, known);
      throw usage_error(context, "--in-network", "unknown in-network reduction '" + *in_network + "'",
                        hint.empty() ? "expected " + alternatives(known) : hint);
    }
    args.options.in_network = *in_network;
  }
  if (const auto routing = string_option(values, "routing")) {
    if (!parse_routing(*routing)) {
      const std::vector<std::string> known = names_of(kRoutings);
      const std::string hint = did_you_mean(*routing, known);
      throw usage_error(context, "--routing", "unknown routing '" + *routing + "'",
                        hint.empty() ? "expected " + alternatives(known) : hint);
    }
    args.options.routing = *routing;
  }
  if (const auto topology = string_option(values, "topology")) {
    if (!parse_topology_kind(*topology)) {
      const std::vector<std::string> known = topology_names();
      const std::string hint = did_you_mean(*topology, known);
      throw usage_error(context, "--topology", "unknown topology '" + *topology + "'",
                        hint.empty() ? "expected one of " + join(known, ", ") : hint);
    }
    args.options.topology = *topology;
  }
  return args;
}

namespace {

/// The flag that set a cluster field, when one did.
std::string flag_of(const std::string& field, const ClusterOptions& o) {
  if (field.rfind("scale_out.nics_per_node", 0) == 0 && o.nics_per_node) return "--nics-per-node";
  if (field.rfind("scale_out.link", 0) == 0 && o.link) return "--link";
  if (field.rfind("scale_out.switch", 0) == 0 && o.switch_name) return "--switch";
  if (field.rfind("gpu", 0) == 0 && o.gpu) return "--gpu";
  if (field.rfind("scale_up", 0) == 0 && o.scale_up) return "--scale-up";
  return "";
}

void report_plausibility(const ClusterSpec& cluster, const ClusterArgs& args, const Catalog& catalog,
                         const Context& context) {
  for (const Warning& w : plausibility_warnings(cluster, catalog)) {
    const std::string flag = flag_of(w.field, args.options);
    Error diagnostic = usage_error(context, flag.empty() ? w.field : flag, w.message);
    if (flag.empty() && args.file) {
      const ErrorLocation at = locate_field(*args.file, w.field);
      if (at.line > 0) diagnostic = Error(at, w.field, w.message);
    }
    if (args.strict) throw diagnostic;
    std::string line = diagnostic.what();
    if (const auto at = line.find(": error: "); at != std::string::npos) line.replace(at, 9, ": warning: ");
    *context.err << line << '\n';
  }
}

}  // namespace

ClusterSpec make_cluster(const ClusterArgs& args, const Catalog& catalog, const Context& context) {
  // Without a cluster file, --gpu NAME starts from that GPU's typical node (data/gpus.yaml `node:`).
  ClusterSpec base = args.file          ? load_cluster_file(*args.file, catalog)
                     : args.options.gpu ? default_cluster(catalog, *args.options.gpu)
                                        : default_cluster(catalog);
  ClusterSpec cluster = apply_cluster_options(std::move(base), args.options, catalog);
  const auto reasons = validate(cluster);
  if (!reasons.empty()) throw Error("the cluster is not usable: " + join(reasons, "; "));
  report_plausibility(cluster, args, catalog, context);
  return cluster;
}

// ---------------------------------------------------------------------------------------------------
// [model] and [training]

void add_training_options(po::options_description& options, bool pins,
                          const std::vector<TrainingField>& fields) {
  options.add_options()("model", po::value<std::string>(),
                        "model: catalog name (costmodel catalog models) or FILE.yaml [gpt3-175b]");
  for (const TrainingField& field : fields) {
    if (field.pin && !pins) continue;
    const std::string flag(field.flag);
    const std::string help(field.help);
    options.add_options()(flag.c_str(), po::value<std::string>(), help.c_str());
  }
}

TrainingArgs read_training_args(const po::variables_map& values, const Context& context,
                                const std::vector<TrainingField>& fields) {
  TrainingArgs args;
  if (auto model = string_option(values, "model")) args.model = *model;
  for (const TrainingField& field : fields) {
    const std::string flag(field.flag);
    const auto text = string_option(values, flag);
    if (!text) continue;
    try {
      assign_training_field(args.training, field, *text);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
      throw flag_error(context, "--" + flag, e);
    }
  }
  return args;
}

void warn_ineffective_knobs(const StepEstimate& estimate, const ModelSpec& model, const ClusterSpec& cluster,
                            const TrainingSpec& training, const Context& context) {
  for (const IneffectiveKnob& knob : ineffective_knobs(estimate, model, cluster, training)) {
    std::string flag = knob.key;
    for (const TrainingField& field : training_fields()) {
      if (field.key == knob.key) flag = "--" + std::string(field.flag);
    }
    *context.err << context.prefix() << ": warning: " << flag
                 << ": has no effect on the chosen configuration: " << knob.reason << '\n';
  }
}

void resolve_training_stack(TrainingArgs& args, const Catalog& catalog, const ClusterSpec& cluster,
                            const Context& context) {
  try {
    resolve_stack(args.training, catalog, cluster.stack);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInternal) throw;
    std::string flag = e.field().empty() ? "stack" : e.field();
    for (const TrainingField& field : training_fields()) {
      if (field.key == flag) flag = field.flag;
    }
    throw usage_error(context, "--" + flag, e.message(), e.hint());
  }
}

void add_runs_stack_option(po::options_description& options, const std::string& what) {
  const std::string help =
      "software stack of " + what + " that name none (costmodel catalog stacks) [megatron-core]";
  options.add_options()("stack", po::value<std::string>()->value_name("NAME"), help.c_str());
}

std::string runs_stack_option(const po::variables_map& values, const Catalog& catalog,
                              const Context& context) {
  const auto name = string_option(values, "stack");
  if (!name) return {};
  try {
    (void)catalog.stack(*name);  // the catalog's own lookup, with its suggestion
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInternal) throw;
    throw flag_error(context, "--stack", e);
  }
  return *name;
}

ModelSpec make_model(const TrainingArgs& args, const Catalog& catalog, const Context& context) {
  ModelSpec model = resolve_model(args.model, catalog);
  if (names_hf_config(args.model) && !args.training.seq_len) {
    // Issue 30: a Llama 3.1 config.json says 131,072, the context the model serves, which then trained
    // silently at 131K tokens per sequence.
    *context.err << context.prefix() << ": warning: --model: seq_len " << model.seq_len
                 << " is config.json's max_position_embeddings, the longest context the model serves, not "
                    "necessarily its training length; give --seq-len\n";
  }
  return with_sequence_length(model, args.training);
}

void add_prices_option(po::options_description& options) {
  options.add_options()("prices", po::value<std::string>()->value_name("FILE.yaml"),
                        "a price book: quotes (item, name, price or share, date, source) that replace the "
                        "catalog's prices and lifetime costs (data/prices.yaml's form)");
}

Catalog load_priced_catalog(const po::variables_map& values, const Context& context) {
  Catalog catalog = load_catalog();
  if (const auto path = string_option(values, "prices")) {
    if (path->empty()) throw usage_error(context, "--prices", "expected a file name");
    apply_price_book(catalog, load_price_book(*path, catalog));
  }
  return catalog;
}

SimilarRuns similar_published_runs(const ModelSpec& model, const ClusterSpec& cluster, int threads) {
  const Catalog catalog = load_catalog();
  const std::vector<PublishedRun> runs =
      load_published_runs(catalog.root + "/data/holdout-runs.yaml", catalog, kDefaultStack);
  SimilarRuns similar = validate_similar_runs(runs, model, cluster.gpu.name, threads);
  similar.description = "held-out " + similar.description + " (data/holdout-runs.yaml, never fitted on)";
  return similar;
}

}  // namespace costmodel::cli
