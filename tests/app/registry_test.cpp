// The analysis registry through the command: every registered analysis is listed, runs from
// the scenario or the command line, and runs on a decoded capture through the same path as on
// an emulated run.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "emutrace/registry.h"
#include "emutrace/session.h"
#include "support/cli.h"
#include "support/run_firmware.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

nlohmann::json read_json(const std::string& path) {
    return nlohmann::json::parse(read_file(path));
}

std::map<std::string, std::uint64_t> calls_by_function(const nlohmann::json& calltrace) {
    std::map<std::string, std::uint64_t> out;
    for (const auto& f : calltrace["functions"]) out[f["function"].get<std::string>()] = f["calls"].get<std::uint64_t>();
    return out;
}

}  // namespace

TEST_CASE("registry: emutrace analyses lists every registered analysis with its keys") {
    Cli r = emutrace_cli("analyses");
    REQUIRE(r.status == 0);
    const AnalysisRegistry registry = AnalysisRegistry::builtin();
    for (const auto& t : registry.types()) {
        CHECK(("\n" + r.out).find("\n" + t.name + "\n") != std::string::npos);
        for (const auto& s : t.sections) CHECK(r.out.find(s + ":") != std::string::npos);
        for (const auto& o : t.outputs) CHECK(r.out.find(o.flag() + " " + o.value_name) != std::string::npos);
        for (const auto& f : t.flags) CHECK(r.out.find(f.flag()) != std::string::npos);
    }
}

TEST_CASE("registry: every option emutrace analyses lists is spelt as emutrace run (an analysis's) or decode (a source's) accepts it") {
    // The list once printed --wcet_stats and --events_limit, which the command line refuses.
    Cli list = emutrace_cli("analyses");
    Cli run_help = emutrace_cli("run --help"), decode_help = emutrace_cli("decode --help");
    REQUIRE(list.status == 0);
    REQUIRE(run_help.status == 0);
    REQUIRE(decode_help.status == 0);
    std::istringstream lines(list.out);
    int listed = 0;
    const Cli* help = &run_help;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("Recorded sources", 0) == 0) help = &decode_help;
        std::istringstream words(line);
        std::string kind, flag;
        words >> kind >> flag;
        if (kind != "output" && kind != "option") continue;
        ++listed;
        INFO(line);
        CHECK(flag.find('_') == std::string::npos);
        CHECK(help->out.find(flag + " ") != std::string::npos);
    }
    CHECK(listed >= 10);
    CHECK(help == &decode_help);
}

TEST_CASE("registry: a section no analysis registered is an unknown key, with its line") {
    TempDir dir;
    write_file(dir.file("s.yaml"), "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\nmmio_histogram: {top: 3}\n");
    Cli r = emutrace_cli("run " + firmware("compute") + " -s " + dir.file("s.yaml"));
    CHECK(r.status == 2);
    CHECK(r.err.find("s.yaml:3:1: mmio_histogram: unknown key") != std::string::npos);
}

TEST_CASE("registry: the call tracer and the WCET bound read a cycle-accurate capture as they read the emulated run") {
    TempDir dir;
    std::string scenario = source("tests/scenarios/pft_cycle_accurate.yaml");
    Cli run = emutrace_cli("run " + firmware("wcet") + " -s " + scenario + " --snapshot " + dir.file("snap") +
                           " --calltrace --wcet wcet_scan --json " + dir.file("emulated.json"));
    REQUIRE(run.status == 0);
    Cli cc = emutrace_cli("crosscheck --snapshot " + dir.file("snap") + " --elf " + firmware("wcet") + " --calltrace --wcet wcet_scan --json " +
                          dir.file("capture.json"));
    REQUIRE(cc.status == 0);
    nlohmann::json emulated = read_json(dir.file("emulated.json")), capture = read_json(dir.file("capture.json"));
    // The same calls of every function, from the capture's branch addresses and atoms.
    auto calls = calls_by_function(capture["calltrace"]);
    CHECK(calls == calls_by_function(emulated["calltrace"]));
    CHECK(calls.at("wcet_scan") == 5);
    // The same bound, loop bound and longest run, trusted: the capture's ranges run through loop
    // headers that the emulator splits at, and the aggregation steps through them.
    CHECK(capture["wcet"]["trusted"] == true);
    CHECK(capture["wcet"]["bound_cycles"] == emulated["wcet"]["bound_cycles"]);
    CHECK(capture["wcet"]["observed_max_cycles"] == emulated["wcet"]["observed_max_cycles"]);
    CHECK(capture["wcet"]["loops"][0]["bound"] == emulated["wcet"]["loops"][0]["bound"]);
    CHECK(cc.out.find("WCET of wcet_scan") != std::string::npos);
}

