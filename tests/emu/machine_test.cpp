#include <doctest/doctest.h>

#include <cstdio>
#include <functional>

#include "support/run_firmware.h"
#include "tests/firmware/compute_reference.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

using Run = FirmwareRun;

Run run(const std::string& elf, const std::string& scenario = "", const std::function<void(emu::MachineConfig&)>& tweak = {}) {
    return run_firmware(elf, scenario, tweak);
}

std::string hex8(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

}  // namespace

TEST_CASE("machine: compute firmware sorts, prints the reference CRC and exits 0") {
    Run r = run("compute");
    CHECK(r.result.reason == emu::StopReason::Exited);
    CHECK(r.result.exit_code == 0);
    CHECK(emu::exit_status(r.result) == 0);
    std::string line = "compute: crc=" + hex8(compute_reference_crc(1)) + " iterations=1\n";
    CHECK(r.sink.text == line + line);  // semihosting, then the UART
    // The System Control Space and the DWT are always there, at their architectural addresses; on
    // this Cortex-M3 the ITM and TPIU too.
    CHECK(r.sink.info.devices == std::vector<std::string>{"uart0", "itm", "dwt", "scs", "tpiu"});
    // The block stream accounts for every instruction, in cycle order, and ends with one Stop.
    CHECK(r.sink.block_instructions == r.result.instructions);
    CHECK(r.result.instructions > 50'000);
    CHECK(r.sink.cycles_monotonic);
    CHECK(r.sink.block_costs_consistent);
    CHECK(r.sink.block_cycles <= r.result.cycles);  // taken-branch refills come on top
    CHECK(r.sink.block_cycles > r.result.instructions);
    REQUIRE(r.sink.stops.size() == 1);
    CHECK(r.sink.stops[0].value == static_cast<std::uint32_t>(emu::StopReason::Exited));
    CHECK(r.sink.ended);
    CHECK(r.sink.batches > 1);
}

TEST_CASE("machine: the scenario's core decides what runs") {
    auto on = [](const char* core) { return [core](emu::MachineConfig& c) { c.core = *models::find_core(core); }; };
    Run m0 = run("compute_m0", "", on("cortex-m0"));
    CHECK(m0.result.reason == emu::StopReason::Exited);
    CHECK(m0.sink.text.find(hex8(compute_reference_crc(1))) != std::string::npos);

    // Code built for the M3 uses Thumb-2, which an M0 cannot execute (Unicorn alone would run it).
    Run wrong = run("compute", "", on("cortex-m0"));
    CHECK(wrong.result.reason == emu::StopReason::Fault);
    REQUIRE(wrong.result.fault);
    CHECK(wrong.result.fault->kind == emu::FaultKind::UnsupportedInstruction);
    CHECK(wrong.result.fault->detail.find("cortex-m0") != std::string::npos);
    CHECK(emu::exit_status(wrong.result) == 2);

    Run m4 = run("compute_m4", "", on("cortex-m4"));
    CHECK(m4.result.reason == emu::StopReason::Exited);
}

TEST_CASE("machine: the stub peripheral feeds the firmware its scripted values") {
    Run r = run("stub_reader", "tests/scenarios/stub_sensor.yaml");
    CHECK(r.result.reason == emu::StopReason::Exited);
    CHECK(r.sink.text.find("stub: id=0x5e050001 data=17,42,99,7 ") != std::string::npos);
    CHECK(r.sink.text.find("echo=0x000000a5") != std::string::npos);
    // STATUS turns ready at cycle 20,000: the firmware must have polled until then.
    CHECK(r.result.cycles >= 20'000);
    REQUIRE(!r.sink.mmio.empty());
    const trace::Event& id = r.sink.mmio.front();
    CHECK(id.kind == trace::EventKind::MmioRead);
    CHECK(id.address == 0x40010000u);
    CHECK(id.value == 0x5E050001u);
    CHECK(r.sink.info.devices.at(id.channel) == "sensor");
    bool wrote_cmd = false;
    for (const auto& e : r.sink.mmio) wrote_cmd |= e.kind == trace::EventKind::MmioWrite && e.extra == 0xC && e.value == 0xA5;
    CHECK(wrote_cmd);
}

TEST_CASE("machine: bit-banding sets, clears and reads single bits of SRAM and of a device register through their aliases") {
    Run r = run("bit_band", "tests/scenarios/bit_band.yaml");
    CHECK(r.result.reason == emu::StopReason::Exited);
    // Word and byte accesses to the SRAM alias, set and clear (bit 0 of the value written decides),
    // reads of a set and a clear bit; the stub register CTRL (reset 0xF0) read-modify-written.
    CHECK(r.sink.text.find("bit_band: sram 0x80000008 0x80000000 bit3=1 bit4=0 byte 0x00000104 ctrl 0x000000f1 0x000000e1 bit7=1 bit4=0") !=
          std::string::npos);
    // The device saw the read-modify-write at its register, not at the alias.
    bool read_then_written = false;
    for (std::size_t i = 0; i + 1 < r.sink.mmio.size(); ++i)
        read_then_written |= r.sink.mmio[i].kind == trace::EventKind::MmioRead && r.sink.mmio[i].address == 0x40010000u &&
                             r.sink.mmio[i + 1].kind == trace::EventKind::MmioWrite && r.sink.mmio[i + 1].value == 0xF1;
    CHECK(read_then_written);
    // Without the property the alias is no memory: the first alias store faults there.
    Run plain = run("bit_band", "tests/scenarios/bit_band.yaml", [](emu::MachineConfig& c) { c.bit_band = false; });
    CHECK(plain.result.reason == emu::StopReason::Fault);
    CHECK(plain.result.message.find("write to unmapped memory at 0x22") != std::string::npos);
}

TEST_CASE("machine: faults stop the run with kind, address and function") {
    struct Case {
        const char* mode;
        emu::FaultKind kind;
        std::uint32_t address;
    };
    for (Case c :
         {Case{"unmapped-read", emu::FaultKind::UnmappedRead, 0x60000000}, Case{"unmapped-write", emu::FaultKind::UnmappedWrite, 0x60000000},
          Case{"nx-fetch", emu::FaultKind::FetchNotExecutable, 0x20000000}, Case{"mmio-unclaimed", emu::FaultKind::UnclaimedMmio, 0x40020000}}) {
        CAPTURE(c.mode);
        Run r = run("faults", "tests/scenarios/faults.yaml", cmdline(c.mode));
        CHECK(r.result.reason == emu::StopReason::Fault);
        REQUIRE(r.result.fault);
        CHECK(r.result.fault->kind == c.kind);
        CHECK(r.result.fault->address == c.address);
        if (c.kind != emu::FaultKind::FetchNotExecutable) {
            // The exact faulting load or store, though Unicorn reported only its block's start.
            CHECK_FALSE(r.result.fault->pc_is_block_start);
            CHECK((r.result.fault->detail.find("'ldr") == 0 || r.result.fault->detail.find("'str") == 0));
        }
        CHECK(r.sink.text.find("survived") == std::string::npos);
        CHECK(r.sink.stops.size() == 1);
    }
    Run rom = run("faults", "tests/scenarios/faults.yaml", cmdline("rom-write"));
    REQUIRE(rom.result.fault);
    CHECK(rom.result.fault->kind == emu::FaultKind::WriteToReadOnly);
    CHECK(rom.result.fault->function.rfind("main", 0) == 0);

    Run undef = run("faults", "tests/scenarios/faults.yaml", cmdline("undef"));
    REQUIRE(undef.result.fault);
    CHECK(undef.result.fault->kind == emu::FaultKind::UndefinedInstruction);
    CHECK(undef.result.fault->detail == "'udf #0'");
    CHECK(!undef.result.fault->pc_is_block_start);
}

TEST_CASE("machine: unclaimed MMIO under the log policy reads zero and carries on") {
    Run r = run("faults", "tests/scenarios/faults.yaml", [](emu::MachineConfig& c) {
        c.semihosting.cmdline = "mmio-unclaimed";
        c.unclaimed_mmio = emu::UnclaimedMmio::Log;
    });
    CHECK(r.result.reason == emu::StopReason::Exited);
    CHECK(r.sink.text.find("faults: mmio read=0x00000000") != std::string::npos);
}

TEST_CASE("machine: stop conditions each have their own reason and status") {
    Run exited = run("faults", "tests/scenarios/faults.yaml", cmdline("exit 7"));
    CHECK(exited.result.reason == emu::StopReason::Exited);
    CHECK(emu::exit_status(exited.result) == 7);

    Run hang = run("faults", "tests/scenarios/faults.yaml", cmdline("hang"));
    CHECK(hang.result.reason == emu::StopReason::Hang);
    CHECK(hang.result.message.find("PRIMASK=1") != std::string::npos);
    CHECK(emu::exit_status(hang.result) == 5);

    Run limited = run("faults", "tests/scenarios/faults.yaml", [](emu::MachineConfig& c) {
        c.semihosting.cmdline = "spin";
        c.stop.max_instructions = 100'000;
    });
    CHECK(limited.result.reason == emu::StopReason::MaxInstructions);
    CHECK(limited.result.instructions >= 100'000);
    CHECK(limited.result.instructions < 100'100);  // stops at the first block boundary past the limit
    CHECK(emu::exit_status(limited.result) == 3);

    Run timed = run("faults", "tests/scenarios/faults.yaml", [](emu::MachineConfig& c) {
        c.semihosting.cmdline = "spin";
        c.stop.wall_clock_seconds = 0.2;
    });
    CHECK(timed.result.reason == emu::StopReason::WallClock);
    CHECK(timed.result.host_seconds >= 0.2);
    CHECK(emu::exit_status(timed.result) == 4);

    Run symbol = run("faults", "tests/scenarios/faults.yaml", [](emu::MachineConfig& c) {
        c.semihosting.cmdline = "symbol";
        c.stop.at_symbol = "checkpoint_reached";
    });
    CHECK(symbol.result.reason == emu::StopReason::SymbolReached);
    CHECK(emu::exit_status(symbol.result) == 0);
}

TEST_CASE("machine: SVC enters the firmware's SVCall vector") {
    // faults.elf has no SVC handler, so the startup code's default handler reports and exits 99.
    Run r = run("faults", "tests/scenarios/faults.yaml", cmdline("svc"));
    CHECK(r.result.reason == emu::StopReason::Exited);
    CHECK(r.result.exit_code == 99);
    CHECK(r.sink.text.find("emutrace-fw: unexpected exception") != std::string::npos);
    CHECK(r.result.exceptions == 1);
    REQUIRE(r.sink.exceptions.size() == 1);
    CHECK(r.sink.exceptions[0].kind == trace::EventKind::ExceptionEntry);
    CHECK(r.sink.exceptions[0].value == 11);
    CHECK(r.sink.exceptions[0].extra % 8 == 0);  // 8-byte aligned frame
}

TEST_CASE("machine: an unknown stop symbol is a configuration error") {
    CHECK_THROWS_WITH_AS(run("compute", "", [](emu::MachineConfig& c) { c.stop.at_symbol = "no_such_function"; }),
                         doctest::Contains("'no_such_function' is not in the symbol table"), ConfigError);
}
