// SPDX-License-Identifier: Apache-2.0
#include "costmodel/io/nccl_tests.hpp"

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
#include "costmodel/units.hpp"

namespace costmodel::inline COSTMODEL_ABI {
namespace {

// nccl-tests prints sizes in bytes, times in microseconds (the units row says "(us)"; very old versions
// printed milliseconds) and bandwidths in GB/s = 1e9 B/s (nccl-tests doc/PERFORMANCE.md).

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
  // Whether each half that names one of time, algbw and busbw names all three (a row is read by them).
  [[nodiscard]] bool halves_complete() const {
    for (size_t h = 0; h < 2; ++h) {
      const bool any = time[h] >= 0 || algbw[h] >= 0 || busbw[h] >= 0;
      const bool all = time[h] >= 0 && algbw[h] >= 0 && busbw[h] >= 0;
      if (any && !all) return false;
    }
    return true;
  }
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
    if (words.empty()) return;  // only whitespace that is not a space or a tab (\r, \v, \f)
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
          for (const auto& w : name_words) {
            if (!log_.device.empty()) log_.device += ' ';
            log_.device.append(w);
          }
        }
      }
      return;
    }
    if (!in_table_) {
      if (auto columns = header_columns(words)) {
        if (!columns->halves_complete()) {
          throw Error(
              ErrorLocation{log_.file, line, 1}, "nccl-tests log",
              "the header row names time, algbw and busbw unevenly (out-of-place and in-place halves)",
              "expected '#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  "
              "busbw  #wrong'");
        }
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
          if (w == "(us)") time_unit_ = kMicro;
          if (w == "(ms)") time_unit_ = kMilli;
        }
        return;
      }
      if (contains(comment, "Avg bus bandwidth")) {
        const size_t colon = comment.find(':');
        if (colon != std::string_view::npos) {
          const auto value_words = split_words(comment.substr(colon + 1));
          if (!value_words.empty()) {
            if (auto v = to_double(value_words.front())) log_.avg_busbw = BytesPerSecond(*v * kGiga);
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
    note_world(text);
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

  // The launcher's process count: "mpirun -np 16", "srun -n 16", "--ntasks=16"; NCCL's own "nranks 16"
  // (NCCL INFO comm ... rank 0 nranks 16 ...) when NCCL_DEBUG=INFO.
  void note_world(std::string_view text) {
    const auto words = split_words(text);
    const bool launcher = std::any_of(words.begin(), words.end(), [](std::string_view w) {
      return contains(w, "mpirun") || contains(w, "mpiexec") || contains(w, "srun") || contains(w, "orterun");
    });
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string_view w = words[i];
      const auto next = [&]() -> std::optional<std::int64_t> {
        return i + 1 < words.size() ? to_integer(words[i + 1]) : std::nullopt;
      };
      if (launcher && world_ == 0) {
        if ((w == "-np" || w == "-n" || w == "--np" || w == "--ntasks") && next())
          world_ = static_cast<int>(*next());
        for (std::string_view prefix : {"--ntasks=", "-np=", "--np="}) {
          if (w.substr(0, prefix.size()) == prefix) {
            if (auto v = to_integer(w.substr(prefix.size()))) world_ = static_cast<int>(*v);
          }
        }
      }
      if (w == "nranks" && contains(text, "NCCL INFO") && next() && nccl_ranks_ == 0) {
        nccl_ranks_ = static_cast<int>(*next());
      }
    }
  }

  // The rank count nccl-tests' bus factor implies (doc/PERFORMANCE.md: AllReduce busbw = algbw x 2(n-1)/n;
  // ReduceScatter, AllGather, AllToAll (n-1)/n), read on the row with the largest algbw (most digits); 0 when
  // the collective's factor does not depend on n or the row is too coarse to tell.
  int ranks_from_bus_factor() const {
    if (!log_.collective) return 0;
    const NcclTestsPoint* best = nullptr;
    for (const auto& p : log_.points) {
      if (best == nullptr || p.algbw.value > best->algbw.value) best = &p;
    }
    if (best == nullptr || best->algbw.value < 1e9) return 0;  // below 1 GB/s: 3 digits at most
    const double r = best->busbw.value / best->algbw.value;
    double n = 0;
    switch (*log_.collective) {
      case Collective::kAllReduce:
        n = r < 2.0 ? 2.0 / (2.0 - r) : 0.0;
        break;
      case Collective::kReduceScatter:
      case Collective::kAllGather:
      case Collective::kAllToAll:
        n = r < 1.0 ? 1.0 / (1.0 - r) : 0.0;
        break;
      default:
        return 0;
    }
    const double rounded = std::round(n);
    if (!(rounded >= 1.0) || rounded > 1e6 || std::fabs(n - rounded) > 0.05 * rounded) return 0;
    return static_cast<int>(rounded);
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
      p.algbw = BytesPerSecond(*algbw * kGiga);
      p.busbw = BytesPerSecond(*busbw * kGiga);
      if (columns_.wrong[half] >= 0) {
        const std::string_view w = word(columns_.wrong[half]);
        if (w != "N/A") {
          // Old versions print the maximum error as a float ("0e+00"); current ones count wrong elements.
          const auto wrong = to_double(w);
          if (!wrong || *wrong < 0) throw bad(columns_.wrong[half], "#wrong");
          // Clamped below 2^63 before the conversion (a fuzzer's find: 3e+101 overflowed it).
          constexpr double kMostWrong = 9.0e18;
          p.wrong = *wrong > 0
                        ? std::max<std::int64_t>(1, static_cast<std::int64_t>(std::min(*wrong, kMostWrong)))
                        : 0;
        }
      }
      log_.points.push_back(p);
    }
  }

  void finish() {
    log_.nodes = static_cast<int>(hosts_.size());
    log_.gpus_per_thread = gpus_per_process_;
    log_.collective = named_collective_;
    if (!log_.collective) {
      log_.collective = collective_named_in(std::filesystem::path(log_.file).filename().string(), true);
    }
    // Ranks: the device lines; else GPUs per process times the processes; else the bus factor.
    const int per_process = threads_ * gpus_per_process_;
    if (rank_lines_ > 0) {
      log_.ranks = rank_lines_;
      log_.ranks_from = "device lines";
    } else if (per_process > 0 && (world_ > 0 || nccl_ranks_ > 0)) {
      log_.ranks = nccl_ranks_ > 0 ? nccl_ranks_ : per_process * world_;
      log_.ranks_from = nccl_ranks_ > 0 ? "NCCL's nranks" : "nGpus x MPI world";
    } else if (const int implied = ranks_from_bus_factor(); implied > 0) {
      log_.ranks = implied;
      log_.ranks_from = "busbw/algbw";
    } else if (per_process > 0) {
      log_.ranks = per_process;
      log_.ranks_from = "nThread x nGpus";
    }
  }

  const std::string& text_;
  NcclTestsLog log_;
  Columns columns_;
  bool in_table_ = false;
  bool table_seen_ = false;
  int header_line_ = 0;
  double time_unit_ = kMicro;
  int threads_ = 0;
  int gpus_per_process_ = 0;
  int rank_lines_ = 0;
  int world_ = 0;       // processes the launcher started (-np)
  int nccl_ranks_ = 0;  // NCCL INFO's nranks
  std::set<std::string> hosts_;
  std::optional<Collective> named_collective_;
};

}  // namespace

