// SPDX-License-Identifier: Apache-2.0
// costmodel-docs: regenerates every CLI output pasted in the Markdown docs, and every file (plot) the docs
// show, from the commands that produce them. `make docs` runs it; `make docs-check` runs it with --check.
//
// Why C++ and not shell + awk: the tool needs a masked comparison of timings, a copy of the doc
// tree, per-block caching and exact byte handling; Debian's default awk is mawk, whose regex and I/O features
// differ from gawk's, and the project's one toolchain is C++20. The standard library is all it uses; commands
// run through popen(), that is /bin/sh, and differences are shown by `diff -u` (diffutils is essential in
// Debian).
//
// MARKERS (HTML comments, invisible in rendered Markdown; a marker may span several lines):
//
//   <!-- costmodel-docs: run COMMAND -->
//   ```text
//   $ COMMAND
//   ...the command's stdout...
//   ```
//       The fenced code block right after the marker receives "$ COMMAND" (the marker's command, line for
//       line, so the reader sees exactly what ran) and the command's stdout. The fence line itself (and its
//       info string) is kept. Without a block after the marker, one is inserted.
//
//   <!-- costmodel-docs: run:raw COMMAND -->
//   `$ COMMAND`
//
//   ...the command's stdout, pasted as Markdown (e.g. --format markdown tables)...
//
//   <!-- costmodel-docs: end -->
//       Everything up to the end marker is replaced. Without an end marker (before the next marker), an
//       empty region is inserted after the marker.
//
//   <!-- costmodel-docs: write COMMAND -->
//       Runs a command for the files it writes (--plot docs/examples/x.svg, -o docs/x.csv); nothing in the
//       Markdown changes and its stdout is dropped. A `run` command may write files too.
//
// OPTIONS follow the directive after a colon, comma-separated: `run:head=4,tail=2 costmodel plan ...`.
//   head=N     keep the first N lines of the output (then a line "..." if lines were cut)
//   tail=N     keep the last N lines (after the "..." line when head= also cut)
//   raw        paste the output as Markdown up to `<!-- costmodel-docs: end -->` (see above)
//   nocmd      do not show "$ COMMAND"
//   stderr     capture stderr with stdout (e.g. to show an error message)
//   exit=N     the exit status the command must return (default 0); any other fails the run
//   timing     the whole block is a timing (benchmarks): left alone unless --bench, never compared
//
// COMMANDS run with /bin/sh from the top of a copy of the source tree, with the --bin folders (the fresh
// build's bin/, holding `costmodel`) first on PATH and COSTMODEL_DATA_DIR set to the source root. A marker's
// command may continue over lines with a trailing backslash, as in a shell. Identical commands run once.
// Commands must write files only under the copied folders (the docs' own: `docs/` for docs/*.md, and
// always docs/ when it exists), never elsewhere in the source tree.
//
// MASKING: wall-clock timings are the only values that may differ between runs: "in 0.032 s on 2 threads"
// and "elapsed_s": 0.1 compare equal whatever their numbers, and `timing` blocks are never compared. A block
// whose masked output is unchanged keeps its old text, so `make docs` does not churn timings.
//
// USAGE: costmodel-docs [--check] [--bench] [--bin DIR]... [--root DIR] [--blocks N] FILE...
//   FILE          Markdown files, relative to the root (README.md docs/examples.md ...)
//   --root DIR    the source tree (default: the working directory)
//   --check       regenerate into a temporary copy, print a unified diff of every difference, exit 1 if any
//   --bench       also regenerate `timing` blocks (make docs BENCH=1)
//   --bin DIR     put DIR first on the commands' PATH (repeatable)
//   --blocks N    only the first N markers of each file (the rest left as they are): for quick tests
// Without --check the same regeneration runs in a temporary copy, and only the files that changed are copied
// back, so a failing command leaves the tree as it was. Exit status: 0 success (no difference under
// --check), 1 differences under --check, 2 a bad marker, a failed command or bad usage.

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMarker = "<!-- costmodel-docs:";
constexpr std::string_view kEndMarker = "<!-- costmodel-docs: end -->";

