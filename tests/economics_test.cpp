// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/economics.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "catalog_fixture.hpp"
#include "costmodel/error.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/spec/training.hpp"

using namespace costmodel;

namespace {

const Catalog& catalog() {
  return test::source_catalog();
}

ClusterSpec h100(int gpus) {
  return test::catalog_cluster("h100-sxm", gpus);
}

Strategy llama_split() {
  Strategy s;
  s.tp = 8;
  s.pp = 1;
  s.dp = 128;
  s.global_batch = 512;
  s.recompute = Recompute::kFull;
  s.zero = 1;
  return s;
}

}  // namespace

TEST_CASE("capex: GPUs with their share of the server, plus the fabric's inventory") {
  const ClusterSpec cluster = h100(1024);
  const Estimator estimator(catalog().model("llama3-8b"), cluster);
  const Inventory& inventory = estimator.topology().inventory;
  const Ownership o = ownership(cluster, inventory, EconomicsSpec{});
  // 1,024 x ($27,500 + $83,600 / 8): the catalog's H100 and its HGX server's share.
  CHECK(o.gpu_capex.value == doctest::Approx(1024 * (27500.0 + 83600.0 / 8)));
  CHECK(o.network_capex.value == inventory.capex.value);
  CHECK(o.capex.value == doctest::Approx(o.gpu_capex.value + inventory.capex.value));
  // Rated IT power: 128 nodes of 8 x 700 W + 4,400 W (the DGX H100's 10.2 kW less its 8 NICs' 200 W), the
  // fabric at catalog power; while training the nodes draw 76% of that (Newkirk et al. 2025).
  CHECK(o.power.value == doctest::Approx(128 * 10000.0 + inventory.power.value));
  CHECK(o.power_at_load.value == doctest::Approx(128 * 10000.0 * 0.76 + inventory.power.value));
  // Owning it per second: capex over 4 years of 365.25 days, plus the energy at the load power x PUE 1.3 x
  // 0.08 USD/kWh.
  const double amortization = o.capex.value / (4 * 365.25 * 86400);
  const double energy = o.power_at_load.value * 1.3 * 0.08 / 3.6e6;
  CHECK(o.owned_rate.value == doctest::Approx(amortization + energy));
  CHECK(o.rental_rate.value == doctest::Approx(1024 * 2.5 / 3600));
}

TEST_CASE("a run's TCO, energy and rental follow its wall-clock time") {
  const ModelSpec model = catalog().model("llama3-8b");
  const ClusterSpec cluster = h100(1024);
  EstimateOptions options;
  options.tokens = 1e12;
  const Estimator estimator(model, cluster, options);
  const StepEstimate e = estimator.evaluate(llama_split());
  REQUIRE(e.valid());
  REQUIRE(e.training_time.has_value());
  const double wall = e.training_time->value;
  const Ownership& o = estimator.ownership();
  CHECK(e.gpus == 1024);
  CHECK(e.capex.value == o.capex.value);
  CHECK(e.gpu_capex.value == o.gpu_capex.value);
  CHECK(e.energy->value == doctest::Approx(o.power_at_load.value * 1.3 * wall));
  CHECK(e.energy_cost->value == doctest::Approx(e.energy->value / 3.6e6 * 0.08));
  CHECK(e.tco->value == doctest::Approx(o.capex.value * wall / (4 * 365.25 * 86400) + e.energy_cost->value));
  CHECK(e.rental_cost->value == doctest::Approx(1024 * 2.5 * wall / 3600));
  // The owned basis is the default: cost is the TCO.
  CHECK(e.cost_basis == CostBasis::kOwned);
  CHECK(e.cost()->value == e.tco->value);

  // Every setting moves what it should: 8 years halve the amortisation, twice the electricity doubles the
  // energy cost, PUE 1.0 takes the facility overhead out.
  EstimateOptions changed = options;
  changed.economics.amortization_years = 8;
  changed.economics.electricity = kDefaultElectricity * 2.0;
  changed.economics.pue = 1.0;
  changed.economics.cost_basis = CostBasis::kRental;
  const StepEstimate c = Estimator(model, cluster, changed).evaluate(llama_split());
  CHECK(c.energy->value == doctest::Approx(e.energy->value / 1.3));
  CHECK(c.energy_cost->value == doctest::Approx(2 * e.energy_cost->value / 1.3));
  CHECK(c.tco->value == doctest::Approx(o.capex.value * wall / (8 * 365.25 * 86400) + c.energy_cost->value));
  CHECK(c.cost()->value == c.rental_cost->value);
}

TEST_CASE("--cost-basis rental without interruptions reproduces the failure-free GPU-hours cost") {
  // Before goodput, cost was GPUs x failure-free hours x the hourly price, and days the failure-free days.
  const ModelSpec model = catalog().model("llama3-8b");
  const ClusterSpec cluster = h100(1024);
  EstimateOptions options;
  options.tokens = 1e12;
  options.economics.cost_basis = CostBasis::kRental;
  options.reliability.gpu_mtbf = Seconds(std::numeric_limits<double>::infinity());
  options.reliability.planned_gpu_mtbf = Seconds(std::numeric_limits<double>::infinity());
  const StepEstimate e = Estimator(model, cluster, options).evaluate(llama_split());
  REQUIRE(e.valid());
  const double ideal = 1e12 / e.tokens_per_s;
  CHECK(e.goodput.fraction == 1.0);
  CHECK(e.training_time->value == ideal);
  CHECK(e.cost()->value == doctest::Approx(1024 * cluster.gpu.rental_price.value * ideal).epsilon(1e-12));
  CHECK(*e.interruptions == 0.0);
  CHECK(*e.planned_interruptions == 0.0);
}

