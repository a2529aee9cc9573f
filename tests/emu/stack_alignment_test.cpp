// ARMv7-M's stack pointers are word-aligned whatever is written to them (bits [1:0] read as
// zero); Unicorn 2.0.1 keeps what was written. tests/firmware/stack_alignment.c writes SP
// unaligned values in each way an instruction can, and reads them back.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>

#include "support/run_firmware.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

std::map<std::string, std::uint32_t> values(const std::string& text) {
    std::map<std::string, std::uint32_t> out;
    std::istringstream in(text);
    std::string name, hex;
    while (in >> name >> hex) out[name] = static_cast<std::uint32_t>(std::stoul(hex, nullptr, 16));
    return out;
}

}  // namespace

TEST_CASE("stack pointer: a written value loses bits [1:0], read back at once, a block later, through SP, from MSR") {
    for (auto timing : {emu::TimingMode::None, emu::TimingMode::Trm, emu::TimingMode::Pipeline}) {
        CAPTURE(static_cast<int>(timing));
        FirmwareRun run = run_firmware("stack_alignment", "", [timing](emu::MachineConfig& c) { c.timing = timing; });
        REQUIRE(run.result.exit_code == 0);
        auto v = values(run.sink.text);
        REQUIRE(v.size() == 8);
        // Each is SP's offset from the aligned word it was set just past.
        for (const char* name : {"mov_sp", "add_sp_register", "add_sp_immediate", "mov_sp_then_branch", "ldr_into_sp", "msr_psp", "it_mov_sp"}) {
            CAPTURE(std::string(name));
            CHECK(v[name] == 0);
        }
        // [sp, #4] with SP cleared to the array: its second word, not one across the second and third.
        CHECK(v["ldr_sp_relative"] == 0x22222222u);
    }
}
