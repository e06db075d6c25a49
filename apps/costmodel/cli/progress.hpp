// SPDX-License-Identifier: Apache-2.0
#pragma once
// A progress bar on stderr for the long-running commands (plan, scenario).

#include <chrono>
#include <string>

namespace costmodel::cli {

/// Shown once a run has taken a second and only when stderr is a terminal; erased when destroyed.
/// `label` names the work ("planning", "scenario").
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

}  // namespace costmodel::cli
