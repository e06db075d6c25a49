#pragma once
// Shared pieces of the `costmodel` CLI (DESIGN.md §3): command signature, option parsing, the output sink,
// [cluster] options, and tables that show SI values to machines and readable units to people.
//
// Adding a command `foo`:
//   1. apps/costmodel/foo.cpp defines, in namespace costmodel::cli,
//        int run_foo(const std::vector<std::string>& args, const Context& context);
//      `args` are the words after `costmodel foo`. A typical body:
//        CommandParser parser(context, "costmodel foo [cluster] [options]", "What foo prints.");
//        add_cluster_options(parser.options());
//        add_output_options(parser.options());
//        if (!parser.parse(args)) return 0;                      // --help was printed
//        const auto cluster = make_cluster(read_cluster_args(parser.values(), context), load_catalog());
//        emit(read_output_options(parser.values(), context), context, table_or_json);
//        return 0;
//   2. main.cpp: one line `X(foo, "one-line summary")` in COSTMODEL_COMMANDS.
// Errors: throw costmodel::Error (usage_error() for misuse); main maps its kind to the exit code
// (kInput 2, kInfeasible 3, kInternal 1) and prints it as one line on stderr. Never print data to stderr,
// never call exit(): return 0 on success.
// Integer flags are declared as po::value<std::string>() and read with positive_int() / nonnegative_int(),
// so `--gpus -8` and `--gpus 0` are rejected with a message naming the flag.

#include <boost/program_options.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "costmodel/error.hpp"
#include "costmodel/io/catalog.hpp"
#include "costmodel/io/load.hpp"
#include "costmodel/io/report.hpp"
#include "costmodel/spec/cluster.hpp"

namespace costmodel::cli {

namespace po = boost::program_options;

/// What every command receives besides its arguments.
struct Context {
  std::string program = "costmodel";
  std::string command;  ///< e.g. "catalog"

  /// "costmodel catalog": the prefix of this command's diagnostics.
  [[nodiscard]] std::string prefix() const { return command.empty() ? program : program + " " + command; }
};

/// A command's entry point: returns the exit code, throws Error for failures.
using CommandFunction = int (*)(const std::vector<std::string>& args, const Context& context);

/// One row of main.cpp's command table.
struct Command {
  std::string_view name;
  std::string_view summary;
  CommandFunction run;
};

/// A usage error: "costmodel catalog: error: MESSAGE; HINT" (exit 2). `field` names the flag, if any.
[[nodiscard]] Error usage_error(const Context& context, const std::string& field, const std::string& message,
                                const std::string& hint = {});

/// "did you mean 'NAME'?" for the name in `known` closest to `name`, or "" when none is close.
[[nodiscard]] std::string did_you_mean(const std::string& name, const std::vector<std::string>& known);

// ---------------------------------------------------------------------------------------------------
// Parsing

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
/// The same allowing 0 (e.g. --zero).
[[nodiscard]] std::optional<int> nonnegative_int(const po::variables_map& values, const std::string& name,
                                                 const Context& context);
/// The value of flag `name` as a positive finite number, or nullopt when absent.
[[nodiscard]] std::optional<double> positive_number(const po::variables_map& values, const std::string& name,
                                                    const Context& context);
/// The value of string flag `name`, or nullopt when absent.
[[nodiscard]] std::optional<std::string> string_option(const po::variables_map& values,
                                                       const std::string& name);

// ---------------------------------------------------------------------------------------------------
// Output: --format and -o

struct OutputOptions {
  Format format = Format::kTable;
  std::string path;  ///< -o FILE; empty for stdout
};

/// Adds `--format table|csv|json|markdown` and `-o/--output FILE`.
void add_output_options(po::options_description& options);
[[nodiscard]] OutputOptions read_output_options(const po::variables_map& values, const Context& context);

/// Where a command's data goes: stdout, or for -o FILE a temporary file in FILE's folder renamed to FILE
/// by commit(), so an error never leaves a partial file. Failing to write is a usage error (exit 2).
class OutputSink {
 public:
  OutputSink(const OutputOptions& options, Context context);
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;
  ~OutputSink();  ///< removes the temporary file unless committed

