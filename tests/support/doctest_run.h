#pragma once
// Runs doctest and fails a run whose --test-case filter matched no test case. ctest runs each
// case by name (doctest_discover_tests); a name CMake cuts in two (a ';' is its list separator)
// matched nothing and passed with nothing run. Every test binary's main goes through here.
#include <doctest/doctest.h>

#include <cstdio>
#include <string_view>

namespace emutrace::test {

/// Listens to a run for how many test cases its filters let through.
struct FilterCountListener : doctest::IReporter {
    static inline int passing_filters = -1;  // -1: no run ended
    explicit FilterCountListener(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& stats) override { passing_filters = static_cast<int>(stats.numTestCasesPassingFilters); }
    void test_case_start(const doctest::TestCaseData&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

/// context.run(), failing (status 1) when a --test-case filter was given and nothing passed it.
inline int run_doctest(doctest::Context& context, int argc, char** argv) {
    int status = context.run();
    if (status || context.shouldExit()) return status;
    bool filtered = false;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        filtered |= a.starts_with("--test-case=") || a.starts_with("-tc=") || a.starts_with("--dt-test-case=");
    }
    if (filtered && FilterCountListener::passing_filters == 0) {
        std::fprintf(stderr, "no test case matches the --test-case filter: a name with ';' is cut in two by ctest\n");
        return 1;
    }
    return status;
}

}  // namespace emutrace::test
