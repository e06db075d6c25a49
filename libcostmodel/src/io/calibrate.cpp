#include "costmodel/io/calibrate.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "costmodel/error.hpp"
#include "costmodel/network/topology.hpp"

namespace costmodel {
namespace {

// nccl-tests prints sizes in bytes, times in microseconds (the units row says "(us)"; very old versions
// printed milliseconds) and bandwidths in GB/s = 1e9 B/s (nccl-tests doc/PERFORMANCE.md).
constexpr double kMicrosecond = 1e-6;
constexpr double kMillisecond = 1e-3;
constexpr double kGigabytePerSecond = 1e9;

// The test binaries of nccl-tests and what they measure; longest names first so that "reduce_perf" is
// only matched on its own.
struct NcclTest {
  std::string_view binary;
  std::string_view short_name;  // as people name log files: allreduce.txt
  Collective collective;
};
constexpr std::array<NcclTest, 7> kNcclTests{{
    {"reduce_scatter_perf", "reducescatter", Collective::kReduceScatter},
    {"all_reduce_perf", "allreduce", Collective::kAllReduce},
    {"all_gather_perf", "allgather", Collective::kAllGather},
    {"alltoall_perf", "alltoall", Collective::kAllToAll},
    {"sendrecv_perf", "sendrecv", Collective::kSendRecv},
    {"broadcast_perf", "broadcast", Collective::kBroadcast},
    {"reduce_perf", "reduce", Collective::kReduce},
}};

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// `name` occurring in `text` as a word of its own (not the tail of "all_reduce_perf" for "reduce_perf").
bool contains_word(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool starts =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    if (starts) return true;
  }
  return false;
}

std::optional<Collective> collective_named_in(std::string_view text, bool short_names) {
  const std::string low = lower(text);
  for (const auto& test : kNcclTests) {
    if (contains_word(low, test.binary)) return test.collective;
  }
  if (short_names) {
    for (const auto& test : kNcclTests) {
      if (contains_word(low, test.short_name)) return test.collective;
      std::string underscored(test.binary.substr(0, test.binary.size() - 5));  // "all_reduce"
      if (contains_word(low, underscored)) return test.collective;
    }
  }
  return std::nullopt;
}

std::optional<double> to_double(std::string_view word) {
  double value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<std::int64_t> to_integer(std::string_view word) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return value;
}

// The columns of nccl-tests' header row. Current versions print
//   size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong
// older ones "error" for "#wrong" and "root" only for rooted collectives; rows are read by these names.
struct Columns {
  int count = 0;  // words in a row
  int size = -1;
  int elements = -1;
  int type = -1;
  std::array<int, 2> time{-1, -1};
  std::array<int, 2> algbw{-1, -1};
  std::array<int, 2> busbw{-1, -1};
  std::array<int, 2> wrong{-1, -1};
};

std::optional<Columns> header_columns(const std::vector<std::string_view>& words) {
  Columns c;
  c.count = static_cast<int>(words.size());
  int half = 0;
  for (int i = 0; i < c.count; ++i) {
    const std::string_view w = words[static_cast<size_t>(i)];
    if (w == "size") c.size = i;
    if (w == "count") c.elements = i;
    if (w == "type") c.type = i;
    if (w == "time" && half < 2) c.time[static_cast<size_t>(half)] = i;
    if (w == "algbw" && half < 2) c.algbw[static_cast<size_t>(half)] = i;
    if (w == "busbw" && half < 2) c.busbw[static_cast<size_t>(half)] = i;
    if ((w == "#wrong" || w == "error" || w == "wrong") && half < 2) c.wrong[static_cast<size_t>(half++)] = i;
  }
  if (c.size != 0 || c.time[0] < 0 || c.algbw[0] < 0 || c.busbw[0] < 0) return std::nullopt;
  return c;
}

// Lines that tools interleave with nccl-tests' table: NCCL's debug output, MPI and launcher warnings.
bool is_tolerated_noise(std::string_view line) {
  const std::string low = lower(line);
  return contains(line, "NCCL INFO") || contains(line, "NCCL WARN") || contains(low, "warning") ||
         contains(low, "warn:") || (!line.empty() && line.front() == '[');
}

class LogParser {
 public:
  LogParser(std::string filename, const std::string& text) : text_(text) { log_.file = std::move(filename); }

