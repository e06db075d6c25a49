// SPDX-License-Identifier: Apache-2.0
// Procurement economics and goodput through the real binary (issue 15): every new flag in plan, estimate and
// scenario, bad values refused with one line naming the flag or field, --rank-by capex, the deadline search's
// GPU counts, and --cost-basis rental reproducing the failure-free GPU-hours cost.

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace costmodel::test {
namespace {

// Llama-3 8B on 64 H100: small enough to plan in a fraction of a second.
const std::vector<std::string> kSmall = {"--model", "llama3-8b", "--gpu",          "h100-sxm",
                                         "--gpus",  "64",        "--global-batch", "256"};
const std::vector<std::string> kSplit = {"--tp", "1", "--pp", "1", "--dp", "64", "--zero", "2"};

std::vector<std::string> args(const std::string& command,
                              std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> all = {command};
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

Json estimate_json(const std::vector<std::string>& more) {
  auto a = args("estimate", {kSmall, kSplit, {"--tokens", "100B", "--format", "json"}, more});
  const auto result = run_cli(a);
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  return parse_json(result.out);
}

}  // namespace

TEST_CASE("estimate: every economics and goodput flag moves what it should") {
  const Json base = estimate_json({});
  // Owned by default: cost is the TCO, days are wall-clock, after a goodput below 1.
  CHECK(std::get<std::string>(member(base, "cost_basis").value()) == "owned");
  CHECK(number(base, "cost_usd") == number(base, "tco_usd"));
  CHECK(number(base, "goodput") < 1.0);
  CHECK(number(base, "training_days") ==
        doctest::Approx(number(base, "ideal_days") / number(base, "goodput")));
  // interruptions = wall-clock days x GPUs / per-GPU MTBF (Llama 3: 54 days x 16,384 GPUs / 419).
  CHECK(number(base, "interruptions") ==
        doctest::Approx(number(base, "training_days") * 64 / (54.0 * 16384 / 419)));
  CHECK(number(base, "capex_usd") ==
        doctest::Approx(number(base, "gpu_capex_usd") + number(base, "network_capex_usd")));
  CHECK(number(base, "gpus") == 64);

  CHECK(number(estimate_json({"--cost-basis", "rental"}), "cost_usd") == number(base, "rental_cost_usd"));
  CHECK(number(estimate_json({"--amortization-years", "8"}), "tco_usd") < number(base, "tco_usd"));
  CHECK(number(estimate_json({"--electricity", "0.16USD/kWh"}), "energy_usd") ==
        doctest::Approx(2 * number(base, "energy_usd")));
  CHECK(number(estimate_json({"--pue", "2.6"}), "energy_kwh") ==
        doctest::Approx(2 * number(base, "energy_kwh")));
  const Json rare = estimate_json({"--gpu-mtbf", "1000000h"});
  CHECK(number(rare, "goodput") > number(base, "goodput"));
  CHECK(number(rare, "cluster_mtbf_s") == doctest::Approx(1e6 * 3600 / 64));
  CHECK(number(estimate_json({"--checkpoint-bandwidth", "10GB/s"}), "checkpoint_time_s") <
        number(base, "checkpoint_time_s"));
  CHECK(number(estimate_json({"--restart-time", "1h"}), "goodput") < number(base, "goodput"));
  CHECK(number(estimate_json({"--checkpoint-interval", "2h"}), "checkpoint_interval_s") == 7200.0);
  CHECK(number(estimate_json({"--async-checkpoint", "on"}), "checkpoint_time_s") <
        number(base, "checkpoint_time_s"));
  const Json off = estimate_json({"--gpu-mtbf", "off", "--planned-mtbf", "off"});
  CHECK(number(off, "goodput") == 1.0);
  CHECK(member(off, "cluster_mtbf_s").is_null());
  CHECK(member(off, "planned_mtbf_s").is_null());
  CHECK(member(off, "checkpoint_interval_s").is_null());
  CHECK(number(off, "interruptions") == 0.0);
  CHECK(number(off, "interruptions_per_day") == 0.0);
  // Planned stops at Llama 3's rate: 47 per 54 days on 16,384 GPUs, so 47 x 64 / 16,384 / 54 a day on 64.
  CHECK(number(base, "planned_mtbf_s") == doctest::Approx(54 * 86400.0 * 16384 / 47 / 64));
  CHECK(number(base, "interruptions_per_day") == doctest::Approx(466.0 * 64 / 16384 / 54));
  CHECK(number(base, "planned_interruptions") > 0.0);

  // People see what cost means, and the goodput behind the days.
  const auto table = run_cli(args("estimate", {kSmall, kSplit, {"--tokens", "100B"}}));
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("cost = TCO, owned (USD)") != std::string::npos);
  CHECK(table.out.find("goodput (%)") != std::string::npos);
  CHECK(table.out.find("days to train, wall-clock") != std::string::npos);
}

TEST_CASE("--cost-basis rental, no interruptions, reproduces the failure-free GPU-hours cost") {
  // Before goodput, days were the failure-free days and cost GPUs x those hours x the hourly price
  // (h100-sxm: 2.50 USD/h).
  const Json rental = estimate_json({"--cost-basis", "rental", "--gpu-mtbf", "off", "--planned-mtbf", "off"});
  const Json owned = estimate_json({});
  CHECK(number(rental, "training_days") == number(owned, "ideal_days"));
  CHECK(number(rental, "cost_usd") ==
        doctest::Approx(64 * 2.5 * 24 * number(owned, "ideal_days")).epsilon(1e-12));
  // The plan's table says which cost it shows.
  const auto plan =
      run_cli(args("plan", {kSmall, {"--tokens", "100B", "--top", "1", "--cost-basis", "rental"}}));
  REQUIRE(plan.exit_code == 0);
  CHECK(plan.out.find("top 1 by time; cost = GPU rental at 2.5 USD/h per GPU") != std::string::npos);
  const auto owned_plan = run_cli(args("plan", {kSmall, {"--tokens", "100B", "--top", "1"}}));
  CHECK(owned_plan.out.find("cost = owned TCO: capex over 4 years + energy at 0.08 USD/kWh x PUE 1.3") !=
        std::string::npos);
}

TEST_CASE("plan: every flag accepted, --rank-by capex|tco|power, --pareto over any three") {
  for (const auto& flag : std::vector<std::vector<std::string>>{{"--cost-basis", "rental"},
                                                                {"--amortization-years", "5"},
                                                                {"--electricity", "0.1"},
                                                                {"--pue", "1.2"},
                                                                {"--gpu-mtbf", "20000h"},
                                                                {"--checkpoint-bandwidth", "4GB/s"},
                                                                {"--restart-time", "5min"},
                                                                {"--checkpoint-interval", "30min"},
                                                                {"--async-checkpoint", "on"}}) {
    CAPTURE(flag.front());
    const auto result = run_cli(args("plan", {kSmall, {"--tokens", "100B", "--top", "1"}, flag}));
    CHECK_MESSAGE(result.exit_code == 0, result.err);
  }
  // --rank-by capex over every fabric: the cheapest cluster first, capex never falling.
  const auto capex = run_cli(args(
      "plan", {kSmall, {"--topology", "auto", "--rank-by", "capex", "--top", "30", "--format", "json"}}));
  REQUIRE_MESSAGE(capex.exit_code == 0, capex.err);
  const Json capex_doc = parse_json(capex.out);
  const auto& configs = member(capex_doc, "configs").as_array();
  REQUIRE(configs.size() == 30);
  double previous = 0;
  for (const auto& config : configs) {
    CHECK(number(config, "capex_usd") >= previous);
    previous = number(config, "capex_usd");
  }
  // ...and it is the cheapest fabric of all: the one rank-by time puts first costs no less.
  const auto by_time =
      run_cli(args("plan", {kSmall, {"--topology", "auto", "--top", "1", "--format", "json"}}));
  const Json by_time_doc = parse_json(by_time.out);
  CHECK(number(member(by_time_doc, "configs").as_array().front(), "capex_usd") >=
        number(configs.front(), "capex_usd"));
  CHECK(std::get<std::string>(member(configs.front(), "topology").value()) == "torus-3d");  // no switches

  for (const char* objective : {"tco", "power", "cost", "switches", "time"}) {
    CAPTURE(objective);
    const auto r =
        run_cli(args("plan", {kSmall, {"--tokens", "100B", "--rank-by", objective, "--top", "1"}}));
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(std::string("top 1 by ") + objective) != std::string::npos);
  }
  const auto pareto = run_cli(args(
      "plan",
      {kSmall, {"--tokens", "100B", "--topology", "auto", "--pareto", "time,tco,switches", "--top", "1"}}));
  REQUIRE_MESSAGE(pareto.exit_code == 0, pareto.err);
  CHECK(pareto.out.find("Pareto front of (time, tco, switches)") != std::string::npos);
  const auto plain = run_cli(args("plan", {kSmall, {"--pareto", "--top", "1"}}));
  CHECK(plain.out.find("Pareto front of (time, cost, switches)") != std::string::npos);
}

