// Campaign throughput on this machine: cases per minute of a franking campaign with one and two
// workers (interleaved, medians), and what merging costs: 10,000 real result files read, parsed
// and merged.
//   bench_campaign [--cases N] [--repeat R]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/campaign/campaign_merge.h"
#include "bench/bench_paths.h"

namespace fs = std::filesystem;

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int cases = 16, repeat = 3;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--cases" && i + 1 < argc)
            cases = std::max(2, std::atoi(argv[++i]));
        else if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: bench_campaign [--cases N] [--repeat R]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    fs::path dir = fs::temp_directory_path() / ("emutrace-bench-campaign-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string seeds;
    for (int s = 1; s <= cases; ++s) seeds += (s > 1 ? ", " : "") + std::to_string(s);
    std::ofstream(dir / "c.yaml") << "runs:\n  - firmware: franking\n    scenario: " + emutrace::bench::source_dir() +
                                         "/scenarios/franking/franking.yaml\n"
                                  << "    matrix: {seed: [" << seeds << "], \"stimuli[0].jitter\": [300us]}\n"
                                  << "outputs: {results: " << (dir / "results").string() << ", json: merged.json}\n";
    std::vector<double> one, two;
    for (int r = 0; r < repeat; ++r)
        for (int jobs : {1, 2}) {
            double t0 = now();
            std::string cmd = emutrace::bench::emutrace_binary() + " campaign " + (dir / "c.yaml").string() + " -q -j " + std::to_string(jobs);
            if (std::system(cmd.c_str()) == -1) return 1;
            double minutes = (now() - t0) / 60.0;
            (jobs == 1 ? one : two).push_back(cases / minutes);
        }
    std::printf("bench_campaign: %d cases of the franking demo (8 letters each), medians of %d interleaved runs\n", cases, repeat);
    std::printf("  -j 1   %8.0f cases per minute\n", median(one));
    std::printf("  -j 2   %8.0f cases per minute  (%.2fx)\n", median(two), median(two) / median(one));

    // Merging: one real result, written as 10,000 files, then read, parsed and merged.
    const std::string one_result = (dir / "results" / "case-0000" / "result.json").string();
    std::ifstream in(one_result);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const fs::path many = dir / "many";
    fs::create_directories(many);
    constexpr int kFiles = 10'000;
    for (int i = 0; i < kFiles; ++i) std::ofstream(many / (std::to_string(i) + ".json")) << text;
    double t0 = now();
    emutrace::app::MergedResults merged;
    const emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    for (int i = 0; i < kFiles; ++i) {
        std::ifstream f(many / (std::to_string(i) + ".json"));
        nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
        emutrace::CampaignCase c;
        c.id = c.label = "case-" + std::to_string(i);
        c.firmware = j.value("firmware", "");
        emutrace::app::merge_into(merged, emutrace::app::case_results(registry, j, c));
    }
    double seconds = now() - t0;
    std::printf("  merge  %d result files of %zu bytes read, parsed and merged in %.2f s (%.0f us each)\n", kFiles, text.size(), seconds,
                seconds / kFiles * 1e6);
    fs::remove_all(dir);
    return merged.cases == kFiles ? 0 : 1;
}