  NcclTestsLog parse() {
    std::istringstream in(text_);
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
      ++line;
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      read_line(raw, line);
    }
    if (in_table_) {
      throw Error(ErrorLocation{log_.file, std::max(line, 1), 0}, "nccl-tests log",
                  "the log ends inside the table (truncated?)",
                  "expected nccl-tests' '# Avg bus bandwidth' footer");
    }
    if (!table_seen_) {
      throw Error(ErrorLocation{log_.file, 0, 0}, "nccl-tests log", "no nccl-tests result table found",
                  "expected the header row '#  size  count  type  redop  root  time  algbw  busbw ...'");
    }
    finish();
    return std::move(log_);
  }

 private:
  void read_line(const std::string& raw, int line) {
    const std::string_view text(raw);
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return;
    const std::string_view body = text.substr(first);
    if (body.front() == '#') {
      read_comment(body.substr(1), line);
      return;
    }
    note_names(body);
    if (!in_table_) return;  // launcher output before the table, summaries after it
    const auto words = split_words(body);
    if (!to_integer(words.front())) {
      if (is_tolerated_noise(body)) return;
      throw Error(
          ErrorLocation{log_.file, line, static_cast<int>(first) + 1}, "nccl-tests log",
          "cannot read '" + std::string(body.substr(0, 60)) + "' inside the result table",
          "expected a row of " + std::to_string(columns_.count) + " columns starting with the size in bytes");
    }
    read_row(words, line, text.data());
  }

  void read_comment(std::string_view comment, int line) {
    const auto words = split_words(comment);
    note_names(comment);
    if (words.empty()) return;
    if (words.front() == "nThread") {
      for (size_t i = 0; i + 1 < words.size(); ++i) {
        if (words[i] == "nThread") threads_ = static_cast<int>(to_integer(words[i + 1]).value_or(0));
        if (words[i] == "nGpus") gpus_per_process_ = static_cast<int>(to_integer(words[i + 1]).value_or(0));
      }
      return;
    }
    // "#  Rank  0 Group  0 Pid   6899 on host-a device  0 [0000:04:00] NVIDIA H100 80GB HBM3"
    if (words.front() == "Rank" && words.size() >= 9 && words[2] == "Group" && words[6] == "on") {
      ++rank_lines_;
      hosts_.insert(std::string(words[7]));
      if (log_.device.empty()) {
        const size_t bracket = comment.find(']');
        if (bracket != std::string_view::npos) {
          const std::string_view name = comment.substr(bracket + 1);
          const auto name_words = split_words(name);
          for (const auto& w : name_words) log_.device += (log_.device.empty() ? "" : " ") + std::string(w);
        }
      }
      return;
    }
    if (!in_table_) {
      if (auto columns = header_columns(words)) {
        columns_ = *columns;
        in_table_ = true;
        table_seen_ = true;
        header_line_ = line;
      }
      return;
    }
    if (in_table_) {
      if (words.front() == "(B)") {
        for (const auto& w : words) {
          if (w == "(us)") time_unit_ = kMicrosecond;
          if (w == "(ms)") time_unit_ = kMillisecond;
        }
        return;
      }
      if (contains(comment, "Avg bus bandwidth")) {
        const size_t colon = comment.find(':');
        if (colon != std::string_view::npos) {
          const auto value_words = split_words(comment.substr(colon + 1));
          if (!value_words.empty()) {
            if (auto v = to_double(value_words.front()))
              log_.avg_busbw = BytesPerSecond(*v * kGigabytePerSecond);
          }
        }
        in_table_ = false;
      }
    }
  }

  // The test's name, wherever the log shows it: "# Collective test starting: all_reduce_perf", an echoed
  // command line; and NCCL_ALGO from the environment dump or NCCL's INFO lines.
  void note_names(std::string_view text) {
    if (!named_collective_) named_collective_ = collective_named_in(text, false);
    const size_t algo = text.find("NCCL_ALGO");
    if (algo != std::string_view::npos && log_.algorithm.empty()) {
      std::string_view rest = text.substr(algo + 9);
      const size_t to = rest.find(" to ");
      if (!rest.empty() && rest.front() == '=') {
        rest.remove_prefix(1);
      } else if (to != std::string_view::npos) {
        rest.remove_prefix(to + 4);
      } else {
        return;
      }
      const auto words = split_words(rest);
      if (!words.empty()) log_.algorithm = lower(words.front());
    }
  }

