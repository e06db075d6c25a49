// SPDX-License-Identifier: Apache-2.0
// The SVG writer: nice ticks, escaping, and charts that are well-formed XML holding the expected series.

#include "report/svg.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace costmodel;

namespace {

/// A minimal XML well-formedness check: balanced, properly nested elements, quoted attributes, no raw '<'
/// or stray '&' in text, exactly one root element. Returns "" when well-formed, else what is wrong.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> stack;
  size_t pos = 0;
  int roots = 0;
  if (xml.rfind("<?xml", 0) == 0) pos = xml.find("?>") + 2;
  while (pos < xml.size()) {
    const size_t lt = xml.find('<', pos);
    const std::string text = xml.substr(pos, lt == std::string::npos ? std::string::npos : lt - pos);
    for (size_t amp = text.find('&'); amp != std::string::npos; amp = text.find('&', amp + 1)) {
      const size_t semi = text.find(';', amp);
      if (semi == std::string::npos || semi - amp > 6) return "stray & in text";
    }
    if (lt == std::string::npos) break;
    const size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) return "unterminated tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    if (tag.find('<') != std::string::npos) return "'<' inside a tag";
    int quotes = 0;
    for (const char c : tag) quotes += c == '"';
    if (quotes % 2 != 0) return "unbalanced quotes in <" + tag + ">";
    if (!tag.empty() && tag.front() == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
      stack.pop_back();
    } else if (!tag.empty() && tag.back() == '/') {
      if (stack.empty()) ++roots;
    } else {
      if (stack.empty()) ++roots;
      stack.push_back(tag.substr(0, tag.find_first_of(" \n\t")));
    }
    pos = gt + 1;
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("nice ticks are 1, 2 or 5 x 10^k steps that cover the range") {
  // Heckbert 1990: [0, 7.3] with ~6 ticks -> step 2 (0, 2, 4, 6, 8).
  CHECK(nice_ticks(0, 7.3) == std::vector<double>{0, 2, 4, 6, 8});
  const auto ticks = nice_ticks(0.0213, 0.0871);
  REQUIRE(ticks.size() >= 3);
  CHECK(ticks.front() <= 0.0213);
  CHECK(ticks.back() >= 0.0871);
  CHECK(log_ticks(3, 700) == std::vector<double>{1, 10, 100, 1000});
  CHECK(log_ticks(1.5, 40) == std::vector<double>{1, 2, 5, 10, 20, 50});
}

TEST_CASE("xml_escape escapes the five special characters and drops control characters") {
  CHECK(xml_escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  CHECK(xml_escape(std::string("x\x01y")) == "xy");
}

TEST_CASE("a line chart is well-formed SVG with one group per series, gaps for missing values") {
  LineChart chart;
  chart.title = "Speed-up <over> 400G & more";
  chart.x_label = "link";
  chart.y_label = "speed-up (x)";
  chart.categories = {"ib-hdr-200g", "ib-ndr-400g", "ib-xdr-800g"};
  chart.series = {{"gpt3-175b, gpus 1024", {0.9, 1.0, 1.1}}, {"llama3-405b", {std::nan(""), 1.0, 1.4}}};
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  CHECK(count(svg, "class=\"series\"") == 2);
  CHECK(svg.find("data-name=\"gpt3-175b, gpus 1024\"") != std::string::npos);
  CHECK(svg.find("Speed-up &lt;over&gt; 400G &amp; more") != std::string::npos);
  CHECK(svg.find("nan") == std::string::npos);
  // 3 + 2 points (the missing one leaves a gap), plus 2 legend swatches.
  CHECK(count(svg, "<circle") == 7);
  for (const auto& category : chart.categories) CHECK(svg.find(">" + category + "<") != std::string::npos);

  chart.log_y = true;
  chart.bars = true;
  const std::string bars = render_svg(chart);
  CHECK(xml_problem(bars).empty());
  CHECK(count(bars, "<rect") >= 5 + 1);

  // Issue 30: a bar's length is its value, so days from 43.3 to 50.1 are drawn from zero (a line chart of
  // the same values keeps its close-up axis).
  LineChart days;
  days.categories = {"a", "b"};
  days.series = {{"days", {43.3, 50.1}}};
  days.bars = true;
  const std::string from_zero = render_svg(days);
  CHECK(from_zero.find(R"(text-anchor="end">0<)") != std::string::npos);
  days.bars = false;
  CHECK(render_svg(days).find(R"(text-anchor="end">0<)") == std::string::npos);
}

TEST_CASE("the Pareto chart: one series per fabric, marker area grows with the switch count") {
  PlanResult result;
  StepEstimate fast;
  fast.strategy.tp = 8;
  fast.step_time = Seconds(1.0);
  fast.rental_cost = Usd(2e6);
  fast.cost_basis = CostBasis::kRental;
  fast.training_time = Seconds(86400.0);
  fast.capex = Usd(9e6);
  fast.switches = 300;
  fast.topology = TopologyKind::kFatTree;
  StepEstimate cheap = fast;
  cheap.strategy.tp = 4;
  cheap.step_time = Seconds(1.2);
  cheap.rental_cost = Usd(1.5e6);
  cheap.switches = 0;
  cheap.capex = Usd(5e6);
  cheap.topology = TopologyKind::kTorus3D;
  result.pareto = {fast, cheap};
  result.top = {fast};
  const ScatterChart chart = pareto_chart(result, "front");
  REQUIRE(chart.series.size() == 2);
  CHECK(chart.series[0].name == "fat-tree");
  CHECK(chart.series[1].name == "torus-3d");
  CHECK(chart.y_label == "cost to train (M$)");
  CHECK(chart.series[0].points[0].y == doctest::Approx(2.0));
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("marker area: switches (largest 300)") != std::string::npos);
  // The largest marker has radius 3 + 11 = 14 px; a zero-switch fabric the default 5 px.
  CHECK(svg.find("r=\"14.00\"") != std::string::npos);
  CHECK(svg.find("r=\"5.00\"") != std::string::npos);

  // Other axes: capex against cost, marker area by time.
  const ScatterChart capex =
      pareto_chart(result, "front", ParetoAxes{Objective::kCapex, Objective::kCost, Objective::kTime});
  CHECK(capex.x_label == "capex (M$)");
  CHECK(capex.size_label == "wall-clock time per step (s)");
  CHECK(capex.series[0].points[0].x == doctest::Approx(9.0));
  CHECK(capex.series[1].points[0].size == doctest::Approx(1.2));
}

TEST_CASE("a line chart with a right-hand axis: its own ticks and label, its series dashed") {
  LineChart chart;
  chart.title = "TCO and days";
  chart.x_label = "GPUs";
  chart.categories = {"4096", "16384", "65536"};
  chart.y_label = "TCO (M$)";
  chart.y2_label = "days to train";
  chart.series = {{"TCO", {43.0, 45.0, 53.0}, false}, {"days", {294.0, 77.0, 23.0}, true}};
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  CHECK(count(svg, "class=\"y2-axis\"") == 1);
  CHECK(svg.find(">days to train<") != std::string::npos);
  CHECK(svg.find(">300<") != std::string::npos);  // a right-hand tick: the days reach 294
  CHECK(svg.find("dashed: right-hand axis") != std::string::npos);
  chart.series.pop_back();
  CHECK(count(render_svg(chart), "y2-axis") == 0);
}
