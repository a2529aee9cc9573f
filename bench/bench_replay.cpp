// What recording for record/replay costs the emulation (issue target: at most 2%; P-Replayer's
// record overhead is 1.46% geometric mean): rtos_bench.elf (the RTOS test application over 2,000
// items) through a Session, alone and recording its synchronisation with --record, interleaved;
// medians of wall-clock MIPS.
//   build/bench/bench_replay [--repeat N]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_timing.h"
#include "emutrace/registry.h"
#include "emutrace/session.h"

namespace {

using emutrace::bench::median;
using emutrace::bench::wall_now;

struct Outcome {
    double mips = 0, seconds = 0;
    std::uint64_t events = 0;
};

Outcome run(const emutrace::AnalysisRegistry& registry, const std::string& scenario, const std::string& log) {
    emutrace::RunRequest request;
    request.firmware = EMUTRACE_FIRMWARE_DIR "/rtos_bench.elf";
    request.scenario = scenario;
    request.machine.echo_output = false;
    if (!log.empty()) request.options["record"] = log;
    emutrace::Session session(registry, request);
    double t0 = wall_now();
    emutrace::RunReport report = session.run();
    Outcome o;
    o.seconds = wall_now() - t0;
    if (report.status != 0 || !report.error.empty()) {
        std::fprintf(stderr, "bench_replay: run failed: %s\n", report.error.c_str());
        std::exit(1);
    }
    o.mips = static_cast<double>(report.totals.instructions) / o.seconds / 1e6;
    nlohmann::json j = nlohmann::json::parse(report.json);
    if (j.contains("replay")) o.events = j["replay"]["events"];
    return o;
}

}  // namespace

int main(int argc, char** argv) try {
    int repeat = 5;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_replay [--repeat N]\n");
            return 2;
        }
    }
    char dir_template[] = "/tmp/bench_replay.XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (!dir) return 1;
    const std::string log = std::string(dir) + "/run.log";
    emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    std::vector<double> alone, recording;
    Outcome last;
    for (int i = 0; i < repeat; ++i) {
        alone.push_back(run(registry, EMUTRACE_SOURCE_DIR "/tests/scenarios/rtos.yaml", "").mips);
        last = run(registry, EMUTRACE_SOURCE_DIR "/tests/scenarios/rtos_replay.yaml", log);
        recording.push_back(last.mips);
    }
    std::remove(log.c_str());
    rmdir(dir);
    const double a = median(alone), r = median(recording);
    std::printf("bench_replay: rtos_bench.elf, median of %d interleaved runs, wall clock\n", repeat);
    std::printf("  %-28s %8.1f MIPS\n", "emulation alone", a);
    std::printf("  %-28s %8.1f MIPS  record overhead %5.2f%% (target <= 2%%; P-Replayer 1.46%%)  %llu events, %.0f events/s of emulated run\n",
                "recording (--record)", r, 100.0 * (a - r) / a, static_cast<unsigned long long>(last.events),
                static_cast<double>(last.events) / last.seconds);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_replay: %s\n", e.what());
    return 2;
}
