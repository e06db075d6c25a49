// SPDX-License-Identifier: Apache-2.0
#include "costmodel/units.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/error.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// SI prefixes (BIPM SI Brochure, 9th ed., Table 7) and IEC 80000-13 binary prefixes.
constexpr std::array<Prefix, 13> kLargePrefixes{{{"", 1.0},
                                                 {"k", 1e3},
                                                 {"K", 1e3},
                                                 {"M", 1e6},
                                                 {"G", 1e9},
                                                 {"T", 1e12},
                                                 {"P", 1e15},
                                                 {"E", 1e18},
                                                 {"Ki", 1024.0},
                                                 {"Mi", 1048576.0},
                                                 {"Gi", 1073741824.0},
                                                 {"Ti", 1099511627776.0},
                                                 {"Pi", 1125899906842624.0}}};
// Sub-unit prefixes are stored as divisors, so that "200ns" is exactly 200 / 1e9 = 2e-7 (1e-9 is inexact).
constexpr std::array<Prefix, 6> kSmallPrefixes{
    {{"", 1.0}, {"m", 1e3}, {"u", 1e6}, {"\xC2\xB5", 1e6}, {"n", 1e9}, {"p", 1e12}}};

struct BaseUnit {
  std::string_view symbol;
  double factor;      // SI value of one base unit; below 1 it is applied as a division by its reciprocal
  bool large_prefix;  // accepts k, M, G, ... and Ki, Mi, ...
  bool small_prefix;  // accepts m, u, n, p
};

std::vector<BaseUnit> base_units(Dimension dimension) {
  switch (dimension) {
    case Dimension::kBytes:
      return {{"bytes", 1, true, false},
              {"byte", 1, true, false},
              {"bits", 1 / kBitsPerByte, true, false},
              {"bit", 1 / kBitsPerByte, true, false},
              {"B", 1, true, false},
              {"b", 1 / kBitsPerByte, true, false}};
    case Dimension::kSeconds:
      return {{"min", 60, false, false},
              {"hr", kSecondsPerHour, false, false},
              {"h", kSecondsPerHour, false, false},
              {"d", kSecondsPerDay, false, false},
              {"s", 1, false, true}};
    case Dimension::kBytesPerSecond:
      return {{"B/s", 1, true, false},
              {"Bps", 1, true, false},
              {"b/s", 1 / kBitsPerByte, true, false},
              {"bps", 1 / kBitsPerByte, true, false},
              {"bit/s", 1 / kBitsPerByte, true, false}};
    case Dimension::kFlops:
      return {{"FLOP", 1, true, false}, {"flop", 1, true, false}};
    case Dimension::kFlopsPerSecond:
      return {{"FLOPS", 1, true, false},
              {"FLOP/s", 1, true, false},
              {"flops", 1, true, false},
              {"flop/s", 1, true, false},
              {"FLOPs", 1, true, false}};
    case Dimension::kWatts:
      return {{"W", 1, true, false}};
    case Dimension::kUsd:
      return {{"USD", 1, true, false}};
    case Dimension::kUsdPerSecond:
      return {{"USD/hr", 1 / kSecondsPerHour, true, false},
              {"USD/h", 1 / kSecondsPerHour, true, false},
              {"USD/s", 1, true, false}};
    case Dimension::kJoules:
      return {{"Wh", kSecondsPerHour, true, false}, {"J", 1, true, false}};
    case Dimension::kUsdPerJoule:
      return {{"USD/kWh", 1 / kJoulesPerKwh, false, false},
              {"USD/MWh", 1 / (1000 * kJoulesPerKwh), false, false},
              {"USD/Wh", 1 / kSecondsPerHour, false, false},
              {"USD/J", 1, false, false}};
    case Dimension::kUsdPerWattSecond:
      return {{"USD/kW-month", 1 / (1e3 * kSecondsPerMonth), false, false},
              {"USD/kW/month", 1 / (1e3 * kSecondsPerMonth), false, false},
              {"USD/MW-month", 1 / (1e6 * kSecondsPerMonth), false, false},
              {"USD/kW-yr", 1 / (1e3 * kSecondsPerYear), false, false},
              {"USD/kW/yr", 1 / (1e3 * kSecondsPerYear), false, false}};
  }
  return {};
}