TEST_CASE("the deadline search prints and returns gpus, and meets the deadline in wall-clock days") {
  const std::vector<std::string> search = {"--model",      "llama3-8b", "--gpu",           "h100-sxm",
                                           "--tokens",     "1T",        "--deadline-days", "20",
                                           "--gpus-range", "32:256",    "--top",           "3"};
  const auto json = run_cli(args("plan", {search, {"--format", "json"}}));
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  const Json doc = parse_json(json.out);
  const auto& configs = member(doc, "configs").as_array();
  REQUIRE(!configs.empty());
  for (const auto& config : configs) {
    CHECK(number(config, "training_days") <= 20.0);                         // wall-clock...
    CHECK(number(config, "training_days") > number(config, "ideal_days"));  // ...after goodput
    CHECK(number(config, "gpus") >= 32);
    CHECK(number(config, "gpus") <= 256);
  }
  // Every GPU count searched, with its best fabric and why the others lost: 32 GPUs miss (their fastest
  // takes more than 20 days), the chosen one is the cheapest that meets it.
  const auto& counts = member(doc, "gpu_counts").as_array();
  REQUIRE(counts.size() == (256 - 32) / 8 + 1);
  CHECK(number(counts.front(), "gpus") == 32);
  CHECK(member(counts.front(), "training_days").is_null());
  CHECK(number(counts.front(), "fastest_days") > 20.0);
  const double chosen = number(configs.front(), "gpus");
  const double chosen_cost = number(configs.front(), "cost_usd");
  for (const auto& c : counts) {
    if (member(c, "cost_usd").is_null()) continue;
    CHECK(number(c, "cost_usd") >= chosen_cost);
    CHECK(number(c, "training_days") <= 20.0);
  }
  const auto table = run_cli(args("plan", {search}));
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("GPUs") != std::string::npos);
  CHECK(table.out.find("by GPU count") != std::string::npos);
  CHECK(table.out.find(std::to_string(static_cast<int>(chosen)) + "  fat-tree") != std::string::npos);
  CHECK(table.out.find("smaller clusters lost: ") != std::string::npos);
  CHECK(table.out.find("miss the deadline") != std::string::npos);
  CHECK(table.out.find("larger clusters lost: ") != std::string::npos);
  CHECK(table.out.find("cluster: 32-256 x h100-sxm") == 0);
}

