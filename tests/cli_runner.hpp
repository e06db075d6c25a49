// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers for tests that drive the real `costmodel` binary (COSTMODEL_CLI_PATH):
//   const auto result = costmodel::test::run_cli({"catalog", "gpus", "--format", "json"});
//   CHECK(result.exit_code == 0);
//   const costmodel::Json json = costmodel::test::parse_json(result.out);   // throws on invalid JSON
// The child inherits the environment (CTest sets COSTMODEL_DATA_DIR to the source root); stdout and
// stderr are captured through temporary files, so large outputs cannot dead-lock a pipe.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "costmodel/report/json.hpp"

namespace costmodel::test {

/// What one run of the CLI produced.
struct CliResult {
  int exit_code = -1;  ///< the process's exit status; 128 + signal number if it was killed
  std::string out;     ///< stdout
  std::string err;     ///< stderr
};

/// A fresh empty directory under the system temp folder, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "costmodel-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// The names of the entries in the directory.
  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Runs `program` with `args` (no shell), stdin from /dev/null; `env` entries are added to the environment.
inline CliResult run_program(const std::string& program, const std::vector<std::string>& args,
                             const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const TempDir capture;
  const std::string out_path = (capture.path() / "stdout").string();
  const std::string err_path = (capture.path() / "stderr").string();

  std::vector<std::string> argv_storage;
  argv_storage.push_back(program);
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  CliResult result;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

#ifdef COSTMODEL_CLI_PATH
/// Runs the costmodel binary built with this tree.
inline CliResult run_cli(const std::vector<std::string>& args,
                         const std::vector<std::pair<std::string, std::string>>& env = {}) {
  return run_program(COSTMODEL_CLI_PATH, args, env);
}
#endif

/// A strict RFC 8259 parser into costmodel::Json, independent of the writer, to check outputs are valid.
/// Integers without fraction or exponent become int64; other numbers double. Throws std::runtime_error.
class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Json parse_document() {
    Json value = parse_value();
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("invalid JSON at offset " + std::to_string(pos_) + ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  char peek() {
    if (pos_ >= text_.size()) fail("unexpected end");
    return text_[pos_];
  }
  void expect(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("expected '" + std::string(word) + "'");
    pos_ += word.size();
  }

  Json parse_value() {
    skip_space();
    const char c = peek();
    if (c == '{') return parse_object();
    if (c == '[') return parse_array();
    if (c == '"') return Json(parse_string());
    if (c == 't') {
      expect("true");
      return Json(true);
    }
    if (c == 'f') {
      expect("false");
      return Json(false);
    }
    if (c == 'n') {
      expect("null");
      return Json();
    }
    return parse_number();
  }

  Json parse_object() {
    ++pos_;
    Json object = Json::object();
    skip_space();
    if (peek() == '}') {
      ++pos_;
      return object;
    }
    while (true) {
      skip_space();
      if (peek() != '"') fail("expected a key");
      std::string key = parse_string();
      skip_space();
      expect(":");
      object.set(key, parse_value());
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else {
        expect("}");
        return object;
      }
    }
  }

  Json parse_array() {
    ++pos_;
    Json array = Json::array();
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return array;
    }
    while (true) {
      array.push_back(parse_value());
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else {
        expect("]");
        return array;
      }
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("short \\u escape");
    unsigned code = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = text_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9') {
        code |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        code |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        code |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        fail("bad hex digit");
      }
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string parse_string() {
    ++pos_;
    std::string out;
    while (true) {
      const char c = peek();
      ++pos_;
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("unescaped control character");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++pos_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code <= 0xDBFF) {
            expect("\\u");
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("unpaired surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            fail("unpaired surrogate");
          }
          append_utf8(out, code);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }

  Json parse_number() {
    const size_t start = pos_;
    const auto digits = [&] {
      const size_t first = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      if (pos_ == first) fail("expected a digit");
    };
    bool integer = true;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else {
      digits();
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integer = false;
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integer = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      digits();
    }
    const std::string token(text_.substr(start, pos_ - start));
    if (integer) return Json(static_cast<std::int64_t>(std::stoll(token)));
    return Json(std::strtod(token.c_str(), nullptr));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

inline Json parse_json(std::string_view text) {
  return JsonParser(text).parse_document();
}

/// Whether `part` occurs in `text`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Errors are one line on stderr, ending in a newline, and nothing on stdout.
inline void check_one_line_error(const CliResult& result, int exit_code) {
  CHECK(result.exit_code == exit_code);
  CHECK(result.out.empty());
  REQUIRE_FALSE(result.err.empty());
  CHECK(result.err.back() == '\n');
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
}

/// The member `key` of a JSON object; fails the test when it is missing.
inline const Json& member(const Json& object, std::string_view key) {
  const Json* value = object.find(key);
  REQUIRE_MESSAGE(value != nullptr, "missing key " << key);
  return *value;
}

/// The number `key` of a JSON object (an integer or a double); fails the test otherwise.
inline double number(const Json& object, std::string_view key) {
  const Json& value = member(object, key);
  if (const auto* i = std::get_if<std::int64_t>(&value.value())) return static_cast<double>(*i);
  REQUIRE_MESSAGE(std::holds_alternative<double>(value.value()), key << " is not a number");
  return std::get<double>(value.value());
}

}  // namespace costmodel::test
