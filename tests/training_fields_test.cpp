// SPDX-License-Identifier: Apache-2.0
// spec/training: one declaration per knob (TrainingField). A knob added to the table alone is read from
// YAML, listed by `costmodel catalog knobs` (the docs' knob reference) and refused with its own words; every
// declared knob has a reader, a unique key and flag, and a help line. The CLI side (every flag in --help) is
// cli_schema_test's.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/spec/training.hpp"
#include "io/entries.hpp"
#include "io/yaml_reader.hpp"
#include "report/catalog.hpp"

namespace costmodel {
namespace {

/// The real declarations plus one that only this test declares: it stores a capacity factor from "x<N>".
std::vector<TrainingField> with_test_knob() {
  std::vector<TrainingField> fields = training_fields();
  fields.push_back({"test_knob", "test-knob", "a knob only this test declares: x1..x9 [x1]", false,
                    [](TrainingSpec& spec, std::string_view text) {
                      if (text.size() != 2 || text[0] != 'x' || text[1] < '1' || text[1] > '9')
                        throw Error("expected x1 to x9, got '" + std::string(text) + "'");
                      spec.moe_capacity_factor = text[1] - '0';
                    }});
  return fields;
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
  // The knobs catalog (docs/knobs.md is its output): one row per declaration, key, flag, split, help.
  const Table table = knobs_table(fields);
  REQUIRE(table.rows.size() == fields.size());
  const auto& last = table.rows.back();
  CHECK(std::get<std::string>(last[0].value()) == "test_knob");
  CHECK(std::get<std::string>(last[1].value()) == "--test-knob");
  CHECK(!std::get<bool>(last[2].value()));
  CHECK(std::get<std::string>(last[3].value()) == "a knob only this test declares: x1..x9 [x1]");
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
