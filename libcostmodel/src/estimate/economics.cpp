// SPDX-License-Identifier: Apache-2.0
#include "costmodel/estimate/economics.hpp"

#include <algorithm>
#include <limits>

#include "costmodel/estimate/step.hpp"

namespace costmodel::inline COSTMODEL_ABI {

Ownership ownership(const ClusterSpec& cluster, const Inventory& inventory, const EconomicsSpec& economics) {
  Ownership o;
  o.gpus = cluster.gpus;
  const GpuSpec& gpu = cluster.gpu;
  const double gpus = cluster.gpus;
  // The catalog prices a server of node.gpus GPUs; each GPU carries its share, whatever the cluster's nodes.
  const double per_node = std::max(1, gpu.node.gpus);
  o.gpu_capex = Usd(gpus * (gpu.price.value + gpu.node.server_price.value / per_node));
  o.network_capex = inventory.capex;
  o.scale_up_capex = inventory.scale_up_capex;
  o.scale_up_power = inventory.scale_up_power;
  // A fabric other than the GPU's own is bought and powered beside it; the GPU's own is in its prices.
  const bool extra = !cluster.scale_up_priced_with_gpu();
  const Usd scale_up_capex = extra ? o.scale_up_capex : Usd(0.0);
  const Watts scale_up_power = extra ? o.scale_up_power : Watts(0.0);
  o.capex = o.gpu_capex + o.network_capex + scale_up_capex;
  const Watts nodes(gpus * (gpu.tdp.value + gpu.node.server_power.value / per_node));
  o.power = nodes + inventory.power + scale_up_power;
  // Nodes draw a measured fraction of their rating while training (an 8-GPU H100 node: 76% of 10.2 kW,
  // Newkirk et al. 2025, arXiv 2506.14551); switches, NICs and optics are priced at their typical power.
  o.power_at_load = nodes * gpu.node.load_power + inventory.power + scale_up_power;
  const double amortization = o.capex.value / (economics.amortization_years * kSecondsPerYear);
  const double energy = o.power_at_load.value * economics.pue * economics.electricity.value;
  o.owned_rate = UsdPerSecond(amortization + energy);
  // Lifetime TCO (issue 30): the building on the rated IT power a colocation contract reserves, energy at
  // training load for the whole life, support per year and the rest as shares of capex (data/prices.yaml).
  const double years = economics.amortization_years;
  const double life_s = years * kSecondsPerYear;
  o.lifetime.capex = o.capex;
  o.lifetime.facility =
      Usd(economics.facility.value_or(UsdPerWattSecond(0.0)).value * o.power.value * life_s);
  o.lifetime.energy = Usd(energy * life_s);
  o.lifetime.support = o.capex * (economics.support_share.value_or(0.0) * years);
  o.lifetime.other = o.capex * (economics.storage_share.value_or(0.0) + economics.spares_share.value_or(0.0) +
                                economics.cables_share.value_or(0.0));
  o.lifetime_rate = UsdPerSecond(o.lifetime.total().value / life_s);
  o.rental_rate = UsdPerSecond(gpu.rental_price.value * gpus);
  return o;
}

void apply_economics(StepEstimate& e, const Goodput& goodput, const Ownership& ownership,
                     const EstimateOptions& options) noexcept {
  e.gpus = ownership.gpus;
  e.gpu_capex = ownership.gpu_capex;
  e.scale_up_capex = ownership.scale_up_capex;
  e.scale_up_power = ownership.scale_up_power;
  e.capex = ownership.capex;
  e.power = ownership.power;
  e.power_at_load = ownership.power_at_load;
  e.lifetime = ownership.lifetime;
  e.goodput = goodput;
  // Checkpoints fall between steps: the interval is at least one (a rare case: a cheap asynchronous
  // checkpoint and a slow step), and goodput follows it.
  e.goodput.checkpoint_floor = std::max(goodput.checkpoint_floor, e.step_time);
  if (goodput.checkpoint_interval < e.step_time) {
    e.goodput.checkpoint_interval = e.step_time;
    e.goodput.fraction =
        daly_goodput(e.step_time, goodput.checkpoint_time, goodput.restart_cost, goodput.cluster_mtbf) *
        goodput.planned_factor;
  }
  e.cost_basis = options.economics.cost_basis;
  e.owned_rate = ownership.owned_rate;
  e.rental_rate = ownership.rental_rate;
  if (!options.tokens || !(e.tokens_per_s > 0.0)) return;
  const Seconds ideal(*options.tokens / e.tokens_per_s);
  // Daly's wall-clock time per unit of useful time is 1 / goodput; 0 goodput never finishes (+infinity).
  const double fraction = e.goodput.fraction;
  const Seconds wall(fraction > 0.0 ? ideal.value / fraction : std::numeric_limits<double>::infinity());
  e.ideal_time = ideal;
  e.training_time = wall;
  e.interruptions = expected_interruptions(wall, goodput.cluster_mtbf);
  e.planned_interruptions = expected_interruptions(wall, goodput.planned_mtbf);
  e.rental_cost = ownership.rental_rate * wall;
  e.energy = ownership.power_at_load * options.economics.pue * wall;
  e.energy_cost = options.economics.electricity * *e.energy;
  // Straight-line amortisation: the run is charged the share of the capex its wall-clock time uses up.
  e.tco = Usd(ownership.capex.value * wall.value / (options.economics.amortization_years * kSecondsPerYear)) +
          *e.energy_cost;
  e.run_cost = ownership.lifetime_rate * wall;
}

}  // namespace costmodel::inline COSTMODEL_ABI