/// A bad marker or a failed command, reported as FILE:LINE: error: MESSAGE.
struct DocsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  bool check = false;
  bool bench = false;
  std::vector<std::string> bin_dirs;
  fs::path root = fs::current_path();
  int max_blocks = -1;
  std::vector<std::string> files;
};

struct Marker {
  std::string directive;  ///< run | write
  bool raw = false;
  bool show_command = true;
  bool capture_stderr = false;
  bool timing = false;
  int expected_exit = 0;
  int head = -1;
  int tail = -1;
  std::string command;  ///< as written in the marker, lines joined with '\n'
};

struct CommandResult {
  int exit_code = 0;
  std::string out;
  std::string err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DocsError("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw DocsError("cannot write " + path.string());
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool is_number_char(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) || std::strchr("+-.eE", c);
}

/// The length of the number (digits, sign, point, exponent; at least one digit) at `at`, or 0.
size_t number_length(const std::string& text, size_t at) {
  size_t end = at;
  bool digit = false;
  for (; end < text.size() && is_number_char(text[end]); ++end) {
    digit = digit || std::isdigit(static_cast<unsigned char>(text[end]));
  }
  return digit ? end - at : 0;
}

/// Wall-clock timings (and the thread count beside them) replaced by placeholders: `"elapsed_s": 0.03` and
/// `in 0.032 s` / `in 0.032 s on 2 threads`. Hand-written rather than std::regex, whose GCC 12 headers warn
/// (maybe-uninitialized) under -O3 with the sanitizers, which -Werror turns into errors.
std::string masked(const std::string& text) {
  constexpr std::string_view kElapsed = "\"elapsed_s\":";
  constexpr std::string_view kIn = "in ";
  constexpr std::string_view kOn = " on ";
  std::string out;
  for (size_t at = 0; at < text.size();) {
    if (text.compare(at, kElapsed.size(), kElapsed) == 0) {
      size_t value = at + kElapsed.size();
      while (value < text.size() && text[value] == ' ') ++value;
      if (const size_t n = number_length(text, value); n > 0) {
        out += "\"elapsed_s\": <masked>";
        at = value + n;
        continue;
      }
    }
    const bool word_start = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    if (word_start && text.compare(at, kIn.size(), kIn) == 0) {
      const size_t value = at + kIn.size();
      const size_t n = number_length(text, value);
      if (n > 0 && text.compare(value + n, 2, " s") == 0 &&
          (value + n + 2 == text.size() || !std::isalnum(static_cast<unsigned char>(text[value + n + 2])))) {
        out += "in <masked> s";
        at = value + n + 2;
        // " on N thread(s)": the thread count is the machine's.
        if (text.compare(at, kOn.size(), kOn) == 0) {
          size_t digits = at + kOn.size();
          while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
          if (digits > at + kOn.size() && text.compare(digits, 7, " thread") == 0) {
            out += " on <n> thread";
            at = digits + 7;
          }
        }
        continue;
      }
    }
    out += text[at++];
  }
  return out;
}

int parse_count(const std::string& value, const std::string& what) {
  try {
    size_t used = 0;
    const int n = std::stoi(value, &used);
    if (used == value.size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  throw DocsError(what + ": expected a count, got '" + value + "'");
}

/// Parses the text between "<!-- costmodel-docs:" and "-->".
Marker parse_marker(const std::string& body) {
  Marker m;
  const std::string text = trim(body);
  const auto space = text.find_first_of(" \t\n");
  const std::string head = text.substr(0, space);
  m.command = space == std::string::npos ? "" : trim(text.substr(space));
  const auto colon = head.find(':');
  m.directive = head.substr(0, colon);
  if (m.directive != "run" && m.directive != "write") {
    throw DocsError("unknown directive '" + m.directive + "' (expected run, run:OPTIONS, write or end)");
  }
  if (colon != std::string::npos) {
    std::istringstream options(head.substr(colon + 1));
    for (std::string option; std::getline(options, option, ',');) {
      const auto eq = option.find('=');
      const std::string key = option.substr(0, eq);
      const std::string value = eq == std::string::npos ? "" : option.substr(eq + 1);
      if (key == "raw") {
        m.raw = true;
      } else if (key == "nocmd") {
        m.show_command = false;
      } else if (key == "stderr") {
        m.capture_stderr = true;
      } else if (key == "timing") {
        m.timing = true;
      } else if (key == "head") {
        m.head = parse_count(value, "head");
      } else if (key == "tail") {
        m.tail = parse_count(value, "tail");
      } else if (key == "exit") {
        m.expected_exit = parse_count(value, "exit");
      } else {
        throw DocsError("unknown option '" + option +
                        "' (expected head=N, tail=N, raw, nocmd, stderr, exit=N or timing)");
      }
    }
  }
  if (m.command.empty()) throw DocsError("the marker has no command");
  return m;
}

/// Runs `command` with /bin/sh in the working directory (the copy of the tree); stderr goes to a file, read
/// back for the error message, or along with stdout under `stderr`.
CommandResult run_shell(const std::string& command, bool capture_stderr, const fs::path& scratch) {
  const fs::path err_file = scratch / "stderr.txt";
  const std::string redirect = capture_stderr ? " 2>&1" : " 2>'" + err_file.string() + "'";
  const std::string line = "{ " + command + "\n}" + redirect;
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) throw DocsError(std::string("cannot start /bin/sh: ") + std::strerror(errno));
  CommandResult result;
  char buffer[1 << 16];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (!capture_stderr && fs::exists(err_file)) result.err = read_text(err_file);
  return result;
}

/// The lines a block shows: "$ COMMAND" and the output, cut to head/tail.
std::vector<std::string> block_lines(const Marker& m, const std::string& output) {
  std::vector<std::string> lines = split_lines(output);
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  const int n = static_cast<int>(lines.size());
  const int head = m.head < 0 ? (m.tail < 0 ? n : 0) : m.head;
  const int tail = m.tail < 0 ? 0 : m.tail;
  if (head + tail < n) {
    std::vector<std::string> cut(lines.begin(), lines.begin() + head);
    cut.emplace_back("...");
    cut.insert(cut.end(), lines.end() - tail, lines.end());
    lines = std::move(cut);
  }
  std::vector<std::string> shown;
  if (m.show_command) {
    const std::vector<std::string> command = split_lines(m.command);
    for (size_t i = 0; i < command.size(); ++i) {
      const std::string prompt = i == 0 ? "$ " + command[i] : command[i];
      shown.push_back(m.raw ? "`" + prompt + "`" : prompt);
    }
    if (m.raw) shown.emplace_back("");
  }
  shown.insert(shown.end(), lines.begin(), lines.end());
  return shown;
}

/// The fence that opens a code block ("```" or "~~~", three or more), or "" when the line opens none.
std::string opening_fence(const std::string& line) {
  const std::string text = trim(line);
  if (text.empty() || (text[0] != '`' && text[0] != '~')) return "";
  const size_t n = text.find_first_not_of(text[0]);
  const std::string fence = text.substr(0, n);
  return fence.size() >= 3 ? fence : "";
}

/// Whether the line closes a code block opened by `fence` (CommonMark: the same character, at least as
/// many, nothing else).
bool closes(const std::string& line, const std::string& fence) {
  const std::string text = trim(line);
  return text.size() >= fence.size() && text.find_first_not_of(fence[0]) == std::string::npos;
}

class Generator {
 public:
  Generator(const Options& options, fs::path scratch) : options_(options), scratch_(std::move(scratch)) {}

  /// Regenerates one Markdown file in place (a path in the copy); `name` is for messages.
  void generate(const fs::path& path, const std::string& name) {
    const std::vector<std::string> in = split_lines(read_text(path));
    std::vector<std::string> out;
    int markers = 0;
    std::string open_fence;  // inside a code block of the doc's own, where markers are only text
    for (size_t i = 0; i < in.size();) {
      const std::string& line = in[i];
      if (open_fence.empty()) {
        open_fence = opening_fence(line);
      } else if (closes(line, open_fence)) {
        open_fence.clear();
        out.push_back(line);
        ++i;
        continue;
      }
      if (!open_fence.empty() || !starts_with(trim(line), kMarker) || trim(line) == kEndMarker) {
        out.push_back(line);
        ++i;
        continue;
      }
      const size_t marker_line = i + 1;
      auto fail = [&](const std::string& message) {
        return DocsError(name + ":" + std::to_string(marker_line) + ": error: " + message);
      };
      // The marker, up to "-->".
      std::string body = trim(line).substr(kMarker.size());
      out.push_back(line);
      ++i;
      while (body.find("-->") == std::string::npos) {
        if (i == in.size()) throw fail("the marker is not closed with -->");
        body += "\n" + in[i];
        out.push_back(in[i]);
        ++i;
      }
      if (trim(body.substr(body.find("-->") + 3)).size() > 0)
        throw fail("text after --> on the marker's line");
      body = body.substr(0, body.find("-->"));
      Marker marker;
      try {
        marker = parse_marker(body);
      } catch (const DocsError& e) {
        throw fail(e.what());
      }
      const bool skip = (options_.max_blocks >= 0 && markers >= options_.max_blocks) ||
                        (marker.timing && (!options_.bench || options_.check));
      ++markers;

      // The region the marker owns: [begin, end) of `in`, with the lines kept around it.
      size_t begin = i, end = i;
      std::vector<std::string> prefix, suffix;
      if (marker.directive == "run" && marker.raw) {
        size_t j = i;
        while (j < in.size() && trim(in[j]) != kEndMarker && !(starts_with(trim(in[j]), kMarker))) ++j;
        if (j < in.size() && trim(in[j]) == kEndMarker) {
          end = j + 1;
        }
        suffix.emplace_back(kEndMarker);
      } else if (marker.directive == "run") {
        if (const std::string fence = i < in.size() ? opening_fence(in[i]) : ""; !fence.empty()) {
          size_t j = i + 1;
          while (j < in.size() && !closes(in[j], fence)) ++j;
          if (j == in.size()) throw fail("the code block after the marker is not closed");
          prefix.push_back(in[i]);
          suffix.push_back(in[j]);
          end = j + 1;
        } else {
          prefix.emplace_back("```text");
          suffix.emplace_back("```");
        }
      }
      const std::vector<std::string> old_region(in.begin() + begin, in.begin() + end);
      i = end;
      if (skip) {
        out.insert(out.end(), old_region.begin(), old_region.end());
        continue;
      }

      const CommandResult& result = run(marker, name, marker_line);
      if (marker.directive == "write") continue;
      std::vector<std::string> region = prefix;
      const std::vector<std::string> shown = block_lines(marker, result.out);
      region.insert(region.end(), shown.begin(), shown.end());
      if (marker.raw) region.emplace_back("");
      region.insert(region.end(), suffix.begin(), suffix.end());
      // Unchanged but for timings: keep the old text, so that regenerating does not churn.
      if (marker.timing || masked(join(region)) != masked(join(old_region))) {
        out.insert(out.end(), region.begin(), region.end());
      } else {
        out.insert(out.end(), old_region.begin(), old_region.end());
      }
    }
    write_text(path, join(out));
  }

 private:
  static std::string join(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
  }

  const CommandResult& run(const Marker& m, const std::string& name, size_t line) {
    const std::string key = std::string(m.capture_stderr ? "2>&1 " : "") + m.command;
    auto found = cache_.find(key);
    if (found == cache_.end()) {
      std::cerr << "costmodel-docs: " << name << ":" << line << ": " << first_line(m.command) << "\n";
      found = cache_.emplace(key, run_shell(m.command, m.capture_stderr, scratch_)).first;
    }
    const CommandResult& result = found->second;
    if (result.exit_code != m.expected_exit) {
      throw DocsError(name + ":" + std::to_string(line) + ": error: the command exited with " +
                      std::to_string(result.exit_code) + " (expected " + std::to_string(m.expected_exit) +
                      "): " + m.command + "\n" + result.err);
    }
    return result;
  }

  static std::string first_line(const std::string& command) {
    const auto nl = command.find('\n');
    return nl == std::string::npos ? command : command.substr(0, nl) + " ...";
  }

  const Options& options_;
  fs::path scratch_;
  std::map<std::string, CommandResult> cache_;
};

/// The top-level entries of the tree that are copied (the docs and what their commands write); the others
/// are linked, so that the commands see the whole source tree.
std::set<std::string> copied_entries(const Options& options) {
  std::set<std::string> copied;
  for (const auto& file : options.files) copied.insert(fs::path(file).begin()->string());
  if (fs::is_directory(options.root / "docs")) copied.insert("docs");
  return copied;
}

fs::path make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/costmodel-docs.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw DocsError("cannot create a temporary folder: " + std::string(std::strerror(errno)));
  }
  return pattern;
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::is_regular_file(dir)) return {dir};
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  return files;
}

