// SPDX-License-Identifier: Apache-2.0
#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>

namespace costmodel::cli {

// ---------------------------------------------------------------------------------------------------
// ProgressBar

namespace {
constexpr double kProgressDelay_s = 1.0;
constexpr int kProgressWidth = 40;
}  // namespace

ProgressBar::ProgressBar(std::string label, std::ostream& err)
    : label_(std::move(label)),
      err_(err),
      enabled_(&err == &std::cerr && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  if (shown_) err_ << '\r' << std::string(label_.size() + kProgressWidth + 10, ' ') << '\r' << std::flush;
}

void ProgressBar::update(double fraction) {
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < kProgressDelay_s) return;
  shown_ = true;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressWidth);
  err_ << '\r' << label_ << " [" << std::string(static_cast<size_t>(filled), '#')
       << std::string(static_cast<size_t>(kProgressWidth - filled), ' ') << "] "
       << static_cast<int>(fraction * 100.0) << "%" << std::flush;
}

}  // namespace costmodel::cli
