// SPDX-License-Identifier: Apache-2.0
#include "costmodel/units.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "costmodel/error.hpp"

using namespace costmodel;

TEST_CASE("bandwidth: bits and bytes are distinct") {
  CHECK(parse_bandwidth("400Gbps").value == doctest::Approx(50e9));  // 400e9 bit/s / 8
  CHECK(parse_bandwidth("400 Gb/s").value == doctest::Approx(50e9));
  CHECK(parse_bandwidth("50GB/s").value == doctest::Approx(50e9));
  CHECK(parse_bandwidth("900GB/s").value == doctest::Approx(900e9));
  CHECK(parse_bandwidth("1.6Tbps").value == doctest::Approx(200e9));
  CHECK(parse_bandwidth("1GiB/s").value == doctest::Approx(1073741824.0));
  CHECK(parse_bandwidth("25GBps").value == doctest::Approx(25e9));
}

TEST_CASE("sizes: SI and binary prefixes are distinct") {
  CHECK(parse_bytes("80GiB").value == doctest::Approx(80.0 * 1073741824.0));
  CHECK(parse_bytes("80GB").value == doctest::Approx(80e9));
  CHECK(parse_bytes("8B").value == doctest::Approx(8.0));
  CHECK(parse_bytes("1KiB").value == doctest::Approx(1024.0));
  CHECK(parse_bytes("8Gb").value == doctest::Approx(1e9));  // gigabits
  CHECK(parse_bytes("0B").value == 0.0);
}

TEST_CASE("times, FLOP rates, power and money") {
  CHECK(parse_seconds("1.5us").value == doctest::Approx(1.5e-6));
  CHECK(parse_seconds("2ms").value == doctest::Approx(2e-3));
  CHECK(parse_seconds("130ns").value == doctest::Approx(130e-9));
  CHECK(parse_seconds("1min").value == doctest::Approx(60.0));
  CHECK(parse_seconds("3h").value == doctest::Approx(10800.0));
  CHECK(parse_flops_rate("989TFLOPS").value == doctest::Approx(989e12));
  CHECK(parse_flops_rate("1.979PFLOPS").value == doctest::Approx(1.979e15));
  CHECK(parse_flops_rate("19.5 TFLOP/s").value == doctest::Approx(19.5e12));
  CHECK(parse_flops("3.14e23FLOP").value == doctest::Approx(3.14e23));
  CHECK(parse_watts("700W").value == doctest::Approx(700.0));
  CHECK(parse_watts("1.2kW").value == doctest::Approx(1200.0));
  CHECK(parse_usd("$25000").value == doctest::Approx(25000.0));
  CHECK(parse_usd("25000USD").value == doctest::Approx(25000.0));
  CHECK(parse_usd("$25k").value == doctest::Approx(25000.0));
  CHECK(parse_usd_rate("2.5USD/h").value == doctest::Approx(2.5 / 3600.0));
  CHECK(parse_usd_rate("$2/h").value == doctest::Approx(2.0 / 3600.0));
}

TEST_CASE("bad values say what was expected") {
  auto message = [](auto&& parse) {
    try {
      parse();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([] { (void)parse_bandwidth("400"); }) ==
        "error: missing unit; expected a bandwidth such as 400Gbps or 50GB/s, got '400'");
  CHECK(
      message([] { (void)parse_bandwidth("400Gps"); }) ==
      "error: unknown unit 'Gps' (did you mean 'Gbps'?); expected a bandwidth such as 400Gbps or 50GB/s, got "
      "'400Gps'");
  CHECK(message([] { (void)parse_bytes("-80GB"); }) ==
        "error: negative value; expected a size such as 80GiB or 80GB, got '-80GB'");
  CHECK(message([] { (void)parse_seconds("fastus"); }).find("not a number") != std::string::npos);
  CHECK(message([] { (void)parse_seconds("nanus"); }).find("not a finite number") != std::string::npos);
  CHECK(message([] { (void)parse_seconds("nan s"); }).find("not a finite number") != std::string::npos);
  CHECK(message([] { (void)parse_seconds("inf s"); }).find("not a finite number") != std::string::npos);
  CHECK(message([] { (void)parse_bytes(""); }).find("empty value") != std::string::npos);
  CHECK(message([] { (void)parse_bytes("1e400GB"); }).find("out of range") != std::string::npos);
  CHECK(message([] { (void)parse_bytes("80GBps"); }).find("unknown unit 'GBps'") != std::string::npos);
  CHECK(message([] { (void)parse_watts("$5"); }).find("a price where") != std::string::npos);
  CHECK(message([] { (void)parse_usd_rate("$2"); }).find("missing '/h'") != std::string::npos);
  CHECK(message([] { (void)parse_bytes("80mB"); }).find("unknown unit") != std::string::npos);
  CHECK(message([] { (void)parse_number("0.9x"); }) == "error: expected a number, got '0.9x'");
}

TEST_CASE("quantities keep their dimension through arithmetic") {
  const Bytes n(1e9);
  const BytesPerSecond bw(50e9);
  const Seconds t = n / bw;
  CHECK(t.value == doctest::Approx(0.02));
  CHECK((bw * t).value == doctest::Approx(1e9));
  CHECK((Flops(989e12) / FlopsPerSecond(989e12)).value == doctest::Approx(1.0));
  CHECK(Seconds(1.0) < Seconds(2.0));
}

TEST_CASE("formatting picks a readable prefix") {
  CHECK(format_quantity(50e9, Dimension::kBytesPerSecond) == "50 GB/s");
  CHECK(format_quantity(80.0 * 1073741824.0, Dimension::kBytes) == "80 GiB");
  CHECK(format_quantity(1.5e-6, Dimension::kSeconds) == "1.5 us");
  CHECK(format_quantity(25000.0, Dimension::kUsd) == "$25,000");
  CHECK(format_quantity(1234567.0, Dimension::kUsd) == "$1,234,567");
  CHECK(format_quantity(989e12, Dimension::kFlopsPerSecond) == "989 TFLOP/s");
}

TEST_CASE("token counts: plain, scientific and suffixed") {
  CHECK(parse_token_count("300e9") == doctest::Approx(300e9));
  CHECK(parse_token_count("300000000000") == doctest::Approx(300e9));
  CHECK(parse_token_count("300B") == doctest::Approx(300e9));
  CHECK(parse_token_count("1.5T") == doctest::Approx(1.5e12));
  CHECK(parse_token_count("7M") == doctest::Approx(7e6));
  CHECK_THROWS_AS((void)parse_token_count("0"), Error);
  CHECK_THROWS_AS((void)parse_token_count("-5B"), Error);
  CHECK_THROWS_AS((void)parse_token_count("lots"), Error);
  CHECK_THROWS_AS((void)parse_token_count("nanB"), Error);
}