int diff(const fs::path& a, const fs::path& b, const std::string& name) {
  const std::string command = "diff -u --label 'a/" + name + "' --label 'b/" + name + "' '" + a.string() +
                              "' '" + b.string() + "' 1>&2";
  return std::system(command.c_str());
}

Options parse_args(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 == argc) throw DocsError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--check") {
      options.check = true;
    } else if (arg == "--bench") {
      options.bench = true;
    } else if (arg == "--bin") {
      options.bin_dirs.push_back(fs::absolute(value()).string());
    } else if (arg == "--root") {
      options.root = value();
    } else if (arg == "--blocks") {
      options.max_blocks = parse_count(value(), "--blocks");
    } else if (arg == "--help" || arg == "-h") {
      std::cout
          << "usage: costmodel-docs [--check] [--bench] [--bin DIR]... [--root DIR] [--blocks N] FILE...\n"
             "(the marker syntax is described at the top of tools/docs/costmodel_docs.cpp)\n";
      std::exit(0);
    } else if (starts_with(arg, "-")) {
      throw DocsError("unknown option " + arg);
    } else {
      options.files.push_back(arg);
    }
  }
  if (options.files.empty()) throw DocsError("no Markdown file given");
  options.root = fs::canonical(options.root);
  for (const auto& file : options.files) {
    if (fs::path(file).is_absolute() || !fs::is_regular_file(options.root / file)) {
      throw DocsError(file + ": not a file under " + options.root.string());
    }
  }
  return options;
}

