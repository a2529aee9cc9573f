// End-to-end: the emutrace command as a user runs it, on the project's firmware.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"
#include "tests/firmware/compute_reference.h"

using namespace emutrace::test;

namespace {

std::size_t occurrences(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
    return n;
}

std::size_t lines(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

}  // namespace

TEST_CASE("cli: a timing constraint whose limit is no cycle is an error, not a gate that always passes") {
    TempDir dir;
    auto run = [&](const std::string& limit) {
        std::string board = read_file(source("scenarios/boards/mps2-an385.yaml"));
        std::ofstream(dir.file("s.yaml")) << board << "constraints:\n  - name: crc\n    start: {enter: kernel_crc32}\n    end: {exit: kernel_crc32}\n"
                                          << "    limit: " << limit << "\n";
        return emutrace_cli("run " + firmware("kernels") + " -q -s " + dir.file("s.yaml"));
    };
    for (const char* limit : {"0s", "0 cycles", "1ns", "39ns"}) {  // a cycle at 25 MHz is 40 ns
        CAPTURE(limit);
        Cli r = run(limit);
        CHECK(r.status == 2);
        CHECK(r.err.find("s.yaml:") != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    CHECK(run("40ns").status == 1);  // one cycle: checked, and violated
    CHECK(run("10ms").status == 0);  // met
}

TEST_CASE("cli: crosscheck exits 7 when part of a capture is lost and 2 when nothing decodes, saying where and why") {
    TempDir dir;
    namespace fs = std::filesystem;
    const fs::path tc2 = source("tests/data/captures/TC2");
    auto copy_with = [&](const std::string& name, const std::string& bytes) {
        fs::copy(tc2, dir.path() / name, fs::copy_options::recursive);
        std::ofstream(dir.path() / name / "cstrace.bin", std::ios::binary | std::ios::trunc) << bytes;
        return (dir.path() / name).string();
    };
    const std::string trace = read_file((tc2 / "cstrace.bin").string());
    Cli cut = emutrace_cli("crosscheck --snapshot " + copy_with("cut", trace.substr(0, trace.size() - 1)) + " --json " + dir.file("cut.json"));
    CHECK(cut.status == 7);
    CHECK(cut.err.find("part of the capture could not be decoded") != std::string::npos);
    CHECK(cut.out.find("at byte " + std::to_string(trace.size() - 16)) != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("cut.json")));
    CHECK(j["damaged"] == true);
    CHECK(j["error_count"] == 1);
    Cli zeros = emutrace_cli("crosscheck --snapshot " + copy_with("zeros", std::string(trace.size(), '\0')));
    CHECK(zeros.status == 2);
    CHECK(zeros.err.find("no instruction decoded") != std::string::npos);
    Cli whole = emutrace_cli("crosscheck --snapshot " + tc2.string());
    CHECK(whole.status == 0);
}

TEST_CASE("cli: two outputs into one file is an error before the run, naming both") {
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("kernels") + " -q --json " + dir.file("x") + " --events " + dir.file("x"));
    CHECK(r.status == 2);
    CHECK(r.err.find("both the json and the events output write this file") != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("x")));
}

TEST_CASE("cli: --exit-status emutrace keeps a firmware's own exit code from reading as one of emutrace's statuses") {
    const std::string faults = "run " + firmware("faults") + " -s " + source("tests/scenarios/faults.yaml") + " -q ";
    CHECK(emutrace_cli(faults + "--cmdline 'exit 4'").status == 4);  // by default the firmware's code: 4 looks like "wall clock"
    // A code past 255 is 255, not its low byte: 256 was a success and 300 was 44.
    CHECK(emutrace_cli(faults + "--cmdline 'exit 256'").status == 255);
    CHECK(emutrace_cli(faults + "--cmdline 'exit 300'").status == 255);
    Cli own = emutrace_cli(faults + "--cmdline 'exit 4' --exit-status emutrace");
    CHECK(own.status == 8);
    CHECK(own.err.find("the firmware exited with code 4") != std::string::npos);
    CHECK(emutrace_cli(faults + "--cmdline 'exit 0' --exit-status emutrace").status == 0);
    CHECK(emutrace_cli("run " + firmware("kernels") + " -q --max-instructions 1000 --exit-status emutrace").status == 3);  // emutrace's own
    CHECK(emutrace_cli(faults + "--cmdline 'exit 0' --exit-status sometimes").status != 0);
}

