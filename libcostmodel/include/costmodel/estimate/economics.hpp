// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a cluster costs to own or rent: capex (GPUs with their share of the servers, the scale-out fabric),
// power, and the rate at which owning it costs money (capex amortised over the years of its life, plus
// energy at the electricity price times PUE). Prepared once per cluster (Estimator's constructor);
// apply_economics() turns a configuration's failure-free time into wall-clock days, energy and dollars.

#include "costmodel/estimate/goodput.hpp"
#include "costmodel/estimate/inputs.hpp"
#include "costmodel/network/topology.hpp"
#include "costmodel/spec/cluster.hpp"
#include "costmodel/spec/economics.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

struct StepEstimate;

/// The costs of one cluster that do not depend on the parallel configuration.
struct Ownership {
  int gpus = 0;  ///< of the cluster
  /// GPUs x (GPU price + server price / GPUs per catalog node): what the GPUs and their servers cost.
  Usd gpu_capex;
  Usd network_capex;  ///< switches, NICs and optics (Inventory::capex)
  /// The scale-up fabric's switches (Inventory::scale_up_capex), counted in `capex` only when the fabric is
  /// not the GPU's own (ClusterSpec::scale_up_priced_with_gpu()).
  Usd scale_up_capex;
  Watts scale_up_power;  ///< the same switches' power, in `power` on the same condition
  Usd capex;             ///< gpu_capex + network_capex (+ scale_up_capex for a swapped-in fabric)
  Watts power;           ///< rated IT power: GPUs at TDP, servers (NodeSpec::server_power), fabric
  /// Drawn while training: nodes at NodeSpec::load_power of their rating, the fabric at its catalog power.
  Watts power_at_load;
  UsdPerSecond owned_rate;     ///< capex / amortisation years + power_at_load x PUE x electricity
  LifetimeCost lifetime;       ///< capex, facility, energy, support and the rest over the amortisation years
  UsdPerSecond lifetime_rate;  ///< lifetime.total() / the life in seconds: run_cost per wall-clock second
  UsdPerSecond rental_rate;    ///< GPUs x the GPU's all-in rental price
};

/// The Ownership of `cluster`, whose fabric has `inventory`, under `economics`.
[[nodiscard]] Ownership ownership(const ClusterSpec& cluster, const Inventory& inventory,
                                  const EconomicsSpec& economics);

/// Fills `e`'s wall-clock time, interruptions, energy and costs from its step time: the failure-free time to
/// train options.tokens (ideal_time) over the goodput is training_time, which the rental cost, energy and TCO
/// use. Without tokens only the goodput, capex and rates are set.
void apply_economics(StepEstimate& e, const Goodput& goodput, const Ownership& ownership,
                     const EstimateOptions& options) noexcept;

}  // namespace costmodel::inline COSTMODEL_ABI