// Units a user most likely meant, offered as "did you mean" suggestions.
std::vector<std::string> common_units(Dimension dimension) {
  switch (dimension) {
    case Dimension::kBytes:
      return {"B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "Gb"};
    case Dimension::kSeconds:
      return {"s", "ms", "us", "ns", "min", "h"};
    case Dimension::kBytesPerSecond:
      return {"Gbps", "Gb/s", "Tbps", "Mbps", "GB/s", "TB/s", "MB/s", "GBps", "GiB/s"};
    case Dimension::kFlops:
      return {"FLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
    case Dimension::kFlopsPerSecond:
      return {"TFLOPS", "PFLOPS", "GFLOPS", "TFLOP/s", "PFLOP/s"};
    case Dimension::kWatts:
      return {"W", "kW", "MW"};
    case Dimension::kUsd:
      return {"USD", "kUSD", "MUSD"};
    case Dimension::kUsdPerSecond:
      return {"USD/h", "USD/hr", "USD/s"};
    case Dimension::kJoules:
      return {"J", "kJ", "MJ", "Wh", "kWh", "MWh", "GWh"};
    case Dimension::kUsdPerJoule:
      return {"USD/kWh", "USD/MWh"};
    case Dimension::kUsdPerWattSecond:
      return {"USD/kW-month", "USD/kW/month", "USD/MW-month", "USD/kW-yr"};
  }
  return {};
}

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The SI value of `number` `unit`s in `dimension`, or nullopt when `unit` is not one of its units.
// Sub-unit factors divide rather than multiply by an inexact reciprocal.
std::optional<double> to_si(double number, std::string_view unit, Dimension dimension) {
  for (const auto& base : base_units(dimension)) {
    if (!ends_with(unit, base.symbol)) continue;
    const std::string_view prefix = unit.substr(0, unit.size() - base.symbol.size());
    const double in_base = base.factor >= 1.0 ? number * base.factor : number / (1.0 / base.factor);
    if (prefix.empty()) return in_base;
    if (base.large_prefix) {
      for (const auto& p : kLargePrefixes) {
        if (p.symbol == prefix) return in_base * p.factor;
      }
    }
    if (base.small_prefix) {
      for (const auto& p : kSmallPrefixes) {
        if (p.symbol == prefix) return in_base / p.factor;
      }
    }
  }
  return std::nullopt;
}

[[noreturn]] void fail(std::string_view text, Dimension dimension, const std::string& what) {
  throw Error(what + "; expected " + std::string(dimension_example(dimension)) + ", got '" +
              std::string(text) + "'");
}

}  // namespace

std::string_view dimension_example(Dimension dimension) {
  switch (dimension) {
    case Dimension::kBytes:
      return "a size such as 80GiB or 80GB";
    case Dimension::kSeconds:
      return "a time such as 1.5us or 2ms";
    case Dimension::kBytesPerSecond:
      return "a bandwidth such as 400Gbps or 50GB/s";
    case Dimension::kFlops:
      return "a FLOP count such as 3.1e23FLOP or 5EFLOP";
    case Dimension::kFlopsPerSecond:
      return "a FLOP rate such as 989TFLOPS";
    case Dimension::kWatts:
      return "a power such as 700W or 1.2kW";
    case Dimension::kUsd:
      return "a price such as $25000 or 25000USD";
    case Dimension::kUsdPerSecond:
      return "a price rate such as 2.5USD/h";
    case Dimension::kJoules:
      return "an energy such as 1.5MWh or 3.6MJ";
    case Dimension::kUsdPerJoule:
      return "an energy price such as 0.08USD/kWh";
    case Dimension::kUsdPerWattSecond:
      return "a capacity price such as 184USD/kW-month";
  }
  return "a value with a unit";
}

double parse_number(std::string_view text) {
  const std::string_view t = trim(text);
  double value = 0.0;
  const char* first = t.data();
  const char* last = t.data() + t.size();
  if (!t.empty() && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (t.empty() || ec != std::errc{} || end != last) {
    throw Error("expected a number, got '" + std::string(text) + "'");
  }
  if (!std::isfinite(value)) throw Error("expected a finite number, got '" + std::string(text) + "'");
  return value;
}

double parse_token_count(std::string_view text) {
  std::string_view digits = trim(text);
  double scale = 1.0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
      case 'k':
        scale = 1e3;
        break;
      case 'M':
        scale = 1e6;
        break;
      case 'B':
      case 'G':
        scale = 1e9;
        break;
      case 'T':
        scale = 1e12;
        break;
      default:
        break;
    }
    if (scale != 1.0) digits.remove_suffix(1);
  }
  double value = 0.0;
  try {
    value = parse_number(digits) * scale;
  } catch (const Error&) {
    value = 0.0;
  }
  if (!(value >= 1.0) || !std::isfinite(value)) {
    throw Error("expected a token count such as 300e9 or 300B, got '" + std::string(text) + "'");
  }
  return value;
}

