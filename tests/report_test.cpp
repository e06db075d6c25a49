// SPDX-License-Identifier: Apache-2.0
// report/table: the table, CSV, JSON and markdown writers, checked byte for byte.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "costmodel/report/table.hpp"

using costmodel::Column;
using costmodel::Format;
using costmodel::Json;
using costmodel::kSchemaVersion;
using costmodel::Table;

namespace {

/// Two GPUs: text, a double with a unit, an integer, a null and a bool.
Table small_table() {
  Table table;
  table.title = "GPUs";
  table.columns = {
      Column{"name", "name", "", 1.0, 4},     Column{"hbm_bandwidth_Bps", "HBM bw", "GB/s", 1.0, 3},
      Column{"domain", "domain", "", 1.0, 4}, Column{"fp8", "FP8", "TFLOP/s", 1.0, 4},
      Column{"nvls", "NVLS", "", 1.0, 4},
  };
  table.rows = {
      {Json("a100-80gb"), Json(2039.0), Json(8), Json(), Json(false)},
      {Json("h100-sxm"), Json(3352.5), Json(8), Json(989.4), Json(true)},
  };
  table.notes = {"dense peaks"};
  return table;
}

std::string render(const Table& table, Format format) {
  std::ostringstream out;
  costmodel::write_table(out, table, format);
  return out.str();
}

std::string render(const Json& document, Format format) {
  std::ostringstream out;
  costmodel::write_document(out, document, format);
  return out.str();
}

}  // namespace

TEST_CASE("format names round-trip") {
  for (const auto format : {Format::kTable, Format::kCsv, Format::kJson, Format::kMarkdown}) {
    CHECK(costmodel::parse_format(costmodel::to_string(format)) == format);
  }
  CHECK_FALSE(costmodel::parse_format("xml").has_value());
  CHECK_FALSE(costmodel::parse_format("JSON").has_value());
}

TEST_CASE("format_number keeps the significant digits asked for") {
  using costmodel::format_number;
  CHECK(format_number(3352.5, 3) == "3350");
  CHECK(format_number(3352.5, 4) == "3352");  // round half to even in printf: 3352.5 -> 3352
  CHECK(format_number(989.4, 4) == "989.4");
  CHECK(format_number(0.94, 4) == "0.94");
  CHECK(format_number(9.99996, 4) == "10");  // rounding carries into a new digit
  CHECK(format_number(174.6e9, 4) == "174600000000");
  CHECK(format_number(1.5e-6, 4) == "1.5e-06");
  CHECK(format_number(2e18, 4) == "2e+18");
  CHECK(format_number(-0.125, 2) == "-0.12");
  CHECK(format_number(0.0, 4) == "0");
  CHECK(format_number(std::nan(""), 4) == "-");
  CHECK(format_number(std::numeric_limits<double>::infinity(), 4) == "-");
}

TEST_CASE("table: header with units, a rule, numbers right-aligned, null as -") {
  CHECK(render(small_table(), Format::kTable) ==
        "GPUs\n"
        "name       HBM bw (GB/s)  domain  FP8 (TFLOP/s)  NVLS\n"
        "---------  -------------  ------  -------------  ----\n"
        "a100-80gb           2040       8              -  no\n"
        "h100-sxm            3350       8          989.4  yes\n"
        "\n"
        "dense peaks\n");
}

TEST_CASE("csv: keys as headers, full precision, empty for null, schema_version last") {
  CHECK(render(small_table(), Format::kCsv) ==
        "name,hbm_bandwidth_Bps,domain,fp8,nvls,schema_version\n"
        "a100-80gb,2039,8,,false,2\n"
        "h100-sxm,3352.5,8,989.4,true,2\n");
}

TEST_CASE("json: an array of objects keyed by column key") {
  CHECK(render(small_table(), Format::kJson) ==
        "[\n"
        "  {\n"
        "    \"name\": \"a100-80gb\",\n"
        "    \"hbm_bandwidth_Bps\": 2039,\n"
        "    \"domain\": 8,\n"
        "    \"fp8\": null,\n"
        "    \"nvls\": false,\n"
        "    \"schema_version\": 2\n"
        "  },\n"
        "  {\n"
        "    \"name\": \"h100-sxm\",\n"
        "    \"hbm_bandwidth_Bps\": 3352.5,\n"
        "    \"domain\": 8,\n"
        "    \"fp8\": 989.4,\n"
        "    \"nvls\": true,\n"
        "    \"schema_version\": 2\n"
        "  }\n"
        "]\n");
}

TEST_CASE("markdown: a GitHub table, numeric columns right-aligned") {
  CHECK(render(small_table(), Format::kMarkdown) ==
        "**GPUs**\n"
        "\n"
        "| name | HBM bw (GB/s) | domain | FP8 (TFLOP/s) | NVLS |\n"
        "| --- | ---: | ---: | ---: | --- |\n"
        "| a100-80gb | 2040 | 8 | - | no |\n"
        "| h100-sxm | 3350 | 8 | 989.4 | yes |\n"
        "\n"
        "dense peaks\n");
}

TEST_CASE("markdown escapes pipes") {
  Table table;
  table.columns = {Column{"text", "a|b", "", 1.0, 4}};
  table.rows = {{Json("x|y")}};
  CHECK(render(table, Format::kMarkdown) == "| a\\|b |\n| --- |\n| x\\|y |\n");
}

TEST_CASE("csv quotes fields holding a comma, a quote or a line break (RFC 4180)") {
  Table table;
  table.columns = {Column{"a,b", "", "", 1.0, 4}, Column{"plain", "", "", 1.0, 4}};
  table.rows = {{Json("say \"hi\""), Json("x")}, {Json("one\ntwo"), Json("1,5")}, {Json("cr\r"), Json("")}};
  CHECK(render(table, Format::kCsv) ==
        "\"a,b\",plain,schema_version\n"
        "\"say \"\"hi\"\"\",x,2\n"
        "\"one\ntwo\",\"1,5\",2\n"
        "\"cr\r\",,2\n");
}

