// SPDX-License-Identifier: Apache-2.0
#include "cli/parser.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <utility>

#include "costmodel/io/catalog.hpp"
#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::cli {

std::string join(const std::vector<std::string>& names, const std::string& separator) {
  std::string joined;
  for (const auto& name : names) {
    if (!joined.empty()) joined += separator;
    joined += name;
  }
  return joined;
}

namespace {

/// The long names of `options`, as "--name".
std::vector<std::string> long_option_names(const po::options_description& options) {
  std::vector<std::string> names;
  for (const auto& option : options.options()) {
    if (!option->long_name().empty()) names.push_back("--" + option->long_name());
  }
  return names;
}

/// A flag's integer value; `minimum` 0 or 1.
std::optional<int> integer_option(const po::variables_map& values, const std::string& name, int minimum,
                                  const Context& context) {
  const auto text = string_option(values, name);
  if (!text) return std::nullopt;
  const std::string expected = minimum > 0 ? "a positive integer" : "a non-negative integer";
  long long parsed = 0;
  const char* first = text->data();
  const char* last = first + text->size();
  const auto [end, error] = std::from_chars(first, last, parsed);
  if (text->empty() || error == std::errc::invalid_argument || end != last) {
    throw usage_error(context, "--" + name, "expected " + expected + ", got '" + *text + "'");
  }
  if (error == std::errc::result_out_of_range || parsed > std::numeric_limits<int>::max()) {
    throw usage_error(
        context, "--" + name,
        "'" + *text + "' is too large (at most " + std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  if (parsed < minimum)
    throw usage_error(context, "--" + name, "expected " + expected + ", got '" + *text + "'");
  return static_cast<int>(parsed);
}

}  // namespace

Error usage_error(const Context& context, const std::string& field, const std::string& message,
                  const std::string& hint) {
  return Error(ErrorLocation{context.prefix(), 0, 0}, field, message, hint);
}

void print_version(std::ostream& out) {
  out << "costmodel " << costmodel::version() << '\n' << "data: " << default_data_root() << '\n';
}

Error flag_error(const Context& context, const std::string& field, const Error& error) {
  return usage_error(context, field, error.message(), error.hint());
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  const std::string closest = closest_name(name, known);
  return closest.empty() ? std::string{} : "did you mean '" + closest + "'?";
}

// ---------------------------------------------------------------------------------------------------
// CommandParser

CommandParser::CommandParser(Context context, std::string usage, std::string description)
    : context_(std::move(context)),
      usage_(std::move(usage)),
      description_(std::move(description)),
      visible_("Options", 100, 50) {
  visible_.add_options()("help,h", "print this help and exit")("version", "print the version and exit");
}

void CommandParser::add_positional(const std::string& name, const po::value_semantic* semantic,
                                   int max_count) {
  hidden_.add_options()(name.c_str(), semantic, "");
  positional_.add(name.c_str(), max_count);
}

bool CommandParser::parse(const std::vector<std::string>& args) {
  po::options_description all;
  all.add(visible_).add(hidden_);
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional_).style(style).run(), values_);
    if (values_.count("help") > 0) {
      print_help(*context_.out);
      return false;
    }
    if (values_.count("version") > 0) {
      print_version(*context_.out);
      return false;
    }
    po::notify(values_);
  } catch (const po::unknown_option& e) {
    const std::string& name = e.get_option_name();
    const std::string hint = name.rfind("--", 0) == 0 ? did_you_mean(name, long_option_names(visible_)) : "";
    throw usage_error(context_, "", e.what(), hint.empty() ? "see '" + context_.prefix() + " --help'" : hint);
  } catch (const po::too_many_positional_options_error&) {
    throw usage_error(context_, "", "too many arguments", "usage: " + usage_);
  } catch (const po::error& e) {
    throw usage_error(context_, "", e.what());
  }
  return true;
}

void CommandParser::print_help(std::ostream& out) const {
  out << "usage: " << usage_ << "\n\n";
  if (!description_.empty()) out << description_ << "\n\n";
  out << visible_;
}

// ---------------------------------------------------------------------------------------------------
// Flag values

std::optional<std::string> string_option(const po::variables_map& values, const std::string& name) {
  const auto found = values.find(name);
  if (found == values.end() || found->second.empty()) return std::nullopt;
  return found->second.as<std::string>();
}

std::optional<int> positive_int(const po::variables_map& values, const std::string& name,
                                const Context& context) {
  return integer_option(values, name, 1, context);
}

std::optional<int> nonnegative_int(const po::variables_map& values, const std::string& name,
                                   const Context& context) {
  return integer_option(values, name, 0, context);
}

std::optional<double> positive_number(const po::variables_map& values, const std::string& name,
                                      const Context& context) {
  const auto text = string_option(values, name);
  if (!text) return std::nullopt;
  double value = 0.0;
  try {
    value = parse_number(*text);
  } catch (const Error&) {
    throw usage_error(context, "--" + name, "expected a positive number, got '" + *text + "'");
  }
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw usage_error(context, "--" + name, "expected a positive number, got '" + *text + "'");
  }
  return value;
}

}  // namespace costmodel::cli