double parse_quantity(std::string_view text, Dimension dimension) {
  std::string_view t = trim(text);
  if (t.empty()) fail(text, dimension, "empty value");

  // "$25000", "$25k", "$2.5/h": the dollar sign stands for the USD base unit.
  bool dollar = false;
  if (t.front() == '$') {
    if (dimension != Dimension::kUsd && dimension != Dimension::kUsdPerSecond &&
        dimension != Dimension::kUsdPerJoule && dimension != Dimension::kUsdPerWattSecond) {
      fail(text, dimension, "a price where another quantity is required");
    }
    dollar = true;
    t.remove_prefix(1);
  }

  double number = 0.0;
  const char* first = t.data();
  const char* last = t.data() + t.size();
  if (first != last && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, number, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) fail(text, dimension, "number out of range");
  if (ec != std::errc{}) {
    // from_chars does not read "nan"/"inf" spelled in other ways; everything else is not a number.
    fail(text, dimension, "not a number");
  }
  if (std::isnan(number) || std::isinf(number)) fail(text, dimension, "not a finite number");
  if (number < 0.0 || (number == 0.0 && std::signbit(number))) fail(text, dimension, "negative value");

  std::string unit(trim(std::string_view(end, static_cast<size_t>(last - end))));
  if (dollar) {
    // "$25k" -> "kUSD"; "$2.5/h" -> "USD/h".
    std::string multiplier;
    if (!unit.empty() && (unit.front() == 'k' || unit.front() == 'K' || unit.front() == 'M')) {
      multiplier = unit.substr(0, 1);
      unit.erase(0, 1);
    }
    if (!unit.empty() && unit.front() != '/') fail(text, dimension, "unexpected text after the price");
    unit = multiplier + "USD" + unit;
  }
  if (unit.empty()) fail(text, dimension, "missing unit");
  if (dimension == Dimension::kUsdPerJoule && unit.find('/') == std::string::npos) {
    fail(text, dimension, "missing '/kWh' (a price per energy)");
  }
  if (dimension == Dimension::kUsdPerWattSecond && unit.find('/') == std::string::npos) {
    fail(text, dimension, "missing '/kW-month' (a price per capacity and time)");
  }
  if (dimension == Dimension::kUsdPerSecond && unit.find('/') == std::string::npos) {
    fail(text, dimension, "missing '/h' (a rate per hour)");
  }
  const std::optional<double> si = to_si(number, unit, dimension);
  if (!si) {
    std::string message = "unknown unit '" + unit + "'";
    const std::string suggestion = closest_name(unit, common_units(dimension));
    if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
    fail(text, dimension, message);
  }
  if (!std::isfinite(*si)) fail(text, dimension, "value out of range");
  return *si;
}

Joules parse_energy(std::string_view text) {
  return Joules(parse_quantity(text, Dimension::kJoules));
}

UsdPerJoule parse_energy_price(std::string_view text) {
  return UsdPerJoule(parse_quantity(text, Dimension::kUsdPerJoule));
}

UsdPerWattSecond parse_capacity_price(std::string_view text) {
  return UsdPerWattSecond(parse_quantity(text, Dimension::kUsdPerWattSecond));
}

double parse_share(std::string_view text) {
  std::string_view t = trim(text);
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.remove_suffix(1);
  double value = -1.0;
  try {
    value = parse_number(t) / (percent ? 100.0 : 1.0);
  } catch (const Error&) {
    value = -1.0;
  }
  if (!(value >= 0.0 && value <= 1.0)) {
    throw Error("expected a share such as 6% or 0.06 (between 0 and 1), got '" + std::string(text) + "'");
  }
  return value;
}

Bytes parse_bytes(std::string_view text) {
  return Bytes(parse_quantity(text, Dimension::kBytes));
}
Seconds parse_seconds(std::string_view text) {
  return Seconds(parse_quantity(text, Dimension::kSeconds));
}
BytesPerSecond parse_bandwidth(std::string_view text) {
  return BytesPerSecond(parse_quantity(text, Dimension::kBytesPerSecond));
}
Flops parse_flops(std::string_view text) {
  return Flops(parse_quantity(text, Dimension::kFlops));
}
FlopsPerSecond parse_flops_rate(std::string_view text) {
  return FlopsPerSecond(parse_quantity(text, Dimension::kFlopsPerSecond));
}
Watts parse_watts(std::string_view text) {
  return Watts(parse_quantity(text, Dimension::kWatts));
}
Usd parse_usd(std::string_view text) {
  return Usd(parse_quantity(text, Dimension::kUsd));
}
UsdPerSecond parse_usd_rate(std::string_view text) {
  return UsdPerSecond(parse_quantity(text, Dimension::kUsdPerSecond));
}