  // `start`: the first character of the line, for 1-based columns in errors.
  void read_row(const std::vector<std::string_view>& words, int line, const char* start) {
    const auto column_of = [&](std::string_view word) { return static_cast<int>(word.data() - start) + 1; };
    if (static_cast<int>(words.size()) != columns_.count) {
      throw Error(ErrorLocation{log_.file, line, column_of(words.back())}, "nccl-tests log",
                  "row has " + std::to_string(words.size()) + " columns, the header (line " +
                      std::to_string(header_line_) + ") has " + std::to_string(columns_.count),
                  "the log may be truncated or garbled");
    }
    const auto word = [&](int index) { return words[static_cast<size_t>(index)]; };
    const auto bad = [&](int index, const std::string& what) {
      return Error(ErrorLocation{log_.file, line, column_of(word(index))}, "nccl-tests log",
                   "cannot read " + what + " '" + std::string(word(index)) + "'");
    };
    const auto size = to_integer(word(columns_.size));
    if (!size || *size < 0) throw bad(columns_.size, "the size");
    if (columns_.type >= 0 && log_.type.empty()) log_.type = std::string(word(columns_.type));
    if (columns_.elements >= 0 && !to_integer(word(columns_.elements)))
      throw bad(columns_.elements, "the count");
    for (size_t half = 0; half < 2; ++half) {
      if (columns_.time[half] < 0) continue;
      NcclTestsPoint p;
      p.line = line;
      p.in_place = half == 1;
      p.size = Bytes(static_cast<double>(*size));
      const auto time = to_double(word(columns_.time[half]));
      if (!time || *time <= 0) throw bad(columns_.time[half], "the time");
      p.time = Seconds(*time * time_unit_);
      const auto algbw = to_double(word(columns_.algbw[half]));
      if (!algbw || *algbw < 0) throw bad(columns_.algbw[half], "algbw");
      const auto busbw = to_double(word(columns_.busbw[half]));
      if (!busbw || *busbw < 0) throw bad(columns_.busbw[half], "busbw");
      p.algbw = BytesPerSecond(*algbw * kGigabytePerSecond);
      p.busbw = BytesPerSecond(*busbw * kGigabytePerSecond);
      if (columns_.wrong[half] >= 0) {
        const std::string_view w = word(columns_.wrong[half]);
        if (w != "N/A") {
          // Old versions print the maximum error as a float ("0e+00"); current ones count wrong elements.
          const auto wrong = to_double(w);
          if (!wrong || *wrong < 0) throw bad(columns_.wrong[half], "#wrong");
          p.wrong = *wrong > 0 ? std::max<std::int64_t>(1, static_cast<std::int64_t>(*wrong)) : 0;
        }
      }
      log_.points.push_back(p);
    }
  }

  void finish() {
    log_.ranks = rank_lines_ > 0 ? rank_lines_ : threads_ * gpus_per_process_;
    log_.nodes = static_cast<int>(hosts_.size());
    log_.collective = named_collective_;
    if (!log_.collective) {
      log_.collective = collective_named_in(std::filesystem::path(log_.file).filename().string(), true);
    }
  }

  const std::string& text_;
  NcclTestsLog log_;
  Columns columns_;
  bool in_table_ = false;
  bool table_seen_ = false;
  int header_line_ = 0;
  double time_unit_ = kMicrosecond;
  int threads_ = 0;
  int gpus_per_process_ = 0;
  int rank_lines_ = 0;
  std::set<std::string> hosts_;
  std::optional<Collective> named_collective_;
};

// The model's algorithm a calibration is matched against: what NCCL runs for large messages.
Algorithm reference_algorithm(Collective c) {
  return c == Collective::kAllToAll || c == Collective::kSendRecv ? Algorithm::kDirect : Algorithm::kRing;
}

std::string fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return buffer.data();
}

}  // namespace

std::optional<Collective> collective_of_nccl_test(const std::string& binary_name) {
  return collective_named_in(binary_name, false);
}

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& filename) {
  return LogParser(filename, text).parse();
}

NcclTestsLog load_nccl_tests_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorLocation{path, 0, 0}, "", "cannot open the nccl-tests log");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_nccl_tests_log(text, path);
}

