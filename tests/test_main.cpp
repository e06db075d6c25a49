// SPDX-License-Identifier: Apache-2.0
// The one main of costmodel_tests. CTest runs it once per unit, filtered to that unit's file
// (--source-file=*/<unit>.cpp, tests/CMakeLists.txt); a run whose filters match no test case fails, so a
// misspelt or stale registration cannot pass by testing nothing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

namespace {

/// Test cases that passed the filters in the last run (doctest's own count, from its listener interface).
int g_cases_run = -1;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): one process, one run

struct CountCases : doctest::IReporter {
  explicit CountCases(const doctest::ContextOptions& /*options*/) {}
  void report_query(const doctest::QueryData& /*data*/) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    g_cases_run = static_cast<int>(stats.numTestCasesPassingFilters);
  }
  void test_case_start(const doctest::TestCaseData& /*data*/) override {}
  void test_case_reenter(const doctest::TestCaseData& /*data*/) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& /*stats*/) override {}
  void test_case_exception(const doctest::TestCaseException& /*exception*/) override {}
  void subcase_start(const doctest::SubcaseSignature& /*signature*/) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData& /*data*/) override {}
  void log_message(const doctest::MessageData& /*data*/) override {}
  void test_case_skipped(const doctest::TestCaseData& /*data*/) override {}
};

DOCTEST_REGISTER_LISTENER("count_cases", 1, CountCases);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;  // --help, --list-test-cases and the like
  if (g_cases_run == 0) {
    std::cerr << "costmodel_tests: no test case matches the filters given\n";
    return 1;
  }
  return result;
}
