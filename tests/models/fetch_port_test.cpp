// The fetch starved by loads on its port, against the STM32F100 measurements it was built from
// (tests/data/silicon memory/ldm_narrow, code and data in flash, less the same code with data in SRAM).
// Each block is the measured one: the DWT read, add.w, the loads, add.w, the DWT read, blx, with
// the cycles the timing model counts for each.

#include <doctest/doctest.h>

#include <vector>

#include "models/fetch_port.h"

using emutrace::models::fetch_starvation;
using emutrace::models::PortInstruction;

namespace {

// ldr.w r2,[r0,r1]; add.w; then `body`; add.w; ldr.w r3,[r0,r1]; blx r9 from `at`, behind an ISB.
std::vector<PortInstruction> measured(std::uint32_t at, const std::vector<PortInstruction>& body) {
    std::vector<PortInstruction> b{{at, 4, 2, 1}, {at + 4, 4, 1, 0}};
    std::uint32_t next = at + 8;
    for (PortInstruction i : body) {
        i.address = next;
        next += i.size;
        b.push_back(i);
    }
    b.push_back({next, 4, 1, 0});
    b.push_back({next + 4, 4, 2, 1});
    b.push_back({next + 8, 2, 3, 0});
    return b;
}

const PortInstruction kLdr{0, 2, 2, 1};                        // ldr r5, [r5]: behind no load
const PortInstruction kLdrPipelined{0, 2, 1, 1, false, true};  // ldr r6, [r6] behind it
const PortInstruction kLdm{0, 2, 2, 1};                        // ldmia r7, {r7}

// Bits of the body's instructions (from 2: the DWT read and add.w come first).
std::uint64_t body_bits(unsigned count) {
    return ((std::uint64_t{1} << count) - 1) << 2;
}

}  // namespace

TEST_CASE("fetch port: pipelined narrow loads from flash starve the fetch from the third on (ldm_narrow 16-23)") {
    const std::uint32_t at[] = {0x08000a0c, 0x08000a2c, 0x08000a4c, 0x08000a6c, 0x08000a94, 0x08000abc, 0x08000ae4, 0x08000b0c};
    for (unsigned loads = 1; loads <= 8; ++loads) {
        std::vector<PortInstruction> body{kLdr};
        for (unsigned i = 1; i < loads; ++i) body.push_back(kLdrPipelined);
        auto block = measured(at[loads - 1], body);
        auto lost = fetch_starvation(block, body_bits(loads), true);
        CAPTURE(loads);
        CHECK(lost.cycles == (loads - 1) / 2);                // measured: 0 0 1 1 2 2 3 3
        CHECK(lost.lsu == (loads >= 7 ? 1u : 0u));            // LSUCNT: the pipelined load the fetch holds up
        CHECK(fetch_starvation(block, 0, true).cycles == 0);  // the same loads from SRAM
    }
}

TEST_CASE("fetch port: behind an LDM, a pipelined pair straddling a word starves the fetch; one in a word does not") {
    // ldm_narrow 106: ldmia r7,{r7}; ldr r5; ldr r6 at 0x764: 1 cycle.
    auto straddling = measured(0x0800175c, {kLdm, kLdr, kLdrPipelined});
    CHECK(fetch_starvation(straddling, body_bits(3), true).cycles == 1);
    // ldm_narrow 99: ldr r6; ldmia r7,{r7}; ldr r5; ldr r6 at 0x654, the pair in one word: none.
    auto in_word = measured(0x0800164c, {kLdr, kLdm, kLdr, kLdrPipelined});
    CHECK(fetch_starvation(in_word, body_bits(4), true).cycles == 0);
}

TEST_CASE("fetch port: a NOP held up in a load's data phase leaves the load an LSU cycle (ldr_writeback_pipelining)") {
    // A DWT read; three ldr.w rN, [r6, #4]! from flash, each with a nop in its data phase; a DWT
    // read; blx, behind an ISB at 0x0800095c: measured 9 cycles, CPI 0, LSU 2. The fetch starves
    // once, holding up the third nop, so the third load's data phase is a cycle of its own.
    std::vector<PortInstruction> block;
    std::uint32_t at = 0x0800095c;
    auto add = [&](std::uint8_t size, std::uint8_t cycles, std::uint8_t reads, bool overlapped) {
        block.push_back({at, size, cycles, reads, overlapped, false});
        at += size;
    };
    add(4, 2, 1, false);
    for (int i = 0; i < 3; ++i) {
        add(4, 1, 1, true);  // the load, its data phase overlapped by the nop
        add(2, 1, 0, false);
    }
    add(2, 2, 1, false);
    add(2, 3, 0, false);
    auto lost = fetch_starvation(block, 0b101010, true);
    CHECK(lost.cycles == 1);
    CHECK(lost.lsu == 1);
}

