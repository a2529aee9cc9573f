// What the sampling monitor costs the emulation (issue target: at most 5%), as `emutrace run`
// runs it, through a Session; interleaved runs, medians of wall-clock MIPS:
// - shadow markers: bench_compute.elf alone and with the sampler on sift_down (the hot heap-sort
//   function, sift_down.constprop.0 as GCC names it) at the BITVEC+ plan's guaranteed period and
//   slower ones, every interval checked;
// - real markers: sampled_bench.elf (the firmware samples itself from SysTick) alone, with the
//   field monitor (samples only, check: false), and with every interval checked.
//   build/bench/bench_sampler [--repeat N] [--function F]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_paths.h"
#include "bench_timing.h"
#include "emutrace/registry.h"
#include "emutrace/session.h"

namespace {

using emutrace::bench::cpu_now;
using emutrace::bench::median;
using emutrace::bench::wall_now;

struct Outcome {
    double mips = 0;
    double cpu_mips = 0;  ///< instructions per second of CPU time of every thread: the monitor's thread shows here
    nlohmann::json sampler;
};

Outcome run(const emutrace::AnalysisRegistry& registry, const std::string& scenario, const std::string& elf = "bench_compute.elf") {
    emutrace::RunRequest request;
    request.firmware = (emutrace::bench::firmware_dir() + "/") + elf;
    request.scenario = scenario;
    request.machine.echo_output = false;
    emutrace::Session session(registry, request);
    double t0 = wall_now(), c0 = cpu_now();
    emutrace::RunReport report = session.run();
    double s = wall_now() - t0, c = cpu_now() - c0;
    if (report.status != 0 || !report.error.empty()) {
        std::fprintf(stderr, "bench_sampler: run failed: %s %s\n", report.error.c_str(), report.failures.empty() ? "" : report.failures[0].c_str());
        std::exit(1);
    }
    Outcome o;
    o.mips = static_cast<double>(report.totals.instructions) / s / 1e6;
    o.cpu_mips = static_cast<double>(report.totals.instructions) / c / 1e6;
    nlohmann::json j = nlohmann::json::parse(report.json);
    if (j.contains("sampler")) o.sampler = j["sampler"];
    return o;
}

std::string scenario_file(const std::string& dir, const std::string& name, const std::string& sampler) {
    std::string path = dir + "/" + name + ".yaml";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "bench_sampler: cannot write %s\n", path.c_str());
        std::exit(1);
    }
    std::fprintf(f,
                 "cpu: cortex-m3\nclock: 25MHz\nmemory:\n"
                 "  - {name: flash, kind: flash, base: 0x00000000, size: 4MiB}\n"
                 "  - {name: sram,  kind: ram,   base: 0x20000000, size: 4MiB}\n"
                 "  - {name: apb,   kind: mmio,  base: 0x40000000, size: 64KiB}\n"
                 "  - {name: apb2,  kind: mmio,  base: 0x40020000, size: 4KiB}\n"
                 "peripherals:\n  - {name: uart0, type: cmsdk.uart, base: 0x40004000, params: {output: none}}\n"
                 "  - {name: marker, type: marker, base: 0x40020000}\n"
                 "stop:\n  wall_clock: 0s\n%s",
                 sampler.c_str());
    std::fclose(f);
    return path;
}

}  // namespace

