#pragma once
// For a test binary with a main of its own: whether doctest is only asked to list, count or
// describe its tests (ctest's discovery at build time), so that main sets up no fixture and
// skips nothing then.
#include <string_view>

namespace emutrace::test {

inline bool doctest_only_lists(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a.starts_with("--dt-")) a.remove_prefix(5);  // doctest's prefixed spelling
        a.remove_prefix(a.find_first_not_of('-') == std::string_view::npos ? a.size() : a.find_first_not_of('-'));
        for (std::string_view q :
             {"list-test-cases", "ltc", "list-test-suites", "lts", "list-reporters", "lr", "count", "c", "help", "h", "?", "version", "v"})
            if (a == q || a.starts_with(std::string(q) + "=")) return true;
    }
    return false;
}

}  // namespace emutrace::test
