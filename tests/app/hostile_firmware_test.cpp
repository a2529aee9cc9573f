// Firmware is untrusted input: each way a firmware can misbehave ends the run with one line that
// says what happened, its exit status, and every output written so far readable (the JSON, the
// JSON Lines events, the compact trace).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"
#include "support/workload.h"

using namespace emutrace::test;

namespace {

struct Outcome {
    Cli cli;
    nlohmann::json json;
    std::size_t events = 0;
};

// Runs faults.elf in `mode` with every output on, and checks that each output reads back.
Outcome run_mode(const std::string& mode, const std::string& extra = "", const std::string& scenario = "tests/scenarios/faults.yaml") {
    TempDir dir;
    Outcome o;
    o.cli = emutrace_cli("run " + firmware("faults") + (scenario.empty() ? "" : " -s " + source(scenario)) + " --cmdline '" + mode + "' -q --json " +
                         dir.file("r.json") + " --events " + dir.file("e.jsonl") + " --trace " + dir.file("t.bin") + " " + extra);
    o.json = nlohmann::json::parse(read_file(dir.file("r.json")), nullptr, false);
    CHECK_MESSAGE(!o.json.is_discarded(), "the JSON result does not parse");
    std::istringstream events(read_file(dir.file("e.jsonl")));
    for (std::string line; std::getline(events, line); ++o.events) {
        if (nlohmann::json::parse(line, nullptr, false).is_discarded()) {
            FAIL_CHECK("event line " << o.events << " does not parse: " << line.substr(0, 120));
            break;
        }
    }
    CHECK(emutrace_cli("dump " + dir.file("t.bin")).status == 0);
    return o;
}

std::size_t error_lines(const Cli& c) {
    std::size_t n = 0;
    for (std::size_t at = 0; (at = c.err.find("emutrace: error:", at)) != std::string::npos; ++at) ++n;
    return n;
}

}  // namespace

TEST_CASE("hostile firmware: faults end in one line naming the fault and the instruction, with exit status 2 and the outputs written") {
    struct Case {
        const char* mode;
        const char* says;
    };
    for (const Case& c :
         {Case{"stack-overflow", "write to unmapped memory at 0x1ffff"},
          Case{"jump-unmapped", "instruction fetch from unmapped memory at 0x60000000"}, Case{"jump-data", "undefined instruction, pc 0x"},
          Case{"vtor-unmapped", "bad vector table"}, Case{"smc", "instruction fetch from non-executable memory"}}) {
        CAPTURE(c.mode);
        Outcome o = run_mode(c.mode);
        CHECK(o.cli.status == 2);
        CHECK(error_lines(o.cli) == 1);
        CHECK(o.cli.err.find(c.says) != std::string::npos);
        CHECK(o.json["stop_reason"] == "fault");
        CHECK(o.events > 0);
    }
}

TEST_CASE("hostile firmware: code written into executable RAM and rewritten runs as written, in both cycle models") {
    for (const char* timing : {"trm", "pipeline"}) {
        CAPTURE(timing);
        Outcome o = run_mode("smc", std::string("--timing ") + timing, "");
        CHECK(o.cli.status == 0);
        CHECK(o.json["exit_code"] == 0);
    }
    Cli printed = emutrace_cli("run " + firmware("faults") + " --cmdline smc");
    CHECK(printed.out.find("faults: smc 1 2") != std::string::npos);
}

TEST_CASE("hostile firmware: an interrupt storm and a runaway loop are stopped by the limits, outputs intact") {
    // No wall clock on the two that test the instruction limit: under the sanitizers on a busy
    // host 200 M instructions can take longer than the scenario's 20 s (161 M did).
    Outcome storm = run_mode("irq-storm", "--max-instructions 2e6 --wall-clock 0");
    CHECK(storm.cli.status == 3);
    CHECK(storm.json["exceptions"].get<std::uint64_t>() > 100'000);  // nearly all of it in the handler
    CHECK(storm.json["stop_reason"] == "max_instructions");
    // 20 M instructions in the default suite, 200 M in the long tier: the limit, not the firmware,
    // ends either, and the events stop at their own limit long before.
    const std::uint64_t limit = sized<std::uint64_t>(20'000'000, 200'000'000);
    Outcome runaway = run_mode("spin", "--max-instructions " + std::to_string(limit) + " --wall-clock 0 --events-limit 1MiB");
    CHECK(runaway.cli.status == 3);
    CHECK(runaway.json["instructions"].get<std::uint64_t>() >= limit);
    CHECK(runaway.json["stop_reason"] == "max_instructions");
    Outcome timed_out = run_mode("spin", "--wall-clock 1s --events-limit 1MiB");
    CHECK(timed_out.cli.status == 4);
    CHECK(timed_out.json["stop_reason"] == "wall_clock");
}