TEST_CASE("cli: every output written to a full disk is a one-line error naming the file, with exit status 2") {
    const std::string run = "run " + firmware("kernels") + " -q ";
    for (const std::string& args :
         {run + "--json /dev/full", run + "--junit /dev/full", run + "--perfetto /dev/full", run + "--events /dev/full", run + "--trace /dev/full",
          run + "--pft /dev/full", "cfg " + firmware("kernels") + " --dot /dev/full", "cfg " + firmware("kernels") + " --json /dev/full",
          "run " + firmware("rtos") + " -q -s " + source("tests/scenarios/rtos_replay.yaml") + " --record /dev/full"}) {
        CAPTURE(args);
        Cli r = emutrace_cli(args);
        CHECK(r.status == 2);
        CHECK(r.err.find("/dev/full") != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}

TEST_CASE("cli: a command whose standard output cannot be written fails, saying so, instead of exiting 0 having written nothing") {
    TempDir dir;
    REQUIRE(emutrace_cli("run " + firmware("kernels") + " -q --trace " + dir.file("t.bin")).status == 0);
    for (const std::string& args : {"info " + firmware("kernels"), "cfg " + firmware("kernels"), "dump " + dir.file("t.bin"),
                                    "wcet " + firmware("kernels") + " --all", "run " + firmware("kernels") + " -q"}) {
        CAPTURE(args);
        Cli r = run_shell("sh -c '" + emutrace_binary() + " " + args + " >/dev/full'");
        CHECK(r.status == 2);
        CHECK(r.err.find("emutrace: error: writing the standard output failed") != std::string::npos);
    }
}

TEST_CASE("cli: SIGINT or SIGTERM mid-run stops it with every output written and whole, and exit status 128 + the signal") {
    // Before, none of --json, --report, --junit, --perfetto or --trace was written and --events
    // ended mid-record.
    TempDir dir;
    for (const auto& [signal, status] : {std::pair{"INT", 130}, std::pair{"TERM", 143}}) {
        CAPTURE(signal);
        const std::string outputs = " --json " + dir.file("r.json") + " --events " + dir.file("e.jsonl") + " --events-limit 1MiB --perfetto " +
                                    dir.file("p.json") + " --report " + dir.file("r.html") + " --junit " + dir.file("j.xml") + " --trace " +
                                    dir.file("t.bin");
        // The soak loop runs for minutes; the signal comes two seconds in.
        Cli r = run_shell("sh -c '" + emutrace_binary() + " run " + firmware("soak") + " -s " + source("bench/soak.yaml") +
                          " --cmdline 10000000 --wall-clock 600 -q" + outputs + " & pid=$!; sleep 2; kill -" + signal + " $pid; wait $pid'");
        CHECK(r.status == status);
        CHECK(r.err.find(std::string("stopped by SIG") + signal) != std::string::npos);
        const nlohmann::json j = nlohmann::json::parse(read_file(dir.file("r.json")));
        CHECK(j["status"] == status);
        CHECK(j["instructions"].get<std::uint64_t>() > 0);
        CHECK(nlohmann::json::parse(read_file(dir.file("p.json"))).is_object());
        const std::string events = read_file(dir.file("e.jsonl"));
        REQUIRE(!events.empty());
        CHECK(events.back() == '\n');  // whole lines, the last one the limit's
        CHECK(read_file(dir.file("r.html")).find("</html>") != std::string::npos);
        CHECK(read_file(dir.file("j.xml")).find("</testsuites>") != std::string::npos);
        CHECK(emutrace_cli("dump " + dir.file("t.bin") + " --elf " + firmware("soak")).status == 0);
    }
}

TEST_CASE("cli: the event log stops at its size limit with a last line that says so") {
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("kernels") + " --events " + dir.file("e.jsonl") + " --events-limit 8KiB");
    CHECK(r.status == 0);
    CHECK(r.err.find("reached its limit of 8192 bytes") != std::string::npos);
    std::string log = read_file(dir.file("e.jsonl"));
    CHECK(log.size() < 8192 + 512);
    CHECK(log.substr(log.rfind("{\"cycle\"")).find("\"kind\":\"truncated\",\"limit_bytes\":8192}\n") != std::string::npos);  // the last line
    CHECK(emutrace_cli("run " + firmware("kernels") + " -q --events-limit 8KiB").err.find("no event log") != std::string::npos);
    CHECK(emutrace_cli("run " + firmware("kernels") + " -q --events " + dir.file("f.jsonl") + " --events-limit lots").status == 2);
}

TEST_CASE("cli: a firmware that repeats a refused semihosting call gets ten warnings and one count, not a line per call") {
    Cli r = emutrace_cli("run " + firmware("faults") + " -s " + source("tests/scenarios/faults.yaml") + " --cmdline 'host-spam 5000'");
    CHECK(r.status == 0);
    CHECK(r.out.find("faults: spammed") != std::string::npos);
    std::size_t warnings = 0, refused = 0;
    for (std::size_t at = 0; (at = r.err.find("warning:", at)) != std::string::npos; ++at) ++warnings;
    for (std::size_t at = 0; (at = r.err.find("refused", at)) != std::string::npos; ++at) ++refused;
    CHECK(refused == 10);
    CHECK(warnings == 12);  // the ten, that further ones are counted, and the count
    CHECK(r.err.find("4990 more warnings like those above were not shown") != std::string::npos);
}

TEST_CASE("cli: run prints the firmware's output and a summary, and writes JSON") {
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("compute") + " --json " + dir.file("r.json"));
    CHECK(r.status == 0);
    char crc[16];
    std::snprintf(crc, sizeof crc, "0x%08x", compute_reference_crc(1));
    CHECK(r.out == "compute: crc=" + std::string(crc) + " iterations=1\ncompute: crc=" + crc + " iterations=1\n");
    CHECK(r.err.find("stopped       exit (code 0)") != std::string::npos);
    CHECK(r.err.find("MIPS") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["stop_reason"] == "exit");
    CHECK(j["exit_code"] == 0);
    CHECK(j["instructions"].get<std::uint64_t>() > 50'000);
    CHECK(j["cycles"].get<std::uint64_t>() >= j["instructions"].get<std::uint64_t>());
    CHECK(j["host_seconds"].get<double>() > 0);
    CHECK(j["cpu"] == "cortex-m3");
    CHECK(j["fault"].is_null());
}

TEST_CASE("cli: flags override the scenario") {
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("compute") + " --cpu cortex-m0 -q --json " + dir.file("r.json"));
    CHECK(r.status == 2);
    auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["cpu"] == "cortex-m0");
    CHECK(j["fault"]["kind"] == "unsupported_instruction");
    CHECK(j["exit_code"].is_null());

    Cli limited = emutrace_cli("run " + firmware("faults") + " --cmdline spin --max-instructions 5e4 -q");
    CHECK(limited.status == 3);
    CHECK(limited.err.find("maximum of 50000 instructions") != std::string::npos);
}

