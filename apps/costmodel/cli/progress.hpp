// SPDX-License-Identifier: Apache-2.0
#pragma once
// A progress bar on stderr for the long-running commands (plan, scenario).

#include <chrono>
#include <ostream>
#include <string>

namespace costmodel::cli {

/// Shown once a run has taken a second and only when diagnostics go to the process's stderr and it is a
/// terminal; erased when destroyed. `label` names the work ("planning", "scenario").
class ProgressBar {
 public:
  ProgressBar(std::string label, std::ostream& err);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  /// Redraws the bar at `fraction` done, in [0, 1].
  void update(double fraction);

 private:
  std::string label_;
  std::ostream& err_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace costmodel::cli