  [[nodiscard]] std::ostream& stream();
  [[nodiscard]] Format format() const { return format_; }
  /// Flushes; with -o, moves the temporary file onto FILE.
  void commit();

 private:
  Format format_;
  Context context_;
  std::string path_;
  std::string temp_path_;
  std::ofstream file_;
  bool committed_ = false;
};

/// Writes `table` / `document` in the chosen format to the chosen place, and commits.
void emit(const OutputOptions& options, const Context& context, const Table& table);
void emit(const OutputOptions& options, const Context& context, const Json& document);

// ---------------------------------------------------------------------------------------------------
// Progress

/// A progress bar on stderr, shown once a run has taken a second and only when stderr is a terminal;
/// erased when destroyed. `label` names the work ("planning", "scenario").
class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  /// Redraws the bar at `fraction` done, in [0, 1].
  void update(double fraction);

 private:
  std::string label_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

// ---------------------------------------------------------------------------------------------------
// [cluster] options (DESIGN.md §3)

/// `--cluster FILE.yaml` and the flags that override it (or the default cluster).
struct ClusterArgs {
  std::optional<std::string> file;
  ClusterOptions options;
};

/// Adds --cluster, --gpu, --gpus, --gpus-per-node, --link, --nics-per-node, --topology, --switch,
/// --oversubscription.
void add_cluster_options(po::options_description& options);
/// Reads and checks them: positive integers, a known topology name, a positive oversubscription.
[[nodiscard]] ClusterArgs read_cluster_args(const po::variables_map& values, const Context& context);
/// The cluster file (or the default cluster) with the flags applied; throws Error if it is not usable.
[[nodiscard]] ClusterSpec make_cluster(const ClusterArgs& args, const Catalog& catalog);

// ---------------------------------------------------------------------------------------------------
// Tables with units: SI values under unit-suffixed keys for json/csv, scaled values under
// "header (unit)" for table/markdown.

template <typename T>
struct Field {
  std::string key;     ///< json/csv key with its SI unit: "hbm_bandwidth_Bps", "tdp_w"
  std::string header;  ///< table/markdown header: "HBM bw"
  std::string unit;    ///< table/markdown unit: "GB/s"
  double scale = 1.0;  ///< table/markdown value = SI value / scale (1e9 for GB/s)
  std::function<Json(const T&)> get;
  int precision = 4;     ///< significant digits in table/markdown
  bool in_table = true;  ///< false: json/csv only (long text such as sources)
};

/// One row per item, one column per field, laid out for `format`.
template <typename T>
[[nodiscard]] Table make_table(const std::vector<Field<T>>& fields, const std::vector<T>& items,
                               Format format) {
  const bool human = format == Format::kTable || format == Format::kMarkdown;
  Table table;
  std::vector<const Field<T>*> shown;
  for (const auto& field : fields) {
    if (human && !field.in_table) continue;
    shown.push_back(&field);
    table.columns.push_back(
        Column{field.key, human ? field.header : field.key, human ? field.unit : "", field.precision});
  }
  for (const auto& item : items) {
    auto& row = table.rows.emplace_back();
    for (const auto* field : shown) {
      Json cell = field->get(item);
      if (human && field->scale != 1.0) {
        if (const auto* i = std::get_if<std::int64_t>(&cell.value())) {
          cell = Json(static_cast<double>(*i) / field->scale);
        } else if (const auto* d = std::get_if<double>(&cell.value())) {
          cell = Json(*d / field->scale);
        }
      }
      row.push_back(std::move(cell));
    }
  }
  return table;
}

/// A count held in a double (parameters, FLOPs) as a JSON integer when it is one exactly.
[[nodiscard]] inline Json exact_count(double value) {
  constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  if (std::isfinite(value) && std::fabs(value) < kExactLimit && value == std::floor(value)) {
    return Json(static_cast<std::int64_t>(value));
  }
  return Json(value);
}

}  // namespace costmodel::cli
