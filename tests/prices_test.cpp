// SPDX-License-Identifier: Apache-2.0
// Money as buyers count it (issue 30 item 4): lifetime TCO by kind, the run's slice of it, price books
// (data/prices.yaml, --prices FILE) and the power cap.

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "cli_runner.hpp"
#include "costmodel/error.hpp"
#include "costmodel/estimate/economics.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/search/planner.hpp"

namespace costmodel::test {
namespace {

const Catalog& catalog() {
  return source_catalog();
}

ClusterSpec h100(int gpus) {
  return catalog_cluster("h100-sxm", gpus);
}

/// `text` written to a file of `dir`, its path returned.
std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = (dir.path() / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& path) {
  try {
    (void)load_price_book(path, catalog());
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("capacity prices and shares parse in SI") {
  // 184.06 USD per kW-month = 184.06 / (1,000 W x 365.25 x 86,400 / 12 s) USD per W-second.
  CHECK(parse_capacity_price("184.06USD/kW-month").value == doctest::Approx(184.06 / (1e3 * 2629800.0)));
  CHECK(parse_capacity_price("$184.06/kW/month").value == doctest::Approx(184.06 / (1e3 * 2629800.0)));
  CHECK(parse_capacity_price("2208.72USD/kW-yr").value == doctest::Approx(184.06 / (1e3 * 2629800.0)));
  CHECK_THROWS_AS((void)parse_capacity_price("184USD/kWh"), Error);
  CHECK_THROWS_AS((void)parse_capacity_price("184"), Error);
  CHECK(parse_share("6%") == doctest::Approx(0.06));
  CHECK(parse_share("0.06") == doctest::Approx(0.06));
  CHECK_THROWS_AS((void)parse_share("160%"), Error);
  CHECK_THROWS_AS((void)parse_share("-1%"), Error);
}

TEST_CASE("lifetime TCO: capex, facility on rated power, energy at load, support per year, the rest") {
  const ClusterSpec cluster = h100(1024);
  const Estimator estimator(catalog().model("llama3-8b"), cluster);
  EconomicsSpec economics;
  economics.facility = parse_capacity_price("184.06USD/kW-month");
  economics.support_share = 0.06;
  economics.storage_share = 0.014;
  economics.spares_share = 0.0;
  economics.cables_share = 0.025;
  const Ownership o = ownership(cluster, estimator.topology().inventory, economics);
  // Over 4 years (48 months, 35,064 h): the building at $184.06 per kW of rated IT power and month; energy at
  // the training load x PUE 1.3 x $0.08/kWh; support 6% of capex a year; storage and cables 1.4% + 2.5%.
  const double kw = o.power.value / 1e3, hours = 4 * 365.25 * 24;
  CHECK(o.lifetime.capex.value == o.capex.value);
  CHECK(o.lifetime.facility.value == doctest::Approx(184.06 * kw * 48));
  CHECK(o.lifetime.energy.value == doctest::Approx(o.power_at_load.value / 1e3 * 1.3 * 0.08 * hours));
  CHECK(o.lifetime.support.value == doctest::Approx(0.06 * 4 * o.capex.value));
  CHECK(o.lifetime.other.value == doctest::Approx(0.039 * o.capex.value));
  CHECK(o.lifetime_rate.value == doctest::Approx(o.lifetime.total().value / (hours * 3600)));
  // Nothing quoted: the lifetime is capex and energy only.
  const Ownership bare = ownership(cluster, estimator.topology().inventory, EconomicsSpec{});
  CHECK(bare.lifetime.total().value == doctest::Approx(bare.capex.value + bare.lifetime.energy.value));
}

TEST_CASE("data/prices.yaml fills what a training leaves unset; a set knob stays") {
  const PriceBook& book = catalog().prices;
  REQUIRE(book.find("facility") != nullptr);
  TrainingSpec training;
  set_training_field(training, "support", "10%");
  resolve_stack(training, catalog());
  CHECK(training.economics.facility->value == doctest::Approx(book.find("facility")->value));
  CHECK(*training.economics.support_share == doctest::Approx(0.10));
  CHECK(*training.economics.storage_share == doctest::Approx(book.find("storage")->value));
  // The quotes taken are kept, with their sources, for reports.
  bool facility_quoted = false;
  for (const PriceQuote& q : training.economics.quotes) facility_quoted |= q.item == "facility";
  CHECK(facility_quoted);
  for (const PriceQuote& q : book.quotes) CHECK_MESSAGE(!q.source.empty(), q.item);
}

TEST_CASE("a price book replaces part prices and lifetime costs, and refuses what it cannot place") {
  TempDir dir;
  const std::string path = write(dir, "book.yaml", R"(quotes:
  - {item: gpu, name: h100-sxm, price: 22000USD, date: 2026-10-01, source: "ACME quote 17"}
  - {item: switch, name: qm9700, price: $25k, date: 2026-10-01, source: "ACME quote 17"}
  - {item: facility, price: 150USD/kW-month, date: 2026-10-02, source: "Colo Co. term sheet"}
)");
  Catalog priced = catalog();
  apply_price_book(priced, load_price_book(path, priced));
  CHECK(priced.gpu("h100-sxm").price.value == 22000.0);
  CHECK_FALSE(priced.gpu("h100-sxm").price_estimate);
  CHECK(priced.gpu("h100-sxm").source.rfind("gpu price quoted 2026-10-01 (ACME quote 17); ", 0) == 0);
  CHECK(priced.switch_spec("qm9700").price.value == 25000.0);
  CHECK(priced.prices.find("facility")->value == doctest::Approx(150.0 / (1e3 * 2629800.0)));
  CHECK(priced.prices.find("support")->value == catalog().prices.find("support")->value);  // kept

  CHECK(load_error(write(dir, "a.yaml",
                         "quotes:\n  - {item: gpus, name: h100-sxm, price: 1USD, date: "
                         "2026-01-01, source: x}\n"))
            .find("a.yaml:2:12: error: quotes[0].item: unknown value 'gpus'") != std::string::npos);
  CHECK(load_error(write(dir, "b.yaml",
                         "quotes:\n  - {item: gpu, name: h100-sx, price: 1USD, date: "
                         "2026-01-01, source: x}\n"))
            .find("no GPU 'h100-sx' in the catalog; did you mean 'h100-sxm'?") != std::string::npos);
  CHECK(load_error(write(dir, "c.yaml", "quotes:\n  - {item: support, share: 6%, date: 2026-01-01}\n"))
            .find("missing required key 'source'") != std::string::npos);
  CHECK(load_error(
            write(dir, "d.yaml", "quotes:\n  - {item: support, share: 6%, date: 01/01/2026, source: x}\n"))
            .find("expected YYYY-MM-DD") != std::string::npos);
  CHECK(load_error(write(dir, "e.yaml",
                         "quotes:\n  - {item: electricity, price: 0.1USD/kWh, date: 2026-01-01, "
                         "source: x, note: y}\n"))
            .find("unknown key 'note'") != std::string::npos);
  CHECK(load_error(write(dir, "f.yaml",
                         "quotes:\n  - {item: support, share: 6%, date: 2026-01-01, source: x}\n"
                         "  - {item: support, share: 7%, date: 2026-01-02, source: y}\n"))
            .find("a second quote of support") != std::string::npos);
}

TEST_CASE("--prices moves every cost as the quotes say; a flag beats the book") {
  TempDir dir;
  const std::string book = write(dir, "book.yaml", R"(quotes:
  - {item: gpu, name: h100-sxm, price: 22000USD, date: 2026-10-01, source: "ACME quote 17"}
  - {item: electricity, price: 0.06USD/kWh, date: 2026-10-03, source: "utility tariff"}
)");
  const std::vector<std::string> args = {
      "estimate", "--model",     "llama3-8b", "--gpu",    "h100-sxm", "--gpus",   "64",
      "--tp",     "1",           "--pp",      "1",        "--dp",     "64",       "--zero",
      "1",        "--recompute", "full",      "--tokens", "1T",       "--format", "json"};
  const auto run = [&](std::vector<std::string> more) {
    std::vector<std::string> all = args;
    all.insert(all.end(), more.begin(), more.end());
    const CliResult result = run_cli(all);
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    return parse_json(result.out);
  };
  const Json base = run({});
  const Json quoted = run({"--prices", book});
  const Json flagged = run({"--prices", book, "--electricity", "0.12USD/kWh"});
  // 64 GPUs at $27,500 -> $22,000: GPU capex falls by 64 x $5,500 = $352,000.
  CHECK(number(base, "gpu_capex_usd") - number(quoted, "gpu_capex_usd") == doctest::Approx(352000.0));
  // Energy cost follows the price: x 0.06 / 0.08, and the flag's 0.12 wins over the book.
  CHECK(number(quoted, "energy_usd") == doctest::Approx(number(base, "energy_usd") * 0.75));
  CHECK(number(flagged, "energy_usd") == doctest::Approx(number(base, "energy_usd") * 1.5));
  // Lifetime TCO splits into its five kinds, which add up; the run's slice is its share of the life.
  const Json& parts = *quoted.find("tco_breakdown");
  double sum = 0;
  for (const char* kind : {"capex", "facility", "energy", "support", "other"}) sum += number(parts, kind);
  CHECK(sum == doctest::Approx(number(quoted, "lifetime_tco_usd")));
  const double life_days = 4 * 365.25;
  CHECK(number(quoted, "run_cost_usd") ==
        doctest::Approx(number(quoted, "lifetime_tco_usd") * number(quoted, "training_days") / life_days));

  const CliResult bad = run_cli({"estimate", "--model", "llama3-8b", "--tp", "1", "--pp", "1", "--dp", "64",
                                 "--gpus", "64", "--prices", (dir.path() / "missing.yaml").string()});
  CHECK(bad.exit_code == 2);
}

TEST_CASE("the power cap rejects clusters that draw more, and says so") {
  PlanRequest request = plan_request(catalog().model("llama3-8b"), h100(64), TrainingSpec{});
  request.threads = 1;
  const PlanResult free = plan(request);
  REQUIRE(free.feasible > 0);
  const Watts power = free.top.front().power;
  request.power_cap = Watts(power.value * 1.01);
  const PlanResult under = plan(request);
  CHECK(under.feasible == free.feasible);
  CHECK(under.rejected[kRejectedPowerCap] == 0);
  request.power_cap = Watts(power.value * 0.99);
  const PlanResult over = plan(request);
  CHECK(over.feasible == 0);
  CHECK(over.rejected[kRejectedPowerCap] == free.feasible);
  CHECK(rejection_reason_name(kRejectedPowerCap) == "over_power_cap");
}

}  // namespace costmodel::test