std::optional<Collective> collective_of_nccl_test(const std::string& binary_name) {
  return collective_named_in(binary_name, false);
}

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& filename) {
  return LogParser(filename, text).parse();
}

NcclTestsLog load_nccl_tests_log(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw Error(ErrorLocation{path, 0, 0}, "", "no such file");
  if (fs::is_directory(status)) {
    throw Error(ErrorLocation{path, 0, 0}, "", "is a directory, expected an nccl-tests log (a file)");
  }
  // A device or a pipe (/dev/urandom) never ends: only regular files, and of a log's size.
  if (!fs::is_regular_file(status)) {
    throw Error(ErrorLocation{path, 0, 0}, "", "not a regular file, expected an nccl-tests log");
  }
  constexpr std::uintmax_t kMaxLogBytes = 64u << 20;  // nccl-tests logs are kilobytes
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxLogBytes) {
    throw Error(ErrorLocation{path, 0, 0}, "", "file is larger than 64 MiB, not an nccl-tests log");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorLocation{path, 0, 0}, "", "cannot open the nccl-tests log");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Binary data is no log: say where, rather than read it line by line.
  const std::size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
    throw Error(ErrorLocation{path, static_cast<int>(line), 0}, "",
                "binary data (a NUL byte), expected an nccl-tests log");
  }
  return parse_nccl_tests_log(text, path);
}

}  // namespace costmodel::inline COSTMODEL_ABI
