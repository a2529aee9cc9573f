// Runs of days: a run killed mid-way keeps its figures up to the last checkpoint, and what a
// long run keeps in memory per occurrence (constraint windows, violations, user events) is
// bounded while its counts stay whole. On tests/firmware/soak.c, a sensor sampled every emulated
// second (bench/soak.yaml; bench/bench_soak runs it for a day).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

std::uint64_t calls_of(const json& calltrace, const std::string& function) {
    for (const auto& f : calltrace["functions"])
        if (f["function"] == function) return f["calls"];
    return 0;
}

}  // namespace

TEST_CASE("checkpoints: a run killed mid-way leaves its last checkpoint, with every analysis's figures up to it") {
    TempDir dir;
    const std::string out = dir.file("soak.json");
    // Far more samples than it gets through: the run is killed after its third hourly checkpoint.
    const std::string run = emutrace_binary() + " run " + firmware("soak") + " -s " + source("bench/soak.yaml") +
                            " --cmdline 10000000 -q --wall-clock 120s --checkpoint-every 1h --json " + out;
    Cli killed = run_shell("(" + run + " & pid=$!; for i in $(seq 1 2400); do grep -q '\"number\": 3' " + out +
                           " 2>/dev/null && break; sleep 0.05; done; kill -9 $pid; wait $pid; echo \"status $?\")");
    REQUIRE_MESSAGE(killed.out.find("status 137") != std::string::npos, killed.out << killed.err);  // killed, not finished

    const json j = json::parse(read_file(out));  // whole: each checkpoint is renamed over the last
    CHECK(j["status"] == "running");
    const json& c = j["checkpoint"];
    const std::uint64_t n = c["number"];
    CHECK(n >= 3);
    const double hours = c["emulated_seconds"].get<double>() / 3600.0;
    CHECK(hours >= static_cast<double>(n));
    CHECK(hours < static_cast<double>(n) + 0.01);  // written at the first batch after the hour
    CHECK(c["rss_kib"].get<std::uint64_t>() > 0);
    // A sample a second from 1 s on, with up to 2 ms of jitter: the counts are the hours' samples.
    const auto samples = static_cast<std::uint64_t>(hours * 3600.0);
    const std::uint64_t calls = calls_of(j["calltrace"], "process_sample");
    CHECK(calls + 2 >= samples);
    CHECK(calls <= samples);
    CHECK(j["calltrace"]["user_event_counts"]["1"].get<std::uint64_t>() >= calls);
    for (const auto& k : j["calltrace"]["constraints"]) CHECK(k["occurrences"].get<std::uint64_t>() + 2 >= calls);
    CHECK(j["wcet"]["observed_runs"].get<std::uint64_t>() + 2 >= calls);  // the bound so far, from every run measured
    CHECK(j["wcet"]["bound_cycles"].get<std::uint64_t>() >= j["wcet"]["observed_max_cycles"].get<std::uint64_t>());
}

TEST_CASE("checkpoints: bad settings are one-line errors") {
    TempDir dir;
    Cli no_json = emutrace_cli("run " + firmware("soak") + " -s " + source("bench/soak.yaml") + " --checkpoint-every 1h");
    CHECK(no_json.status == 2);
    CHECK(no_json.err.find("give --json FILE") != std::string::npos);
    Cli bad = emutrace_cli("run " + firmware("soak") + " -s " + source("bench/soak.yaml") + " --checkpoint-every soon --json " + dir.file("x.json"));
    CHECK(bad.status == 2);
    CHECK(bad.err.find("'soon' is no duration") != std::string::npos);
}

TEST_CASE("long runs: a constraint violated at every occurrence keeps the first 1,000 in detail and counts them all") {
    TempDir dir;
    std::ofstream(dir.file("tight.yaml")) << read_file(source("bench/soak.yaml")) << "\n";
    std::string yaml = read_file(dir.file("tight.yaml"));
    for (std::size_t at; (at = yaml.find("limit: 300us")) != std::string::npos;) yaml.replace(at, 12, "limit: 1us");
    std::ofstream(dir.file("tight.yaml")) << yaml;
    Cli r = emutrace_cli("run " + firmware("soak") + " -s " + dir.file("tight.yaml") + " --cmdline 3000 --json " + dir.file("t.json") +
                         " --perfetto " + dir.file("t.perfetto.json"));
    CHECK(r.status == 1);
    const json j = json::parse(read_file(dir.file("t.json")));
    for (const auto& k : j["calltrace"]["constraints"]) {
        CHECK(k["occurrences"] == 3000);
        CHECK(k["violation_count"] == 3000);
        CHECK(k["violations"].size() == 1000);
        CHECK(k["passed"] == false);
    }
    const std::string text = r.out + r.err;  // a failing run's summary goes to stderr
    CHECK(text.find("VIOLATED 3000x") != std::string::npos);
    CHECK(text.find("... and 2995 more") != std::string::npos);
    // The Perfetto trace, written event by event, is one JSON document with every window.
    const json p = json::parse(read_file(dir.file("t.perfetto.json")));
    std::size_t windows = 0;
    for (const auto& e : p["traceEvents"]) windows += e.value("cat", "") == "constraint" && e["ph"] == "b";
    CHECK(windows == 6000);
}