AlphaBetaLine fit_alpha_beta(const std::vector<Bytes>& sizes, const std::vector<Seconds>& times) {
  if (sizes.size() != times.size()) throw Error("fit_alpha_beta: sizes and times differ in length");
  std::set<double> distinct;
  double largest = 1.0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!(times[i].value > 0.0) || !std::isfinite(times[i].value)) {
      throw Error("fit_alpha_beta: every time must be positive and finite");
    }
    if (!(sizes[i].value >= 0.0) || !std::isfinite(sizes[i].value)) {
      throw Error("fit_alpha_beta: every size must be non-negative and finite");
    }
    distinct.insert(sizes[i].value);
    largest = std::max(largest, sizes[i].value);
  }
  if (distinct.size() < 2) throw Error("fitting alpha and beta needs at least two distinct message sizes");

  // Rows scaled by 1/t_i (weight 1/t_i² on the squared residual); the size column scaled by the largest size
  // so that both columns are O(1) and the QR factorisation stays well conditioned.
  const auto m = static_cast<Eigen::Index>(sizes.size());
  Eigen::MatrixXd a(m, 2);
  Eigen::VectorXd b(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double t = times[static_cast<size_t>(i)].value;
    a(i, 0) = 1.0 / t;
    a(i, 1) = sizes[static_cast<size_t>(i)].value / largest / t;
    b(i) = 1.0;
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(b);
  AlphaBetaLine line;
  line.alpha = Seconds(x(0));
  line.beta = x(1) / largest;
  line.points = static_cast<int>(m);

  // Weighted R² (weights w_i = 1/t_i²): 1 - Σw(t - t̂)² / Σw(t - t̄_w)², t̄_w the weighted mean.
  double sum_w = 0, sum_wt = 0;
  for (const auto& t : times) {
    sum_w += 1.0 / (t.value * t.value);
    sum_wt += 1.0 / t.value;
  }
  const double mean = sum_wt / sum_w;
  double residual = 0, total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double t = times[i].value;
    const double predicted = line.alpha.value + line.beta * sizes[i].value;
    const double relative = (t - predicted) / t;
    residual += relative * relative;
    total += (t - mean) * (t - mean) / (t * t);
    if (std::fabs(relative) >= std::fabs(line.worst_residual) || i == 0) {
      line.worst_residual = relative;
      line.worst_size = sizes[i];
      line.worst_measured = times[i];
      line.worst_predicted = Seconds(predicted);
    }
  }
  line.r_squared = total > 0 ? 1.0 - residual / total : 1.0;
  return line;
}

std::vector<CollectiveFit> fit_collectives(const std::vector<NcclTestsLog>& logs,
                                           std::optional<BytesPerSecond> line_rate) {
  struct Group {
    CollectiveFit fit;
    std::vector<Bytes> sizes;
    std::vector<Seconds> times;
  };
  std::vector<Group> groups;
  for (const auto& log : logs) {
    if (!log.collective) {
      throw Error(
          ErrorLocation{log.file, 0, 0}, "nccl-tests log", "cannot tell which collective this log measures",
          "name the file after the test (e.g. all_reduce_perf.txt) or pass the collective explicitly");
    }
    if (log.ranks < 1) {
      throw Error(ErrorLocation{log.file, 0, 0}, "nccl-tests log",
                  "the log shows no rank count ('# nThread .. nGpus ..' or '#  Rank' lines)");
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.fit.collective == *log.collective && g.fit.algorithm == log.algorithm &&
             g.fit.ranks == log.ranks;
    });
    if (it == groups.end()) {
      Group g;
      g.fit.collective = *log.collective;
      g.fit.algorithm = log.algorithm;
      g.fit.ranks = log.ranks;
      g.fit.nodes = log.nodes;
      g.fit.device = log.device;
      groups.push_back(std::move(g));
      it = groups.end() - 1;
    }
    it->fit.files.push_back(log.file);
    it->fit.nodes = std::max(it->fit.nodes, log.nodes);
    for (const auto& p : log.points) {
      it->sizes.push_back(p.size);
      it->times.push_back(p.time);
      it->fit.wrong += p.wrong.value_or(0);
    }
  }
  std::vector<CollectiveFit> fits;
  for (auto& g : groups) {
    try {
      g.fit.line = fit_alpha_beta(g.sizes, g.times);
    } catch (const Error& e) {
      throw e.at(ErrorLocation{g.fit.files.front(), 0, 0}, "nccl-tests log");
    }
    CollectiveFit& f = g.fit;
    const double beta = std::max(f.line.beta, 1e-300);  // a flat line means unbounded bandwidth: stay finite
    f.algbw = BytesPerSecond(1.0 / beta);
    f.busbw = BytesPerSecond(bus_factor(f.collective, f.ranks) / beta);
    if (line_rate && line_rate->value > 0) f.efficiency = f.busbw.value / line_rate->value;
    fits.push_back(std::move(f));
  }
  return fits;
}

