// SPDX-License-Identifier: Apache-2.0
#include "costmodel/report/html.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "cells.hpp"
#include "costmodel/error.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/report/configuration.hpp"
#include "costmodel/report/launch.hpp"
#include "costmodel/report/plan.hpp"
#include "costmodel/spec/stack.hpp"
#include "costmodel/version.hpp"
#include "report/scenario.hpp"
#include "report/svg.hpp"
#include "report/topology.hpp"
#include "report/validation.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// Print and screen in one sheet: system fonts only (nothing fetched), tables that break across pages by row,
// bars that keep their colour when printed.
constexpr std::string_view kStyle = R"(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;font-size:14px;color:#222;max-width:1100px;margin:24px auto;padding:0 16px}
h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:3px;margin-top:30px}
h3{font-size:15px;margin-bottom:6px}.sub{color:#555;margin-top:0}
.scroll{overflow-x:auto}table{border-collapse:collapse;margin:6px 0 4px;font-size:13px}th,td{border:1px solid #ddd;padding:3px 7px}
th{background:#f2f2f2;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer}th.asc::after{content:" \25B2"}th.desc::after{content:" \25BC"}
tr{page-break-inside:avoid}p.note,ul.note{color:#555;font-size:12px;margin:2px 0}
pre{background:#f7f7f7;border:1px solid #ddd;padding:8px;font-size:12px;white-space:pre-wrap;word-break:break-all}
.bar{display:inline-block;height:12px;background:#4e79a7;vertical-align:middle}.bar.over{background:#e15759}
.bar.hidden{background:#bab0ac}svg{max-width:100%;height:auto}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
@media print{body{margin:0;max-width:none}h2{page-break-after:avoid}.scroll{overflow:visible}table{font-size:8px}}
)";

// Click a header to sort by it (numbers by their SI value, text by its letters); again to reverse.
constexpr std::string_view kScript = R"(
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var ascending = !th.classList.contains("asc");
      table.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(ascending ? "asc" : "desc");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[column];
        var text = cell ? cell.getAttribute("data-value") : "";
        var number = parseFloat(text);
        return isNaN(number) ? text || "" : number;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
)";

std::string escape(std::string_view text) {
  return xml_escape(text);
}

/// An SVG document of report/svg.cpp as an element of the page: no XML declaration, and no namespace
/// attribute (an HTML parser puts <svg> in the SVG namespace itself, and the page names no address).
std::string inline_svg(std::string svg) {
  if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
  constexpr std::string_view kNamespace = R"( xmlns="http://www.w3.org/2000/svg")";
  if (const auto at = svg.find(kNamespace); at != std::string::npos) svg.erase(at, kNamespace.size());
  return svg;
}

/// "12.5%": a share for people.
std::string percent(double share) {
  return format_number(100.0 * share, 3) + "%";
}

std::string usd(double value) {
  return "$" + format_number(value, 4);
}

/// One labelled fact of the assumptions: what it is, its value, where it comes from.
struct Fact {
  std::string label;
  std::string value;
  std::string source;
};

/// The page being written: a title, sections in order, and the closing that adds the style and script.
class Page {
 public:
  Page(std::ostream& out, const std::string& title, const std::string& subtitle) : out_(out) {
    out_ << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         << "<meta name=\"generator\" content=\"costmodel " << version() << "\">\n<title>" << escape(title)
         << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>" << escape(title) << "</h1>\n"
         << "<p class=\"sub\">" << escape(subtitle) << "</p>\n";
  }
  Page(const Page&) = delete;
  Page& operator=(const Page&) = delete;
  ~Page() { out_ << "<script>" << kScript << "</script>\n</body>\n</html>\n"; }

  void section(const std::string& title, const std::string& id) {
    out_ << "<h2 id=\"" << id << "\">" << escape(title) << "</h2>\n";
  }
  void paragraph(const std::string& text, bool note = false) {
    out_ << (note ? "<p class=\"note\">" : "<p>") << escape(text) << "</p>\n";
  }
  void table(const Table& table, const std::string& id = {}) {
    if (!id.empty()) out_ << "<div id=\"" << id << "\">\n";
    write_html_table(out_, table);
    if (!id.empty()) out_ << "</div>\n";
  }
  void facts(const std::vector<Fact>& facts) {
    out_
        << "<table class=\"facts\">\n<thead><tr><th>assumption</th><th>value</th><th>source</th></tr></thead>"
           "\n<tbody>\n";
    for (const Fact& f : facts) {
      out_ << "<tr><td>" << escape(f.label) << "</td><td>" << escape(f.value) << "</td><td>"
           << escape(f.source) << "</td></tr>\n";
    }
    out_ << "</tbody>\n</table>\n";
  }
  void figure(const std::string& svg) { out_ << "<figure>\n" << inline_svg(svg) << "</figure>\n"; }
  void code(const std::string& text) { out_ << "<pre>" << escape(text) << "</pre>\n"; }

  /// Horizontal bars, one per (label, value), scaled to `full` (the largest value when 0); a value above
  /// `full` is drawn in red at full width. `kind` marks bars that do not add to the total ("hidden").
  struct Bar {
    std::string label;
    double value = 0;
    std::string kind;
  };
  void bars(const std::vector<Bar>& bars, const std::string& unit, double scale, double full, double total,
            const std::string& id) {
    double largest = full;
    for (const Bar& b : bars) largest = std::max(largest, full > 0 ? 0.0 : b.value);
    out_ << "<table class=\"bars\" id=\"" << id << "\">\n<thead><tr><th>term</th><th>" << escape(unit)
         << "</th><th>share</th><th></th></tr></thead>\n<tbody>\n";
    constexpr double kBarPixels = 420;
    for (const Bar& b : bars) {
      const double width = largest > 0 ? std::min(1.0, b.value / largest) * kBarPixels : 0.0;
      const bool over = full > 0 && b.value > full;
      out_ << "<tr><td>" << escape(b.label) << "</td><td class=\"num\" data-value=\"" << Json(b.value).dump(0)
           << "\">" << escape(format_number(b.value / scale, 4)) << "</td><td class=\"num\">"
           << (total > 0 ? escape(percent(b.value / total)) : "") << "</td><td><span class=\"bar"
           << (over             ? " over"
               : b.kind.empty() ? ""
                                : " " + b.kind)
           << "\" style=\"width:" << format_number(width, 4) << "px\"></span></td></tr>\n";
    }
    out_ << "</tbody>\n</table>\n";
  }

 private:
  std::ostream& out_;
};

std::string source_or(const std::string& source, const std::string& fallback) {
  return source.empty() ? fallback : source;
}

std::string estimate_word(bool estimate) {
  return estimate ? " (estimate)" : " (list price or quote)";
}

/// Model, run, stack, cluster, prices and reliability, each with its source.
std::vector<Fact> assumptions(const ModelSpec& model, const ClusterSpec& cluster, int global_batch,
                              const EstimateOptions& options, const std::string& stack) {
  const GpuSpec& gpu = cluster.gpu;
  const NodeSpec& node = gpu.node;
  std::vector<Fact> facts;
  std::string shape = std::to_string(model.layers) + " layers, hidden " + std::to_string(model.hidden) +
                      ", " + std::to_string(model.heads) + " heads";
  if (model.is_moe()) {
    shape += ", " + std::to_string(model.moe->experts) + " experts, top " + std::to_string(model.moe->top_k);
  }
  const ParameterCount parameters = count_parameters(model);
  facts.push_back({"model",
                   model.name + ": " + format_number(parameters.total / 1e9, 4) + "B parameters (" +
                       format_number(parameters.active / 1e9, 4) + "B active); " + shape,
                   model.source.empty() ? "models/" + model.name + ".yaml" : model.source});
  facts.push_back({"run", describe_run(model, global_batch, options.tokens), "the request"});
  facts.push_back({"software stack", stack.empty() ? std::string(kDefaultStack) : stack, "data/stacks.yaml"});
  facts.push_back({"cluster", describe_cluster(cluster), "the request; data/gpus.yaml"});
  facts.push_back({"GPU",
                   gpu.name + ": " + usd(gpu.price.value) + " each" + estimate_word(gpu.price_estimate) +
                       ", " + format_number(gpu.tdp.value, 4) + " W, " +
                       format_number(gpu.hbm.value / kGibi, 4) + " GiB HBM",
                   source_or(gpu.source, "data/gpus.yaml")});
  facts.push_back({"server",
                   usd(node.server_price.value) + " per node of " + std::to_string(node.gpus) + " GPUs" +
                       estimate_word(node.price_estimate) + ", " + format_number(node.server_power.value, 4) +
                       " W besides the GPUs",
                   source_or(node.source, "data/gpus.yaml")});
  facts.push_back({"power drawn while training",
                   "nodes at " + percent(node.load_power) +
                       " of rated power (GPUs at TDP + server); fabric at "
                       "its catalog power",
                   "load_power in the server's source above"});
  const LinkSpec& link = cluster.link;
  facts.push_back({"scale-out link",
                   link.name + ": " + format_number(link.line_rate.value * 8 / 1e9, 4) + " Gb/s; NIC " +
                       usd(link.nic_price.value) + " per port, optics " + usd(link.transceiver_price.value) +
                       " per port end" + estimate_word(link.price_estimate),
                   source_or(link.source, "data/links.yaml")});
  const SwitchSpec& sw = cluster.switch_spec;
  facts.push_back({"scale-out switch",
                   sw.name + ": " + usd(sw.price.value) + estimate_word(sw.price_estimate) + ", " +
                       format_number(sw.power.value, 4) + " W",
                   source_or(sw.source, "data/switches.yaml")});
  const EconomicsSpec& money = options.economics;
  facts.push_back({"cost basis", cost_basis_note(money, gpu), "estimate/economics.hpp"});
  facts.push_back(
      {"electricity and PUE",
       usd(money.electricity.value * kJoulesPerKwh) + " per kWh, PUE " + format_number(money.pue, 3),
       "EIA Electric Power Monthly table 5.3 (2023 US industrial); Uptime Institute 2024 survey"});
  facts.push_back({"amortisation", format_number(money.amortization_years, 3) + " years, linear",
                   "planning figure (estimate/economics.hpp)"});
  const ReliabilitySpec& r = options.reliability;
  const auto per_gpu = [](Seconds mtbf) {
    return std::isfinite(mtbf.value) ? format_number(mtbf.value / kSecondsPerDay, 5) + " GPU-days"
                                     : std::string("not modelled");
  };
  facts.push_back(
      {"interruptions",
       "unplanned one per " + per_gpu(r.gpu_mtbf) + ", planned one per " + per_gpu(r.planned_gpu_mtbf),
       "Llama 3 405B, 419 unplanned and 47 planned in 54 days on 16,384 H100 (Dubey et al. 2024, "
       "§3.3.4)"});
  facts.push_back({"checkpoints and restarts",
                   format_number(r.checkpoint_bandwidth.value / 1e9, 4) + " GB/s per node" +
                       (r.async_checkpoint ? ", asynchronous" : ", synchronous") + "; restart " +
                       format_number(r.restart_time.value / kSecondsPerMinute, 3) + " min",
                   "Llama 3 storage 2 TB/s (Dubey et al. 2024, §3.3.1); restarts 5-20 min (Kokolis et al. "
                   "2024)"});
  return facts;
}

/// `bars` without the terms that are zero.
std::vector<Page::Bar> nonzero(std::vector<Page::Bar> bars) {
  bars.erase(std::remove_if(bars.begin(), bars.end(), [](const Page::Bar& bar) { return bar.value <= 0.0; }),
             bars.end());
  return bars;
}

/// The step time by term (the terms add up to the step), and the communication overlap hides.
std::vector<Page::Bar> step_bars(const StepEstimate& e) {
  const auto& b = e.breakdown;
  std::vector<Page::Bar> bars = nonzero({{"compute", b.compute.value, ""},
                                         {"TP communication", b.tp_comm.value, ""},
                                         {"CP communication, exposed", b.cp_comm.value, ""},
                                         {"EP communication", b.ep_comm.value, ""},
                                         {"PP send/recv", b.pp_comm.value, ""},
                                         {"PP bubble", b.pp_bubble.value, ""},
                                         {"DP communication, exposed", b.dp_comm_exposed.value, ""},
                                         {"optimizer", b.optimizer.value, ""},
                                         {"host launches, exposed", b.host.value, ""},
                                         {"slowest host's lag", b.stragglers.value, ""}});
  if (b.hidden_comm.value > 0.0)
    bars.push_back({"communication hidden under compute", b.hidden_comm.value, "hidden"});
  return bars;
}

std::vector<Page::Bar> memory_bars(const StepEstimate& e) {
  const auto& m = e.memory;
  std::vector<Page::Bar> bars = nonzero({{"weights", m.weights.value, ""},
                                         {"gradients", m.gradients.value, ""},
                                         {"optimizer states", m.optimizer.value, ""},
                                         {"activations", m.activations.value, ""},
                                         {"logits", m.logits.value, ""},
                                         {"error feedback", m.error_feedback.value, ""},
                                         {"reserve", m.reserve.value, ""}});
  bars.push_back({"total", m.total.value, ""});
  return bars;
}

/// Capex and the run's cost of one configuration, in M$.
Table money_table(const StepEstimate& e) {
  Table t;
  t.title = "capex and run cost";
  t.columns = {{"item", "item", ""}, {"usd", "amount", "M$", 1e6, 4}};
  const auto row = [&t](const std::string& item, double usd) { t.rows.push_back({Json(item), Json(usd)}); };
  row("capex", e.capex.value);
  // The scale-up fabric is in the servers' price when it is the GPU entry's own (capex does not add it).
  const bool in_servers =
      e.capex.value < e.gpu_capex.value + e.network_capex.value + 0.5 * e.scale_up_capex.value;
  row("  GPUs and servers", e.gpu_capex.value);
  if (e.scale_up_capex.value > 0.0 && in_servers)
    row("    of which the scale-up fabric", e.scale_up_capex.value);
  row("  scale-out network", e.network_capex.value);
  if (e.scale_up_capex.value > 0.0 && !in_servers) row("  scale-up fabric", e.scale_up_capex.value);
  if (e.run_cost) row("run cost: the run's slice of the lifetime TCO", e.run_cost->value);
  if (e.tco) row("  capex for the run's days + its energy (cost_usd)", e.tco->value);
  if (e.energy_cost) row("    of which energy", e.energy_cost->value);
  if (e.rental_cost) row("renting the GPUs instead, all-in", e.rental_cost->value);
  t.notes = {
      "run cost: the lifetime TCO below times the run's wall-clock days over the life; cost_usd, which "
      "plan ranks by, counts capex and energy only"};
  return t;
}

/// The cluster's lifetime TCO by kind, each with its share and source.
Table lifetime_table(const StepEstimate& e, const EconomicsSpec& economics) {
  const LifetimeCost& life = e.lifetime;
  const double total = life.total().value;
  const auto source = [&economics](std::string_view item, const std::string& fallback) {
    std::string text;
    for (const PriceQuote& q : economics.quotes) {
      if (q.item == item) text = q.source + " (" + q.date + ", " + q.where + ")";
    }
    return text.empty() ? fallback : text;
  };
  Table t;
  t.title = "lifetime TCO over " + format_number(economics.amortization_years, 3) + " years";
  t.columns = {{"item", "item", ""},
               {"usd", "amount", "M$", 1e6, 4},
               {"share", "share", "%", 0.01, 3},
               {"source", "source", ""}};
  const auto row = [&](const std::string& item, Usd usd, const std::string& from) {
    t.rows.push_back({Json(item), Json(usd.value), Json(total > 0 ? usd.value / total : 0.0), Json(from)});
  };
  row("capex", life.capex, "the parts' prices (assumptions above)");
  row("facility", life.facility, economics.facility ? source("facility", "--facility") : "not counted");
  const std::string electricity = source("electricity", "");
  row("energy at training load", life.energy,
      "power drawn while training x PUE x the electricity price, the whole life" +
          (electricity.empty() ? std::string() : "; " + electricity));
  row("support", life.support, economics.support_share ? source("support", "--support") : "not counted");
  std::string other;
  for (const char* item : {"storage", "spares", "cables"}) {
    other += (other.empty() ? "" : "; ") + std::string(item) + ": " + source(item, std::string("--") + item);
  }
  row("storage, spares, cables", life.other, other);
  row("total", life.total(), "");
  return t;
}

/// Power and energy of one configuration.
Table power_table(const StepEstimate& e) {
  Table t;
  t.title = "power and energy";
  t.columns = {{"power_w", "rated: GPUs at TDP + servers + fabric", "kW", 1e3, 4},
               {"power_at_load_w", "drawn while training", "kW", 1e3, 4},
               {"energy_kwh", "energy of the run, with PUE", "MWh", 1e3, 4}};
  t.rows.push_back({Json(e.power.value), Json(e.power_at_load.value),
                    e.energy ? Json(e.energy->value / kJoulesPerKwh) : Json()});
  return t;
}

Table goodput_table(const StepEstimate& e) {
  const Goodput& g = e.goodput;
  Table t;
  t.title = "goodput";
  t.columns = {{"item", "item", ""}, {"value", "value", ""}, {"unit", "unit", ""}};
  const auto row = [&t](const std::string& item, Json value, const std::string& unit) {
    t.rows.push_back({Json(item), std::move(value), Json(unit)});
  };
  row("goodput (useful share of wall-clock time)", g.fraction, "");
  if (e.training_time) row("days to train, wall-clock", detail::days_cell(e.training_time), "d");
  if (e.ideal_time) row("  without interruptions", detail::days_cell(e.ideal_time), "d");
  if (e.interruptions) row("unplanned interruptions (expected)", *e.interruptions, "");
  if (e.planned_interruptions) row("planned interruptions (expected)", *e.planned_interruptions, "");
  row("interruptions per day", interruptions_per_day(g), "1/d");
  if (std::isfinite(g.cluster_mtbf.value)) row("mean time between unplanned ones", g.cluster_mtbf.value, "s");
  row("checkpoint stall", g.checkpoint_time.value, "s");
  if (std::isfinite(g.checkpoint_interval.value))
    row("checkpoint interval used", g.checkpoint_interval.value, "s");
  row("  its floor: one step, one asynchronous write, --checkpoint-floor", g.checkpoint_floor.value, "s");
  t.notes = {
      "each unplanned interruption loses the work since the last checkpoint and a restart; each planned "
      "one checkpoints first and loses the restart only",
      "checkpoint interval: Young/Daly's sqrt(2 C M) unless given (Young 1974; Daly 2006), never below its "
      "floor"};
  return t;
}

/// The sections of one configuration, after the page's assumptions and any list it was chosen from.
void configuration_sections(Page& page, const StepEstimate& e, const ModelSpec& model,
                            const ClusterSpec& base, const EstimateOptions& options,
                            const SimilarRuns* evidence) {
  const ClusterSpec cluster = cluster_of(e, base);
  page.section("The configuration in detail", "configuration");
  page.table(estimate_table(e, model, cluster), "configuration-table");

  page.section("Step time by term", "step");
  page.paragraph("step time " + format_number(e.step_time.value, 4) + " s" +
                 (e.interval_coverage > 0.0 ? "; " + describe_interval(e) : std::string()) +
                 ". The terms in colour add up to the step; grey: communication overlapped with compute.");
  page.bars(step_bars(e), "seconds", 1.0, 0.0, e.step_time.value, "step-bars");

  page.section("Memory per GPU", "memory");
  const double capacity = e.memory.capacity.value;
  const double margin = capacity - e.memory.total.value;
  page.paragraph(format_number(e.memory.total.value / kGibi, 4) + " GiB of " +
                 format_number(capacity / kGibi, 4) + " GiB HBM: " +
                 (margin >= 0 ? "margin " + format_number(margin / kGibi, 4) + " GiB (" +
                                    percent(margin / capacity) + ")"
                              : "over by " + format_number(-margin / kGibi, 4) + " GiB, does not fit"));
  page.bars(memory_bars(e), "GiB", kGibi, capacity, capacity, "memory-bars");

  page.section("Fabric and bill of materials", "fabric");
  const Topology topology = build_topology(cluster);
  page.table(topology_table(topology, cluster), "fabric-table");
  page.table(bill_table(topology, cluster), "bill-table");

  page.section("Money", "money");
  page.table(money_table(e), "money-table");
  page.table(lifetime_table(e, options.economics), "lifetime-table");
  page.table(power_table(e), "power-table");

  page.section("Goodput", "goodput");
  page.table(goodput_table(e), "goodput-table");

  page.section("Launch arguments", "launch");
  // The framework of the configuration's stack: torchtitan's configuration, else Megatron-LM's arguments.
  const bool torchtitan = options.stack == "torchtitan";
  const std::string framework = torchtitan ? "torchtitan configuration" : "Megatron-LM arguments";
  std::ostringstream launch;
  try {
    write_launch(launch, {e}, model, cluster, torchtitan ? Format::kTorchtitan : Format::kMegatron, options);
    page.paragraph(
        torchtitan ? "The torchtitan configuration of this plan (a Python module; run it as its header says)."
                   : "Megatron-LM arguments of this configuration; paste them after `torchrun ... "
                     "pretrain_gpt.py`.");
    page.code(launch.str());
  } catch (const Error& error) {
    page.paragraph("no " + framework + ": " + error.what());
  }

  page.section("Evidence: the model on published runs like this one", "evidence");
  if (evidence == nullptr || evidence->summary.rows.empty()) {
    page.paragraph(evidence == nullptr ? "no published runs were validated for this report"
                                       : "no " + evidence->description);
    return;
  }
  const ValidationSummary& s = evidence->summary;
  page.paragraph(evidence->description + ": median |error| " + percent(s.median_abs_error) + ", max " +
                 percent(s.max_abs_error) + " over " + std::to_string(s.rows.size()) +
                 " runs (predicted / measured TFLOP/s per GPU - 1, each run's stated knobs pinned).");
  page.table(validation_table(s, evidence->description), "evidence-table");
}

std::string page_subtitle(const ClusterSpec& cluster) {
  return "costmodel " + std::string(version()) + " · " + describe_cluster(cluster);
}

}  // namespace

void write_html_table(std::ostream& out, const Table& table) {
  for (const std::string& line : table.preamble) out << "<p class=\"note\">" << escape(line) << "</p>\n";
  if (!table.title.empty()) out << "<h3>" << escape(table.title) << "</h3>\n";
  std::vector<size_t> kept;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c].audience != Audience::kMachines) kept.push_back(c);
  }
  out << "<div class=\"scroll\">\n<table class=\"sortable\">\n<thead><tr>";
  for (const size_t c : kept) {
    const Column& column = table.columns[c];
    const std::string& name = column.header.empty() ? column.key : column.header;
    out << "<th data-key=\"" << escape(column.key) << "\">" << escape(name)
        << (column.unit.empty() ? "" : " (" + escape(column.unit) + ")") << "</th>";
  }
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out << "<tr>";
    for (const size_t c : kept) {
      const Column& column = table.columns[c];
      const Json cell = c < row.size() ? row[c] : Json();
      const auto& value = cell.value();
      const bool number =
          std::holds_alternative<std::int64_t>(value) || std::holds_alternative<double>(value);
      std::string shown;
      std::string machine;
      if (cell.is_null()) {
        shown = "-";
      } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
        machine = std::to_string(*i);
        shown = column.scale == 1.0 ? machine
                                    : format_number(static_cast<double>(*i) / column.scale, column.precision);
      } else if (const auto* d = std::get_if<double>(&value)) {
        machine = Json(*d).dump(0);
        shown = format_number(*d / column.scale, column.precision);
      } else if (const auto* b = std::get_if<bool>(&value)) {
        machine = *b ? "true" : "false";
        shown = *b ? "yes" : "no";
      } else if (const auto* s = std::get_if<std::string>(&value)) {
        machine = *s;
        shown = *s;
      } else {
        machine = cell.dump(0);
        shown = machine;
      }
      // Leading spaces indent a row under the one above ("  of which fibres"): kept as an indent.
      const size_t indent =
          shown.find_first_not_of(' ') == std::string::npos ? 0 : shown.find_first_not_of(' ');
      out << "<td" << (number ? " class=\"num\"" : "")
          << (indent > 0 ? " style=\"padding-left:" + std::to_string(7 + 6 * indent) + "px\"" : std::string())
          << " data-value=\"" << escape(machine) << "\">" << escape(shown.substr(indent)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n</div>\n";
  for (const std::string& note : table.notes) out << "<p class=\"note\">" << escape(note) << "</p>\n";
}

void write_plan_html(std::ostream& out, const PlanResult& result, const PlanRequest& request,
                     const SimilarRuns* evidence) {
  const ClusterSpec& base = result.cluster;
  const std::string gpus = request.deadline ? std::to_string(request.deadline->min_gpus) + "-" +
                                                  std::to_string(request.deadline->max_gpus)
                                            : std::to_string(base.gpus);
  Page page(out, "costmodel report: " + result.model.name + " on " + gpus + " x " + base.gpu.name,
            page_subtitle(base));
  page.section("Assumptions", "assumptions");
  std::vector<Fact> facts =
      assumptions(result.model, base, request.training.global_batch, request.options, base.stack);
  if (request.power_cap) {
    facts.push_back({"power cap",
                     format_number(request.power_cap->value / 1e6, 4) +
                         " MW of rated IT power; larger clusters rejected (over_power_cap)",
                     "the request"});
  }
  page.facts(facts);

  page.section("Top configurations", "plans");
  if (result.top.empty()) {
    page.paragraph("nothing feasible among " + std::to_string(result.evaluated) +
                   " candidates (rejected: " + rejected_summary(result) + ")");
    return;
  }
  Table top = configurations_table(result.top, result.options,
                                   "top " + std::to_string(result.top.size()) + " by " +
                                       std::string(to_string(request.objective)) +
                                       (request.pessimistic ? ":high" : ""),
                                   true, request.deadline.has_value());
  top.notes = {
      "evaluated " + std::to_string(result.evaluated) + " candidates, " + std::to_string(result.feasible) +
          " feasible; rejected: " + rejected_summary(result),
      cost_basis_note(request.options.economics, base.gpu) + "; days are wall-clock, after goodput",
      "80% range: the prediction interval of the step (data/intervals.yaml); click a header to sort"};
  page.table(top, "plans-table");

  if (!result.pareto.empty()) {
    page.section("Pareto front", "pareto");
    page.figure(render_svg(pareto_chart(result, result.model.name + ": Pareto front", request.pareto)));
  }
  if (Table counts = gpu_counts_table(result, request); !counts.rows.empty()) {
    page.section("GPU counts searched against the deadline", "deadline");
    page.table(counts, "deadline-table");
  }
  configuration_sections(page, result.top.front(), result.model, base, request.options, evidence);
}

void write_estimate_html(std::ostream& out, const StepEstimate& estimate, const ModelSpec& model,
                         const ClusterSpec& cluster, const EstimateOptions& options,
                         const SimilarRuns* evidence) {
  Page page(
      out,
      "costmodel report: " + model.name + " on " + std::to_string(cluster.gpus) + " x " + cluster.gpu.name,
      page_subtitle(cluster));
  page.section("Assumptions", "assumptions");
  page.facts(assumptions(model, cluster, estimate.strategy.global_batch, options, cluster.stack));
  configuration_sections(page, estimate, model, cluster, options, evidence);
}

void write_scenario_html(std::ostream& out, const Scenario& scenario, const ScenarioResult& result) {
  const auto first =
      std::find_if(result.rows.begin(), result.rows.end(), [](const auto& r) { return !r.best.empty(); });
  const ClusterSpec* base = scenario.cases.empty() ? nullptr : &scenario.cases.front().request.cluster;
  Page page(out, "costmodel scenario: " + scenario.title,
            base ? page_subtitle(*base) : "costmodel " + std::string(version()));
  page.section("Cases", "cases");
  page.table(scenario_table(scenario, result), "cases-table");
  if (result.rows.size() > 1) {
    page.section("The sweep", "sweep");
    page.figure(render_svg(scenario_chart(scenario, result)));
  }
  if (first == result.rows.end()) return;
  const auto index = static_cast<size_t>(first - result.rows.begin());
  const PlanRequest& request = scenario.cases[index].request;
  page.section("Assumptions of case " + std::to_string(index + 1), "assumptions");
  page.facts(assumptions(request.model, request.cluster, first->best.front().strategy.global_batch,
                         request.options, request.cluster.stack));
  configuration_sections(page, first->best.front(), request.model, request.cluster, request.options, nullptr);
}

}  // namespace costmodel::inline COSTMODEL_ABI
