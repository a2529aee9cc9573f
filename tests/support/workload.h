#pragma once
// How big the workloads that cost a test its time are (a campaign's cases, jittered replays, a
// run's length): the default suite and the sanitizer pass run the small instance of each, which
// asserts the same properties; `scripts/test --long` (EMUTRACE_TEST_WORKLOAD=full) runs the sizes
// a release is checked at (docs/testing.md).
#include <cstdlib>
#include <string_view>

namespace emutrace::test {

inline bool full_workload() {
    const char* w = std::getenv("EMUTRACE_TEST_WORKLOAD");
    return w && std::string_view(w) == "full";
}

/// `small` in the default suite, `full` in the long tier.
template <class T>
T sized(T small, T full) {
    return full_workload() ? full : small;
}

}  // namespace emutrace::test