std::string_view to_string(FabricLevel level) {
  return level == FabricLevel::kScaleUp ? "scale-up" : "scale-out";
}

ClusterCalibration calibrate_cluster(const ClusterSpec& cluster, const CollectiveFit& fit) {
  if (fit.ranks < 1) throw Error("calibration needs the rank count of the measurement");
  ClusterCalibration cal;
  const int per_node = cluster.gpus_per_node;
  const bool one_node = fit.nodes > 0 ? fit.nodes <= 1 : fit.ranks <= per_node;
  cal.level = one_node ? FabricLevel::kScaleUp : FabricLevel::kScaleOut;
  if (one_node && fit.ranks > cluster.scale_up_domain()) {
    throw Error("the measurement's " + std::to_string(fit.ranks) +
                " ranks on one node exceed the cluster's " + std::to_string(cluster.scale_up_domain()) +
                "-GPU scale-up domain; check --gpus-per-node");
  }
  // Ranks per node as measured; a stride spreads them over the cluster's nodes the same way.
  int ranks_per_node = per_node;
  if (one_node) {
    ranks_per_node = fit.ranks;
  } else if (fit.nodes > 0) {
    ranks_per_node = (fit.ranks + fit.nodes - 1) / fit.nodes;
  }
  cal.ranks_per_node = std::min(ranks_per_node, per_node);
  const int stride = one_node || per_node % cal.ranks_per_node != 0 ? 1 : per_node / cal.ranks_per_node;

  ClusterSpec probe = cluster;
  const int needed_nodes = one_node ? 1 : (fit.ranks + cal.ranks_per_node - 1) / cal.ranks_per_node;
  probe.gpus = std::max(cluster.gpus, needed_nodes * per_node);
  probe.torus_dims.clear();
  const Algorithm algorithm = reference_algorithm(fit.collective);
  const Communicator comm{fit.ranks, stride, 1};

  // Bandwidth: the model's seconds per byte (the bandwidth term is linear in n) at a given efficiency.
  const auto set_efficiency = [&](ClusterSpec& c, double eff) {
    if (cal.level == FabricLevel::kScaleUp) {
      c.scale_up.efficiency = eff;
    } else {
      c.link.efficiency = eff;
    }
  };
  const auto seconds_per_byte = [&](const ClusterSpec& c) {
    const Bytes n(1073741824.0);
    return collective_cost(fit.collective, algorithm, n, link_path(c, comm)).bandwidth_term.value / n.value;
  };
  const double beta = fit.line.beta;
  set_efficiency(probe, 1.0);
  const double ceiling_slope = seconds_per_byte(probe);
  cal.ceiling_busbw = BytesPerSecond(bus_factor(fit.collective, fit.ranks) / ceiling_slope);
  cal.measured_efficiency = beta > 0 ? ceiling_slope / beta : 0.0;
  cal.bandwidth = cal.level == FabricLevel::kScaleUp ? cluster.scale_up.bandwidth : cluster.link.line_rate;
  constexpr double kMinEfficiency = 0.01;  // the cluster schema's lower bound
  if (beta > 0 && beta < ceiling_slope) {
    // Faster than the line rate the cluster assumes: raise the rate, keep efficiency 1.
    cal.bandwidth = cal.bandwidth * (ceiling_slope / beta);
    cal.efficiency = 1.0;
  } else {
    // seconds_per_byte falls monotonically with efficiency: bisection.
    double lo = kMinEfficiency, hi = 1.0;
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (lo + hi);
      set_efficiency(probe, mid);
      (seconds_per_byte(probe) > beta ? lo : hi) = mid;
    }
    cal.efficiency = 0.5 * (lo + hi);
  }
  probe = apply_calibration(probe, cal);

  // Latency: the model's latency term is affine in the per-hop (scale-up) or link (scale-out) latency.
  const auto latency_term = [&](double latency) {
    ClusterSpec c = probe;
    if (cal.level == FabricLevel::kScaleUp) {
      c.scale_up.latency = Seconds(latency);
    } else {
      c.link.latency = Seconds(latency);
    }
    return collective_cost(fit.collective, algorithm, Bytes(0.0), link_path(c, comm)).latency_term.value;
  };
  constexpr double kProbe = 1e-6;
  const double base = latency_term(0.0);
  const double per_second = (latency_term(kProbe) - base) / kProbe;
  double latency = per_second > 0 ? (fit.line.alpha.value - base) / per_second : 0.0;
  if (latency < 0) {
    latency = 0;
    cal.latency_clamped = true;
  }
  cal.latency = Seconds(latency);
  return cal;
}

