// SPDX-License-Identifier: Apache-2.0
// data/intervals.yaml: prediction intervals as `costmodel validate --emit-intervals` writes them.
#include <iomanip>
#include <ostream>
#include <sstream>

#include "costmodel/io/catalog.hpp"
#include "yaml_reader.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

std::vector<std::string> read_names(yaml::Map& map, const std::string& key) {
  const YAML::Node list = map.required(key);
  if (!list.IsSequence()) {
    throw Error(yaml::location_of(map.file(), list), map.field(key),
                "expected a list of names, got " + yaml::describe(list));
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i)
    names.push_back(yaml::as_string(map.file(), list[i], map.field(key) + "[" + std::to_string(i) + "]"));
  return names;
}

std::string flow_list(const std::vector<std::string>& names) {
  std::string text = "[";
  for (const auto& name : names) text += (text.size() > 1 ? ", " : "") + name;
  return text + "]";
}

}  // namespace

IntervalModel load_intervals_file(const std::string& path) {
  const yaml::Document document = yaml::parse_file(path);
  yaml::Map top(document.file, document.root, "");
  IntervalModel m;
  m.source = top.string("source");
  m.coverage = top.number("coverage", 0.01, 0.99);
  m.runs = static_cast<int>(top.integer("runs", 0, 1 << 20));
  m.loo_coverage = top.number("loo_coverage", 0.0, 1.0);
  const YAML::Node classes = top.required("classes");
  if (!classes.IsSequence()) {
    throw Error(yaml::location_of(path, classes), "classes",
                "expected a list, got " + yaml::describe(classes));
  }
  for (std::size_t i = 0; i < classes.size(); ++i) {
    yaml::Map c(path, classes[i], "classes[" + std::to_string(i) + "]");
    IntervalClass k;
    k.name = c.choice("name", {"dense", "zero3", "moe"});
    k.low = c.number("low", -5.0, 5.0);
    k.high = c.number("high", -5.0, 5.0);
    if (k.high < k.low) throw c.error_at("high", "below low");
    k.runs = static_cast<int>(c.integer("runs", 0, 1 << 20));
    c.finish();
    m.classes.push_back(k);
  }
  yaml::Map v = top.map("validated");
  m.validated.max_gpus = static_cast<int>(v.integer("max_gpus", 0, 1 << 30));
  m.validated.max_cp = static_cast<int>(v.integer("max_cp", 1, 1 << 20));
  m.validated.max_ep = static_cast<int>(v.integer("max_ep", 1, 1 << 20));
  // Optional: files written before it was kept have no lower bound on EP.
  if (v.has("min_ep")) m.validated.min_ep = static_cast<int>(v.integer("min_ep", 1, 1 << 20));
  m.validated.max_zero3_gpus = static_cast<int>(v.integer("max_zero3_gpus", 0, 1 << 30));
  m.validated.fp8 = v.boolean("fp8");
  m.validated.gpus = read_names(v, "gpus");
  m.validated.stacks = read_names(v, "stacks");
  v.finish();
  top.finish();
  return m;
}

void write_intervals(std::ostream& out, const IntervalModel& m) {
  std::ostringstream text;
  text << std::setprecision(6);
  text << "# Prediction intervals on step time from the validation residuals (spec/intervals.hpp,\n"
          "# docs/intervals.md). Written by the command in `source:`; regenerate it, do not edit by hand.\n"
          "# low/high: quantiles of log(measured step / predicted step) of each class's runs; loo_coverage: "
          "the\n"
          "# share of the runs inside the interval built from the others.\n";
  text << "source: \"" << m.source << "\"\n";
  text << "coverage: " << m.coverage << "\nruns: " << m.runs << "\nloo_coverage: " << m.loo_coverage << '\n';
  text << "classes:\n";
  for (const IntervalClass& c : m.classes) {
    text << "  - {name: " << c.name << ", low: " << c.low << ", high: " << c.high << ", runs: " << c.runs
         << "}\n";
  }
  const ValidatedEnvelope& v = m.validated;
  text << "validated:\n  max_gpus: " << v.max_gpus << "\n  max_cp: " << v.max_cp
       << "\n  max_ep: " << v.max_ep;
  if (v.min_ep > 0) text << "\n  min_ep: " << v.min_ep;
  text << "\n  max_zero3_gpus: " << v.max_zero3_gpus << "\n  fp8: " << (v.fp8 ? "true" : "false")
       << "\n  gpus: " << flow_list(v.gpus) << "\n  stacks: " << flow_list(v.stacks) << '\n';
  out << text.str();
}

}  // namespace costmodel::inline COSTMODEL_ABI
