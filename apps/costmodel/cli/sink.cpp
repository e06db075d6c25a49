// SPDX-License-Identifier: Apache-2.0
#include "cli/sink.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>

namespace costmodel::cli {

// ---------------------------------------------------------------------------------------------------
// Output

void add_output_options(po::options_description& options, bool launch, bool html) {
  std::string formats = "table|csv|json|markdown";
  if (html) formats += "|html";
  if (launch) formats += "|megatron|nemo|torchtitan";
  if (html) formats += " (html: a self-contained page";
  if (launch) {
    formats +=
        std::string(html ? "; " : " (") +
        "megatron|nemo|torchtitan: Megatron-LM arguments, NeMo 2 overrides, a torchtitan configuration";
  }
  if (html || launch) formats += ")";
  options.add_options()                                                                   //
      ("format", po::value<std::string>()->default_value("table")->value_name("FORMAT"),  //
       formats.c_str())                                                                   //
      ("output,o", po::value<std::string>()->value_name("FILE"),
       "write to FILE instead of stdout (replaced only once complete)");
}

OutputOptions read_output_options(const po::variables_map& values, const Context& context, bool launch,
                                  bool html) {
  OutputOptions options;
  if (const auto name = string_option(values, "format")) {
    std::vector<std::string> known = {"table", "csv", "json", "markdown"};
    if (html) known.emplace_back("html");
    if (launch) known.insert(known.end(), {"megatron", "nemo", "torchtitan"});
    const auto format = parse_format(*name);
    const bool refused = format && ((!launch && is_launch(*format)) || (!html && *format == Format::kHtml));
    if (!format || refused) {
      const std::string hint = did_you_mean(*name, known);
      const std::string why = format && *format == Format::kHtml
                                  ? "'html' writes a report page: plan, estimate and scenario only"
                                  : "'" + *name + "' writes launch arguments: plan and estimate only";
      throw usage_error(context, "--format", format ? why : "unknown format '" + *name + "'",
                        hint.empty() || format ? "expected one of " + join(known, ", ") : hint);
    }
    options.format = *format;
  }
  if (const auto path = string_option(values, "output")) {
    if (path->empty()) throw usage_error(context, "-o", "expected a file name");
    options.path = *path;
  }
  return options;
}

OutputSink::OutputSink(const OutputOptions& options, Context context, std::string flag)
    : format_(options.format), context_(std::move(context)), flag_(std::move(flag)), path_(options.path) {
  if (path_.empty()) return;
  const std::filesystem::path target(path_);
  std::error_code ec;
  if (!target.has_filename() || std::filesystem::is_directory(target, ec)) {
    throw usage_error(context_, flag_, "'" + path_ + "' is a directory, not a file name");
  }
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
  if (!std::filesystem::is_directory(folder, ec)) {
    throw usage_error(context_, flag_,
                      "cannot write '" + path_ + "': no such directory '" + folder.string() + "'");
  }
  // A hidden sibling, so the rename stays within one file system. (Built by append: GCC 12 warns
  // falsely about `"literal" + std::string&&` under -O2 -Wrestrict.)
  std::string temp_name(".");
  temp_name.append(target.filename().string()).append(".tmp-XXXXXX");
  std::string temp = (folder / temp_name).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw usage_error(context_, flag_, "cannot write '" + path_ + "': " + std::strerror(errno));
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
    throw usage_error(context_, flag_, "cannot write '" + path_ + "'");
  }
}

OutputSink::~OutputSink() {
  if (!temp_path_.empty() && !committed_) {
    file_.close();
    std::remove(temp_path_.c_str());
  }
}

std::ostream& OutputSink::stream() {
  return path_.empty() ? *context_.out : file_;
}

void OutputSink::commit() {
  if (path_.empty()) {
    context_.out->flush();
    if (!*context_.out) throw usage_error(context_, "", "cannot write to standard output");
    committed_ = true;
    return;
  }
  file_.flush();
  const bool written = static_cast<bool>(file_);
  file_.close();
  if (!written || file_.fail()) {
    throw usage_error(context_, flag_, "cannot write '" + path_ + "'");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw usage_error(context_, flag_, "cannot write '" + path_ + "': " + std::strerror(errno));
  }
  committed_ = true;
}

void emit(OutputSink& sink, const Table& table) {
  write_table(sink.stream(), table, sink.format());
  sink.commit();
}

void emit(OutputSink& sink, const Json& document) {
  write_document(sink.stream(), document, sink.format());
  sink.commit();
}

}  // namespace costmodel::cli