TEST_CASE("cli: firmware faults give a one-line error with address and function, status 2") {
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("faults") + " -s " + source("tests/scenarios/faults.yaml") + " --cmdline unmapped-read -q --json " +
                         dir.file("r.json") + " --events " + dir.file("e.jsonl"));
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("read of unmapped memory at 0x60000000") != std::string::npos);
    CHECK(r.err.find("(main+0x") != std::string::npos);
    // What ran before the fault is still written out.
    CHECK(r.out == "faults: mode=unmapped-read\n");
    std::string events = read_file(dir.file("e.jsonl"));
    CHECK(events.find("\"kind\":\"output\"") != std::string::npos);
    CHECK(events.find("\"kind\":\"stop\"") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["stop_reason"] == "fault");
    CHECK(j["fault"]["address"] == "0x60000000");
    CHECK(j["fault"]["pc_is_block_start"] == false);  // the faulting load itself, found by decoding its block
    CHECK(j["fault"]["detail"] == "'ldr r3, [r3]'");

    Cli hang = emutrace_cli("run " + firmware("faults") + " --cmdline hang -q");
    CHECK(hang.status == 5);
    CHECK(hang.err.find("branch-to-self") != std::string::npos);
}

TEST_CASE("cli: bad input gets one line naming the file, and status 2") {
    TempDir dir;
    std::string elf = read_file(firmware("compute"));
    std::string no_segments = elf;
    no_segments[44] = no_segments[45] = 0;
    struct Case {
        std::string args, expect;
    };
    for (const Case& c : {
             Case{"run " + source("tests/scenarios/faults.yaml"), "faults.yaml: not an ELF file"},
             Case{"run /proc/self/exe", "64-bit ELF"},
             Case{"run " + dir.write("nophdr.elf", no_segments), "no loadable (PT_LOAD) segments"},
             Case{"run " + firmware("compute") + " -s " + source("tests/scenarios/bad/segment_outside.yaml"), "segment 0 0x00000000-"},
             Case{"run " + firmware("compute") + " -s " + source("tests/scenarios/bad/syntax_error.yaml"), "syntax_error.yaml:4:5"},
             Case{"run " + firmware("compute") + " -s " + source("tests/scenarios/bad/unknown_key.yaml"),
                  "unknown_key.yaml:4:36: memory[1].sise: unknown key"},
             Case{"run " + firmware("compute") + " -s " + source("tests/scenarios/bad/unknown_peripheral.yaml"),
                  "unknown peripheral type 'nrf52.uarte'"},
             Case{"run " + firmware("compute") + " -s " + source("tests/scenarios/bad/overlapping.yaml"),
                  "overlapping.yaml: memory region sram 0x20000000-0x203fffff (rwx) overlaps memory region sram_alias"},
             Case{"run " + firmware("compute") + " --cpu cortex-m7", "--cpu: unknown core 'cortex-m7'"},
             Case{"run " + firmware("compute") + " --clock fast", "--clock: expected a frequency"},
             Case{"run " + firmware("compute") + " --stop-at nowhere", "'nowhere' is not in the symbol table"},
             Case{"run", "no firmware: give an ELF on the command line, or a scenario with a 'firmware:' key"},
             Case{"run " + firmware("compute") + " --calltrace --baseline " + source("README.md"),
                  "--baseline " + source("README.md") + ": not a JSON result of emutrace run --json"},
         }) {
        CAPTURE(c.args);
        Cli r = emutrace_cli(c.args);
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(c.expect) != std::string::npos);
        CHECK(r.err.find("Segmentation") == std::string::npos);
    }
}

