// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/goodput.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "catalog_fixture.hpp"
#include "costmodel/estimate/step.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"

using namespace costmodel;

namespace {

const Catalog& catalog() {
  return test::source_catalog();
}

ClusterSpec h100(int gpus) {
  ClusterOptions o;
  o.gpu = "h100-sxm";
  o.gpus = gpus;
  o.link = "ib-ndr-400g";
  return apply_cluster_options(default_cluster(catalog(), "h100-sxm"), o, catalog());
}

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("Young's interval: sqrt(2 C M), M once C >= 2M, never without interruptions") {
  // Young 1974: C = 5 min, M = 24 h -> sqrt(2 x 300 x 86400) = 7200 s = 120 min (Daly 2006's example gives
  // 117 min from his higher-order estimate; Young's first order is within 3% of it).
  CHECK(young_daly_interval(Seconds(300.0), Seconds(86400.0)).value == doctest::Approx(7200.0));
  CHECK(young_daly_interval(Seconds(2.0), Seconds(11135.0)).value ==
        doctest::Approx(std::sqrt(2 * 2.0 * 11135)));
  CHECK(young_daly_interval(Seconds(500.0), Seconds(200.0)).value == 200.0);  // C >= 2M: M (Daly 2006)
  CHECK(std::isinf(young_daly_interval(Seconds(3.0), Seconds(kInf)).value));
}

TEST_CASE("Daly's goodput: exact in its limits, and Young's interval is (near) its optimum") {
  // No interruptions: only the checkpoint stalls, tau / (tau + C); no checkpoints at all: 1.
  CHECK(daly_goodput(Seconds(600.0), Seconds(6.0), Seconds(600.0), Seconds(kInf)) ==
        doctest::Approx(600.0 / 606.0));
  CHECK(daly_goodput(Seconds(kInf), Seconds(6.0), Seconds(600.0), Seconds(kInf)) == 1.0);
  // Never checkpointing while interrupted: a long run never finishes.
  CHECK(daly_goodput(Seconds(kInf), Seconds(6.0), Seconds(600.0), Seconds(3600.0)) == 0.0);
  // First order (C, tau, R << M): 1 / goodput = 1 + C/tau + (R + (tau + C)/2)/M. C = 10 s, tau = 600 s,
  // R = 300 s, M = 1e6 s: 1 + 0.016667 + 0.000605 = 1.017272.
  CHECK(daly_goodput(Seconds(600.0), Seconds(10.0), Seconds(300.0), Seconds(1e6)) ==
        doctest::Approx(1.0 / 1.017272).epsilon(1e-5));
  // The exact expression: M e^{R/M} (e^{(tau+C)/M} - 1) / tau with M = 3600, R = 600, C = 60, tau = 1200.
  const double ratio = 3600 * std::exp(600.0 / 3600) * (std::exp(1260.0 / 3600) - 1) / 1200;
  CHECK(daly_goodput(Seconds(1200.0), Seconds(60.0), Seconds(600.0), Seconds(3600.0)) ==
        doctest::Approx(1.0 / ratio).epsilon(1e-12));
  // Young's interval is within a hair of the best goodput on a fine grid (C << M).
  const Seconds c(20.0);
  const Seconds m(20000.0);
  const Seconds r(600.0);
  const double young = daly_goodput(young_daly_interval(c, m), c, r, m);
  double best = 0;
  for (double tau = 10; tau < 20000; tau *= 1.01) best = std::max(best, daly_goodput(Seconds(tau), c, r, m));
  CHECK(young <= best + 1e-12);
  CHECK(young == doctest::Approx(best).epsilon(2e-4));
}

TEST_CASE("Llama 3: 16,384 H100 at the default rate, 6.5-10.8 interruptions a day, goodput 0.85-0.97") {
  // Dubey et al. 2024 §3.3.4: 466 interruptions (419 unexpected) in 54 days, 8.6 a day (7.8 unexpected),
  // and an effective training time above 90%.
  const ModelSpec llama = catalog().model("llama3-405b");
  const ClusterSpec cluster = h100(16384);
  const Goodput g = goodput(count_parameters(llama).total, cluster, ReliabilitySpec{});
  // The default is 419 interruptions per 54 days on 16,384 GPUs: the cluster's MTBF is 54 d / 419 = 3.09 h.
  CHECK(g.cluster_mtbf.value == doctest::Approx(54 * 86400.0 / 419).epsilon(1e-12));
  const double per_day = expected_interruptions(Seconds(86400.0), g.cluster_mtbf);
  CHECK(per_day == doctest::Approx(419.0 / 54).epsilon(1e-12));
  CHECK(per_day >= 6.5);
  CHECK(per_day <= 10.8);
  // The checkpoint: 405.9e9 parameters x 14 B = 5.68 TB, written by 2,048 nodes at 2e12/2048 B/s each, i.e.
  // at Llama 3's 2 TB/s: 2.84 s.
  CHECK(g.checkpoint_bytes.value == doctest::Approx(count_parameters(llama).total * 14.0));
  CHECK(g.checkpoint_time.value == doctest::Approx(g.checkpoint_bytes.value / 2e12));
  CHECK(g.checkpoint_interval.value ==
        doctest::Approx(std::sqrt(2 * g.checkpoint_time.value * g.cluster_mtbf.value)));
  CHECK(g.fraction > 0.85);
  CHECK(g.fraction < 0.97);
  // And through the estimator: the same goodput, interruptions = wall-clock days x GPUs / per-GPU MTBF.
  EstimateOptions options;
  options.tokens = 15e12;
  Strategy s;
  s.tp = 8;
  s.pp = 2;
  s.dp = 1024;
  s.global_batch = 2048;
  s.recompute = Recompute::kFull;
  s.zero = 1;
  const StepEstimate e = estimate(llama, cluster, s, options);
  REQUIRE(e.valid());
  REQUIRE(e.interruptions.has_value());
  REQUIRE(e.training_time.has_value());
  CHECK(e.goodput.fraction == g.fraction);
  CHECK(*e.interruptions == doctest::Approx(e.training_time->value / kSecondsPerDay * 16384 /
                                            (kLlama3GpuMtbf.value / kSecondsPerDay)));
  CHECK(e.training_time->value == doctest::Approx(e.ideal_time->value / g.fraction));
}

TEST_CASE("Llama 3's 466 interruptions in 54 days: 419 unplanned, 47 planned, each planned one a restart") {
  const ModelSpec& llama = catalog().model("llama3-405b");
  const ClusterSpec cluster = h100(16384);
  const Goodput g = goodput(count_parameters(llama).total, cluster, ReliabilitySpec{});
  // Dubey et al. 2024 §3.3.4: 466 job interruptions in a 54-day snapshot on 16,384 H100, 47 of them planned.
  const Seconds snapshot(54 * kSecondsPerDay);
  CHECK(expected_interruptions(snapshot, g.cluster_mtbf) == doctest::Approx(419.0).epsilon(1e-12));
  CHECK(expected_interruptions(snapshot, g.planned_mtbf) == doctest::Approx(47.0).epsilon(1e-12));
  CHECK(interruptions_per_day(g) == doctest::Approx(466.0 / 54).epsilon(1e-12));
  // A planned stop checkpoints first: it costs the restart (600 s) and one checkpoint (2.84 s), never the
  // work since the last checkpoint. 47 / 54 d of them take (600 + 2.84) / (54 x 86400 / 47) = 0.65% of the
  // wall-clock time: goodput is Daly's unplanned goodput x (1 - 0.0065).
  ReliabilitySpec unplanned_only;
  unplanned_only.planned_gpu_mtbf = Seconds(kInf);
  const Goodput without = goodput(count_parameters(llama).total, cluster, unplanned_only);
  const double lost = (600.0 + g.checkpoint_time.value) / (54 * kSecondsPerDay / 47);
  CHECK(lost == doctest::Approx(0.00652).epsilon(0.01));
  CHECK(g.fraction == doctest::Approx(without.fraction * (1.0 - lost)).epsilon(1e-12));
  CHECK(std::isinf(without.planned_mtbf.value));
}

TEST_CASE("goodput falls as the GPU count grows") {
  const double parameters = count_parameters(catalog().model("llama3-405b")).total;
  double previous = 1.0;
  for (const int gpus : {1024, 4096, 16384, 65536, 131072}) {
    const Goodput g = goodput(parameters, h100(gpus), ReliabilitySpec{});
    CAPTURE(gpus);
    CHECK(g.fraction < previous);
    CHECK(g.fraction > 0.0);
    previous = g.fraction;
  }
}

TEST_CASE("settings: no interruptions, a pinned interval, asynchronous checkpoints, restart time") {
  const double parameters = count_parameters(catalog().model("llama3-405b")).total;
  const ClusterSpec cluster = h100(16384);
  ReliabilitySpec off;
  off.gpu_mtbf = Seconds(kInf);
  off.planned_gpu_mtbf = Seconds(kInf);
  const Goodput none = goodput(parameters, cluster, off);
  CHECK(none.fraction == 1.0);  // no interruptions: no checkpoints needed, every second counts
  CHECK(std::isinf(none.cluster_mtbf.value));
  CHECK(std::isinf(none.checkpoint_interval.value));

  ReliabilitySpec pinned;
  pinned.checkpoint_interval = Seconds(3600.0);
  const Goodput hourly = goodput(parameters, cluster, pinned);
  CHECK(hourly.checkpoint_interval.value == 3600.0);
  CHECK(hourly.fraction < goodput(parameters, cluster, ReliabilitySpec{}).fraction);  // Young's is better

  // Asynchronous: the stall is each GPU's share copied to host at 50 GB/s; the write (2.84 s) is lost on
  // average once more per interruption, and bounds the interval from below.
  ReliabilitySpec async;
  async.async_checkpoint = true;
  const Goodput a = goodput(parameters, cluster, async);
  const Goodput sync = goodput(parameters, cluster, ReliabilitySpec{});
  CHECK(a.checkpoint_time.value == doctest::Approx(a.checkpoint_bytes.value / 16384 / 50e9));
  CHECK(a.restart_cost.value == doctest::Approx(600.0 + sync.checkpoint_write.value));
  CHECK(a.checkpoint_interval.value >= a.checkpoint_write.value);
  CHECK(a.fraction > sync.fraction);

  // A faster restart helps the most at scale.
  ReliabilitySpec quick;
  quick.restart_time = Seconds(120.0);
  const ClusterSpec big = h100(65536);
  const double gain_16k = goodput(parameters, cluster, quick).fraction - sync.fraction;
  const double gain_64k =
      goodput(parameters, big, quick).fraction - goodput(parameters, big, ReliabilitySpec{}).fraction;
  CHECK(gain_64k > gain_16k);
  CHECK(gain_16k > 0.0);

  // A node's share of the write bandwidth: twice the bandwidth, half the checkpoint time.
  ReliabilitySpec fast;
  fast.checkpoint_bandwidth = kDefaultCheckpointBandwidth * 2.0;
  CHECK(goodput(parameters, cluster, fast).checkpoint_time.value ==
        doctest::Approx(sync.checkpoint_time.value / 2));
}

TEST_CASE("checkpoint bytes: BLOOM-176B's 2.3 TB with optimizer states") {
  // Le Scao et al. 2022 / the BLOOM training blog: a full checkpoint with optimizer states took 2.3 TB and
  // the bf16 weights alone 329 GB; 14 B per parameter gives 2.46 TB = 2.24 TiB, the weights 2 B x 176e9 = 328
  // GiB.
  const double parameters = count_parameters(catalog().model("bloom-176b")).total;
  const Goodput g = goodput(parameters, h100(384), ReliabilitySpec{});
  CHECK(g.checkpoint_bytes.value / 1e12 == doctest::Approx(2.3).epsilon(0.08));
  CHECK(parameters * 2.0 / 1073741824.0 == doctest::Approx(329.0).epsilon(0.03));
}

TEST_CASE(
    "the checkpoint interval never falls below its floor: one step, one asynchronous write, the operator's") {
  const ClusterSpec cluster = h100(16384);
  const double parameters = 405e9;
  ReliabilitySpec reliability;
  reliability.async_checkpoint = true;
  // Asynchronous: the stall is the GPU->host copy, so Young/Daly asks for checkpoints seconds apart; the next
  // save waits for the previous write to storage, which is the floor.
  const Goodput async = goodput(parameters, cluster, reliability);
  CHECK(async.checkpoint_floor.value == doctest::Approx(async.checkpoint_write.value));
  CHECK(async.checkpoint_interval >= async.checkpoint_floor);
  // An operator's floor of 30 minutes binds, and costs goodput: more work lost per interruption.
  reliability.checkpoint_floor = Seconds(1800.0);
  const Goodput floored = goodput(parameters, cluster, reliability);
  CHECK(floored.checkpoint_floor.value == 1800.0);
  CHECK(floored.checkpoint_interval.value == 1800.0);
  CHECK(floored.fraction < async.fraction);

  // One training step: a step longer than Young/Daly's interval sets the interval, and goodput follows it.
  reliability.checkpoint_floor.reset();
  EstimateOptions options;
  options.tokens = 1e12;
  options.reliability = reliability;
  Goodput g = goodput(parameters, cluster, reliability);
  StepEstimate e;
  e.step_time = Seconds(g.checkpoint_interval.value * 3.0);
  e.tokens_per_s = 1e6;
  apply_economics(e, g, Ownership{}, options);
  CHECK(e.goodput.checkpoint_floor == e.step_time);
  CHECK(e.goodput.checkpoint_interval == e.step_time);
  CHECK(e.goodput.fraction ==
        doctest::Approx(daly_goodput(e.step_time, g.checkpoint_time, g.restart_cost, g.cluster_mtbf) *
                        g.planned_factor));
  CHECK(e.goodput.fraction < g.fraction);
}