TEST_CASE("scenario: the same settings as training.* dotted paths") {
  const TempDir dir;
  const std::string path = (dir.path() / "s.yaml").string();
  std::ofstream(path) << R"(base:
  cluster: {gpu: h100-sxm, gpus: 64, scale_out: {link: ib-ndr-400g}}
  model: llama3-8b
  training: {tokens: 100B, global_batch: 256, cost_basis: owned, amortization_years: 4, electricity: 0.08USD/kWh,
             pue: 1.3, checkpoint_bandwidth: 1GB/s, restart_time: 10min, checkpoint_interval: auto,
             async_checkpoint: off}
  planner: {rank_by: tco}
sweep:
  training.gpu_mtbf: [50000h, "off"]
  training.cost_basis: [owned, rental]
report:
  columns: [goodput, training_days, cost_usd, tco_usd, rental_cost_usd, capex_usd, energy_usd, interruptions]
)";
  const auto result = run_cli({"scenario", path, "--format", "json"});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  const Json doc = parse_json(result.out);
  const auto& rows = member(doc, "rows").as_array();
  REQUIRE(rows.size() == 4);
  const auto config = [&](size_t i) -> const Json& {
    return member(rows[i], "configurations").as_array().front();
  };
  CHECK(number(config(0), "goodput") < 1.0);
  // gpu_mtbf off: no checkpoints, only the planned stops, each a restart (10 min) and a checkpoint C, every
  // M_p = 18,824 GPU-days / 64: goodput 1 - (600 s + C) / M_p.
  const double planned_mtbf = number(config(2), "planned_mtbf_s");
  CHECK(planned_mtbf == doctest::Approx(54 * 86400.0 * 16384 / 47 / 64));
  CHECK(number(config(2), "goodput") ==
        doctest::Approx(1.0 - (600.0 + number(config(2), "checkpoint_time_s")) / planned_mtbf));
  CHECK(number(config(2), "interruptions") == 0.0);
  CHECK(number(config(2), "planned_interruptions") > 0.0);
  CHECK(number(config(0), "cost_usd") == number(config(0), "tco_usd"));
  CHECK(number(config(1), "cost_usd") == number(config(1), "rental_cost_usd"));

  std::ofstream(path) << "base:\n  cluster: {gpu: h100-sxm, gpus: 64, scale_out: {link: ib-ndr-400g}}\n"
                         "  model: llama3-8b\nsweep:\n  training.pue: [1.2, 0.8]\n";
  const auto bad = run_cli({"scenario", path});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == path +
                       ":5:23: error: training.pue: expected a ratio >= 1 (facility power / IT power), got "
                       "'0.8'\n");
}

