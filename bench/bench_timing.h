#pragma once
// Clocks and the median the benchmarks report with (interleaved runs, medians: the machine is noisy).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace emutrace::bench {

inline double clock_seconds(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
inline double wall_now() {
    return clock_seconds(CLOCK_MONOTONIC);
}
/// CPU time of every thread of the process: a sink on its own thread shows here.
inline double cpu_now() {
    return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// One figure's timings over interleaved runs; reads as their median.
struct Samples {
    std::vector<double> values;
    void add(double v) { values.push_back(v); }
    operator double() const { return median(values); }
};

/// The benchmarks' command line, `[--repeat N] [firmware.elf]`: false after printing `usage` for --help.
inline bool parse_repeat_and_elf(int argc, char** argv, const char* usage, int& repeat, std::string& elf) {
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::fputs(usage, stdout);
            return false;
        }
        if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else
            elf = argv[i];
    }
    return true;
}

}  // namespace emutrace::bench