TEST_CASE("registry: an analysis that needs symbols says so on a capture without the ELF") {
    TempDir dir;
    REQUIRE(emutrace_cli("run " + firmware("compute") + " --snapshot " + dir.file("snap")).status == 0);
    Cli cc = emutrace_cli("crosscheck --snapshot " + dir.file("snap") + " --calltrace");
    CHECK(cc.status == 2);
    CHECK(cc.err.find("give the ELF (--elf)") != std::string::npos);
}

TEST_CASE("registry: the PFT stream does not depend on which analyses run beside it") {
    // The WCET analysis makes the emulator split blocks at its trace points; each part but the
    // last is no waypoint, so the trace a PTM would give stays the same byte for byte.
    TempDir dir;
    std::string scenario = source("tests/scenarios/pft_cycle_accurate.yaml");
    REQUIRE(emutrace_cli("run " + firmware("wcet") + " -s " + scenario + " --pft " + dir.file("alone.bin")).status == 0);
    REQUIRE(emutrace_cli("run " + firmware("wcet") + " -s " + scenario + " --wcet wcet_scan --calltrace --pft " + dir.file("with.bin")).status == 0);
    std::string alone = read_file(dir.file("alone.bin"));
    CHECK(!alone.empty());
    CHECK(alone == read_file(dir.file("with.bin")));
}

