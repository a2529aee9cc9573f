// Pipeline rules each checked as two sequences that must cost the same when the rule holds: one
// seen on compiled code (tests/firmware/store_branch.c), three taken from CMEmu's components
// (tests/firmware/decode_rules.c).
#include <doctest/doctest.h>

#include "support/measurements.h"
#include "support/run_firmware.h"

using namespace emutrace;
using namespace emutrace::test;

TEST_CASE("pipeline: a branch behind a store leaving execute fetches its target at decode, as behind an ALU instruction") {
    struct Board {
        const char* elf;
        const char* scenario;  // the default board (code on I-Code), and the STM32F100 (flash shared with data)
    };
    for (const Board& b : {Board{"store_branch", ""}, Board{"store_branch_stm32f100", "scenarios/boards/stm32f100.yaml"}}) {
        CAPTURE(b.elf);
        FirmwareRun r = run_firmware(b.elf, b.scenario, [](emu::MachineConfig& c) { c.timing = emu::TimingMode::Pipeline; });
        REQUIRE(r.result.exit_code == 0);
        auto t = timings(r.sink.text);
        REQUIRE(t.size() == 6);
        CHECK(t.at("str_bne") == t.at("add_bne"));
        CHECK(t.at("strb_w_bne") == t.at("add_w_bne"));
        CHECK(t.at("str_bne_not") == t.at("add_bne_not"));
        // Taken, the target's fetch at decode hides the refill behind the store: CMP 1, STR 1, BNE P
        // with its target known at decode, as bne_taken in dwt_timing (read 2 + 1 + 2) plus the STR.
        CHECK(t.at("str_bne") == 2 + 1 + 1 + 2);
    }
}

TEST_CASE(
    "pipeline: decode and IT-block rules: BX LR behind its BL, failed loads and instructions, IT folding, B<cc> under MLA, a failed POP pc, a B<cc> "
    "behind an IT block") {
    FirmwareRun r = run_firmware("decode_rules", "", [](emu::MachineConfig& c) { c.timing = emu::TimingMode::Pipeline; });
    REQUIRE(r.result.exit_code == 0);
    auto t = timings(r.sink.text);
    REQUIRE(t.size() == 18);
    CHECK(t.at("bl_bx_lr") == t.at("bl_b"));               // the BL's link is known at decode
    CHECK(t.at("skip_ldr_dep") == t.at("skip_ldr_free"));  // a failed load needs no address
    CHECK(t.at("skip_in_data") == t.at("nop_in_data"));    // a failed instruction is a NOP
    // And each is a cycle less than the model without the rule gave (stop 65's pipeline: 9, 6, 6).
    CHECK(t.at("bl_bx_lr") == 8);
    CHECK(t.at("skip_ldr_dep") == 5);
    CHECK(t.at("skip_in_data") == 5);
    // An IT folds onto an unconditional 16-bit instruction, not onto an IT block's member.
    CHECK(t.at("fold_after_plain") == 2);
    CHECK(t.at("fold_after_member") == 1);
    // edn's inner loop: 9 cycles a taken round (the STM32F100 compiled set), 8 the last (BNE not
    // taken), and the two CYCCNT reads' 2: the BNE in a word of its own fetches its target while
    // the MLA runs. In the MLA's last word it waits: a cycle more each taken round, and the NOP.
    CHECK(t.at("mla_bne_own_word") == 2 + 3 * 9 + 8);
    CHECK(t.at("mla_bne_shared_word") == t.at("mla_bne_own_word") + 4 + 3);
    // A POP of the pc its IT block fails takes a cycle more than a NOP there (ud -Os and -O0).
    CHECK(t.at("skip_pop_pc") == t.at("skip_nop") + 1);
    // A B<cc> behind an IT block, not taken, a 32-bit instruction behind it: the fetch's gap
    // costs a cycle in 32-bit code (__divsf3's entry; without the rule the two are equal). With
    // a 16-bit instruction behind the B<cc> there is no gap.
    CHECK(t.at("it_beq_wide") == t.at("nop_beq_wide") + 1);
    CHECK(t.at("it_beq_narrow") == t.at("nop_beq_narrow"));
}

TEST_CASE("pipeline: a BX LR an IT block makes conditional returns at decode on the M3, in execute on the M4") {
    auto run = [](models::CoreKind core) {
        FirmwareRun r = run_firmware("decode_rules", "", [core](emu::MachineConfig& c) {
            c.timing = emu::TimingMode::Pipeline;
            c.core = models::core_spec(core);
        });
        REQUIRE(r.result.exit_code == 0);
        return timings(r.sink.text);
    };
    auto m3 = run(models::CoreKind::CortexM3);
    auto m4 = run(models::CoreKind::CortexM4);
    // The IT folds onto the MOVS and the passing BX LR takes its target at decode: no cost on the M3.
    CHECK(m3.at("it_bx_lr") == m3.at("bx_lr"));
    // The M4 (measured on the CC2652, it_and_blx_bx_mov_pc_lr) branches it in execute: the target
    // fetched at decode is dropped and fetched again, a fetch later on zero-wait code memory.
    CHECK(m4.at("bx_lr") == m3.at("bx_lr"));
    CHECK(m4.at("it_bx_lr") == m4.at("bx_lr") + 1);
}

TEST_CASE("pipeline: ACTLR's DISDEFWBUF holds a store through its data phase's wait states, DISFOLD stops IT folding") {
    auto run = [](const char* scenario) {
        FirmwareRun r = run_firmware("write_buffer", scenario, [](emu::MachineConfig& c) { c.timing = emu::TimingMode::Pipeline; });
        REQUIRE(r.result.exit_code == 0);
        return timings(r.sink.text);
    };
    auto zero_wait = run("");
    auto two_waits = run("tests/scenarios/sram_wait.yaml");
    REQUIRE(zero_wait.size() == 4);
    REQUIRE(two_waits.size() == 4);
    // Zero wait states: the data phase is the cycle after the address phase either way (the
    // STM32F100's compiled set measures the same with the write buffer on and off).
    CHECK(zero_wait.at("str_unbuffered") == zero_wait.at("str_buffered"));
    // Two: the store holds execute for them without the buffer.
    CHECK(two_waits.at("str_buffered") == zero_wait.at("str_buffered"));
    CHECK(two_waits.at("str_unbuffered") == two_waits.at("str_buffered") + 2);
    // The IT folded behind CMP takes no cycle; with DISFOLD it takes one.
    CHECK(zero_wait.at("it_unfolded") == zero_wait.at("it_folded") + 1);
}
