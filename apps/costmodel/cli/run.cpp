// SPDX-License-Identifier: Apache-2.0
// `costmodel <command> [options]`: dispatches to a command and maps its failures to the exit codes of
// DESIGN.md §3: 0 success, 1 internal error, 2 bad input or usage, 3 nothing feasible.

#include "cli/run.hpp"

#include <array>
#include <exception>
#include <string>
#include <vector>

#include "cli/parser.hpp"
#include "costmodel/version.hpp"

// The command table: one line per command, X(name, summary); `name` is defined in commands/name.cpp as
// costmodel::cli::run_name (see cli/parser.hpp), but for report, which is plan's search (plan.cpp). --help
// lists them in this order.
// clang-format off
#define COSTMODEL_COMMANDS(X)                                                   \
  X(catalog, "list the catalogs: GPUs, links, switches, models, topologies")    \
  X(plan, "rank every parallel configuration by step time, cost or switches")   \
  X(estimate, "step time, memory, MFU, days and cost of one parallel split")     \
  X(validate, "predicted vs published training runs, with error statistics")     \
  X(collective, "time, algbw and busbw of one collective over message sizes")    \
  X(topology, "inventory, capex, power, diameter and bisection of the fabric")   \
  X(scenario, "what-if sweeps and comparisons from a YAML file, with plots")     \
  X(report, "plan as one self-contained HTML page for buyers (charts, bill, money)") \
  X(calibrate, "fit alpha and beta per collective to nccl-tests logs")          \
  /* one X(...) line per command above; each line ends with a backslash */
// clang-format on

namespace costmodel::cli {

#define COSTMODEL_DECLARE_COMMAND(name, summary) \
  int run_##name(const std::vector<std::string>& args, const Context& context);
COSTMODEL_COMMANDS(COSTMODEL_DECLARE_COMMAND)
#undef COSTMODEL_DECLARE_COMMAND

namespace {

#define COSTMODEL_COMMAND_ROW(name, summary) Command{#name, summary, &run_##name},
constexpr std::array kCommands{COSTMODEL_COMMANDS(COSTMODEL_COMMAND_ROW)};
#undef COSTMODEL_COMMAND_ROW

constexpr int kExitInternal = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInfeasible = 3;

void print_usage(std::ostream& out) {
  out << "costmodel " << version() << ": analytical cost model and planner for LLM training clusters\n\n"
      << "usage: costmodel <command> [options]\n"
      << "       costmodel --help | --version\n\n"
      << "commands:\n";
  for (const auto& command : kCommands) {
    std::string name(command.name);
    name.resize(std::max<size_t>(name.size() + 2, 12), ' ');
    out << "  " << name << command.summary << '\n';
  }
  out << "\ncommon options: --format table|csv|json|markdown (plan, estimate, scenario: also html), -o FILE, "
         "--help\n"
      << "run 'costmodel <command> --help' for a command's options\n";
}

const Command* find_command(const std::string& name) {
  for (const auto& command : kCommands) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const auto& command : kCommands) names.emplace_back(command.name);
  return names;
}

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInput:
      return kExitUsage;
    case ErrorKind::kInfeasible:
      return kExitInfeasible;
    case ErrorKind::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

/// Errors from the library may carry no file; they are then prefixed with the command.
void print_error(const Error& error, const Context& context) {
  if (error.location().file.empty()) *context.err << context.prefix() << ": ";
  *context.err << error.what() << '\n';
}

int run_command(const Command& command, const std::vector<std::string>& args, const Context& context) {
  try {
    return command.run(args, context);
  } catch (const Error& error) {
    print_error(error, context);
    return exit_code(error.kind());
  } catch (const po::error& error) {
    *context.err << context.prefix() << ": error: " << error.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& error) {
    *context.err << context.prefix() << ": internal error: " << error.what() << '\n';
    return kExitInternal;
  } catch (...) {
    *context.err << context.prefix() << ": internal error: unknown exception\n";
    return kExitInternal;
  }
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Context global;
  global.out = &out;
  global.err = &err;
  if (args.empty()) {
    print_usage(err);
    return kExitUsage;
  }
  const std::string& first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    if (first == "help" && args.size() > 1) return run({args[1], "--help"}, out, err);
    print_usage(out);
    return 0;
  }
  if (first == "--version") {
    print_version(out);
    return 0;
  }
  if (!first.empty() && first.front() == '-') {
    const std::string hint = did_you_mean(first, {"--help", "--version"});
    print_error(usage_error(global, "", "unknown option '" + first + "' before the command",
                            hint.empty() ? "usage: costmodel <command> [options]" : hint),
                global);
    return kExitUsage;
  }
  const Command* command = find_command(first);
  if (command == nullptr) {
    const std::string hint = did_you_mean(first, command_names());
    print_error(usage_error(global, "", "unknown command '" + first + "'",
                            hint.empty() ? "run 'costmodel --help' for the list of commands" : hint),
                global);
    return kExitUsage;
  }
  Context context = global;
  context.command = first;
  return run_command(*command, std::vector<std::string>(args.begin() + 1, args.end()), context);
}

}  // namespace costmodel::cli
