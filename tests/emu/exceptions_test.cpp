// The exception model on real firmware: tests/firmware/irq_tests.c, rtos/, uart_echo.c. Each
// irq_tests mode also checks NVIC/SCB registers itself and prints "irq: FAIL" on a mismatch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "decode/instruction_decoder.h"
#include "models/core.h"
#include "models/timing_model.h"
#include "support/run_firmware.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

FirmwareRun irq(const std::string& mode) {
    return run_firmware("irq_tests", "tests/scenarios/irq.yaml", cmdline(mode));
}

// The numbers printed after `prefix` on each line of `text`.
std::vector<unsigned long> numbers_after(const std::string& text, const std::string& prefix) {
    std::vector<unsigned long> out;
    for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1))
        out.push_back(std::strtoul(text.c_str() + at + prefix.size(), nullptr, 10));
    return out;
}

}  // namespace

TEST_CASE("exceptions: handler order proves preemption, tail-chaining and masking") {
    const std::map<std::string, std::string> expected{
        {"nested", "irq0 enter\nirq1\nirq0 exit\nthread resumed\n"},
        {"tailchain", "irq1\nirq2\nirq0\nthread resumed\n"},
        {"primask", "masked\nirq1\nirq0\nunmasked\n"},
        {"basepri", "irq1\nbasepri set\nirq0\nbasepri cleared\n"},
        {"pendsv", "irq0\npendsv\nthread resumed\n"},
        {"svc", "svc 7\nsvc returned 0x00001234\nsvc 8\nsvc returned 0x00001234\n"},  // SVC from MSP, then from PSP
    };
    for (const auto& [mode, transcript] : expected) {
        CAPTURE(mode);
        FirmwareRun r = irq(mode);
        CHECK(r.sink.text == "irq: mode=" + mode + "\n" + transcript);
        CHECK(r.result.reason == emu::StopReason::Exited);
        CHECK(r.result.exit_code == 0);
    }
}

TEST_CASE("exceptions: entry and return events nest in order, with 8-byte aligned frames") {
    FirmwareRun r = irq("nested");
    std::vector<std::pair<trace::EventKind, std::uint32_t>> seen;
    for (const auto& e : r.sink.exceptions) {
        seen.emplace_back(e.kind, e.value);
        if (e.kind == trace::EventKind::ExceptionEntry) CHECK(e.extra % 8 == 0);
    }
    using K = trace::EventKind;
    // IRQ0 (exception 16) is preempted by IRQ1 (17); IRQ3/IRQ4 stimuli stay pending (disabled).
    CHECK(seen == std::vector<std::pair<K, std::uint32_t>>{
                      {K::ExceptionEntry, 16}, {K::ExceptionEntry, 17}, {K::ExceptionReturn, 17}, {K::ExceptionReturn, 16}});
    CHECK(r.sink.exceptions[1].extra < r.sink.exceptions[0].extra);  // IRQ1's frame sits below IRQ0's
    CHECK(r.sink.exceptions[3].extra == 0xFFFFFFF9u);                // back to thread mode on MSP
    CHECK(r.result.exceptions == 2);
}