TEST_CASE("cli: with no core named, the run takes the one the ELF's build attributes name") {
    TempDir dir;
    // The same filter with the FPU (hard float) and without: the same result, each on its core.
    const Cli hard = emutrace_cli("run " + firmware("float_m4f") + " --json " + dir.file("hard.json"));
    const Cli soft = emutrace_cli("run " + firmware("float_m4") + " --json " + dir.file("soft.json"));
    REQUIRE(hard.status == 0);
    REQUIRE(soft.status == 0);
    CHECK(hard.out.find("filter ") != std::string::npos);
    CHECK(hard.out == soft.out);
    CHECK(nlohmann::json::parse(read_file(dir.file("hard.json")))["cpu"] == "cortex-m4f");
    CHECK(nlohmann::json::parse(read_file(dir.file("soft.json")))["cpu"] == "cortex-m4");
    CHECK(hard.err.find("on cortex-m4f (as the ELF was built for)") != std::string::npos);
    // The hard-float build's filter runs on the FPU, as the toolchain's own disassembler shows.
    CHECK(run_shell("arm-none-eabi-objdump -d " + firmware("float_m4f")).out.find("vdiv.f32") != std::string::npos);
    // --cpu and a scenario's cpu: still decide; a core without the FPU refuses its instructions.
    const Cli no_fpu = emutrace_cli("run " + firmware("float_m4f") + " --cpu cortex-m4");
    CHECK(no_fpu.status == 2);
    CHECK(no_fpu.err.find("needs an FPU (cortex-m4f)") != std::string::npos);
    write_file(dir.file("m3.yaml"),
               "cpu: cortex-m3\nmemory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\n"
               "  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\n"
               "peripherals:\n  - {name: uart0, type: cmsdk.uart, base: 0x40004000}\n");
    REQUIRE(emutrace_cli("run " + firmware("compute_m0") + " -s " + dir.file("m3.yaml") + " --json " + dir.file("m3.json")).status == 0);
    CHECK(nlohmann::json::parse(read_file(dir.file("m3.json")))["cpu"] == "cortex-m3");
    REQUIRE(emutrace_cli("run " + firmware("compute_m0") + " --json " + dir.file("m0.json")).status == 0);
    CHECK(nlohmann::json::parse(read_file(dir.file("m0.json")))["cpu"] == "cortex-m0");
}

TEST_CASE("cli: an RTOS run reports its threads in the summary, JSON and event log") {
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("rtos") + " -s " + source("tests/scenarios/rtos.yaml") + " --json " + dir.file("r.json") + " --events " +
                         dir.file("e.jsonl"));
    CHECK(r.status == 0);
    CHECK(r.out.find("rtos done") != std::string::npos);
    CHECK(r.err.find("thread switches") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["thread_switches"].get<int>() > 10);
    CHECK(j["exceptions"].get<int>() > j["thread_switches"].get<int>());
    std::string events = read_file(dir.file("e.jsonl"));
    CHECK(events.find("\"kind\":\"thread_switch\",\"from\":\"0x00000000\"") != std::string::npos);
    CHECK(events.find("\"name\":\"spinner-b\"") != std::string::npos);
    CHECK(events.find("\"kind\":\"exception_entry\",\"exception\":11") != std::string::npos);  // SVC starts the first task
}

TEST_CASE("cli: a firmware lockup and a reset request have their own statuses") {
    Cli lock = emutrace_cli("run " + firmware("irq_tests") + " -s " + source("tests/scenarios/irq.yaml") + " --cmdline lockup -q");
    CHECK(lock.status == 2);
    CHECK(lock.err.find("lockup") != std::string::npos);
    Cli reset = emutrace_cli("run " + firmware("irq_tests") + " -s " + source("tests/scenarios/irq.yaml") + " --cmdline sysreset -q");
    CHECK(reset.status == 6);
}

TEST_CASE("cli: info lists the entry point, segments and functions") {
    Cli r = emutrace_cli("info " + firmware("compute"));
    CHECK(r.status == 0);
    CHECK(r.out.find("entry     0x") != std::string::npos);
    CHECK(r.out.find("(Reset_Handler)") != std::string::npos);
    CHECK(r.out.find(" main\n") != std::string::npos);
    CHECK(r.out.find("segments  ") != std::string::npos);
}

TEST_CASE("cli: --help teaches the commands and the exit statuses") {
    Cli r = emutrace_cli("run --help");
    CHECK(r.status == 0);
    CHECK(r.out.find("--scenario") != std::string::npos);
    CHECK(r.out.find("Exit status") != std::string::npos);
    CHECK(r.out.find("cmsdk.uart") != std::string::npos);
}

TEST_CASE("cli: dump shows a record's depth instead of trusting it for the indentation") {
    TempDir dir;
    REQUIRE(emutrace_cli("run " + firmware("compute") + " -s " + source("tests/scenarios/calltrace_globs.yaml") + " -q --trace " + dir.file("t.bin"))
                .status == 0);
    std::string bytes = read_file(dir.file("t.bin"));
    REQUIRE(bytes.size() > 36 + 21);
    REQUIRE(bytes[36] == 0);                        // the first record is a call: its payload is its depth
    bytes.replace(36 + 15, 4, "\xff\xff\xff\xff");  // a corrupt depth of 4 G levels
    std::ofstream(dir.file("bad.bin"), std::ios::binary) << bytes;
    Cli d = emutrace_cli("dump " + dir.file("bad.bin"));
    CHECK(d.status == 0);
    CHECK(d.out.find("[depth 4294967295] > ") != std::string::npos);
    CHECK(d.out.size() < 200 * 1024);
}

