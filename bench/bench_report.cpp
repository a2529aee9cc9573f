// The HTML report of a long run, for 10^8 instructions with --report, on two workloads:
// tests/firmware/soak.c under bench/soak.yaml (every analysis on; a day of sensor samples) and the
// call-heavy compute benchmark (hundreds of thousands of calls: the timeline and flame graph at
// their bounds). Prints the report's size (limit 5 MB), the time headless
// Chromium takes to open it (Page.navigate to the load event, median of 5 loads; limit 2 s), and
// the run's host time with and without --report (median of 3 interleaved runs) as a ratio.
//   bench_report [--instructions N] [--runs R] [--loads L] [--keep]
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_paths.h"
#include "bench_timing.h"
#include "support/devtools_pipe.h"

namespace fs = std::filesystem;
using emutrace::bench::Samples;
using emutrace::bench::wall_now;

namespace {

constexpr double kSizeLimitMB = 5.0, kOpenLimitSeconds = 2.0;

struct Workload {
    const char* name;
    std::string arguments;  ///< firmware, scenario and options of `emutrace run`
};

/// One `emutrace run` of a workload; its exit status (3 = stopped at the instruction limit).
int run(const Workload& w, const fs::path& dir, const std::string& instructions, bool report) {
    std::string cmd = emutrace::bench::emutrace_binary() + " run " + w.arguments + " --max-instructions " + instructions + " -q --json " +
                      (dir / "run.json").string() + (report ? " --report " + (dir / "report.html").string() : std::string()) + " >" +
                      (dir / "run.log").string() + " 2>&1 </dev/null";
    int raw = std::system(cmd.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string instructions = "1e8";
    int runs = 3, loads = 5;
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--instructions" && i + 1 < argc)
            instructions = argv[++i];
        else if (a == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--loads" && i + 1 < argc)
            loads = std::max(1, std::atoi(argv[++i]));
        else if (a == "--keep")
            keep = true;
        else {
            std::fprintf(stderr,
                         "usage: bench_report [--instructions N] [--runs R] [--loads L] [--keep]\n"
                         "The soak firmware for N instructions (default 1e8) with --report: the report's size, the time headless\n"
                         "Chromium takes to open it (median of L loads, default 5) and the run's host time with and without\n"
                         "--report (median of R interleaved runs, default 3). --keep leaves the files in place.\n");
            return a == "--help" ? 0 : 2;
        }
    }
    const Workload workloads[] = {{"soak firmware under bench/soak.yaml", emutrace::bench::firmware_dir() + "/soak.elf --scenario " +
                                                                              emutrace::bench::bench_dir() + "/soak.yaml --cmdline 1000000000"},
                                  {"compute benchmark, call-heavy", emutrace::bench::firmware_dir() + "/bench_compute.elf --scenario " +
                                                                        emutrace::bench::bench_dir() + "/compute_bench.yaml --calltrace"}};
    bool all_ok = true;
    for (const Workload& w : workloads) {
        const fs::path dir = fs::temp_directory_path() / ("emutrace-bench-report-" + std::to_string(::getpid()));
        fs::create_directories(dir);

        Samples with, without;
        for (int r = 0; r < runs; ++r)
            for (bool report : {false, true}) {
                double t0 = wall_now();
                int status = run(w, dir, instructions, report);
                double seconds = wall_now() - t0;
                if (status != 0 && status != 3) {  // 3: stopped at --max-instructions, as asked
                    std::fprintf(stderr, "bench_report: emutrace exited with status %d (see %s)\n", status, (dir / "run.log").c_str());
                    return 1;
                }
                (report ? with : without).add(seconds);
            }
        const fs::path html = dir / "report.html";
        if (!fs::exists(html)) {
            std::fprintf(stderr, "bench_report: emutrace wrote no report (%s)\n", (dir / "run.log").c_str());
            return 1;
        }
        nlohmann::json result = nlohmann::json::parse(std::ifstream(dir / "run.json"), nullptr, false);
        const double megabytes = static_cast<double>(fs::file_size(html)) / 1e6;

        Samples open;
        std::vector<std::string> errors;
        try {
            emutrace::test::DevtoolsBrowser browser;
            for (int i = 0; i < loads; ++i) {
                open.add(browser.open(emutrace::test::file_url(html) + "?load=" + std::to_string(i)));
                errors = browser.errors();
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_report: %s\n", e.what());
            return 1;
        }

        const double instructions_run = result.is_object() ? result.value("instructions", 0.0) : 0.0;
        std::size_t calls = 0;
        if (result.is_object() && result.contains("calltrace"))
            for (const auto& f : result["calltrace"]["functions"]) calls += f.value("calls", std::size_t{0});
        std::printf("bench_report: %s, %.3g instructions (%.0f s emulated, %zu calls), with --report\n", w.name, instructions_run,
                    result.is_object() ? result.value("emulated_seconds", 0.0) : 0.0, calls);
        std::printf("  report size        %8.3f MB   (%ju bytes; limit %.0f MB: %s)\n", megabytes, static_cast<std::uintmax_t>(fs::file_size(html)),
                    kSizeLimitMB, megabytes <= kSizeLimitMB ? "ok" : "OVER");
        std::printf("  open in Chromium   %8.0f ms   (navigation to load event, median of %d loads; limit %.0f s: %s)%s\n", open * 1000.0, loads,
                    kOpenLimitSeconds, open <= kOpenLimitSeconds ? "ok" : "OVER", errors.empty() ? "" : "  CONSOLE ERRORS");
        std::printf("  run without report %8.3f s\n", static_cast<double>(without));
        std::printf("  run with --report  %8.3f s    (%.2fx; medians of %d interleaved runs)\n", static_cast<double>(with),
                    static_cast<double>(with) / static_cast<double>(without), runs);
        for (const auto& e : errors) std::printf("  console error: %s\n", e.c_str());
        if (keep)
            std::printf("  files in %s\n", dir.c_str());
        else
            fs::remove_all(dir);
        all_ok = all_ok && megabytes <= kSizeLimitMB && open <= kOpenLimitSeconds && errors.empty();
    }
    return all_ok ? 0 : 1;
}