TEST_CASE("exceptions: a stimulus interrupt arrives at its emulated time") {
    FirmwareRun r = irq("stimulus");
    REQUIRE(r.result.exit_code == 0);
    auto at = numbers_after(r.sink.text, "irq3 at cycle ");
    REQUIRE(at.size() == 1);
    CHECK(at[0] >= 25'000);  // 1 ms at 25 MHz
    CHECK(at[0] < 25'100);   // taken at the next block boundary, plus the handler's own prologue

    FirmwareRun p = irq("periodic");
    REQUIRE(p.result.exit_code == 0);
    auto times = numbers_after(p.sink.text, " at cycle ");
    REQUIRE(times.size() == 5);
    for (std::size_t k = 0; k < times.size(); ++k) {
        CHECK(times[k] >= 2'500 + 5'000 * k);
        CHECK(times[k] < 2'600 + 5'000 * k);
    }
}

TEST_CASE("exceptions: WFI sleeps until the next SysTick instead of spinning") {
    // The per-block model, whose exception cycles are the TRM's latencies (the pipeline's are
    // bus transfers: timing_test.cpp).
    FirmwareRun r = run_firmware("irq_tests", "tests/scenarios/irq.yaml", [](emu::MachineConfig& c) {
        c.semihosting.cmdline = "wfi";
        c.timing = emu::TimingMode::Trm;
    });
    CHECK(r.result.exit_code == 0);  // the firmware checks each wake-up is 25,000 +- 50 cycles apart
    CHECK(r.sink.text.find("ticks 3") != std::string::npos);
    CHECK(r.result.sleep_cycles > 60'000);
    CHECK(r.result.instructions < 10'000);
    // Instructions cost at least a cycle each; the rest is sleep and exception overhead.
    CHECK(r.result.cycles >= r.result.instructions + r.result.sleep_cycles + r.result.exception_cycles);
    CHECK(r.result.exception_cycles == 3 * (12 + 10));  // three SysTick entries and returns on a Cortex-M3
}

TEST_CASE("exceptions: asleep in WFI, the core wakes at the tick whatever ran before it, in both cycle models") {
    // The firmware's second wait has a divide still executing as WFI comes; it checks that
    // SysTick's handler reads the same SYST_CVR after each wait.
    for (auto timing : {emu::TimingMode::Trm, emu::TimingMode::Pipeline}) {
        FirmwareRun r = run_firmware("irq_tests", "tests/scenarios/irq.yaml", [&](emu::MachineConfig& c) {
            c.semihosting.cmdline = "wfi";
            c.timing = timing;
        });
        CHECK(r.result.exit_code == 0);
        auto cvr = numbers_after(r.sink.text, "handler ran at SYST_CVR ");
        REQUIRE(cvr.size() == 3);
        CHECK(cvr[0] < 25'000 - 12);  // at least the entry's 12 cycles after the tick
        CHECK(cvr[1] == cvr[0]);
        CHECK(cvr[2] == cvr[0]);
    }
}

TEST_CASE("exceptions: a bus fault reaches HardFault with CFSR, HFSR and BFAR set") {
    FirmwareRun r = irq("hardfault");
    CHECK(r.sink.text == "irq: mode=hardfault\ncfsr=0x00008200 hfsr=0x40000000 bfar=0x60000000\n");
    CHECK(r.result.exit_code == 0);
}

TEST_CASE("exceptions: the HardFault frame holds the faulting load as its return address") {
    FirmwareRun r = irq("hardfault");
    const trace::Event* entry = nullptr;
    for (const auto& e : r.sink.exceptions)
        if (e.kind == trace::EventKind::ExceptionEntry && e.value == 3) entry = &e;
    REQUIRE(entry);
    decode::ElfImage image = decode::ElfImage::load(firmware("irq_tests"));
    const auto& text = image.segments().front();
    REQUIRE(entry->address + 4 <= text.bytes.size());
    decode::InstructionDecoder decoder;
    decode::Instruction insn = decoder.decode_one(std::span(text.bytes).subspan(entry->address, 4), entry->address);
    CHECK(insn.text.rfind("ldr", 0) == 0);
    CHECK(insn.memory.mode == decode::MemoryAccess::Mode::Offset);
}

TEST_CASE("exceptions: a Cortex-M4F stacks the floating-point context once thread code has one") {
    // tests/firmware/fp_context.c checks the registers, FPSCR, CONTROL.FPCA and the frame's FP area
    // itself; here, that it passed in both cycle models and that EXC_RETURN told the handlers so.
    for (auto timing : {emu::TimingMode::Trm, emu::TimingMode::Pipeline}) {
        CAPTURE(static_cast<int>(timing));
        FirmwareRun r = run_firmware("fp_context", "", [&](emu::MachineConfig& c) {
            c.core = models::core_spec(models::CoreKind::CortexM4F);
            c.timing = timing;
        });
        CHECK(r.sink.text.ends_with("\nfp: ok\n"));
        CHECK(r.result.exit_code == 0);
        // The handler's first FP instructions, timed by the firmware: under lazy stacking those
        // after an extended frame write its 17 FP words there, a word a cycle (not at the return).
        const auto lazy = numbers_after(r.sink.text, "took ");
        const auto extended_fp = numbers_after(r.sink.text, "frame, ");
        REQUIRE(lazy.size() == 1);
        REQUIRE(extended_fp.size() == 1);
        CHECK(extended_fp[0] >= lazy[0] + 17);
        CHECK(extended_fp[0] <= lazy[0] + 17 + 2);
        std::vector<std::uint32_t> returns;
        for (const auto& e : r.sink.exceptions)
            if (e.kind == trace::EventKind::ExceptionReturn) returns.push_back(e.extra);
        // Before the thread's first FP instruction; after it (PendSV twice, then an SVC); then the
        // two threads' switches, the first into a thread that has not used the FPU yet.
        REQUIRE(returns.size() >= 6);
        CHECK(returns[0] == 0xFFFFFFF9u);
        CHECK(returns[1] == 0xFFFFFFE9u);
        CHECK(returns[2] == 0xFFFFFFE9u);
        CHECK(returns[3] == 0xFFFFFFE9u);
        CHECK(returns[4] == 0xFFFFFFFDu);
        CHECK(std::count(returns.begin() + 5, returns.end(), 0xFFFFFFEDu) >= 6);
        if (timing != emu::TimingMode::Trm) continue;
        // The cycles of the FP words, 17 a transfer of the area. Lazy stacking (FPCCR.LSPEN out of
        // reset): the area of a handler that uses the FPU is written once (at its first FP
        // instruction) and read back once; the SVC handler's is neither; the first switch, into a
        // thread with no FP context (0xFFFFFFFD), writes the area but reads none back. Eager
        // stacking: every extended frame is written at entry and read at its return.
        const models::TimingModel model(models::CoreKind::CortexM4F);
        const auto extended = static_cast<std::uint64_t>(std::count(returns.begin(), returns.end(), 0xFFFFFFE9u) +
                                                         std::count(returns.begin(), returns.end(), 0xFFFFFFEDu));
        const std::uint64_t base = r.result.exceptions * model.exception_entry() + returns.size() * model.exception_return();
        const std::uint64_t without_fp_use = 1;
        CHECK(r.result.exception_cycles == base + 17 * (2 * (extended - without_fp_use) + 1));

        FirmwareRun eager = run_firmware("fp_context", "", [&](emu::MachineConfig& c) {
            c.core = models::core_spec(models::CoreKind::CortexM4F);
            c.timing = timing;
            c.semihosting.cmdline = "eager";
        });
        CHECK(eager.sink.text.ends_with("\nfp: ok\n"));
        const auto eager_basic = numbers_after(eager.sink.text, "took "), eager_extended = numbers_after(eager.sink.text, "frame, ");
        REQUIRE(eager_basic.size() == 1);
        REQUIRE(eager_extended.size() == 1);
        CHECK(eager_extended[0] == eager_basic[0]);  // the words were written at the entry
        CHECK(eager.result.exceptions == r.result.exceptions);
        CHECK(eager.result.exception_cycles == base + 17 * (2 * extended + 1));
    }
}

TEST_CASE("exceptions: a fault inside HardFault locks up and stops the run") {
    FirmwareRun r = irq("lockup");
    CHECK(r.result.reason == emu::StopReason::Fault);
    REQUIRE(r.result.fault);
    CHECK(r.result.fault->kind == emu::FaultKind::Lockup);
    CHECK(r.result.fault->function.rfind("HardFault_Handler", 0) == 0);
    CHECK(emu::exit_status(r.result) == 2);
    CHECK(r.sink.text.find("in hardfault, faulting again") != std::string::npos);
}

TEST_CASE("exceptions: SYSRESETREQ stops the run with its own status") {
    FirmwareRun r = irq("sysreset");
    CHECK(r.result.reason == emu::StopReason::ResetRequested);
    CHECK(emu::exit_status(r.result) == 6);
}

TEST_CASE("exceptions: UART bytes from a stimulus wake the firmware through the RX interrupt") {
    FirmwareRun r = run_firmware("uart_echo", "tests/scenarios/uart_rx.yaml");
    CHECK(r.result.exit_code == 0);
    auto at = numbers_after(r.sink.text, "' at cycle ");
    CHECK(r.sink.text.rfind("uart got 'hello emutrace' at cycle ", 0) == 0);
    REQUIRE(at.size() == 1);
    CHECK(at[0] >= 50'000);
    CHECK(at[0] < 50'100);
}

TEST_CASE("rtos: the preemptive kernel's transcript and its thread switches") {
    FirmwareRun r = run_firmware("rtos", "tests/scenarios/rtos.yaml");
    REQUIRE(r.result.reason == emu::StopReason::Exited);
    CHECK(r.result.exit_code == 0);
    CHECK(r.sink.text ==
          "rtos: start\n"
          "[t=0] producer sending 1\n[t=0] producer sent 1\n[t=0] consumer got 1 (waited for lock)\n"
          "[t=2] producer sending 2\n[t=2] producer sent 2\n[t=2] consumer got 2 (waited for lock)\n"
          "[t=4] producer sending 3\n[t=4] producer sent 3\n[t=4] consumer got 3 (waited for lock)\n"
          "[t=4] consumer napping 10 ticks\n"
          "[t=6] producer sending 4\n[t=6] producer sent 4\n[t=8] producer sending 5\n[t=8] producer sent 5\n"
          "[t=10] producer sending 6\n[t=14] producer sent 6\n"
          "[t=14] consumer got 4 (waited for lock)\n[t=14] consumer got 5\n[t=14] consumer got 6\n"
          "[t=14] spinners both ran: yes\nrtos done\n");
    // The highest-priority ready thread runs first; every thread shows up under its own name.
    REQUIRE(!r.sink.threads.empty());
    CHECK(r.sink.threads.front().second == "consumer");
    std::set<std::string> names;
    std::map<std::uint32_t, std::string> by_tcb;
    for (const auto& [tcb, name] : r.sink.threads) {
        names.insert(name);
        auto [it, fresh] = by_tcb.emplace(tcb, name);
        CHECK(it->second == name);  // one name per control block
    }
    CHECK(names == std::set<std::string>{"consumer", "producer", "spinner-a", "spinner-b"});
    CHECK(r.result.thread_switches == r.sink.threads.size());
    CHECK(r.result.exceptions > r.result.thread_switches);  // SysTick ticks without a switch too
}

TEST_CASE("rtos: two runs of the same scenario are identical") {
    FirmwareRun a = run_firmware("rtos", "tests/scenarios/rtos.yaml");
    FirmwareRun b = run_firmware("rtos", "tests/scenarios/rtos.yaml");
    CHECK(a.result.instructions == b.result.instructions);
    CHECK(a.result.cycles == b.result.cycles);
    CHECK(a.sink.threads == b.sink.threads);
}

TEST_CASE("exceptions: stimuli and rtos settings that do not fit the machine are configuration errors") {
    auto with = [](auto change) { return [change](emu::MachineConfig& c) { change(c); }; };
    emu::Stimulus to_nowhere;
    to_nowhere.kind = emu::Stimulus::Kind::UartRx;
    to_nowhere.device = "uart7";
    CHECK_THROWS_WITH_AS(run_firmware("compute", "", with([&](emu::MachineConfig& c) { c.stimuli = {to_nowhere}; })),
                         doctest::Contains("device 'uart7', which the scenario does not declare"), ConfigError);
    emu::Stimulus bad_irq;
    bad_irq.irq = 64;
    CHECK_THROWS_WITH_AS(run_firmware("compute", "", with([&](emu::MachineConfig& c) { c.stimuli = {bad_irq}; })),
                         doctest::Contains("outside the NVIC's 64 interrupt lines"), ConfigError);
    CHECK_THROWS_WITH_AS(run_firmware("compute", "", with([](emu::MachineConfig& c) { c.rtos.current_thread = "pxCurrentTCB"; })),
                         doctest::Contains("'pxCurrentTCB' is not in the symbol table"), ConfigError);
}