ClusterSpec apply_calibration(ClusterSpec cluster, const ClusterCalibration& calibration) {
  if (calibration.level == FabricLevel::kScaleUp) {
    cluster.scale_up.bandwidth = calibration.bandwidth;
    cluster.scale_up.efficiency = calibration.efficiency;
    cluster.scale_up.latency = calibration.latency;
  } else {
    cluster.link.line_rate = calibration.bandwidth;
    cluster.link.efficiency = calibration.efficiency;
    cluster.link.latency = calibration.latency;
  }
  return cluster;
}

std::string cluster_yaml(const ClusterSpec& c, const std::vector<std::string>& comment) {
  // Units written so that they read back exactly enough: GB/s with 6 decimals (1 kB/s), ns with 3 (1 ps).
  const auto bandwidth = [](BytesPerSecond b) { return fixed(b.value / 1e9, 6) + "GB/s"; };
  const auto seconds = [](Seconds s) { return fixed(s.value * 1e9, 3) + "ns"; };
  const auto number = [](double v) { return fixed(v, 6); };
  std::ostringstream out;
  for (const auto& line : comment) out << "# " << line << '\n';
  out << "gpu: " << c.gpu.name << '\n'
      << "gpus: " << c.gpus << '\n'
      << "gpus_per_node: " << c.gpus_per_node << '\n'
      << "scale_up:\n"
      << "  bandwidth: " << bandwidth(c.scale_up.bandwidth) << '\n'
      << "  latency: " << seconds(c.scale_up.latency) << '\n'
      << "  domain: " << c.scale_up.domain << '\n'
      << "  efficiency: " << number(c.scale_up.efficiency) << '\n'
      << "  in_network_reduction: " << (c.scale_up.in_network_reduction ? "true" : "false") << '\n'
      << "  in_network_efficiency: " << number(c.scale_up.in_network_efficiency) << '\n'
      << "scale_out:\n"
      << "  topology: " << to_string(c.topology) << '\n'
      << "  link:\n"
      << "    name: " << c.link.name << '\n'
      << "    line_rate: " << bandwidth(c.link.line_rate) << '\n'
      << "    latency: " << seconds(c.link.latency) << '\n'
      << "    efficiency: " << number(c.link.efficiency) << '\n'
      << "    transport: " << to_string(c.link.transport) << '\n'
      << "    nic_price: " << fixed(c.link.nic_price.value, 2) << "USD\n"
      << "    nic_power: " << fixed(c.link.nic_power.value, 3) << "W\n"
      << "    transceiver_price: " << fixed(c.link.transceiver_price.value, 2) << "USD\n"
      << "    transceiver_power: " << fixed(c.link.transceiver_power.value, 3) << "W\n";
  if (!c.link.media.empty()) out << "    media: " << c.link.media << '\n';
  out << "  nics_per_node: " << c.nics_per_node << '\n'
      << "  switch: " << c.switch_spec.name << '\n'
      << "  oversubscription: " << number(c.oversubscription) << '\n';
  if (!c.torus_dims.empty()) {
    out << "  torus_dims: [";
    for (size_t i = 0; i < c.torus_dims.size(); ++i) out << (i ? ", " : "") << c.torus_dims[i];
    out << "]\n";
  }
  return out.str();
}

}  // namespace costmodel
