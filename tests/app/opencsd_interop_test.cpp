// Our trace files read by the other side's tool: OpenCSD's own trc_pkt_lister (Debian
// libopencsd-bin) decodes each snapshot emutrace writes, and must find exactly the instructions the
// emulated run executed, with no range it cannot read.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"
#include "support/uart_waveform.h"

using namespace emutrace::test;

namespace {

struct Listed {
    std::uint64_t instructions = 0, ranges = 0, unreadable = 0, exceptions = 0, exception_returns = 0;
    bool accessor_failed = false;
};

// trc_pkt_lister's decode of a snapshot: the instructions in its OCSD_GEN_TRC_ELEM_INSTR_RANGE
// elements (num_i), and the elements that say it could not read the code.
Listed list(const std::string& snapshot) {
    // From the snapshot's directory: trc_pkt_lister also writes trc_pkt_lister.ppl where it runs.
    Cli r = run_shell("cd " + snapshot + " && trc_pkt_lister -ss_dir . -decode -logstdout");
    Listed l;
    static const std::regex num_i(R"(num_i\((\d+)\))");
    std::size_t at = 0;
    for (std::size_t end; (end = r.out.find('\n', at)) != std::string::npos; at = end + 1) {
        std::string line = r.out.substr(at, end - at);
        if (line.find("OCSD_GEN_TRC_ELEM_INSTR_RANGE") != std::string::npos) {
            std::smatch m;
            if (std::regex_search(line, m, num_i)) l.instructions += std::stoull(m[1]), ++l.ranges;
        }
        if (line.find("ADDR_NACC") != std::string::npos) ++l.unreadable;
        if (line.find("OCSD_GEN_TRC_ELEM_EXCEPTION(") != std::string::npos) ++l.exceptions;
        if (line.find("OCSD_GEN_TRC_ELEM_EXCEPTION_RET") != std::string::npos) ++l.exception_returns;
        if (line.find("Failed to create memory accessor") != std::string::npos) l.accessor_failed = true;
    }
    return l;
}

struct Case {
    std::string name, args;
};

// The firmwares both tests run, with cycle-accurate trace through a scenario written to `dir`:
// loops and calls; exceptions with tail-chains; cycle-accurate trace; with `every`, also an RTOS's
// context switches and code images of odd lengths (faults: 2,266 bytes and a 10-byte one in SRAM).
std::vector<Case> cases(const TempDir& dir, bool every) {
    REQUIRE_MESSAGE(run_shell("command -v trc_pkt_lister").status == 0, "trc_pkt_lister is missing: scripts/install-deps installs libopencsd-bin");
    std::ofstream(dir.file("ca.yaml")) << read_file(source("scenarios/boards/mps2-an385.yaml")) << "pft: {cycle_accurate: true}\n";
    std::vector<Case> c = {
        {"kernels", firmware("kernels")},
        {"irq", firmware("irq_tests") + " -s " + source("tests/scenarios/irq.yaml") + " --cmdline tailchain"},
        {"dwt_timing_cycle_accurate", firmware("dwt_timing") + " -s " + dir.file("ca.yaml")},
    };
    if (every) {
        c.push_back({"rtos", firmware("rtos")});
        c.push_back({"faults", firmware("faults") + " -s " + source("tests/scenarios/faults.yaml") + " --cmdline host-file"});
    }
    return c;
}

// trc_pkt_lister found every instruction the run executed, and could read all of the code.
void check_decoded(const Listed& l, std::uint64_t executed) {
    CHECK(!l.accessor_failed);
    CHECK(l.unreadable == 0);
    CHECK(l.ranges > 0);
    CHECK(l.instructions == executed);
}

}  // namespace

TEST_CASE("opencsd: trc_pkt_lister decodes every snapshot emutrace writes to the instructions the run executed") {
    TempDir dir;
    for (const Case& c : cases(dir, true)) {
        CAPTURE(c.name);
        const std::string snapshot = dir.file(c.name), json = dir.file(c.name + ".json");
        Cli run = emutrace_cli("run " + c.args + " -q --snapshot " + snapshot + " --json " + json);
        REQUIRE(run.status == 0);
        const std::uint64_t executed = nlohmann::json::parse(read_file(json))["instructions"];
        check_decoded(list(snapshot), executed);
    }
}