TEST_CASE("registry: a row that takes a name, section or option already taken is refused") {
    AnalysisRegistry r = AnalysisRegistry::builtin();
    auto none = [](const AnalysisSetup&) -> std::unique_ptr<Analysis> { return nullptr; };
    CHECK_THROWS_WITH_AS(r.add({"wcet", "again", {}, {}, {}, 0, none}), doctest::Contains("'wcet' is registered twice"), ConfigError);
    CHECK_THROWS_WITH_AS(r.add({"mine", "", {"constraints"}, {}, {}, 0, none}), doctest::Contains("section 'constraints' is already taken"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(r.add({"mine", "", {}, {{"perfetto", "FILE", ""}}, {}, 0, none}), doctest::Contains("--perfetto is already taken"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(r.add({"mine", "", {}, {}, {{"json", "", ""}}, 0, none}), doctest::Contains("--json is already taken"), ConfigError);
    r.add({"mine", "counts", {"mine"}, {}, {{"mine", "", ""}}, 0, none});
    CHECK(r.find("mine") != nullptr);
    const std::vector<std::string> sections = r.sections();
    CHECK(std::count(sections.begin(), sections.end(), "mine") == 1);
}

TEST_CASE("registry: an option no analysis takes is an error of the session, before anything runs") {
    RunRequest request;
    request.firmware = firmware("compute");
    request.options["no-such-analysis"] = "";
    CHECK_THROWS_WITH_AS(Session(AnalysisRegistry::builtin(), request), doctest::Contains("--no-such-analysis: no registered analysis"), ConfigError);
}

TEST_CASE("markers: a plan for a real function raises Δt step by step and says why it stopped") {
    TempDir dir;
    Cli r = emutrace_cli("markers " + firmware("kernels") + " -f kernel_sort --scheme bitvec --steps 20 --json " + dir.file("m.json"));
    REQUIRE(r.status == 0);
    nlohmann::json j = read_json(dir.file("m.json"));
    std::vector<std::uint64_t> dt = j["delta_t"];
    REQUIRE(dt.size() >= 2);
    // BITVEC takes a fresh bit each step: no step lowers Δt, and the plan ends higher than it began.
    for (std::size_t i = 1; i < dt.size(); ++i) CHECK(dt[i] >= dt[i - 1]);
    CHECK(dt.back() > dt.front());
    CHECK(j["bits"] == j["steps"].size());
    CHECK(!j["stopped"].get<std::string>().empty());
    CHECK(r.out.find("achieved Δt") != std::string::npos);
    Cli bad = emutrace_cli("markers " + firmware("kernels") + " -f kernel_sort --scheme nope");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("unknown scheme 'nope'") != std::string::npos);
}

TEST_CASE("markers: scheme none, as the sampler section knows it, gives the bare function's Δt and no markers") {
    TempDir dir;
    Cli none = emutrace_cli("markers " + firmware("kernels") + " -f kernel_sort --scheme none --json " + dir.file("none.json"));
    REQUIRE(none.status == 0);
    Cli planned = emutrace_cli("markers " + firmware("kernels") + " -f kernel_sort --scheme bitvec+ --steps 5 --json " + dir.file("planned.json"));
    REQUIRE(planned.status == 0);
    nlohmann::json bare = read_json(dir.file("none.json")), with = read_json(dir.file("planned.json"));
    CHECK(bare["marker_bytes"] == 0);
    CHECK(bare["steps"].empty());
    CHECK(bare["achieved_delta_t"] == with["delta_t"][0]);  // where the other schemes start
    CHECK(with["achieved_delta_t"].get<std::uint64_t>() > bare["achieved_delta_t"].get<std::uint64_t>());
}

TEST_CASE("markers: the best cases are the cycles of the core the ELF was built for, unless --cpu names one") {
    TempDir dir;
    auto core_of = [&](const std::string& args) {
        Cli r = emutrace_cli("markers " + args + " --steps 2 --json " + dir.file("m.json"));
        REQUIRE(r.status == 0);
        return read_json(dir.file("m.json"))["cpu"].get<std::string>();
    };
    CHECK(core_of(firmware("float_m4f") + " -f filter") == "cortex-m4f");  // Tag_CPU_arch v7E-M with an FPU
    CHECK(core_of(firmware("kernels") + " -f kernel_sort") == "cortex-m3");
    CHECK(core_of(firmware("kernels") + " -f kernel_sort --cpu cortex-m0") == "cortex-m0");
}

namespace {

nlohmann::json sampler_run(const TempDir& dir, const std::string& section) {
    write_file(dir.file("s.yaml"),
               "memory:\n  - {name: flash, kind: flash, base: 0x00000000, size: 4MiB}\n"
               "  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\nsampler: " +
                   section + "\n");
    Cli r = emutrace_cli("run " + firmware("kernels") + " -s " + dir.file("s.yaml") + " --json " + dir.file("r.json"));
    REQUIRE(r.status == 0);
    return read_json(dir.file("r.json"))["sampler"];
}

}  // namespace

TEST_CASE("sampler: every path between samples is reconstructed at the period the marker plan guarantees, and not without markers") {
    TempDir dir;
    nlohmann::json planned = sampler_run(dir, "{function: kernel_sort, scheme: bitvec+}");
    std::uint64_t period = planned["period"];
    CHECK(period + 1 == planned["delta_t"].get<std::uint64_t>());
    CHECK(planned["intervals_checked"].get<std::uint64_t>() > 100);
    CHECK(planned["correct"] == planned["intervals_checked"]);
    CHECK(planned["ambiguous"] == 0);
    CHECK(planned["wrong"] == 0);
    CHECK(planned["marker_bytes"].get<std::uint64_t>() > 0);
    // The same period without markers: the samples no longer tell the sort's paths apart.
    nlohmann::json bare = sampler_run(dir, "{function: kernel_sort, scheme: none, period: " + std::to_string(period) + "}");
    CHECK(bare["intervals_checked"].get<std::uint64_t>() > 100);
    CHECK(bare["ambiguous"].get<std::uint64_t>() * 10 > bare["intervals_checked"].get<std::uint64_t>() * 9);
    CHECK(bare["wrong"] == 0);
    // Seeded jitter: intervals up to period + jitter, still below the plan's Δt.
    nlohmann::json jittered =
        sampler_run(dir, "{function: kernel_sort, scheme: bitvec+, period: " + std::to_string(period - 4) + ", jitter: 4, seed: 3}");
    CHECK(jittered["correct"] == jittered["intervals_checked"]);
    // What the monitor would cost on target: a sample's cost each, and the markers' operations.
    std::uint64_t samples = planned["samples"];
    CHECK(planned["sampling_cost_cycles"].get<std::uint64_t>() > samples * 40);
    CHECK(planned["trace_cost_cycles"].get<std::uint64_t>() > 0);
}

TEST_CASE("sampler: run --sampler names the function when the section comes from --set") {
    // docs/sampler.md: the section's keys from the scenario or --set, the function from --sampler.
    TempDir dir;
    write_file(dir.file("s.yaml"),
               "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\n  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\n");
    Cli r = emutrace_cli("run " + firmware("kernels") + " -s " + dir.file("s.yaml") + " --set sampler.scheme=bitvec --sampler kernel_sort --json " +
                         dir.file("r.json"));
    REQUIRE(r.status == 0);
    nlohmann::json j = read_json(dir.file("r.json"))["sampler"];
    CHECK(j["function"] == "kernel_sort");
    CHECK(j["scheme"] == "bitvec");
    CHECK(j["intervals_checked"].get<std::uint64_t>() > 100);
    // The command line wins over the section's own function.
    Cli both = emutrace_cli("run " + firmware("kernels") + " -s " + dir.file("s.yaml") +
                            " --set sampler.function=kernel_fir --sampler kernel_sort --json " + dir.file("r.json"));
    REQUIRE(both.status == 0);
    CHECK(read_json(dir.file("r.json"))["sampler"]["function"] == "kernel_sort");
}

TEST_CASE("sampler: a run that checked no interval says so and why, and has no passing test case") {
    TempDir dir;
    write_file(dir.file("s.yaml"),
               "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\n  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\n");
    auto run = [&](const std::string& section) {
        return emutrace_cli("run " + firmware("kernels") + " -s " + dir.file("s.yaml") + " --set 'sampler=" + section + "' --json " +
                            dir.file("r.json") + " --junit " + dir.file("r.xml"));
    };
    // A period longer than the run: no sample lands in the function at all.
    Cli slow = run("{function: kernel_crc32, scheme: bitvec+, period: 50000000}");
    CHECK(slow.status == 0);
    CHECK(slow.err.find("WARNING: no interval of kernel_crc32 was checked: no sample fell in it") != std::string::npos);
    CHECK(slow.err.find("sampling period (50000000 cycles) is longer") != std::string::npos);
    nlohmann::json j = read_json(dir.file("r.json"))["sampler"];
    CHECK(j["intervals_checked"] == 0);
    CHECK(j["unchecked_because"].get<std::string>().find("no sample fell in it") != std::string::npos);
    CHECK(read_file(dir.file("r.xml")).find("emutrace.sampler") == std::string::npos);
    // Every interval of report() holds a call (its formatting and semihosting helpers).
    Cli calls = run("{function: report, scheme: none, period: 20}");
    CHECK(calls.status == 0);
    CHECK(calls.err.find("intervals held a call") != std::string::npos);
    // A run that checks intervals has its JUnit case, and no warning.
    Cli checked = run("{function: kernel_sort, scheme: bitvec+}");
    CHECK(checked.status == 0);
    CHECK(checked.err.find("WARNING") == std::string::npos);
    CHECK(read_file(dir.file("r.xml")).find("sampled paths of kernel_sort reconstructed") != std::string::npos);
    CHECK(read_json(dir.file("r.json"))["sampler"]["unchecked_because"] == "");
}

TEST_CASE("sampler: a firmware sampling itself from SysTick with the header's real markers is reconstructed from its own samples") {
    // sampled.elf: the header emutrace markers wrote for sampled_plain.elf, its macros in place,
    // and a SysTick handler sending the interrupted pc and the marker variables to the marker
    // device. The monitor takes the plan from the binary's records, not from the plain build.
    // The firmware sets its period from the plan and its own measured sample cost, so it holds in
    // either cycle model, whose handlers take different cycles.
    TempDir dir;
    for (const char* timing : {"trm", "pipeline"}) {
        CAPTURE(timing);
        write_file(dir.file("sampled.yaml"), read_file(source("tests/scenarios/sampled.yaml")) + "timing: " + timing + "\n");
        Cli r = emutrace_cli("run " + firmware("sampled") + " -s " + dir.file("sampled.yaml") + " --json " + dir.file("r.json"));
        REQUIRE(r.status == 0);
        CHECK(r.out.find("sampled classify: ") != std::string::npos);
        nlohmann::json j = read_json(dir.file("r.json"))["sampler"];
        CHECK(j["markers"] == "firmware");
        CHECK(j["plan"].size() >= 3);
        CHECK(j["intervals_checked"].get<std::uint64_t>() > 1000);
        CHECK(j["correct"] == j["intervals_checked"]);
        CHECK(j["wrong"] == 0);
        CHECK(j["impossible"] == 0);
        // The firmware's own count of the cycles between samples: the function's share, below the
        // recorded plan's Δt, plus the interrupt's entry and return that the count cannot leave out.
        CHECK(j["period"].get<std::uint64_t>() < j["delta_t"].get<std::uint64_t>() + 30);
    }
    // The plain build has no records: a one-line error naming the file and what to do.
    Cli plain = emutrace_cli("run " + firmware("sampled_plain") + " -s " + source("tests/scenarios/sampled.yaml"));
    CHECK(plain.status == 2);
    CHECK(plain.err.find("sampled_plain.elf: no .emutrace.markers section") != std::string::npos);
    // Keys of the other mode are refused with their line.
    write_file(dir.file("s.yaml"),
               "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\nsampler: {function: classify, markers: firmware, "
               "scheme: bitvec}\n");
    Cli mixed = emutrace_cli("run " + firmware("sampled") + " -s " + dir.file("s.yaml"));
    CHECK(mixed.status == 2);
    CHECK(mixed.err.find("scheme is the firmware's own") != std::string::npos);
}

TEST_CASE("sampler: its section keeps the usual errors") {
    TempDir dir;
    write_file(dir.file("s.yaml"), "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\nsampler: {function: kernel_sort, schme: bitvec}\n");
    Cli r = emutrace_cli("run " + firmware("kernels") + " -s " + dir.file("s.yaml"));
    CHECK(r.status == 2);
    CHECK(r.err.find("s.yaml:3:") != std::string::npos);
    CHECK(r.err.find("sampler.schme: unknown key") != std::string::npos);
}

TEST_CASE("markers: the plan as a C header compiles for the core, with a macro per block and a record per operation") {
    TempDir dir;
    Cli r = emutrace_cli("markers " + firmware("kernels") + " -f kernel_sort --scheme bitvec+ --header " + dir.file("m.h") + " --json " +
                         dir.file("m.json"));
    REQUIRE(r.status == 0);
    std::string header = read_file(dir.file("m.h"));
    nlohmann::json j = read_json(dir.file("m.json"));
    // One macro per block, each with the block's source line; those of the plan's blocks not empty.
    std::string calls;
    std::size_t macros = 0, filled = 0, operations = 0;
    for (std::size_t at = header.find("#define EMUTRACE_MARKER_"); at != std::string::npos; at = header.find("#define EMUTRACE_MARKER_", at + 1)) {
        std::size_t name = at + 8, end = header.find('(', name), line_end = header.find('\n', at);
        calls += "    " + header.substr(name, end - name) + "();\n";
        ++macros;
        std::string body = header.substr(end, line_end - end);
        filled += body.find("emutrace_marker_") != std::string::npos;
        for (std::size_t op = body.find("EMUTRACE_RECORD_MARKER_OP("); op != std::string::npos; op = body.find("EMUTRACE_RECORD_MARKER_OP(", op + 1))
            ++operations;
    }
    CHECK(filled == j["plan"].size());
    CHECK(macros > filled);
    CHECK(header.find("kernels.c:") != std::string::npos);
    // With the sampling function, for the marker device; each operation leaves an 8-byte record.
    write_file(dir.file("use.c"), "#define EMUTRACE_MARKERS_DEFINE\n#define EMUTRACE_MARKER_DEVICE 0x40020000u\n#include \"m.h\"\nvoid f(void) {\n" +
                                      calls + "    emutrace_markers_sample(0, 0);\n}\n");
    std::string cc = "arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Wall -Werror -c -o " + dir.file("use.o") + " " + dir.file("use.c");
    REQUIRE(std::system(cc.c_str()) == 0);
    std::string sections = "arm-none-eabi-objdump -h " + dir.file("use.o") + " > " + dir.file("sections.txt");
    REQUIRE(std::system(sections.c_str()) == 0);
    std::string listing = read_file(dir.file("sections.txt"));
    std::size_t row = listing.find(".emutrace.markers");
    REQUIRE(row != std::string::npos);
    CHECK(std::stoul(listing.substr(row + 17, 16), nullptr, 16) == 8 * operations);
}

TEST_CASE("coverage: --coverage lists the functions and basic blocks a run executed, and only those") {
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("sampled") + " -s " + source("tests/scenarios/sampled.yaml") + " --coverage --json " + dir.file("r.json"));
    REQUIRE(r.status == 0);
    CHECK((r.out + r.err).find("  coverage      ") != std::string::npos);  // the summary (on stderr when stdout holds the firmware's output)
    const nlohmann::json c = read_json(dir.file("r.json"))["coverage"];
    auto has = [](const nlohmann::json& list, const std::string& name) { return std::find(list.begin(), list.end(), name) != list.end(); };
    // The sampled function and the SysTick handler that samples it ran; the fault handler did not.
    CHECK(has(c["functions_executed"], "classify"));
    CHECK(has(c["functions_executed"], "SysTick_Handler"));
    CHECK(has(c["functions_defined"], "HardFault_Handler"));
    CHECK(!has(c["functions_executed"], "HardFault_Handler"));
    for (const auto& f : c["functions_executed"]) CHECK(has(c["functions_defined"], f.get<std::string>()));
    CHECK(c["blocks_executed"].size() < c["blocks_defined"].get<std::size_t>());
    CHECK(c["blocks_executed"].size() > 20);
    // Without the flag, no coverage and no cost.
    Cli plain = emutrace_cli("run " + firmware("sampled") + " -s " + source("tests/scenarios/sampled.yaml") + " --json " + dir.file("p.json"));
    CHECK(!read_json(dir.file("p.json")).contains("coverage"));
}