TEST_CASE("cli: trace selection by glob and by event budget") {
    TempDir dir;
    auto dump = [&](const std::string& scenario) {
        Cli run = emutrace_cli("run " + firmware("compute") + " -s " + source(scenario) + " -q --trace " + dir.file("t.bin") + " --json " +
                               dir.file("r.json"));
        REQUIRE(run.status == 0);
        Cli d = emutrace_cli("dump " + dir.file("t.bin") + " --elf " + firmware("compute"));
        REQUIRE(d.status == 0);
        return d.out;
    };
    std::string globs = dump("tests/scenarios/calltrace_globs.yaml");
    CHECK(globs.find("> main") != std::string::npos);
    CHECK(globs.find("> sift_down") != std::string::npos);
    CHECK(globs.find("> fmt_str") != std::string::npos);
    CHECK(globs.find("fmt_hex32") == std::string::npos);      // excluded
    CHECK(globs.find("Reset_Handler") == std::string::npos);  // not included
    std::string budget = dump("tests/scenarios/calltrace_budget.yaml");
    CHECK(budget.find("sift_down") == std::string::npos);  // 766 events in 5 ms: the first to go
    CHECK(budget.find("> main") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    auto dropped = j["calltrace"]["auto_dropped"];
    REQUIRE(!dropped.empty());
    CHECK(dropped[0] == "sift_down.constprop.0");
    CHECK(j["calltrace"]["functions"].size() > 5);  // the profile still has every function
}

TEST_CASE("cli: cfg prints blocks and loops, writes JSON and DOT that Graphviz renders") {
    TempDir dir;
    Cli r =
        emutrace_cli("cfg " + firmware("cfg_shapes") + " --function shape_nested_loops --json " + dir.file("c.json") + " --dot " + dir.file("c.dot"));
    CHECK(r.status == 0);
    CHECK(r.out.find("shape_nested_loops 0x") != std::string::npos);
    CHECK(r.out.find("7 blocks") != std::string::npos);
    CHECK(r.out.find("depth 2, inside loop") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("c.json")));
    REQUIRE(j["functions"].size() == 1);
    CHECK(j["functions"][0]["loops"].size() == 2);
    std::string render = "dot -Tsvg " + dir.file("c.dot") + " -o " + dir.file("c.svg") + " 2>" + dir.file("dot.err");
    CHECK(std::system(render.c_str()) == 0);
    CHECK(read_file(dir.file("c.svg")).find("<svg") != std::string::npos);
    Cli missing = emutrace_cli("cfg " + firmware("cfg_shapes") + " --function no_such_function");
    CHECK(missing.status == 2);
    CHECK(missing.err.find("no function named 'no_such_function'") != std::string::npos);
}

