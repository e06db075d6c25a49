// SPDX-License-Identifier: Apache-2.0
// spec/training: one declaration per knob (TrainingField). A knob added to the table alone is a flag in the
// CLI's help, read from YAML, a key of the configuration JSON, a column of the CSV and of scenarios, listed
// by `costmodel catalog knobs` (the docs' knob reference) and refused with its own words; every declared knob
// has a reader, a unique key and flag, and a help line, and every one with a column is in the real outputs.

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "costmodel/analysis/scenario.hpp"
#include "costmodel/error.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/report/configuration.hpp"
#include "costmodel/search/planner.hpp"
#include "costmodel/spec/training.hpp"
#include "io/entries.hpp"
#include "io/yaml_reader.hpp"
#include "report/catalog.hpp"
#include "report/knob_columns.hpp"
#ifdef COSTMODEL_TEST_CLI_CORE
#include "cli/flags.hpp"
#endif

namespace costmodel {
namespace {

/// The real declarations plus one that only this test declares: it stores a capacity factor from "x<N>",
/// and its column gives the estimator's capacity factor back as "x<N>".
std::vector<TrainingField> with_test_knob() {
  std::vector<TrainingField> fields = training_fields();
  fields.push_back({"test_knob", "test-knob", "a knob only this test declares: x1..x9 [x1]", false,
                    [](TrainingSpec& spec, std::string_view text) {
                      if (text.size() != 2 || text[0] != 'x' || text[1] < '1' || text[1] > '9')
                        throw Error("expected x1 to x9, got '" + std::string(text) + "'");
                      spec.moe_capacity_factor = text[1] - '0';
                    },
                    [](const Strategy&, const EstimateOptions& options) -> KnobValue {
                      return "x" + std::to_string(static_cast<int>(options.moe_capacity_factor));
                    }});
  return fields;
}

/// A configuration row for the column helpers: a strategy and the options it was estimated with.
struct Row {
  Strategy strategy;
  EstimateOptions options;
};

const Catalog& catalog() {
  static const Catalog c = load_catalog(COSTMODEL_TEST_SOURCE_DIR);
  return c;
}

TrainingSpec read(const std::string& text, const std::vector<TrainingField>& fields) {
  const yaml::Document document = yaml::parse_text(text, "run.yaml");
  yaml::Map map(document.file, document.root, "training");
  return yaml::read_training(map, fields);
}

std::string error_of(const std::string& text, const std::vector<TrainingField>& fields) {
  try {
    (void)read(text, fields);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a knob declared once is read from YAML and listed in the knobs catalog") {
  const std::vector<TrainingField> fields = with_test_knob();
  // The YAML reader: the value through the declaration's own reader.
  CHECK(read("test_knob: x3\nglobal_batch: 64\n", fields).moe_capacity_factor == 3.0);
  // Its errors at the value, with the declaration's words: run.yaml line 1, column 12 ("test_knob: " is 11).
  const std::string bad = error_of("test_knob: y3\n", fields);
  CHECK(bad.find("run.yaml:1:12") != std::string::npos);
  CHECK(bad.find("training.test_knob") != std::string::npos);
  CHECK(bad.find("expected x1 to x9, got 'y3'") != std::string::npos);
  // Without the declaration the same key is unknown, with a suggestion among the declared keys.
  const std::string unknown = error_of("test_knob: x3\n", training_fields());
  CHECK(unknown.find("unknown key 'test_knob'") != std::string::npos);
  // The knobs catalog (docs/knobs.md is its output): one row per declaration, key, flag, split, column, help.
  const Table table = knobs_table(fields);
  REQUIRE(table.rows.size() == fields.size());
  const auto& last = table.rows.back();
  CHECK(std::get<std::string>(last[0].value()) == "test_knob");
  CHECK(std::get<std::string>(last[1].value()) == "--test-knob");
  CHECK(!std::get<bool>(last[2].value()));
  CHECK(std::get<bool>(last[3].value()));
  CHECK(std::get<std::string>(last[4].value()) == "a knob only this test declares: x1..x9 [x1]");

  // The configuration JSON: the writers add every declared knob the contract does not place
  // (add_knob_columns, as configuration_json() calls it), with the declaration's value.
  EstimateOptions options;
  options.moe_capacity_factor = 3;
  Json object = Json::object();
  object.set("tp", 2);
  detail::add_knob_columns(object, Strategy{}, options, fields);
  REQUIRE(object.find("test_knob") != nullptr);
  CHECK(std::get<std::string>(object.find("test_knob")->value()) == "x3");
  CHECK(std::get<std::int64_t>(object.find("tp")->value()) == 2);  // a placed key is left as it is
  CHECK(object.find("stack") == nullptr);                          // the run's knobs have no column

  // The CSV: the knob columns the plan CSV and scenarios append (knob_columns), here after one placed column.
  const std::vector<ColumnOf<Row>> placed = {
      {"tp", "tp", "", 1, [](const Row& r) { return Json(r.strategy.tp); }}};
  std::vector<ColumnOf<Row>> columns = placed;
  for (auto& c : detail::knob_columns(
           placed, [](const Row& r) -> const Strategy& { return r.strategy; },
           [](const Row& r) -> const EstimateOptions& { return r.options; }, Audience::kMachines, fields))
    columns.push_back(std::move(c));
  std::ostringstream csv;
  write_table(csv, make_table(columns, std::vector<Row>{{Strategy{}, options}}), Format::kCsv);
  const std::string header = csv.str().substr(0, csv.str().find('\n'));
  // tp placed once, then the declared knobs in declaration order (global_batch first, the test's last), then
  // the CSV's schema_version (2).
  CHECK(header.rfind("tp,global_batch,micro_batch,", 0) == 0);
  CHECK(header.ends_with(",last_stage_layers,test_knob,schema_version"));
  CHECK(csv.str().find(",x3,2\n") != std::string::npos);

#ifdef COSTMODEL_TEST_CLI_CORE
  // The CLI: a flag with its help, read through the declaration (cli/flags.hpp with these fields).
  cli::po::options_description description("test");
  cli::add_training_options(description, true, fields);
  std::ostringstream help;
  help << description;
  CHECK(help.str().find("--test-knob") != std::string::npos);
  CHECK(help.str().find("a knob only this test declares: x1..x9 [x1]") != std::string::npos);
  const char* argv[] = {"costmodel", "--test-knob", "x7"};
  cli::po::variables_map values;
  cli::po::store(cli::po::parse_command_line(3, argv, description), values);
  const cli::TrainingArgs args = cli::read_training_args(values, cli::Context{}, fields);
  CHECK(args.training.moe_capacity_factor == 7.0);
#endif
}

TEST_CASE("every declared knob with a column is a key of estimate and plan JSON and a CSV column") {
  // A small plan on 32 A100 (the default cluster's GPU): its best configuration through the real writers.
  PlanRequest request;
  request.model = resolve_model("megatron-1.7b", catalog());
  request.cluster = default_cluster(catalog());
  request.cluster.gpus = 32;
  request.training.global_batch = 64;
  request.options.cuda_graphs = CudaGraphs::kLayer;  // a non-default option, to see it read back
  request.top_k = 1;
  request.threads = 1;
  const PlanResult result = plan(request);
  REQUIRE(!result.top.empty());
  const Json json = configuration_json(result.top.front(), result.model, result.cluster, result.options);
  const Table table = configurations_table(result.top, result.options, "");
  const std::vector<std::string>& scenario_keys = scenario_column_keys();
  int with_column = 0;
  for (const TrainingField& field : training_fields()) {
    if (!field.column) continue;
    ++with_column;
    CAPTURE(field.key);
    CHECK(json.find(field.key) != nullptr);
    bool in_csv = false;
    for (const Column& column : table.columns) in_csv = in_csv || column.key == field.key;
    CHECK(in_csv);
    CHECK(std::find(scenario_keys.begin(), scenario_keys.end(), std::string(field.key)) !=
          scenario_keys.end());
  }
  // 34: the split (tp pp dp cp ep etp vpp, first and last stage layers), batch (global, micro), recompute
  // (3), ZeRO, precisions (dtype, gradients, optimizer, fp8 params, attention), compression, the overlaps
  // (DP, TP, EP, PP), sequence parallelism, attention kernel, capacity factor, gradient accumulation fusion,
  // CUDA graphs, the MoE dispatcher, ZeRO-3 gather and the DP and TP algorithms.
  CHECK(with_column == 34);
  CHECK(std::get<std::string>(json.find("cuda_graphs")->value()) == "layer");
  // The bits of TrainingSpec::given hold one knob each.
  CHECK(training_fields().size() <= 64);
}

TEST_CASE("every declared knob has a reader, a unique key and flag, and a help line") {
  std::set<std::string_view> keys, flags;
  for (const TrainingField& field : training_fields()) {
    CAPTURE(field.key);
    CHECK(static_cast<bool>(field.set));
    CHECK(!field.help.empty());
    CHECK(keys.insert(field.key).second);
    CHECK(flags.insert(field.flag).second);
    CHECK(&training_field(field.key) == &field);
  }
  // The parallel degrees are the split knobs (Pins), and only they: a command without a split omits them.
  for (const std::string_view key : {"tp", "pp", "dp", "cp", "ep", "etp", "vpp"}) {
    CAPTURE(key);
    CHECK(training_field(key).pin);
  }
  CHECK(!training_field("global_batch").pin);
  CHECK_THROWS_AS((void)training_field("no_such_knob"), Error);
}

}  // namespace costmodel