int main(int argc, char** argv) try {
    int repeat = 5;
    std::string function = "sift_down.constprop.0";
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--function") && i + 1 < argc)
            function = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_sampler [--repeat N] [--function F]\n");
            return 2;
        }
    }
    char dir_template[] = "/tmp/bench_sampler.XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (!dir) return 1;
    emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    // The plan's period first, then the same plan sampled 4x and 16x less often.
    std::map<std::string, std::string> configs;
    configs["machine alone"] = scenario_file(dir, "alone", "");
    Outcome probe = run(registry, scenario_file(dir, "probe", "sampler: {function: " + function + ", scheme: bitvec+}\n"));
    const std::uint64_t period = probe.sampler["period"];
    std::vector<std::pair<std::string, std::uint64_t>> rows = {
        {"sampler at the plan's period", period}, {"sampler at 4x the period", period * 4}, {"sampler at 16x the period", period * 16}};
    for (std::size_t k = 0; k < rows.size(); ++k)
        configs[rows[k].first] =
            scenario_file(dir, "sampled" + std::to_string(k),
                          "sampler: {function: " + function + ", scheme: bitvec+, period: " + std::to_string(rows[k].second) + "}\n");
    std::map<std::string, std::vector<double>> mips, cpu_mips;
    std::map<std::string, nlohmann::json> last;
    for (int i = 0; i < repeat; ++i)
        for (const auto& [name, file] : configs) {
            Outcome o = run(registry, file);
            mips[name].push_back(o.mips);
            cpu_mips[name].push_back(o.cpu_mips);
            last[name] = o.sampler;
        }
    const double alone = median(mips["machine alone"]), alone_cpu = median(cpu_mips["machine alone"]);
    std::printf("bench_sampler: bench_compute.elf, sampler on %s (BITVEC+, Δt %llu), median of %d interleaved runs, wall clock\n", function.c_str(),
                static_cast<unsigned long long>(probe.sampler["delta_t"].get<std::uint64_t>()), repeat);
    std::printf("  %-32s %8.1f MIPS  (%.1f MIPS of CPU time)\n", "machine alone", alone, alone_cpu);
    for (const auto& [name, p] : rows) {
        const double m = median(mips[name]);
        const nlohmann::json& s = last[name];
        const double c = median(cpu_mips[name]);
        std::printf("  %-32s %8.1f MIPS  cost %5.1f%% (target <= 5%%), CPU %+.0f%%  period %llu: %llu samples, %llu/%llu intervals correct\n",
                    name.c_str(), m, 100.0 * (alone - m) / alone, 100.0 * (alone_cpu / c - 1), static_cast<unsigned long long>(p),
                    static_cast<unsigned long long>(s["samples"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(s["correct"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(s["intervals_checked"].get<std::uint64_t>()));
    }

    // The firmware that samples itself.
    std::vector<std::pair<std::string, std::string>> field = {
        {"firmware alone", scenario_file(dir, "field_alone", "")},
        {"field monitor (check: false)", scenario_file(dir, "field", "sampler: {function: classify, markers: firmware, check: false}\n")},
        {"monitor checking every interval", scenario_file(dir, "field_checked", "sampler: {function: classify, markers: firmware}\n")}};
    std::map<std::string, std::vector<double>> field_mips;
    std::map<std::string, nlohmann::json> field_last;
    for (int i = 0; i < repeat; ++i)
        for (const auto& [name, file] : field) {
            Outcome o = run(registry, file, "sampled_bench.elf");
            field_mips[name].push_back(o.mips);
            field_last[name] = o.sampler;
        }
    const double firmware_alone = median(field_mips["firmware alone"]);
    std::printf(
        "sampled_bench.elf: classify() with the header's real markers, sampled by its own SysTick handler (the plan's period plus "
        "the sample's measured cost)\n");
    std::printf("  %-32s %8.1f MIPS\n", "firmware alone", firmware_alone);
    for (std::size_t k = 1; k < field.size(); ++k) {
        const std::string& name = field[k].first;
        const double m = median(field_mips[name]);
        const nlohmann::json& s = field_last[name];
        std::printf("  %-32s %8.1f MIPS  cost %5.1f%% (target <= 5%%)  %llu samples, %llu intervals, %llu correct, %llu unique unchecked\n",
                    name.c_str(), m, 100.0 * (firmware_alone - m) / firmware_alone,
                    static_cast<unsigned long long>(s["samples"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(s["intervals_checked"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(s["correct"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(s["unique_unchecked"].get<std::uint64_t>()));
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_sampler: %s\n", e.what());
    return 2;
}