TEST_CASE("cli: crosscheck decodes a real capture and writes its totals") {
    TempDir dir;
    Cli r = emutrace_cli("crosscheck --snapshot " + source("tests/data/captures/TC2") + " --id 19 --json " + dir.file("c.json"));
    CHECK(r.status == 0);
    CHECK(r.out.find("instructions    9548") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(j["ranges"] == 1554);
    Cli bad = emutrace_cli("crosscheck --snapshot " + dir.path().string());
    CHECK(bad.status == 2);
    CHECK(bad.err.find("snapshot.ini") != std::string::npos);
}

TEST_CASE("cli: decode reads any registered source by name, as the commands built on it do") {
    TempDir dir;
    const std::string tc2 = source("tests/data/captures/TC2");
    Cli ptm = emutrace_cli("decode ptm " + tc2 + " --trace-id 19 --events " + dir.file("d.jsonl") + " --json " + dir.file("d.json"));
    CHECK(ptm.status == 0);
    Cli cross = emutrace_cli("crosscheck --snapshot " + tc2 + " --id 19 --events " + dir.file("c.jsonl") + " --json " + dir.file("c.json"));
    REQUIRE(cross.status == 0);
    // The same source under both names: the same totals and the same events, line for line.
    auto d = nlohmann::json::parse(read_file(dir.file("d.json"))), c = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(d["instructions"] == 9548);
    CHECK(d["ranges"] == c["ranges"]);
    CHECK(d["trace_ids"] == c["trace_ids"]);
    CHECK(read_file(dir.file("d.jsonl")) == read_file(dir.file("c.jsonl")));
    CHECK(lines(read_file(dir.file("d.jsonl"))) > 1000);

    Cli unknown = emutrace_cli("decode swv " + tc2);
    CHECK(unknown.status == 2);
    CHECK(unknown.err.find("no trace source named 'swv' (known: ptm, etm, ring, swo") != std::string::npos);
    Cli no_elf = emutrace_cli("decode ring " + tc2 + "/snapshot.ini");
    CHECK(no_elf.status == 2);
    CHECK(no_elf.err.find("needs the traced firmware") != std::string::npos);
    Cli bad_id = emutrace_cli("decode ptm " + tc2 + " --trace-id 300");
    CHECK(bad_id.status == 2);
    CHECK(bad_id.err.find("--trace-id") != std::string::npos);
    // A source's option belongs to its source.
    Cli other = emutrace_cli("decode ptm " + tc2 + " --dump-base 0x20000000");
    CHECK(other.status == 2);
    CHECK(other.err.find("--dump-base: no registered analysis or the ptm source takes this option") != std::string::npos);
}

TEST_CASE("cli: an emulated run's PFT snapshot crosschecks against the same run, and a different run diverges") {
    TempDir dir;
    std::string elf = firmware("irq_tests"), scenario = source("tests/scenarios/irq.yaml");
    Cli run = emutrace_cli("run " + elf + " -s " + scenario + " --cmdline nested --pft " + dir.file("t.pft") + " --snapshot " + dir.file("snap") +
                           " --json " + dir.file("run.json"));
    REQUIRE(run.status == 0);
    CHECK(run.err.find("PFT trace: ") != std::string::npos);
    auto rj = nlohmann::json::parse(read_file(dir.file("run.json")));
    CHECK(rj["pft"]["exceptions"] == 2);
    CHECK(rj["pft"]["bytes"] == read_file(dir.file("t.pft")).size());

    Cli same = emutrace_cli("crosscheck --snapshot " + dir.file("snap") + " --elf " + elf + " -s " + scenario + " --cmdline nested --json " +
                            dir.file("c.json"));
    CHECK(same.status == 0);
    CHECK(same.out.find("paths: identical") != std::string::npos);
    CHECK(same.out.find("IRQ1_Handler") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(j["comparison"]["identical"] == true);
    CHECK(j["exceptions"] == 2);
    // Calls seen in the capture (BL ranges, returns) equal the emulated call tracer's, function by function.
    std::size_t compared = 0;
    for (const auto& f : j["comparison"]["functions"]) {
        CAPTURE(f["function"].get<std::string>());
        CHECK(f["capture_calls"] == f["emulated_calls"]);
        CHECK(f["capture"] == f["emulated"]);
        compared += f["capture_calls"].get<int>() > 0;
    }
    CHECK(compared >= 8);

    Cli other = emutrace_cli("crosscheck --snapshot " + dir.file("snap") + " --elf " + elf + " -s " + scenario + " --cmdline tailchain --json " +
                             dir.file("d.json") + " --report " + dir.file("d.html"));
    CHECK(other.status == 1);
    CHECK(other.out.find("first divergence at step") != std::string::npos);
    auto d = nlohmann::json::parse(read_file(dir.file("d.json")));
    CHECK(d["comparison"]["identical"] == false);
    CHECK(d["comparison"]["first_divergence"]["step"].get<int>() > 0);
    CHECK(d["comparison"]["first_divergence"]["emulated"].get<std::string>().find(" in main") != std::string::npos);
    // The report shows the divergence and, per function, which counts differ: as many as the JSON says.
    const std::string page = read_file(dir.file("d.html"));
    CHECK(page.find("<section id=\"comparison\"") != std::string::npos);
    CHECK(page.find("verdict fail") != std::string::npos);
    std::size_t differing = 0, rows = 0;
    for (const auto& f : d["comparison"]["functions"]) differing += f["capture"] != f["emulated"] || f["capture_calls"] != f["emulated_calls"];
    for (auto at = page.find("<tr class=\"function differs\">"); at != std::string::npos; at = page.find("<tr class=\"function differs\">", at + 1))
        ++rows;
    CHECK(differing > 0);
    CHECK(rows == differing);
    CHECK(page.find("<tr class=\"divergence\"><td>emulated</td><td>" + d["comparison"]["first_divergence"]["emulated"].get<std::string>()) !=
          std::string::npos);
}

TEST_CASE("cli: a damaged snapshot trace decodes what it can and says how many bytes were lost") {
    TempDir dir;
    std::string elf = firmware("compute");
    REQUIRE(emutrace_cli("run " + elf + " --snapshot " + dir.file("snap")).status == 0);
    std::string trace = read_file(dir.file("snap") + "/cstrace.bin");
    for (std::size_t i = 200; i + 16 < trace.size(); i += 1601) trace[i + 1] = static_cast<char>(trace[i + 1] ^ 0xFF);
    write_file(dir.file("snap") + "/cstrace.bin", trace);
    Cli r = emutrace_cli("crosscheck --snapshot " + dir.file("snap") + " --json " + dir.file("c.json"));
    CHECK(r.status == 7);  // part of the capture was lost: not a clean decode
    auto j = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(j["instructions"].get<int>() > 50'000);
    CHECK(j["lost_bytes"].get<int>() > 0);
    CHECK(j["first_loss_at"].get<int>() >= 200);
    CHECK(r.out.find("lost ") != std::string::npos);
}

TEST_CASE("cli: wcet bounds a function, writes JSON and DOT, and merges saved statistics") {
    TempDir dir;
    Cli r = emutrace_cli("wcet " + firmware("wcet") + " --function wcet_nested --json " + dir.file("w.json") + " --dot " + dir.file("w.dot") +
                         " --stats-out " + dir.file("s.json"));
    CHECK(r.status == 0);
    CHECK(r.out.find("WCET of wcet_nested") != std::string::npos);
    CHECK(r.out.find("the loop context saves") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("w.json")));
    std::uint64_t bound = j["bound_cycles"].get<std::uint64_t>();
    CHECK(bound >= j["observed_max_cycles"].get<std::uint64_t>());
    CHECK(bound < j["insensitive_bound_cycles"].get<std::uint64_t>());
    CHECK(j["observed_runs"] == 3);
    CHECK(!j["path"].empty());
    CHECK(j["never_executed"].size() == 2);
    CHECK(j["never_executed"][0]["reason"] == "untested");
    std::string render = "dot -Tsvg " + dir.file("w.dot") + " -o " + dir.file("w.svg") + " 2>" + dir.file("dot.err");
    CHECK(std::system(render.c_str()) == 0);
    CHECK(read_file(dir.file("w.dot")).find("never executed") != std::string::npos);

    // Two saved runs merge into one table: twice the counts, the same maxima, so the same bound.
    Cli merged = emutrace_cli("wcet " + firmware("wcet") + " -f wcet_nested --no-run --stats-in " + dir.file("s.json") + " --stats-in " +
                              dir.file("s.json") + " --json " + dir.file("m.json"));
    CHECK(merged.status == 0);
    auto m = nlohmann::json::parse(read_file(dir.file("m.json")));
    CHECK(m["statistics_runs"] == 2);
    CHECK(m["observed_runs"] == 6);
    CHECK(m["bound_cycles"] == bound);

    Cli other = emutrace_cli("wcet " + firmware("cfg_shapes") + " -f main --no-run --stats-in " + dir.file("s.json"));
    CHECK(other.status == 2);
    CHECK(other.err.find("come from different code") != std::string::npos);
    Cli unknown = emutrace_cli("wcet " + firmware("wcet") + " -f no_such_function");
    CHECK(unknown.status == 2);
    CHECK(unknown.err.find("no function named 'no_such_function'") != std::string::npos);
}

TEST_CASE("cli: a scenario's wcet analysis fails the run when the bound exceeds max_cycles") {
    TempDir dir;
    auto scenario = [&](const std::string& name, const std::string& wcet) {
        write_file(dir.file(name),
                   "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\n"
                   "  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\nwcet:\n" +
                       wcet);
        return dir.file(name);
    };
    Cli pass = emutrace_cli("run " + firmware("wcet") + " -s " + scenario("ok.yaml", "  function: wcet_scan\n  max_cycles: 100000\n") + " --json " +
                            dir.file("r.json"));
    CHECK(pass.status == 0);
    CHECK(pass.err.find("WCET of wcet_scan") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["wcet"]["bound_cycles"].get<std::uint64_t>() >= j["wcet"]["observed_max_cycles"].get<std::uint64_t>());

    Cli fail = emutrace_cli("run " + firmware("wcet") + " -s " + scenario("tight.yaml", "  function: wcet_scan\n  max_cycles: 100\n"));
    CHECK(fail.status == 1);
    CHECK(fail.err.find("above max_cycles 100") != std::string::npos);

    // A flow fact raises the loop's bound above what was observed.
    Cli fact = emutrace_cli("run " + firmware("wcet") + " -s " +
                            scenario("fact.yaml", "  function: wcet_scan\n  flow_facts:\n    - {function: wcet_scan, loop: 0, bound: 40}\n") +
                            " --json " + dir.file("f.json"));
    CHECK(fact.status == 0);
    auto f = nlohmann::json::parse(read_file(dir.file("f.json")));
    CHECK(f["wcet"]["loops"][0]["source"] == "flow fact");
    CHECK(f["wcet"]["bound_cycles"].get<std::uint64_t>() > j["wcet"]["bound_cycles"].get<std::uint64_t>());

    Cli bad = emutrace_cli("run " + firmware("wcet") + " -s " + scenario("bad.yaml", "  function: wcet_scan\n  flow_fact: []\n"));
    CHECK(bad.status == 2);
    CHECK(bad.err.find("bad.yaml:6") != std::string::npos);
    CHECK(bad.err.find("flow_fact") != std::string::npos);
}

// A spinning firmware stopped by the wall-clock limit: a run of that many host seconds, whatever the host's speed.
TEST_CASE("cli: --progress always redraws one line in place at most ten times a second and erases it before the summary") {
    const std::string faults = firmware("faults");
    auto started = std::chrono::steady_clock::now();
    Cli r = emutrace_cli("run " + faults + " --cmdline spin --wall-clock 1.6s --progress always");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CHECK(r.status == 4);
    const std::size_t draws = occurrences(r.err, "\remutrace: ");
    CAPTURE(draws);
    CAPTURE(seconds);
    CHECK(draws >= 2);                 // after the first second, every 100 ms until 1.6 s
    CHECK(draws <= 10 * seconds + 1);  // never more often than ten times a second
    CHECK(r.err.find(" s emulated, ") != std::string::npos);
    CHECK(r.err.find(" instructions, ") != std::string::npos);  // the emulator's count, though no sink gets blocks
    CHECK(r.err.find(" MIPS, ") != std::string::npos);
    CHECK(r.err.find(" events\x1b[K") != std::string::npos);
    CHECK(lines(r.err.substr(0, r.err.find("\r\x1b[K"))) == 0);  // in place: no line feed between the redraws
    // Erased (carriage return, clear to the end of the line) just before the summary, which is as without it.
    const std::size_t erased = r.err.find("\r\x1b[Kemutrace: " + faults + " on cortex-m3");
    REQUIRE(erased != std::string::npos);
    const std::string rest = r.err.substr(erased + 3);
    CHECK(rest.find('\r') == std::string::npos);
    CHECK(rest.find("\x1b") == std::string::npos);
    CHECK(rest.find("  stopped       wall_clock: wall-clock limit of 1.6 s") != std::string::npos);
}

TEST_CASE("cli: no progress line with -q, with --progress never, or when stderr is not a terminal") {
    const std::string spin = "run " + firmware("faults") + " --cmdline spin --wall-clock 1.2s ";
    for (const std::string& options : {std::string("-q --progress always"), std::string("--progress never"), std::string("")}) {
        CAPTURE(options);
        Cli r = emutrace_cli(spin + options);  // stderr is a file
        CHECK(r.status == 4);
        CHECK(r.err.find('\r') == std::string::npos);
        CHECK(r.err.find("MIPS,") == std::string::npos);
        CHECK(r.err.find("\x1b") == std::string::npos);
    }
}

TEST_CASE("cli: the progress line is drawn by default when stderr is a terminal") {
    if (run_shell("command -v script").status != 0) {
        MESSAGE("skipped: util-linux's script (to give the run a terminal) is not installed");
        return;
    }
    // script(1) runs the command on a pseudo-terminal; its stdout goes to /dev/null, its stderr to the terminal.
    Cli r = run_shell("script -qec '" + emutrace_binary() + " run " + firmware("faults") +
                      " --cmdline spin --wall-clock 1.3s 2>&1 >/dev/null' /dev/null");
    CHECK(r.status == 4);
    CHECK(r.out.find("\remutrace: ") != std::string::npos);
    CHECK(r.out.find(" MIPS, ") != std::string::npos);
    CHECK(r.out.find("\r\x1b[Kemutrace: ") != std::string::npos);
}

TEST_CASE("cli: a register no peripheral claims, polled under unclaimed_mmio: log, is reported once per address and counted") {
    // stub_reader polls a sensor's STATUS up to a million times; here no peripheral stands in for
    // the sensor, so every read is unclaimed and reads 0, and the firmware gives up (exit 3).
    TempDir dir;
    std::ofstream(dir.file("s.yaml")) << "cpu: cortex-m3\nunclaimed_mmio: log\nmemory:\n"
                                         "  - {name: flash, kind: flash, base: 0x00000000, size: 4MiB}\n"
                                         "  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\n"
                                         "  - {name: apb, kind: mmio, base: 0x40000000, size: 1MiB}\n"
                                         "stop: {wall_clock: 120s}\n";
    Cli r = emutrace_cli("run " + firmware("stub_reader") + " -s " + dir.file("s.yaml") + " --json " + dir.file("r.json"));
    CHECK(r.status == 3);
    CHECK(r.out.find("stub: status timeout") != std::string::npos);
    // ID, DATA and STATUS: one line each, however often they are read.
    std::size_t lines = 0;
    for (auto at = r.err.find("unclaimed MMIO read at"); at != std::string::npos; at = r.err.find("unclaimed MMIO read at", at + 1)) ++lines;
    CHECK(lines == 3);
    CHECK(r.err.find("unclaimed MMIO read at 0x40010008 by 0x") != std::string::npos);
    CHECK(r.err.find("(main+") != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["unclaimed_mmio_accesses"] == 1 + 4 + 1'000'000);
    CHECK(r.err.find("1,000,005 MMIO accesses no peripheral claimed") != std::string::npos);
}

TEST_CASE("cli: a hang names its source line, and an endless for loop after a failed check is called an assert") {
    // faults.c's priority_bits() checks its argument as FreeRTOS's configASSERT does: interrupts
    // masked and a for(;;) when the check fails; it returns otherwise.
    Cli assert_hang = emutrace_cli("run " + firmware("faults") + " --cmdline assert -q");
    CHECK(assert_hang.status == 5);
    CHECK(assert_hang.err.find("branch-to-self at ") != std::string::npos);
    CHECK(assert_hang.err.find("(priority_bits") != std::string::npos);
    CHECK(assert_hang.err.find("source faults.c:") != std::string::npos);
    CHECK(assert_hang.err.find("it looks like a failed assert: priority_bits returns on its other paths") != std::string::npos);
    // A trap with no way out hangs by design: its line, no word of an assert.
    Cli trap = emutrace_cli("run " + firmware("faults") + " --cmdline trap -q");
    CHECK(trap.status == 5);
    CHECK(trap.err.find("(trap_forever") != std::string::npos);
    CHECK(trap.err.find("source faults.c:") != std::string::npos);
    CHECK(trap.err.find("assert") == std::string::npos);
}
