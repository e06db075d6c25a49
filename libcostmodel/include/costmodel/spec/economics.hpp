// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a training run assumes about owning its cluster (cost basis, amortisation, electricity, PUE) and about
// interruptions (GPU failure rate, checkpoint write bandwidth, restart time, checkpoint interval): plain data
// with the defaults every input shares (TrainingSpec holds them; estimate/economics.hpp and
// estimate/goodput.hpp use them).

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "costmodel/version.hpp"

#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// What `cost` means in tables and in `--rank-by cost`.
enum class CostBasis {
  kOwned,   ///< the owned cluster's TCO: capex amortised over the run's wall-clock time, plus energy
  kRental,  ///< GPU-hours (wall-clock) x the GPU's all-in rental price
};
/// Every CostBasis, in the order messages list them.
inline constexpr std::array kCostBases{CostBasis::kOwned, CostBasis::kRental};
/// "owned", "rental".
[[nodiscard]] std::string_view to_string(CostBasis basis);
/// The basis named `name`, or nullopt.
[[nodiscard]] std::optional<CostBasis> parse_cost_basis(std::string_view name);

/// Years over which an owned cluster's capex is written off: a common planning figure for GPU servers
/// (hyperscalers depreciate servers over 5-6 years; a GPU generation is current for about 2-3).
inline constexpr double kDefaultAmortizationYears = 4.0;
/// US industrial electricity, 2023 average: 8.06 cents/kWh (EIA, Electric Power Monthly, table 5.3);
/// California and New England pay about twice that.
inline constexpr UsdPerJoule kDefaultElectricity{0.08 / kJoulesPerKwh};
/// Power usage effectiveness of a new AI data hall (estimate): the Uptime Institute's 2024 survey average is
/// 1.56, large new facilities reach 1.2-1.3, liquid-cooled hyperscale ~1.1.
inline constexpr double kDefaultPue = 1.3;

/// What owning a cluster costs over its life (DESIGN.md §5 tco_breakdown), USD; the life is
/// EconomicsSpec::amortization_years.
struct LifetimeCost {
  Usd capex;     ///< GPUs, servers and network as bought (Ownership::capex)
  Usd facility;  ///< the building: EconomicsSpec::facility x rated IT power x the life
  Usd energy;    ///< drawn at training load for the whole life, times PUE, at the electricity price
  Usd support;   ///< support_share x capex x years
  Usd other;     ///< storage, spares and cables: their shares x capex
  [[nodiscard]] Usd total() const { return capex + facility + energy + support + other; }
};

/// One quote of a price book (data/prices.yaml; a buyer's own with --prices FILE): what it prices, its value
/// in SI units, and when and where it was quoted.
struct PriceQuote {
  /// gpu, server, rental (per GPU-hour), switch, nic, optics (per port end), scale_up_switch, electricity,
  /// facility, support, storage, spares, cables.
  std::string item;
  std::string name;    ///< the catalog entry a part's quote prices (a GPU, link, switch or scale-up fabric)
  double value = 0;    ///< SI: USD (parts), USD/s (rental), USD/J, USD/(W s) (facility), or a share
  std::string date;    ///< when it was quoted, as written (YYYY-MM-DD)
  std::string source;  ///< who quoted it, or the publication
  std::string where;   ///< FILE:LINE of the quote, for reports
};

/// Quotes by item; a later quote of the same item and name replaces an earlier one.
struct PriceBook {
  std::vector<PriceQuote> quotes;
  /// The quote of `item` (and `name`, for parts), or nullptr.
  [[nodiscard]] const PriceQuote* find(std::string_view item, std::string_view name = {}) const;
  /// Adds `quote`, replacing one of the same item and name.
  void put(PriceQuote quote);
};

/// The cost side of a run: what owning the cluster costs per wall-clock second, and which cost ranks.
/// The lifetime costs beyond parts and energy (facility, support, storage, spares, cables) are nullopt until
/// resolve_stack() takes the catalog's price book (data/prices.yaml, and a buyer's --prices); nullopt counts
/// as 0.
struct EconomicsSpec {
  CostBasis cost_basis = CostBasis::kOwned;
  double amortization_years = kDefaultAmortizationYears;  ///< capex written off linearly over this, years
  UsdPerJoule electricity = kDefaultElectricity;          ///< price of the energy drawn from the grid
  double pue = kDefaultPue;  ///< facility power / IT power (cooling, power conversion), >= 1
  /// The building per watt of rated IT power and second: colocation (quoted per kW-month), or a build's cost
  /// spread over the months it serves.
  std::optional<UsdPerWattSecond> facility;
  std::optional<double> support_share;  ///< hardware support per year, a share of capex
  std::optional<double> storage_share;  ///< the training storage bought with the cluster, a share of capex
  std::optional<double> spares_share;   ///< spare nodes and parts, a share of capex
  std::optional<double> cables_share;   ///< cables (DAC, AOC, fibre; unpriced in the bill), a share of capex
  /// The quotes the values above were taken from (fill_lifetime_costs(), resolve_stack()), for reports;
  /// a value set by a flag or a file's key has none.
  std::vector<PriceQuote> quotes;
};

