#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "support/run_firmware.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

std::pair<emu::RunResult, std::string> run_faults(const std::string& mode, const std::function<void(emu::MachineConfig&)>& tweak) {
    FirmwareRun r = run_firmware("faults", "tests/scenarios/faults.yaml", [&](emu::MachineConfig& c) {
        c.semihosting.cmdline = mode;
        tweak(c);
    });
    return {r.result, r.sink.text};
}

}  // namespace

TEST_CASE("semihosting: host files are refused unless the scenario grants a directory") {
    auto [refused, text] = run_faults("host-file", [](emu::MachineConfig&) {});
    CHECK(refused.reason == emu::StopReason::Exited);
    CHECK(text.find("faults: open=-1 errno=13") != std::string::npos);  // EACCES

    TempDir dir;
    auto [granted, text2] = run_faults("host-file", [&](emu::MachineConfig& c) { c.semihosting.host_dir = dir.path(); });
    CHECK(granted.reason == emu::StopReason::Exited);
    CHECK(text2.find("faults: open=3 errno=0") != std::string::npos);
    CHECK(read_file(dir.file("out.txt")) == "hello host\n");
}

TEST_CASE("semihosting: SYS_CLOCK counts emulated, not host, time") {
    // At 1 kHz one centisecond is 10 cycles, so the clock read near the end is about cycles / 10.
    auto [r, text] = run_faults("clock", [](emu::MachineConfig& c) { c.clock_hz = 1000; });
    REQUIRE(r.reason == emu::StopReason::Exited);
    auto at = text.find("faults: clock=");
    REQUIRE(at != std::string::npos);
    unsigned long clock = std::strtoul(text.c_str() + at + 14, nullptr, 10);
    CHECK(clock <= r.cycles / 10);
    CHECK(clock + 200 >= r.cycles / 10);
    CHECK(clock > 10'000);
}