TEST_CASE("bad values exit 2 with one line naming the flag") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--cost-basis", "owner"},
       "--cost-basis: expected owned or rental, got 'owner'; did you mean 'owned'?"},
      {{"--amortization-years", "0"},
       "--amortization-years: expected a positive number of years, e.g. 4, got '0'"},
      {{"--electricity", "cheap"}, "--electricity: "},
      {{"--pue", "0.9"}, "--pue: expected a ratio >= 1 (facility power / IT power), got '0.9'"},
      {{"--gpu-mtbf", "5000"}, "--gpu-mtbf: "},
      {{"--checkpoint-bandwidth", "fast"}, "--checkpoint-bandwidth: "},
      {{"--restart-time", "-1min"}, "--restart-time: "},
      {{"--checkpoint-interval", "0s"},
       "--checkpoint-interval: expected a positive time such as 10min, got '0s'"},
      {{"--async-checkpoint", "maybe"}, "--async-checkpoint: expected on or off, got 'maybe'"},
      {{"--rank-by", "capx"}, "--rank-by: unknown objective 'capx'; did you mean 'capex'?"},
      {{"--pareto", "time,cost"}, "--pareto: expected three objectives, got 2; e.g. time,tco,switches"},
  };
  for (const char* command : {"plan", "estimate"}) {
    for (const auto& test_case : cases) {
      const std::vector<std::string>& flag = test_case.first;  // clang < 16 cannot capture a binding
      const std::string& message = test_case.second;
      if (std::string(command) == "estimate" && (flag.front() == "--rank-by" || flag.front() == "--pareto"))
        continue;
      CAPTURE(command);
      CAPTURE(flag.front());
      const auto result = run_cli(args(command, {kSmall, kSplit, flag}));
      CHECK(result.exit_code == 2);
      CHECK(result.out.empty());
      CHECK(result.err.rfind(std::string("costmodel ") + command + ": error: " + message, 0) == 0);
      CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    }
  }
}

}  // namespace costmodel::test