int run_tool(const Options& options) {
  const fs::path scratch = make_temp_dir();
  const fs::path copy = scratch / "tree";
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{scratch};

  // The copy: docs copied, everything else linked.
  fs::create_directory(copy);
  const std::set<std::string> copied = copied_entries(options);
  for (const auto& entry : fs::directory_iterator(options.root)) {
    const std::string name = entry.path().filename().string();
    if (copied.count(name) != 0) {
      fs::copy(entry.path(), copy / name, fs::copy_options::recursive);
    } else {
      fs::create_symlink(entry.path(), copy / name);
    }
  }

  std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "/usr/bin:/bin";
  std::string first;  // the given folders, in order, ahead of $PATH
  for (const auto& dir : options.bin_dirs) first += dir + ":";
  path = first + path;
  setenv("PATH", path.c_str(), 1);
  setenv("COSTMODEL_DATA_DIR", options.root.c_str(), 1);
  fs::current_path(copy);

  Generator generator(options, scratch);
  for (const auto& file : options.files) generator.generate(copy / file, file);

  // Compare the copied entries with the tree.
  int differences = 0;
  for (const auto& name : copied) {
    if (!fs::exists(copy / name)) continue;
    for (const auto& generated : files_under(copy / name)) {
      const std::string relative = fs::relative(generated, copy).string();
      const fs::path original = options.root / relative;
      const std::string now = read_text(generated);
      if (fs::exists(original)) {
        const std::string before = read_text(original);
        if (now == before || masked(now) == masked(before)) continue;
      }
      ++differences;
      if (options.check) {
        if (fs::exists(original)) {
          diff(original, generated, relative);
        } else {
          std::cerr << "costmodel-docs: " << relative << " is written by a command but is not in the tree\n";
        }
      } else {
        fs::create_directories(original.parent_path());
        write_text(original, now);
        std::cerr << "costmodel-docs: updated " << relative << "\n";
      }
    }
  }
  if (options.check && differences > 0) {
    std::cerr << "costmodel-docs: " << differences
              << " file(s) differ from what their commands print; run `make docs` and review the diff\n";
    return 1;
  }
  if (options.check) std::cerr << "costmodel-docs: the docs match their commands\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_tool(parse_args(argc, argv));
  } catch (const DocsError& e) {
    std::cerr << "costmodel-docs: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "costmodel-docs: error: " << e.what() << "\n";
  }
  return 2;
}