/// `economics` with each lifetime cost left unset taken from `book` (facility, support, storage, spares,
/// cables).
void fill_lifetime_costs(EconomicsSpec& economics, const PriceBook& book);

/// Mean time between unexpected job interruptions per GPU, from Llama 3 405B's pre-training (Dubey et al.
/// 2024, arXiv 2407.21783, §3.3.4 and Table 5): 419 unexpected interruptions in a 54-day snapshot on 16,384
/// H100, i.e. one every 3.09 h for the job, 54 d x 16,384 / 419 = 2,112 GPU-days (50,700 GPU-hours) per
/// interruption. It counts every cause (GPUs 58.7%, software, network, host); the 47 planned ones are
/// kLlama3PlannedGpuMtbf.
inline constexpr Seconds kLlama3GpuMtbf{54.0 * kSecondsPerDay * 16384.0 / 419.0};
/// Mean time between planned job interruptions per GPU, from the same snapshot (Dubey et al. 2024, §3.3.4):
/// 47 of the 466 interruptions were planned ("automated maintenance operations such as firmware upgrades or
/// operator-initiated operations like configuration or dataset updates"), 54 d x 16,384 / 47 = 18,824
/// GPU-days each. A planned stop checkpoints first, so it loses no work, only the restart and that
/// checkpoint.
inline constexpr Seconds kLlama3PlannedGpuMtbf{54.0 * kSecondsPerDay * 16384.0 / 47.0};
/// Detect, reschedule, reload and catch up after an interruption (estimate): Meta's research clusters
/// measure 5-20 min per restart (Kokolis et al. 2024, arXiv 2410.21680); ByteDance's MegaScale recovers
/// within 15 min (Jiang et al. 2024, NSDI'24, arXiv 2402.15627). Llama 3 gives no number.
inline constexpr Seconds kDefaultRestartTime{600.0};
/// Sustained checkpoint write bandwidth per node: Llama 3's Tectonic storage sustains 2 TB/s for the 16,384
/// GPUs (2,048 nodes of 8) of its 405B run (Dubey et al. 2024, §3.3.1 "Storage"), about 1 GB/s per node.
inline constexpr BytesPerSecond kDefaultCheckpointBandwidth{2e12 / 2048.0};

/// The reliability side of a run: how often it is interrupted, and what a checkpoint and a restart cost.
struct ReliabilitySpec {
  /// Mean time between unplanned interruptions of one GPU; +infinity: none (--gpu-mtbf off).
  Seconds gpu_mtbf = kLlama3GpuMtbf;
  /// Mean time between planned interruptions (maintenance) per GPU; +infinity: none (--planned-mtbf off).
  Seconds planned_gpu_mtbf = kLlama3PlannedGpuMtbf;
  /// Checkpoint write bandwidth of one node to the storage that holds the checkpoints.
  BytesPerSecond checkpoint_bandwidth = kDefaultCheckpointBandwidth;
  Seconds restart_time = kDefaultRestartTime;  ///< lost to each interruption besides the lost work
  /// Useful training time between checkpoints; nullopt: the Young/Daly optimum sqrt(2 C M).
  std::optional<Seconds> checkpoint_interval;
  /// The least interval an operator allows (storage retention, policy); nullopt: none beyond the physical
  /// ones (one training step; with asynchronous checkpoints, one write to storage).
  std::optional<Seconds> checkpoint_floor;
  /// Asynchronous checkpointing (PyTorch DCP async_save, Megatron-LM --async-save): training stalls only for
  /// the copy of each GPU's state to host memory; the write to storage proceeds in the background.
  bool async_checkpoint = false;

  /// True when interruptions are modelled (a finite MTBF).
  [[nodiscard]] bool failures() const { return gpu_mtbf.value < std::numeric_limits<double>::infinity(); }
};

}  // namespace costmodel::inline COSTMODEL_ABI