TEST_CASE("fetch port: a load that does not read the port starves nothing, and the queue of a block fallen into is full") {
    auto block = measured(0x08000a94, {kLdr, kLdrPipelined, kLdrPipelined, kLdrPipelined, kLdrPipelined});
    CHECK(fetch_starvation(block, 0, true).cycles == 0);
    CHECK(fetch_starvation(block, body_bits(5), true).cycles == 2);
    CHECK(fetch_starvation(block, body_bits(5), false).cycles <= 2);
    CHECK(fetch_starvation({}, body_bits(5), true).cycles == 0);
}

namespace {

struct Step {
    std::uint8_t size, cycles, reads = 0;
    bool speculates = false;
};

// Straight-line code from `at`, behind an ISB (the queue empty).
std::vector<PortInstruction> straight(std::uint32_t at, std::initializer_list<Step> steps) {
    std::vector<PortInstruction> run;
    for (const Step& s : steps) {
        PortInstruction i{at, s.size, s.cycles, s.reads};
        i.speculates = s.speculates;
        run.push_back(i);
        at += s.size;
    }
    return run;
}

const Step kDwtRead{4, 2, 1}, kWide{4, 1}, kNarrow{2, 1}, kBranchW{4, 1, 0, true}, kBranchN{2, 1, 0, true};

}  // namespace

TEST_CASE("fetch port: a B<cc> not taken takes the fetch's cycle in its decode cycle (bcond, from flash)") {
    using emutrace::models::speculation_delays;
    // A DWT read; movs; beq.w not taken at 2 mod 4; 4 x add.w; nop; a DWT read: measured 1 more
    // than the same without the fetch taken (times 10 against 9).
    auto wide = straight(0x08000d14, {kDwtRead, kNarrow, kBranchW, kWide, kWide, kWide, kWide, kNarrow, kDwtRead});
    CHECK(speculation_delays(wide, true).back() == 1);
    // beq.n at 0 mod 4 right behind the read, or beq.w there: the fetch had a word to spare (9, 8).
    auto narrow = straight(0x080007d4, {kDwtRead, kBranchN, kWide, kWide, kWide, kWide, kNarrow, kWide, kDwtRead});
    CHECK(speculation_delays(narrow, true).back() == 0);
    auto aligned = straight(0x08000c54, {kDwtRead, kBranchW, kWide, kWide, kWide, kWide, kWide, kDwtRead});
    CHECK(speculation_delays(aligned, true).back() == 0);
    // Without the flag nothing is delayed.
    for (auto& insn : wide) insn.speculates = false;
    CHECK(speculation_delays(wide, true).back() == 0);
}

TEST_CASE("fetch port: B<cc>s not taken in a row each take a fetch cycle (misspredicted_branch_sequences)") {
    using emutrace::models::speculation_delays;
    // A DWT read, N x bne.w not taken, orr.w, b.w: measured 1, 2, 3 more for N = 2, 3, 4.
    CHECK(speculation_delays(straight(0x08001444, {kDwtRead, kBranchW, kBranchW, kWide, kWide}), true).back() == 1);
    CHECK(speculation_delays(straight(0x08001504, {kDwtRead, kBranchW, kBranchW, kBranchW, kWide, kWide, kWide}), true).back() == 2);
    CHECK(speculation_delays(straight(0x08001644, {kDwtRead, kBranchW, kBranchW, kBranchW, kBranchW, kWide, kWide}), true).back() == 3);
    // bne.n, two to a word, leave the fetch time to catch up: 4 cost 1, 3 (with a nop) nothing.
    CHECK(speculation_delays(straight(0x08000a14, {kDwtRead, kBranchN, kBranchN, kBranchN, kBranchN, kWide, kWide}), true).back() == 1);
    CHECK(speculation_delays(straight(0x080008d4, {kDwtRead, kBranchN, kBranchN, kBranchN, kNarrow, kWide, kWide}), true).back() == 0);
    // tests/firmware/dwt_timing.c's bne_w_run: ldr; cmp; 4 x bne.w at 0 mod 4; orr.w; ldr.
    CHECK(speculation_delays(straight(0x1000, {{2, 2, 1}, kNarrow, kBranchW, kBranchW, kBranchW, kBranchW, kWide, {2, 2, 1}}), true).back() == 3);
    // Two bne.w not taken, then a beq.w that had its word before they took the fetch: it starts on time.
    auto taken = speculation_delays(straight(0x080015f4, {kDwtRead, kBranchW, kBranchW, kBranchW}), true);
    CHECK(taken.back() == 0);
}
