// Captures of several cores: each core's trace decoded apart, on its own clock, with its
// exceptions numbered as that core numbers them. A two-core capture is composed from two emulated
// runs' PFT streams, merged frame by frame into one ETB buffer as a CoreSight funnel does; each
// core must decode to exactly what its own run's single-core snapshot decodes to.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "sources/ptm/coresight_formatter.h"
#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& path) {
    std::string text = read_file(path);
    return {text.begin(), text.end()};
}

// `ini` with its first "name=..." line replaced.
std::string renamed(std::string ini, const std::string& name) {
    std::size_t at = ini.find("name="), end = ini.find('\n', at);
    REQUIRE(at != std::string::npos);
    return ini.replace(at, end - at, "name=" + name);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST_CASE("multi-core capture: each core decodes apart, on its own clock, as its own run's capture does") {
    TempDir dir;
    const std::string board = read_file(source("tests/scenarios/irq.yaml"));
    struct Core {
        std::string cmdline;
        unsigned trace_id;
        json alone;  // its own single-core snapshot, decoded
    };
    Core cores[] = {{"tailchain", 0x10, {}}, {"periodic", 0x11, {}}};
    for (Core& c : cores) {
        const std::string name = "core" + std::to_string(c.trace_id);
        std::ofstream(dir.file(name + ".yaml")) << board << "pft: {cycle_accurate: true, trace_id: " << c.trace_id << "}\n";
        Cli run = emutrace_cli("run " + firmware("irq_tests") + " -q -s " + dir.file(name + ".yaml") + " --cmdline " + c.cmdline + " --pft " +
                               dir.file(name + ".pft") + " --snapshot " + dir.file(name));
        REQUIRE_MESSAGE(run.status == 0, run.err);
        Cli alone = emutrace_cli("crosscheck --snapshot " + dir.file(name) + " --json " + dir.file(name + ".json") + " --elf " +
                                 firmware("irq_tests") + " --calltrace");
        REQUIRE_MESSAGE(alone.status == 0, alone.err);
        c.alone = json::parse(read_file(dir.file(name + ".json")));
        REQUIRE(c.alone["exceptions"].get<int>() > 0);
    }
    REQUIRE(cores[0].alone["instructions"] != cores[1].alone["instructions"]);

    // Both cores run the same image: they share one memory dump, as cores sharing memory do.
    const std::string both = dir.file("both");
    std::filesystem::create_directories(both);
    std::filesystem::copy_file(dir.file("core16/mem_cortex-m3_0.bin"), both + "/mem_cortex-m3_0.bin");
    std::ofstream(both + "/cpu_0.ini") << renamed(read_file(dir.file("core16/device1.ini")), "cpu_0");
    std::ofstream(both + "/cpu_1.ini") << renamed(read_file(dir.file("core17/device1.ini")), "cpu_1");
    std::ofstream(both + "/ptm_0.ini") << renamed(read_file(dir.file("core16/device2.ini")), "PTM_0");
    std::ofstream(both + "/ptm_1.ini") << renamed(read_file(dir.file("core17/device2.ini")), "PTM_1");
    std::ofstream(both + "/snapshot.ini") << "[snapshot]\nversion=1.0\n\n[device_list]\ndevice1=cpu_0.ini\ndevice2=ptm_0.ini\ndevice3=cpu_1.ini\n"
                                             "device4=ptm_1.ini\n\n[trace]\nmetadata=trace.ini\n";
    std::ofstream(both + "/trace.ini") << "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\nfile=cstrace.bin\nformat=coresight\n\n"
                                          "[source_buffers]\nPTM_0=ETB_0\nPTM_1=ETB_0\n\n[core_trace_sources]\ncpu_0=PTM_0\ncpu_1=PTM_1\n";
    const auto a = bytes_of(dir.file("core16.pft")), b = bytes_of(dir.file("core17.pft"));
    const emutrace::decode::FormatterInput inputs[] = {{a, 0x10}, {b, 0x11}};
    const auto merged = emutrace::decode::format_frames(inputs);
    std::ofstream(both + "/cstrace.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(merged.data()), static_cast<std::streamsize>(merged.size()));

    Cli check = emutrace_cli("crosscheck --snapshot " + both + " --json " + dir.file("both.json") + " --events " + dir.file("both.jsonl") +
                             " --elf " + firmware("irq_tests") + " --calltrace");
    REQUIRE_MESSAGE(check.status == 0, check.err);
    const json capture = json::parse(read_file(dir.file("both.json")));
    REQUIRE(capture["cores"].size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        const json& core = capture["cores"][i];
        CHECK(core["trace_id"] == cores[i].trace_id);
        CHECK(core["core"] == "cpu_" + std::to_string(i));
        CHECK(core["exceptions_numbered"] == "M-profile");
        CHECK(core["instructions"] == cores[i].alone["instructions"]);
        CHECK(core["exceptions"] == cores[i].alone["exceptions"]);
        CHECK(core["cycles"] == cores[i].alone["cycles"]);  // its own clock, not a sum over cores
    }
    CHECK(capture["instructions"] == cores[0].alone["instructions"].get<std::uint64_t>() + cores[1].alone["instructions"].get<std::uint64_t>());
    CHECK(check.out.find("cpu_1") != std::string::npos);  // the summary lists each core

    // The profile keeps each core's time on its own clock, however the two streams interleave:
    // the functions take, per function, the cycles they take in the two cores' own captures.
    const json both_json = json::parse(read_file(dir.file("both.json")));
    std::map<std::string, std::uint64_t> expected, merged_profile;
    for (const Core& c : cores)
        for (const auto& f : c.alone["calltrace"]["functions"]) expected[f["function"]] += f["exclusive_cycles"].get<std::uint64_t>();
    for (const auto& f : both_json["calltrace"]["functions"]) merged_profile[f["function"]] += f["exclusive_cycles"].get<std::uint64_t>();
    CHECK(!expected.empty());
    CHECK(merged_profile == expected);
    bool each_core_a_thread = true;
    for (const std::string thread : {"cpu_0 (PTM_0)", "cpu_1 (PTM_1)"})
        each_core_a_thread =
            each_core_a_thread && std::count(both_json["calltrace"]["threads"].begin(), both_json["calltrace"]["threads"].end(), thread) == 1;
    CHECK(each_core_a_thread);

    // The event log says which core each event comes from, and stamps it with that core's clock:
    // within a core, stamps never go back, although the two cores' streams interleave.
    int switches = 0;
    std::size_t core = 2;
    std::uint64_t last[2] = {0, 0};
    bool monotonic = true, named = false;
    for (const std::string& line : lines_of(read_file(dir.file("both.jsonl")))) {
        json e = json::parse(line);
        if (e["kind"] == "core") {
            core = e["core"] == "cpu_0" ? 0 : 1;
            ++switches;
            continue;
        }
        if (core > 1) continue;
        std::uint64_t cycle = e["cycle"];
        if (e["kind"] != "stop") monotonic = monotonic && cycle >= last[core], last[core] = cycle;
        if (e["kind"] == "exception_entry") {
            named = named || std::string(e["name"]).rfind("IRQ", 0) == 0;
            CHECK(!e.contains("stack"));  // a trace does not show which stack took the frame
        }
    }
    CHECK(switches > 2);  // the frames interleave
    CHECK(monotonic);
    CHECK(named);
}

TEST_CASE("capture of an A-profile core: exceptions are named in its profile, with no M-profile stack") {
    TempDir dir;
    Cli check = emutrace_cli("crosscheck --snapshot " + source("tests/data/captures/trace_cov_a15") + " --json " + dir.file("a15.json") +
                             " --events " + dir.file("a15.jsonl"));
    REQUIRE_MESSAGE(check.status == 0, check.err);
    const json capture = json::parse(read_file(dir.file("a15.json")));
    REQUIRE(capture["cores"].size() == 1);
    CHECK(capture["cores"][0]["core_type"] == "Cortex-A15");
    CHECK(capture["cores"][0]["exceptions_numbered"] == "PFT (A/R-profile)");
    int entries = 0;
    for (const std::string& line : lines_of(read_file(dir.file("a15.jsonl")))) {
        json e = json::parse(line);
        if (e["kind"] != "exception_entry") continue;
        ++entries;
        // OpenCSD's number 1 on a PTM is a debug halt (the capture ends in one), not M-profile's Reset.
        CHECK(e["exception"] == 1);
        CHECK(e["name"] == "Debug halt");
        CHECK(!e.contains("sp"));
    }
    CHECK(entries == capture["exceptions"]);
}