namespace {

std::string number_text(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

std::string with_prefix(double v, std::string_view unit, bool binary) {
  static constexpr std::array<std::string_view, 7> kSi{"", "k", "M", "G", "T", "P", "E"};
  static constexpr std::array<std::string_view, 7> kIec{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  const double step = binary ? 1024.0 : 1000.0;
  size_t i = 0;
  while (i + 1 < kSi.size() && std::fabs(v) >= step) {
    v /= step;
    ++i;
  }
  return number_text(v) + " " + std::string(binary ? kIec[i] : kSi[i]) + std::string(unit);
}

}  // namespace

std::string format_quantity(double si_value, Dimension dimension) {
  switch (dimension) {
    case Dimension::kBytes:
      return with_prefix(si_value, "B", true);
    case Dimension::kBytesPerSecond:
      return with_prefix(si_value, "B/s", false);
    case Dimension::kFlops:
      return with_prefix(si_value, "FLOP", false);
    case Dimension::kFlopsPerSecond:
      return with_prefix(si_value, "FLOP/s", false);
    case Dimension::kWatts:
      return with_prefix(si_value, "W", false);
    case Dimension::kSeconds: {
      const double a = std::fabs(si_value);
      if (a != 0.0 && a < 1e-6) return number_text(si_value * 1e9) + " ns";
      if (a != 0.0 && a < 1e-3) return number_text(si_value * 1e6) + " us";
      if (a != 0.0 && a < 1.0) return number_text(si_value * 1e3) + " ms";
      if (a < 3 * kSecondsPerHour) return number_text(si_value) + " s";
      if (a < 3 * kSecondsPerDay) return number_text(si_value / kSecondsPerHour) + " h";
      return number_text(si_value / kSecondsPerDay) + " days";
    }
    case Dimension::kUsd: {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.0f", si_value);
      // Thousands separators, built forwards (a "$" then groups of three digits).
      const std::string digits = buffer;
      std::string out = "$";
      size_t start = 0;
      if (!digits.empty() && digits[0] == '-') {
        out.push_back('-');
        start = 1;
      }
      for (size_t i = start; i < digits.size(); ++i) {
        if (i > start && (digits.size() - i) % 3 == 0) out.push_back(',');
        out.push_back(digits[i]);
      }
      return out;
    }
    case Dimension::kJoules:
      return with_prefix(si_value / kSecondsPerHour, "Wh", false);
    case Dimension::kUsdPerJoule: {
      std::string out = "$";  // appended: see kUsdPerSecond
      out += number_text(si_value * kJoulesPerKwh);
      out += "/kWh";
      return out;
    }
    case Dimension::kUsdPerSecond: {
      std::string out = "$";  // appended, not "$" + ...: g++ 12 -Wrestrict false positive (GCC bug 105329)
      out += number_text(si_value * kSecondsPerHour);
      out += "/h";
      return out;
    }
    case Dimension::kUsdPerWattSecond: {
      std::string out = "$";  // appended: see kUsdPerSecond
      out += number_text(si_value * 1e3 * kSecondsPerMonth);
      out += "/kW-month";
      return out;
    }
  }
  return number_text(si_value);
}

std::string format_number(double value, int significant) {
  if (!std::isfinite(value)) return "-";
  if (value == 0.0) return "0";
  significant = std::clamp(significant, 1, 17);
  // Round to `significant` digits first: the exponent may change (9.9996 -> 10.00).
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*e", significant - 1, value);
  const double rounded = std::strtod(buffer.data(), nullptr);
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
  if (exponent < -4 || exponent >= 15) {
    // Scientific, with trailing zeros of the mantissa dropped: 1.5e-07, 2e+18.
    std::string text(buffer.data());
    const size_t e = text.find('e');
    std::string mantissa = text.substr(0, e);
    if (mantissa.find('.') != std::string::npos) {
      while (mantissa.back() == '0') mantissa.pop_back();
      if (mantissa.back() == '.') mantissa.pop_back();
    }
    return mantissa + text.substr(e);
  }
  const int decimals = std::max(0, significant - 1 - exponent);
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, rounded);
  std::string text(buffer.data());
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

}  // namespace costmodel::inline COSTMODEL_ABI