TEST_CASE("the training fields: every value as every input writes it, bad ones named") {
  TrainingSpec spec;
  set_training_field(spec, "cost_basis", "rental");
  CHECK(spec.economics.cost_basis == CostBasis::kRental);
  set_training_field(spec, "amortization_years", "5");
  CHECK(spec.economics.amortization_years == 5.0);
  set_training_field(spec, "electricity", "0.12USD/kWh");
  CHECK(spec.economics.electricity.value == doctest::Approx(0.12 / 3.6e6));
  set_training_field(spec, "electricity", "0.1");  // a bare number is USD/kWh
  CHECK(spec.economics.electricity.value == doctest::Approx(0.1 / 3.6e6));
  set_training_field(spec, "pue", "1.1");
  CHECK(spec.economics.pue == 1.1);
  set_training_field(spec, "gpu_mtbf", "50000h");
  CHECK(spec.reliability.gpu_mtbf.value == 50000 * 3600.0);
  set_training_field(spec, "gpu_mtbf", "off");
  CHECK_FALSE(spec.reliability.failures());
  set_training_field(spec, "planned_mtbf", "20000d");
  CHECK(spec.reliability.planned_gpu_mtbf.value == 20000 * 86400.0);
  set_training_field(spec, "planned_mtbf", "off");
  CHECK(std::isinf(spec.reliability.planned_gpu_mtbf.value));
  set_training_field(spec, "checkpoint_bandwidth", "2GB/s");
  CHECK(spec.reliability.checkpoint_bandwidth.value == 2e9);
  set_training_field(spec, "restart_time", "2min");
  CHECK(spec.reliability.restart_time.value == 120.0);
  set_training_field(spec, "checkpoint_interval", "30min");
  CHECK(spec.reliability.checkpoint_interval->value == 1800.0);
  set_training_field(spec, "checkpoint_interval", "auto");
  CHECK_FALSE(spec.reliability.checkpoint_interval);
  set_training_field(spec, "async_checkpoint", "on");
  CHECK(spec.reliability.async_checkpoint);
  // The defaults: owned, 4 years, 0.08 USD/kWh, PUE 1.3, Llama 3's rate, 1 GB/s per node, 10 min.
  const TrainingSpec defaults;
  CHECK(defaults.economics.cost_basis == CostBasis::kOwned);
  CHECK(defaults.economics.amortization_years == 4.0);
  CHECK(defaults.economics.electricity.value * 3.6e6 == doctest::Approx(0.08));
  CHECK(defaults.economics.pue == 1.3);
  CHECK(defaults.reliability.gpu_mtbf.value == doctest::Approx(54 * 86400.0 * 16384 / 419));
  CHECK(defaults.reliability.planned_gpu_mtbf.value == doctest::Approx(54 * 86400.0 * 16384 / 47));
  CHECK(defaults.reliability.checkpoint_bandwidth.value == doctest::Approx(2e12 / 2048));
  CHECK(defaults.reliability.restart_time.value == 600.0);
  CHECK_FALSE(defaults.reliability.async_checkpoint);

  for (const auto& bad : std::vector<std::pair<const char*, const char*>>{{"cost_basis", "owner"},
                                                                          {"amortization_years", "0"},
                                                                          {"amortization_years", "four"},
                                                                          {"electricity", "-0.08"},
                                                                          {"electricity", "0.08USD"},
                                                                          {"pue", "0.9"},
                                                                          {"gpu_mtbf", "0s"},
                                                                          {"gpu_mtbf", "5000"},
                                                                          {"planned_mtbf", "0s"},
                                                                          {"checkpoint_bandwidth", "0GB/s"},
                                                                          {"restart_time", "-1min"},
                                                                          {"checkpoint_interval", "0s"},
                                                                          {"async_checkpoint", "maybe"}}) {
    const char* key = bad.first;  // clang < 16 cannot capture a structured binding
    const char* text = bad.second;
    CAPTURE(key);
    CAPTURE(text);
    CHECK_THROWS_AS(set_training_field(spec, key, text), Error);
  }
  try {
    set_training_field(spec, "cost_basis", "owner");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("did you mean 'owned'?") != std::string::npos);
  }
}

TEST_CASE("a cluster file overrides every price: the GPU's, its server's, the switch's") {
  const ClusterSpec c = load_cluster_text(R"(
gpu: {name: h100-sxm, price: $20000, node: {server_price: $40000, server_power: 3kW}}
gpus: 64
scale_out: {link: ib-ndr-400g, switch: {name: qm9700, price: $10000}}
)",
                                          "cluster.yaml", catalog());
  CHECK(c.gpu.price.value == 20000.0);
  CHECK(c.gpu.node.server_price.value == 40000.0);
  CHECK(c.gpu.node.server_power.value == 3000.0);
  CHECK(c.gpu.node.link == "ib-ndr-400g");  // the rest of the node stays the catalog's
  CHECK(c.gpu.node.load_power == 0.76);
  CHECK(c.switch_spec.price.value == 10000.0);
  const Estimator estimator(catalog().model("llama3-8b"), c);
  CHECK(estimator.ownership().gpu_capex.value == doctest::Approx(64 * (20000.0 + 40000.0 / 8)));
  CHECK_THROWS_WITH(load_cluster_text("gpu: {name: h100-sxm, node: {server_prize: $1}}\ngpus: 8\n"
                                      "scale_out: {link: ib-ndr-400g}\n",
                                      "cluster.yaml", catalog()),
                    doctest::Contains("did you mean 'server_price'?"));
}
