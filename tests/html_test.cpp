// SPDX-License-Identifier: Apache-2.0
// The HTML report (issue 30, report/html.hpp): tables that carry SI values beside what people read, pages
// with no external reference, and `costmodel report` / `--format html` through the real binary. The page in a
// real browser is tests/browser/report_test.mjs (make check-browser).

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "costmodel/report/html.hpp"

namespace costmodel::test {
namespace {

/// Llama 3 8B on 64 H100: a plan small enough to run in well under a second.
std::vector<std::string> small_run(const std::string& command) {
  return {command,     "--model", "llama3-8b",      "--gpu", "h100-sxm", "--gpus", "64",
          "--seq-len", "8192",    "--global-batch", "512",   "--tokens", "1T"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// A page is self-contained: no address, no source attribute, no imported sheet, one document.
void check_self_contained(const std::string& page) {
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("http") == std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("@import") == std::string::npos);
  CHECK(page.find("<?xml") == std::string::npos);  // the charts are inline <svg> elements, not documents
  CHECK(count(page, "<html") == 1);
  CHECK(count(page, "</html>") == 1);
  CHECK(count(page, "<table") == count(page, "</table>"));
  CHECK(count(page, "<svg") == count(page, "</svg>"));
}

}  // namespace

TEST_CASE("html table: people's headers and scaled values, SI values and keys for machines") {
  Table table;
  table.title = "a <title> & more";
  table.columns = {{"memory_per_gpu_bytes", "memory", "GiB", 1073741824.0, 4},
                   {"item", "item", ""},
                   {"secret", "secret", "", 1.0, 4, Audience::kMachines}};
  table.rows = {{Json(std::int64_t{85899345920}), Json("  of which fibres"), Json(1)},
                {Json(), Json("a<b"), Json(2)}};
  std::ostringstream out;
  write_html_table(out, table);
  const std::string html = out.str();
  CHECK(html.find("<h3>a &lt;title&gt; &amp; more</h3>") != std::string::npos);
  // 85,899,345,920 B = 80 GiB: people read 80, machines the bytes.
  CHECK(html.find(R"(<th data-key="memory_per_gpu_bytes">memory (GiB)</th>)") != std::string::npos);
  CHECK(html.find(R"(data-value="85899345920">80</td>)") != std::string::npos);
  // Two leading spaces indent the cell instead of vanishing in HTML's white space: 7 + 6 x 2 = 19 px.
  CHECK(html.find(R"(style="padding-left:19px" data-value="  of which fibres">of which fibres<)") !=
        std::string::npos);
  CHECK(html.find(R"(data-value="a&lt;b">a&lt;b</td>)") != std::string::npos);
  CHECK(html.find(R"(data-value="">-</td>)") != std::string::npos);  // null
  CHECK(html.find("secret") == std::string::npos);                   // machines-only columns stay out
  CHECK(parse_format("html") == Format::kHtml);
}

TEST_CASE("costmodel report: one self-contained page with every section, its first row the plan's") {
  TempDir dir;
  const auto page_path = dir.path() / "r.html";
  const CliResult report = run_cli(with(small_run("report"), {"-o", page_path.string()}));
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  CHECK(report.out.empty());
  const std::string page = read_file(page_path);
  check_self_contained(page);
  for (const char* id : {"assumptions", "plans", "pareto", "configuration", "step", "memory", "fabric",
                         "money", "goodput", "launch", "evidence"}) {
    CHECK_MESSAGE(page.find(std::string("<h2 id=\"") + id + "\">") != std::string::npos, id);
  }
  CHECK(page.find("global batch 512 x 8192") != std::string::npos);  // batch and sequence length stated
  CHECK(page.find("--tensor-model-parallel-size") != std::string::npos);
  CHECK(page.find("held-out published dense runs on h100-sxm") != std::string::npos);
  CHECK(page.find("run cost: the run&apos;s slice of the lifetime TCO") != std::string::npos);
  CHECK(page.find("<h3>lifetime TCO over 4 years</h3>") != std::string::npos);
  CHECK(page.find("CBRE, North America Data Center Trends H2 2024") != std::string::npos);  // facility source

  // The same question as JSON: the first row's step time and split are the first configuration's.
  const CliResult json = run_cli(with(small_run("plan"), {"--format", "json"}));
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const Json first = parse_json(json.out).find("configs")->as_array().front();
  const auto table_at = page.find("<div id=\"plans-table\">");
  REQUIRE(table_at != std::string::npos);
  const auto row_at = page.find("<tbody>\n<tr>", table_at);
  const std::string row = page.substr(row_at, page.find("</tr>", row_at) - row_at);
  for (const char* key : {"tp", "pp", "dp", "step_time_s", "mfu", "cost_usd"}) {
    const std::string value = "data-value=\"" + first.find(key)->dump(0) + "\"";
    CHECK_MESSAGE(row.find(value) != std::string::npos, key, " ", value);
  }

  // --format html of plan writes the same page.
  const CliResult plan_html = run_cli(with(small_run("plan"), {"--format", "html"}));
  REQUIRE_MESSAGE(plan_html.exit_code == 0, plan_html.err);
  CHECK(plan_html.out == page);
}

TEST_CASE("estimate --format html: one configuration; one that does not fit says so and exits 3") {
  const auto args = with(small_run("estimate"),
                         {"--tp", "2", "--pp", "1", "--dp", "32", "--zero", "1", "--format", "html"});
  const CliResult fits = run_cli(args);
  REQUIRE_MESSAGE(fits.exit_code == 0, fits.err);
  check_self_contained(fits.out);
  CHECK(fits.out.find("<h2 id=\"plans\">") == std::string::npos);  // no ranking for one configuration
  CHECK(fits.out.find("<h2 id=\"memory\">") != std::string::npos);

  const CliResult over = run_cli(with(small_run("estimate"), {"--tp", "1", "--pp", "1", "--dp", "64",
                                                              "--micro-batch", "8", "--format", "html"}));
  CHECK(over.exit_code == 3);
  CHECK(over.out.find("does not fit") != std::string::npos);
  CHECK(over.out.find("class=\"bar over\"") != std::string::npos);  // the total drawn past the HBM
}

TEST_CASE("scenario --format html: the cases, the sweep and the first case in detail") {
  const CliResult result = run_cli(
      {"scenario", std::string(COSTMODEL_TEST_SOURCE_DIR) + "/examples/link-speed.yaml", "--format", "html"});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  check_self_contained(result.out);
  CHECK(result.out.find("<h2 id=\"cases\">") != std::string::npos);
  CHECK(result.out.find("<h2 id=\"sweep\">") != std::string::npos);
  CHECK(result.out.find("<h2 id=\"configuration\">") != std::string::npos);
}

TEST_CASE("html is a page format: commands that write no page refuse it with exit 2") {
  const CliResult validate = run_cli({"validate", "--format", "html"});
  CHECK(validate.exit_code == 2);
  CHECK(validate.err.find("'html' writes a report page: plan, estimate and scenario only") !=
        std::string::npos);
  const CliResult topology = run_cli({"topology", "--format", "html"});
  CHECK(topology.exit_code == 2);
  // report has no --format: it always writes the page.
  const CliResult report = run_cli(with(small_run("report"), {"--format", "json"}));
  CHECK(report.exit_code == 2);
}

}  // namespace costmodel::test