// The raw stream of --pft (no formatter frames) is what a PTM emits on its own trace port: OpenCSD
// reads it as a "source_data" buffer. The snapshot written beside it supplies the core, the PTM's
// registers and the code; its trace.ini is pointed at the raw file instead of the ETB's.
TEST_CASE("opencsd: trc_pkt_lister decodes the raw --pft stream to the instructions the run executed") {
    TempDir dir;
    for (const Case& c : cases(dir, false)) {
        CAPTURE(c.name);
        const std::string snapshot = dir.file(c.name), json = dir.file(c.name + ".json"), raw = dir.file(c.name + ".pft");
        Cli run = emutrace_cli("run " + c.args + " -q --pft " + raw + " --snapshot " + snapshot + " --json " + json);
        REQUIRE(run.status == 0);
        const std::uint64_t executed = nlohmann::json::parse(read_file(json))["instructions"];
        std::string ini = read_file(snapshot + "/trace.ini");
        auto replace = [&](const std::string& from, const std::string& to) {
            std::size_t at = ini.find(from);
            REQUIRE_MESSAGE(at != std::string::npos, "trace.ini lacks " << from);
            ini.replace(at, from.size(), to);
        };
        replace("name=ETB_0", "name=PTM_0");
        replace("file=cstrace.bin", "file=../" + c.name + ".pft");  // trc_pkt_lister joins it to the snapshot's path
        replace("format=coresight", "format=source_data");
        replace("PTM_0=ETB_0", "PTM_0=PTM_0");
        std::ofstream(snapshot + "/trace.ini") << ini;
        check_decoded(list(snapshot), executed);
    }
}

// A Cortex-M3's ETM (ETMv3.4) in place of the PTM: OpenCSD's ETMv3 decoder, which reads M-profile
// exceptions, follows an atom per instruction through the code and must find every instruction the
// run executed, each exception entry and each return.
TEST_CASE("opencsd: trc_pkt_lister decodes every ETMv3 snapshot emutrace writes to the instructions, exceptions and returns of the run") {
    TempDir dir;
    std::vector<Case> every = cases(dir, true);
    for (const char* mode : {"nested", "svc", "pendsv", "wfi", "periodic"})
        every.push_back({std::string("irq_") + mode, firmware("irq_tests") + " -s " + source("tests/scenarios/irq.yaml") + " --cmdline " + mode});
    for (const Case& c : every) {
        CAPTURE(c.name);
        const std::string snapshot = dir.file(c.name + "_etm"), json = dir.file(c.name + "_etm.json");
        Cli run = emutrace_cli("run " + c.args + " -q --etm-snapshot " + snapshot + " --json " + json);
        REQUIRE_MESSAGE(run.status == 0, run.err);
        const auto j = nlohmann::json::parse(read_file(json));
        CHECK(read_file(snapshot + "/device2.ini").find("type=ETM3") != std::string::npos);
        const Listed l = list(snapshot);
        check_decoded(l, j["instructions"]);
        CHECK(l.exceptions == j["etm"]["exceptions"]);
        CHECK(l.exception_returns == j["etm"]["exception_returns"]);
    }
}

// sigrok's arm_etmv3 decoder, on the raw --etm stream as an ETM's trace port would carry it: every
// instruction the run executed, and the run's interrupts by name (its numbers past 15 it does not
// read as OpenCSD does, so the interrupt firmware's low IRQs are what it is held to).
TEST_CASE("sigrok: arm_etmv3 reads the raw --etm stream as the run's instructions and interrupts") {
    TempDir dir;
    for (const char* mode : {"nested", "tailchain"}) {
        CAPTURE(mode);
        Cli run = emutrace_cli("run " + firmware("irq_tests") + " -s " + source("tests/scenarios/irq.yaml") + " --cmdline " + mode + " -q --etm " +
                               dir.file("t.etm") + " --json " + dir.file("r.json") + " --events " + dir.file("e.jsonl"));
        REQUIRE(run.status == 0);
        write_file(dir.file("pin.bin"), uart_waveform(read_file(dir.file("t.etm"))));
        Cli sigrok =
            run_shell(sigrok_uart(dir.file("pin.bin"), "arm_etmv3:elffile=" + firmware("irq_tests") + ":branch_enc=alternative", "arm_etmv3"));
        REQUIRE_MESSAGE(sigrok.status == 0, sigrok.err);
        std::uint64_t pcs = 0;
        std::string taken;
        std::istringstream lines(sigrok.out);
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("arm_etmv3-1: PC 0x", 0) == 0) ++pcs;
            if (auto at = line.find(", exception "); at != std::string::npos) taken += line.substr(at + 12) + " ";
        }
        CHECK(pcs == nlohmann::json::parse(read_file(dir.file("r.json")))["instructions"].get<std::uint64_t>());
        std::string ran;
        std::istringstream events(read_file(dir.file("e.jsonl")));
        for (std::string line; std::getline(events, line);)
            if (line.find("\"exception_entry\"") != std::string::npos) ran += nlohmann::json::parse(line)["name"].get<std::string>() + " ";
        CHECK(!ran.empty());
        CHECK(taken == ran);
    }
}