TEST_CASE("csv and json keep full precision") {
  Table table;
  table.columns = {Column{"x", "x", "", 1.0, 2}};
  table.rows = {{Json(0.1)}, {Json(1.0 / 3.0)}, {Json(123456789.123)}, {Json(1e300)}, {Json(5e-324)}};
  CHECK(render(table, Format::kCsv) ==
        "x,schema_version\n0.1,2\n0.3333333333333333,2\n123456789.123,2\n1e+300,2\n5e-324,2\n");
  const std::string json = render(table, Format::kJson);
  CHECK(json.find("0.3333333333333333") != std::string::npos);
  CHECK(json.find("123456789.123") != std::string::npos);
}

TEST_CASE("json escapes strings: quotes, backslashes, control characters") {
  CHECK(Json("a\"b\\c").dump(0) == R"("a\"b\\c")");
  CHECK(Json("\b\f\n\r\t").dump(0) == R"("\b\f\n\r\t")");
  CHECK(Json(std::string("\x01\x1f", 2)).dump(0) == R"("\u0001\u001f")");
  CHECK(Json(std::string(1, '\0')).dump(0) == R"("\u0000")");
  CHECK(Json("/ and \x7f stay").dump(0) == "\"/ and \x7f stay\"");
}

TEST_CASE("json passes valid UTF-8 and replaces invalid bytes with U+FFFD") {
  CHECK(Json("µs → 1.5 GB/s 😀").dump(0) == "\"µs → 1.5 GB/s 😀\"");
  CHECK(Json("a\xff"
             "b")
            .dump(0) == R"("a\ufffdb")");                                      // never valid
  CHECK(Json("\xc3").dump(0) == R"("\ufffd")");                                // truncated 2-byte sequence
  CHECK(Json("\xc0\xaf").dump(0) == R"("\ufffd\ufffd")");                      // overlong '/'
  CHECK(Json("\xed\xa0\x80").dump(0) == R"("\ufffd\ufffd\ufffd")");            // UTF-16 surrogate
  CHECK(Json("\xf4\x90\x80\x80").dump(0) == R"("\ufffd\ufffd\ufffd\ufffd")");  // above U+10FFFF
}

TEST_CASE("json: non-finite numbers are null, integers stay integers") {
  Json object = Json::object();
  object.set("nan", std::nan(""))
      .set("inf", -std::numeric_limits<double>::infinity())
      .set("big", std::int64_t{9007199254740993})
      .set("two", 2)
      .set("half", 0.5)
      .set("tiny", 1.5e-6)
      .set("none", nullptr)
      .set("list", Json::Array{Json(1), Json("x"), Json(true)})
      .set("empty", Json::array())
      .set("nested", Json::object());
  CHECK(object.dump(0) ==
        R"({"nan":null,"inf":null,"big":9007199254740993,"two":2,"half":0.5,"tiny":1.5e-06,"none":null,)"
        R"("list":[1,"x",true],"empty":[],"nested":{}})");
}

TEST_CASE("json: set replaces a key in place, find looks it up") {
  Json object;
  object.set("a", 1).set("b", 2).set("a", 3);
  CHECK(object.dump(0) == R"({"a":3,"b":2})");
  REQUIRE(object.find("b") != nullptr);
  CHECK(object.find("b")->dump(0) == "2");
  CHECK(object.find("c") == nullptr);
  Json array;
  array.push_back(1).push_back("two");
  CHECK(array.dump(0) == R"([1,"two"])");
  CHECK(array.find("a") == nullptr);
}

TEST_CASE("json: indented layout") {
  Json object = Json::object();
  object.set("a", Json::Array{Json(1), Json(2)}).set("b", Json::object().set("c", "d"));
  CHECK(object.dump(2) == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {\n    \"c\": \"d\"\n  }\n}");
}

TEST_CASE("write_document: scalars as key/value, nested objects dotted, arrays of objects as tables") {
  Json document = Json::object();
  Json configs = Json::array();
  configs.push_back(Json::object().set("tp", 8).set("step_time_s", 1.25));
  configs.push_back(Json::object().set("tp", 4).set("step_time_s", 2.5));
  document.set("evaluated", 12)
      .set("breakdown", Json::object().set("compute_s", 0.75))
      .set("configs", configs);

  // Machines get the document with schema_version appended; people do not.
  Json versioned = document;
  versioned.set("schema_version", kSchemaVersion);
  CHECK(render(document, Format::kJson) == versioned.dump(2) + "\n");
  CHECK(render(document, Format::kTable) ==
        "key                  value\n"
        "-------------------  -----\n"
        "evaluated               12\n"
        "breakdown.compute_s   0.75\n"
        "\n"
        "configs\n"
        "tp  step_time_s\n"
        "--  -----------\n"
        " 8         1.25\n"
        " 4          2.5\n");
  CHECK(render(document, Format::kCsv) ==
        "key,value\n"
        "evaluated,12\n"
        "breakdown.compute_s,0.75\n"
        "schema_version,2\n"
        "\n"
        "tp,step_time_s\n"
        "8,1.25\n"
        "4,2.5\n");
}

TEST_CASE("write_document: an array of objects is one table; missing members are null") {
  Json rows = Json::array();
  rows.push_back(Json::object().set("a", 1));
  rows.push_back(Json::object().set("b", "x"));
  CHECK(render(rows, Format::kCsv) == "a,b\n1,\n,x\n");
}
