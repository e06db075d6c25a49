// SPDX-License-Identifier: Apache-2.0
#pragma once
// Strong quantity types stored in SI units, and the parser for unit strings ("400Gbps", "80GiB", "1.5us").

#include <compare>
#include <string>
#include <string_view>
#include "costmodel/version.hpp"

namespace costmodel::inline COSTMODEL_ABI {

/// The physical dimension of a quantity; each has one SI unit inside the code.
enum class Dimension {
  kBytes,             ///< B
  kSeconds,           ///< s
  kBytesPerSecond,    ///< B/s
  kFlops,             ///< FLOP (a count of floating-point operations)
  kFlopsPerSecond,    ///< FLOP/s
  kWatts,             ///< W
  kUsd,               ///< US dollars
  kUsdPerSecond,      ///< US dollars per second (catalogs write USD/h)
  kJoules,            ///< J (energy; people write kWh)
  kUsdPerJoule,       ///< US dollars per joule (electricity prices are written USD/kWh)
  kUsdPerWattSecond,  ///< US dollars per watt of capacity per second (colocation is written USD/kW-month)
};

/// A value in the SI unit of dimension D. Arithmetic keeps the dimension; the raw number is `value`.
template <Dimension D>
struct Quantity {
  double value = 0.0;  ///< in the SI unit of D

  /// Zero.
  constexpr Quantity() = default;
  /// `si` in the SI unit of D (B, s, B/s, FLOP, FLOP/s, W, USD, USD/s).
  constexpr explicit Quantity(double si) : value(si) {}

  // Sums, differences and scalings stay in D; a ratio of two D's is a plain number.
  constexpr Quantity operator+(Quantity o) const { return Quantity(value + o.value); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value - o.value); }
  constexpr Quantity operator*(double k) const { return Quantity(value * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value / k); }
  constexpr double operator/(Quantity o) const { return value / o.value; }
  constexpr Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value -= o.value;
    return *this;
  }
  constexpr Quantity& operator*=(double k) {
    value *= k;
    return *this;
  }
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted operator<=> (LLVM issue 46235)
  constexpr auto operator<=>(const Quantity&) const = default;
};

/// k x q, in q's unit.
template <Dimension D>
constexpr Quantity<D> operator*(double k, Quantity<D> q) {
  return q * k;
}

using Bytes = Quantity<Dimension::kBytes>;                        ///< B
using Seconds = Quantity<Dimension::kSeconds>;                    ///< s
using BytesPerSecond = Quantity<Dimension::kBytesPerSecond>;      ///< B/s
using Flops = Quantity<Dimension::kFlops>;                        ///< FLOP
using FlopsPerSecond = Quantity<Dimension::kFlopsPerSecond>;      ///< FLOP/s
using Watts = Quantity<Dimension::kWatts>;                        ///< W
using Usd = Quantity<Dimension::kUsd>;                            ///< USD
using UsdPerSecond = Quantity<Dimension::kUsdPerSecond>;          ///< USD/s
using Joules = Quantity<Dimension::kJoules>;                      ///< J
using UsdPerJoule = Quantity<Dimension::kUsdPerJoule>;            ///< USD/J
using UsdPerWattSecond = Quantity<Dimension::kUsdPerWattSecond>;  ///< USD/(W s): capacity rented over time

/// Transfer time, compute time, volume and cost from their rates, in SI units.
constexpr Seconds operator/(Bytes n, BytesPerSecond bw) {
  return Seconds(n.value / bw.value);
}
constexpr Bytes operator*(BytesPerSecond bw, Seconds t) {
  return Bytes(bw.value * t.value);
}
constexpr Seconds operator/(Flops f, FlopsPerSecond rate) {
  return Seconds(f.value / rate.value);
}
constexpr Flops operator*(FlopsPerSecond rate, Seconds t) {
  return Flops(rate.value * t.value);
}
constexpr Usd operator*(UsdPerSecond rate, Seconds t) {
  return Usd(rate.value * t.value);
}
constexpr Joules operator*(Watts power, Seconds t) {
  return Joules(power.value * t.value);
}
constexpr Usd operator*(UsdPerJoule price, Joules energy) {
  return Usd(price.value * energy.value);
}

