#include "cli.hpp"

#include <sys/stat.h>
#include <unistd.h>

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

#include "costmodel/units.hpp"
#include "costmodel/version.hpp"

namespace costmodel::cli {

namespace {

std::string join(const std::vector<std::string>& names, const std::string& separator) {
  std::string joined;
  for (const auto& name : names) {
    if (!joined.empty()) joined += separator;
    joined += name;
  }
  return joined;
}

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
      print_help(std::cout);
      return false;
    }
    if (values_.count("version") > 0) {
      std::cout << "costmodel " << costmodel::version() << '\n';
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

// ---------------------------------------------------------------------------------------------------
// Output

void add_output_options(po::options_description& options) {
  options.add_options()                                                                   //
      ("format", po::value<std::string>()->default_value("table")->value_name("FORMAT"),  //
       "table|csv|json|markdown")                                                         //
      ("output,o", po::value<std::string>()->value_name("FILE"),
       "write to FILE instead of stdout (replaced only once complete)");
}

OutputOptions read_output_options(const po::variables_map& values, const Context& context) {
  OutputOptions options;
  if (const auto name = string_option(values, "format")) {
    const auto format = parse_format(*name);
    if (!format) {
      const std::vector<std::string> known = {"table", "csv", "json", "markdown"};
      const std::string hint = did_you_mean(*name, known);
      throw usage_error(context, "--format", "unknown format '" + *name + "'",
                        hint.empty() ? "expected one of " + join(known, ", ") : hint);
    }
    options.format = *format;
  }
  if (const auto path = string_option(values, "output")) {
    if (path->empty()) throw usage_error(context, "-o", "expected a file name");
    options.path = *path;
  }
  return options;
}

OutputSink::OutputSink(const OutputOptions& options, Context context)
    : format_(options.format), context_(std::move(context)), path_(options.path) {
  if (path_.empty()) return;
  const std::filesystem::path target(path_);
  if (!target.has_filename()) throw usage_error(context_, "-o", "'" + path_ + "' is not a file name");
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
  // A hidden sibling, so the rename stays within one file system. (Built by append: GCC 12 warns
  // falsely about `"literal" + std::string&&` under -O2 -Wrestrict.)
  std::string temp_name(".");
  temp_name.append(target.filename().string()).append(".tmp-XXXXXX");
  std::string temp = (folder / temp_name).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw usage_error(context_, "-o", "cannot write '" + path_ + "': " + std::strerror(errno));
  }
  // mkstemp creates 0600; give the result the permissions any new file would get.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  temp_path_ = temp;
  file_.open(temp_path_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!file_) {
    std::remove(temp_path_.c_str());
    throw usage_error(context_, "-o", "cannot write '" + path_ + "'");
  }
}

OutputSink::~OutputSink() {
  if (!temp_path_.empty() && !committed_) {
    file_.close();
    std::remove(temp_path_.c_str());
  }
}

std::ostream& OutputSink::stream() {
  return path_.empty() ? std::cout : file_;
}

void OutputSink::commit() {
  if (path_.empty()) {
    std::cout.flush();
    if (!std::cout) throw usage_error(context_, "", "cannot write to standard output");
    committed_ = true;
    return;
  }
  file_.flush();
  const bool written = static_cast<bool>(file_);
  file_.close();
  if (!written || file_.fail()) {
    throw usage_error(context_, "-o", "cannot write '" + path_ + "'");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw usage_error(context_, "-o", "cannot write '" + path_ + "': " + std::strerror(errno));
  }
  committed_ = true;
}

void emit(const OutputOptions& options, const Context& context, const Table& table) {
  OutputSink sink(options, context);
  write_table(sink.stream(), table, sink.format());
  sink.commit();
}

void emit(const OutputOptions& options, const Context& context, const Json& document) {
  OutputSink sink(options, context);
  write_document(sink.stream(), document, sink.format());
  sink.commit();
}

// ---------------------------------------------------------------------------------------------------
// [cluster]

void add_cluster_options(po::options_description& options) {
  options.add_options()                                                                             //
      ("cluster", po::value<std::string>()->value_name("FILE.yaml"), "cluster description (YAML)")  //
      ("gpu", po::value<std::string>()->value_name("NAME"), "GPU catalog name, e.g. h100-sxm")      //
      ("gpus", po::value<std::string>()->value_name("N"), "number of GPUs")                         //
      ("gpus-per-node", po::value<std::string>()->value_name("N"), "GPUs per node (server)")        //
      ("link", po::value<std::string>()->value_name("NAME"), "scale-out link, e.g. ib-ndr-400g")    //
      ("nics-per-node", po::value<std::string>()->value_name("N"), "scale-out NICs per node")       //
      ("topology", po::value<std::string>()->value_name("KIND"),
       "fat-tree|rail-optimized|rail-only|dragonfly-plus|torus-2d|torus-3d")                        //
      ("switch", po::value<std::string>()->value_name("NAME"), "switch catalog name, e.g. qm9700")  //
      ("oversubscription", po::value<std::string>()->value_name("R"),
       "leaf downlink:uplink bandwidth ratio (1 = non-blocking)");
}

ClusterArgs read_cluster_args(const po::variables_map& values, const Context& context) {
  ClusterArgs args;
  args.file = string_option(values, "cluster");
  args.options.gpu = string_option(values, "gpu");
  args.options.gpus = positive_int(values, "gpus", context);
  args.options.gpus_per_node = positive_int(values, "gpus-per-node", context);
  args.options.link = string_option(values, "link");
  args.options.nics_per_node = positive_int(values, "nics-per-node", context);
  args.options.switch_name = string_option(values, "switch");
  args.options.oversubscription = positive_number(values, "oversubscription", context);
  if (const auto topology = string_option(values, "topology")) {
    if (!parse_topology_kind(*topology)) {
      std::vector<std::string> known;
      for (int k = 0; k < kTopologyKindCount; ++k) {
        known.emplace_back(to_string(static_cast<TopologyKind>(k)));
      }
      const std::string hint = did_you_mean(*topology, known);
      throw usage_error(context, "--topology", "unknown topology '" + *topology + "'",
                        hint.empty() ? "expected one of " + join(known, ", ") : hint);
    }
    args.options.topology = *topology;
  }
  return args;
}

ClusterSpec make_cluster(const ClusterArgs& args, const Catalog& catalog) {
  ClusterSpec base = args.file ? load_cluster_file(*args.file, catalog) : default_cluster(catalog);
  ClusterSpec cluster = apply_cluster_options(std::move(base), args.options, catalog);
  const auto reasons = validate(cluster);
  if (!reasons.empty()) throw Error("the cluster is not usable: " + join(reasons, "; "));
  return cluster;
}

// ---------------------------------------------------------------------------------------------------
// ProgressBar

namespace {
constexpr double kProgressDelay_s = 1.0;
constexpr int kProgressWidth = 40;
}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)),
      enabled_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  if (shown_)
    std::cerr << '\r' << std::string(label_.size() + kProgressWidth + 10, ' ') << '\r' << std::flush;
}

void ProgressBar::update(double fraction) {
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < kProgressDelay_s) return;
  shown_ = true;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressWidth);
  std::cerr << '\r' << label_ << " [" << std::string(static_cast<size_t>(filled), '#')
            << std::string(static_cast<size_t>(kProgressWidth - filled), ' ') << "] "
            << static_cast<int>(fraction * 100.0) << "%" << std::flush;
}

}  // namespace costmodel::cli
