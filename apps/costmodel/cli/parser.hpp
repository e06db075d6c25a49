// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `costmodel` CLI's command signature and option parsing (DESIGN.md §3).
//
// Adding a command `foo`:
//   1. apps/costmodel/commands/foo.cpp defines, in namespace costmodel::cli,
//        int run_foo(const std::vector<std::string>& args, const Context& context);
//      `args` are the words after `costmodel foo`. A typical body (flags -> spec -> library call -> report):
//        CommandParser parser(context, "costmodel foo [cluster] [options]", "What foo prints.");
//        add_cluster_options(parser.options());
//        add_output_options(parser.options());
//        if (!parser.parse(args)) return 0;                      // --help was printed
//        const auto cluster = make_cluster(read_cluster_args(parser.values(), context), load_catalog());
//        emit(read_output_options(parser.values(), context), context, foo_table(...));
//        return 0;
//   2. cli/run.cpp: one line `X(foo, "one-line summary")` in COSTMODEL_COMMANDS.
// Errors: throw costmodel::Error (usage_error() for misuse); run() maps its kind to the exit code
// (kInput 2, kInfeasible 3, kInternal 1) and prints it as one line on stderr. Write data to *context.out
// and warnings to *context.err (never std::cout/std::cerr: the Python module captures both); never call
// exit(): return 0 on success.
// Integer flags are declared as po::value<std::string>() and read with positive_int() / nonnegative_int(),
// so `--gpus -8` and `--gpus 0` are rejected with a message naming the flag.

#include <boost/program_options.hpp>

#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "costmodel/error.hpp"

namespace costmodel::cli {

namespace po = boost::program_options;

/// What every command receives besides its arguments.
struct Context {
  std::string program = "costmodel";
  std::string command;  ///< e.g. "catalog"
  /// Where the command's data (stdout) and diagnostics (stderr) go: the process's streams for the CLI,
  /// string streams for the Python module (cli/run.hpp). Never null.
  std::ostream* out = &std::cout;
  std::ostream* err = &std::cerr;

  /// "costmodel catalog": the prefix of this command's diagnostics.
  [[nodiscard]] std::string prefix() const { return command.empty() ? program : program + " " + command; }
};

/// A command's entry point: returns the exit code, throws Error for failures.
using CommandFunction = int (*)(const std::vector<std::string>& args, const Context& context);

/// One row of cli/run.cpp's command table.
struct Command {
  std::string_view name;
  std::string_view summary;
  CommandFunction run;
};

/// A usage error: "costmodel catalog: error: MESSAGE; HINT" (exit 2). `field` names the flag, if any.
[[nodiscard]] Error usage_error(const Context& context, const std::string& field, const std::string& message,
                                const std::string& hint = {});
/// `error` (from the library, without a location) reported against flag `field`.
[[nodiscard]] Error flag_error(const Context& context, const std::string& field, const Error& error);

/// "did you mean 'NAME'?" for the name in `known` closest to `name`, or "" when none is close.
[[nodiscard]] std::string did_you_mean(const std::string& name, const std::vector<std::string>& known);

/// "costmodel VERSION" and the data directory in use (DESIGN.md §3: --version), one line each.
void print_version(std::ostream& out);

/// `names` joined by `separator`.
[[nodiscard]] std::string join(const std::vector<std::string>& names, const std::string& separator);

/// One command's options: visible ones (shown by --help) and positional arguments. Adds --help/-h.
/// Long options must be spelt in full (no prefix guessing, so scripts stay valid as options are added).
class CommandParser {
 public:
  CommandParser(Context context, std::string usage, std::string description);

  /// The options shown by --help; add with `parser.options().add_options()(...)`.
  [[nodiscard]] po::options_description& options() { return visible_; }
  /// A positional argument, documented in the usage line; `max_count` -1 for any number.
  void add_positional(const std::string& name, const po::value_semantic* semantic, int max_count = 1);

  /// Parses `args`; false when --help was asked for (the help is then on stdout).
  /// Throws usage_error for an unknown option (with a suggestion), a missing or bad value, extra arguments.
  [[nodiscard]] bool parse(const std::vector<std::string>& args);
  [[nodiscard]] const po::variables_map& values() const { return values_; }

  void print_help(std::ostream& out) const;

 private:
  Context context_;
  std::string usage_;
  std::string description_;
  po::options_description visible_;
  po::options_description hidden_;
  po::positional_options_description positional_;
  po::variables_map values_;
};

/// The value of flag `name` as a positive integer, or nullopt when absent (flag declared as a string).
[[nodiscard]] std::optional<int> positive_int(const po::variables_map& values, const std::string& name,
                                              const Context& context);
/// The same allowing 0.
[[nodiscard]] std::optional<int> nonnegative_int(const po::variables_map& values, const std::string& name,
                                                 const Context& context);
/// The value of flag `name` as a positive finite number, or nullopt when absent.
[[nodiscard]] std::optional<double> positive_number(const po::variables_map& values, const std::string& name,
                                                    const Context& context);
/// The value of string flag `name`, or nullopt when absent.
[[nodiscard]] std::optional<std::string> string_option(const po::variables_map& values,
                                                       const std::string& name);

}  // namespace costmodel::cli