// The ETMv3 snapshot read back by emutrace itself (decode etm, crosscheck --snapshot): the same
// program flow as the run, step for step, through context switches, tail-chains and exceptions
// taken right after a branch (whose return address the decoder finds from the code).
TEST_CASE("etm: crosscheck holds an --etm-snapshot against the same run and finds the paths identical") {
    TempDir dir;
    const std::vector<Case> runs = {
        {"rtos", firmware("rtos")},
        {"tailchain", firmware("irq_tests") + " -s " + source("tests/scenarios/irq.yaml") + " --cmdline tailchain"},
        {"pendsv", firmware("irq_tests") + " -s " + source("tests/scenarios/irq.yaml") + " --cmdline pendsv"},
    };
    for (const Case& c : runs) {
        CAPTURE(c.name);
        const std::string snapshot = dir.file(c.name), elf = c.args.substr(0, c.args.find(' '));
        const std::string rest = c.args.find(' ') == std::string::npos ? "" : c.args.substr(c.args.find(' '));
        Cli run = emutrace_cli("run " + c.args + " -q --etm-snapshot " + snapshot + " --json " + dir.file(c.name + ".json"));
        REQUIRE(run.status == 0);
        Cli decoded = emutrace_cli("decode etm " + snapshot + " --elf " + elf + " --json " + dir.file(c.name + ".d.json"));
        REQUIRE_MESSAGE(decoded.status == 0, decoded.err);
        CHECK(nlohmann::json::parse(read_file(dir.file(c.name + ".d.json")))["instructions"] ==
              nlohmann::json::parse(read_file(dir.file(c.name + ".json")))["instructions"]);
        const std::string scenario = rest.find("-s ") == std::string::npos ? " -s " + source("scenarios/boards/mps2-an385.yaml") : "";
        Cli cross = emutrace_cli("crosscheck --snapshot " + snapshot + " --elf " + elf + scenario + rest);
        CHECK_MESSAGE(cross.status == 0, cross.out.substr(cross.out.find("paths:") == std::string::npos ? 0 : cross.out.find("paths:"), 400));
        CHECK(cross.out.find("paths: identical") != std::string::npos);
    }
}

// Cycle-accurate ETMv3 (etm: {cycle_accurate: true}): OpenCSD's decoder reads a W per cycle from the
// P-headers, and the cycles it counts add up to the run's, exceptions' entries and returns included;
// emutrace's own decode etm reads the same from the snapshot.
TEST_CASE("opencsd: a cycle-accurate ETMv3 snapshot's cycle counts add up to the run's cycles, instruction for instruction") {
    TempDir dir;
    std::ofstream(dir.file("kernels_ca.yaml")) << read_file(source("scenarios/boards/mps2-an385.yaml")) << "etm: {cycle_accurate: true}\n";
    std::ofstream(dir.file("irq_ca.yaml")) << read_file(source("tests/scenarios/irq.yaml")) << "etm: {cycle_accurate: true}\n";
    const std::vector<Case> every = {{"kernels", firmware("kernels") + " -s " + dir.file("kernels_ca.yaml")},
                                     {"tailchain", firmware("irq_tests") + " -s " + dir.file("irq_ca.yaml") + " --cmdline tailchain"},
                                     {"nested", firmware("irq_tests") + " -s " + dir.file("irq_ca.yaml") + " --cmdline nested"}};
    static const std::regex cycles(R"(\[CC=(\d+)\])");
    for (const Case& c : every) {
        CAPTURE(c.name);
        const std::string snapshot = dir.file(c.name + "_etm"), json = dir.file(c.name + ".json");
        REQUIRE(emutrace_cli("run " + c.args + " -q --etm-snapshot " + snapshot + " --json " + json).status == 0);
        const auto run = nlohmann::json::parse(read_file(json));
        CHECK(run["etm"]["cycle_accurate"] == true);
        check_decoded(list(snapshot), run["instructions"]);
        Cli listed = run_shell("cd " + snapshot + " && trc_pkt_lister -ss_dir . -decode -logstdout");
        std::uint64_t counted = 0;
        for (auto m = std::sregex_iterator(listed.out.begin(), listed.out.end(), cycles); m != std::sregex_iterator(); ++m)
            counted += std::stoull((*m)[1]);
        CHECK(counted == run["cycles"].get<std::uint64_t>());
        const std::string elf = c.args.substr(0, c.args.find(' '));
        REQUIRE(emutrace_cli("decode etm " + snapshot + " --elf " + elf + " --json " + dir.file(c.name + ".d.json")).status == 0);
        CHECK(nlohmann::json::parse(read_file(dir.file(c.name + ".d.json")))["cycles"] == run["cycles"]);
    }
}
