// The soak: tests/firmware/soak.c (a sensor sampled on a timer tick, the core asleep in between)
// for a day of emulated time with every analysis and output on, checkpointed every emulated hour.
// Prints, per checkpoint, the host time and the resident memory, and at the end whether the memory
// stayed flat after the first hours (warm-up) and the peak. A long run's memory must not grow with
// its length, and a kill must lose at most the hour since the last checkpoint.
//   bench_soak [--hours N] [--out DIR] [--outputs LIST]
//   (default 24 hours, a fresh directory under /tmp, every output: events,perfetto,trace,pft,record)
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_paths.h"
#include "emutrace/registry.h"
#include "emutrace/session.h"

namespace {

struct Checkpoint {
    double hour = 0, host_seconds = 0, rss_mib = 0;
    std::uintmax_t events_mib = 0;
};

double rss_mib() {
    std::ifstream statm("/proc/self/statm");
    unsigned long long size = 0, resident = 0;
    statm >> size >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
    int hours = 24;
    std::string out, outputs = "events,perfetto,trace,pft,record";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--hours" && i + 1 < argc)
            hours = std::atoi(argv[++i]);
        else if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--outputs" && i + 1 < argc)
            outputs = std::string(argv[++i]) + ",";
        else {
            std::fprintf(stderr,
                         "usage: bench_soak [--hours N] [--out DIR] [--outputs events,perfetto,trace,pft,record]\n"
                         "Runs tests/firmware/soak.c for N hours of emulated time (default 24) with every analysis and output on,\n"
                         "checkpointed each emulated hour, and prints the resident memory at each checkpoint.\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    if (hours < 3) hours = 3;
    if (out.empty()) {
        char dir[] = "/tmp/emutrace-soak-XXXXXX";
        if (!mkdtemp(dir)) return std::perror("bench_soak: mkdtemp"), 1;
        out = dir;
    }
    std::filesystem::create_directories(out);
    const std::string json = out + "/soak.json";

    emutrace::RunRequest request;
    request.firmware = emutrace::bench::firmware_dir() + "/soak.elf";
    request.scenario = emutrace::bench::bench_dir() + "/soak.yaml";
    request.machine.echo_output = false;
    request.machine.cmdline = std::to_string(hours * 3600);  // a sample per emulated second
    request.options = {{"json", json}, {"checkpoint_every", "1h"}};
    const std::pair<const char*, const char*> files[] = {
        {"events", "soak.events.jsonl"}, {"perfetto", "soak.perfetto.json"}, {"trace", "soak.trace"}, {"pft", "soak.pft"}, {"record", "soak.log"}};
    for (const auto& [name, file] : files)
        if (outputs.find(std::string(name) + ",") != std::string::npos) request.options[name] = out + "/" + file;
    std::printf("bench_soak: %d h of emulated time; analyses calltrace, constraints, wcet, sampler; outputs %s; files in %s\n", hours,
                outputs.c_str(), out.c_str());
    std::printf("  %6s %10s %10s %12s\n", "hour", "host s", "RSS MiB", "events MiB");

    // The run on this thread; a watcher reads each checkpoint as it lands and measures the memory then.
    std::vector<Checkpoint> seen;
    std::atomic<bool> done{false};
    std::thread watcher([&] {
        std::filesystem::file_time_type last{};
        while (!done) {
            std::error_code ec;
            auto t = std::filesystem::last_write_time(json, ec);
            if (!ec && t != last) {
                last = t;
                nlohmann::json j = nlohmann::json::parse(std::ifstream(json), nullptr, false);
                if (!j.is_discarded() && j.contains("checkpoint") && j["status"] == "running") {
                    Checkpoint c;
                    c.hour = j["checkpoint"]["emulated_seconds"].get<double>() / 3600.0;
                    c.host_seconds = j["checkpoint"]["host_seconds"];
                    c.rss_mib = rss_mib();
                    std::uintmax_t size = std::filesystem::file_size(out + "/soak.events.jsonl", ec);
                    c.events_mib = ec ? 0 : size >> 20;
                    seen.push_back(c);
                    std::printf("  %6.2f %10.1f %10.1f %12ju\n", c.hour, c.host_seconds, c.rss_mib, c.events_mib);
                    std::fflush(stdout);
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    emutrace::RunReport report;
    auto t0 = std::chrono::steady_clock::now();
    try {
        emutrace::Session session(registry, request);
        report = session.run();
    } catch (const std::exception& e) {
        done = true;
        watcher.join();
        std::fprintf(stderr, "bench_soak: %s\n", e.what());
        return 1;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    done = true;
    watcher.join();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("  run: %.1f h emulated in %.1f s host, %llu instructions, exit status %d\n", report.totals.emulated_seconds / 3600.0, seconds,
                static_cast<unsigned long long>(report.totals.instructions), report.status);
    if (seen.size() >= 3) {
        // Warm-up: the first half. Until then the bounded lists fill (the first 100,000 user
        // events and constraint windows, the first 1,000 violations), the translated code and the
        // analyses' tables grow to the program's size, and every output file's buffers are in use.
        const std::size_t half = seen.size() / 2 - 1;
        const Checkpoint& warm = seen[half];
        double top = warm.rss_mib;
        for (std::size_t i = half; i < seen.size(); ++i) top = std::max(top, seen[i].rss_mib);
        std::printf("  resident memory after warm-up (hour %.0f): %.1f MiB; highest after it: %.1f MiB (+%.1f%%); at the last checkpoint %.1f MiB\n",
                    warm.hour, warm.rss_mib, top, (top / warm.rss_mib - 1) * 100, seen.back().rss_mib);
    } else {
        std::printf("  only %zu checkpoints seen: no warm-up figure\n", seen.size());
    }
    std::printf("  peak resident memory, the end-of-run reports included: %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
    for (const auto& f : report.failures) std::printf("  failed: %s\n", f.c_str());
    return report.status == 0 ? 0 : 1;
}