// The one home of unit constants: prefixes and conversions, for printing SI values in people's units.
inline constexpr double kNano = 1e-9;              ///< n
inline constexpr double kMicro = 1e-6;             ///< u
inline constexpr double kMilli = 1e-3;             ///< m
inline constexpr double kKilo = 1e3;               ///< k
inline constexpr double kGiga = 1e9;               ///< G (NCCL's and nccl-tests' GB/s: 1e9 B/s)
inline constexpr double kTera = 1e12;              ///< T
inline constexpr double kKibi = 1024.0;            ///< Ki: 2^10
inline constexpr double kGibi = 1073741824.0;      ///< Gi: 2^30
inline constexpr double kSecondsPerMinute = 60.0;  ///< s/min
inline constexpr double kSecondsPerHour = 3600.0;  ///< s/h
inline constexpr double kSecondsPerDay = 86400.0;  ///< s/day
/// Seconds in a year of 365.25 days (amortisation periods are in years).
inline constexpr double kSecondsPerYear = 365.25 * kSecondsPerDay;
/// Seconds in a month: a twelfth of that year (colocation is priced per kW-month).
inline constexpr double kSecondsPerMonth = kSecondsPerYear / 12.0;
inline constexpr double kBitsPerByte = 8.0;                        ///< bit/B
inline constexpr double kJoulesPerKwh = 3.6e6;                     ///< J/kWh
inline constexpr double kGigabitPerSecond = kGiga / kBitsPerByte;  ///< B/s in one Gbit/s

/// What a value of this dimension looks like, for error messages: "a size such as 80GiB or 80GB".
[[nodiscard]] std::string_view dimension_example(Dimension dimension);

/// Parses a number with a unit into the SI value of `dimension`.
/// Bits (b) and bytes (B), SI (k M G T P E) and binary (Ki Mi Gi Ti Pi) prefixes are distinct:
/// "400Gbps" = 50e9 B/s, "80GiB" = 80*2^30 B, "1.5us" = 1.5e-6 s, "989TFLOPS" = 989e12 FLOP/s,
/// "$25000" = "25000USD" = 25000 USD, "2.5USD/h" = 2.5/3600 USD/s.
/// Throws Error (kind kInput, no location) for a bare number, an unknown unit, a negative, NaN or infinite
/// value.
[[nodiscard]] double parse_quantity(std::string_view text, Dimension dimension);

/// parse_quantity() for each dimension, returning its SI quantity: B, s, B/s, FLOP, FLOP/s, W, USD, USD/s.
[[nodiscard]] Bytes parse_bytes(std::string_view text);
[[nodiscard]] Seconds parse_seconds(std::string_view text);
[[nodiscard]] BytesPerSecond parse_bandwidth(std::string_view text);
[[nodiscard]] Flops parse_flops(std::string_view text);
[[nodiscard]] FlopsPerSecond parse_flops_rate(std::string_view text);
[[nodiscard]] Watts parse_watts(std::string_view text);
[[nodiscard]] Usd parse_usd(std::string_view text);
[[nodiscard]] UsdPerSecond parse_usd_rate(std::string_view text);
[[nodiscard]] Joules parse_energy(std::string_view text);
[[nodiscard]] UsdPerJoule parse_energy_price(std::string_view text);
/// A price of capacity over time: "184USD/kW-month" (colocation), also USD/kW/month, USD/kW-yr, USD/MW-month.
[[nodiscard]] UsdPerWattSecond parse_capacity_price(std::string_view text);
/// A share: "6%" or a fraction "0.06", within [0, 1].
[[nodiscard]] double parse_share(std::string_view text);

/// Parses a token count: "300e9", "300000000000", or with a k/K, M, B/G or T suffix ("300B", "1.5T");
/// throws Error unless it is a finite count of at least one token.
[[nodiscard]] double parse_token_count(std::string_view text);

/// Parses a plain finite number (no unit), e.g. "0.94" or "1e9"; throws Error if it is not one.
[[nodiscard]] double parse_number(std::string_view text);

/// A number as text with `significant` digits, never "nan"/"inf" (those print as "-"): 1.5e-07, 0.123, 42.
[[nodiscard]] std::string format_number(double value, int significant = 4);

/// A value in its dimension's display unit with a prefix chosen for readability: "400 Gb/s" is written
/// as "50 GB/s" (bandwidth is shown in bytes), "80 GiB", "1.5 us", "989 TFLOP/s", "700 W", "$25,000".
[[nodiscard]] std::string format_quantity(double value_si, Dimension dimension);

}  // namespace costmodel::inline COSTMODEL_ABI
