// Each expected figure is derived by hand from the TRM tables named in models/timing_model.h;
// the derivation is written next to it. P (pipeline refill) is 2 in the model.
#include <doctest/doctest.h>

#include <initializer_list>
#include <vector>

#include "decode/instruction_decoder.h"
#include "models/timing_model.h"

using namespace emutrace;

namespace {

// Assembles halfwords (in the order objdump prints them) into a block and costs it.
models::BlockTiming cost(models::CoreKind core, std::initializer_list<std::uint16_t> halfwords, std::uint32_t address = 0x1000,
                         unsigned word_fetch = 0) {
    std::vector<std::uint8_t> bytes;
    for (std::uint16_t h : halfwords) {
        bytes.push_back(static_cast<std::uint8_t>(h));
        bytes.push_back(static_cast<std::uint8_t>(h >> 8));
    }
    decode::InstructionDecoder d;
    auto insns = d.decode(bytes, address);
    REQUIRE(insns.size() > 0);
    return models::TimingModel(core).block(insns, word_fetch);
}

constexpr auto M0 = models::CoreKind::CortexM0;
constexpr auto M3 = models::CoreKind::CortexM3;
constexpr auto M4 = models::CoreKind::CortexM4;
constexpr auto M4F = models::CoreKind::CortexM4F;

}  // namespace

TEST_CASE("timing m3: data processing is one cycle each") {
    // adds r0,#1 x3: 3 x 1
    CHECK(cost(M3, {0x3001, 0x3001, 0x3001}).cycles == 3);
    // muls r0,r1: MUL is one cycle
    CHECK(cost(M3, {0x4348}).cycles == 1);
}

TEST_CASE("timing m3: neighbouring loads pipeline (TRM load/store timing examples)") {
    // ldr r0,[r1]; ldr r2,[r3]: "normally three cycles total" = 2 + 1
    CHECK(cost(M3, {0x6808, 0x681a}).cycles == 3);
    // ldr r0,[r1,r2]; str r0,[r3,#20]: "normally three cycles total" = 2 + 1
    CHECK(cost(M3, {0x5888, 0x6158}).cycles == 3);
    // ldr r0,[r1,r5]; ldr r1,[r2]... here ldr r2,[r3,#4] twice after: "normally four cycles" = 2 + 1 + 1
    CHECK(cost(M3, {0x5948, 0x681a, 0x685a}).cycles == 4);
    // ldr r0,[r1]; ldr r2,[r0,...] would depend on r0: ldr r0,[r1]; ldr r0,[r0] = 2 + 2
    CHECK(cost(M3, {0x6808, 0x6800}).cycles == 4);
}

TEST_CASE("timing m3: stores and address dependencies") {
    // str r0,[r3,#20]: STR with an immediate offset is one cycle (write buffer)
    CHECK(cost(M3, {0x6158}).cycles == 1);
    // str r0,[r1,r2]: register offset, not after a load: 2
    CHECK(cost(M3, {0x5088}).cycles == 2);
    // adds r1,#4; ldr r0,[r1]: the address needs the previous result, no forwarding: 1 + (2 + 1)
    CHECK(cost(M3, {0x3104, 0x6808}).cycles == 4);
}

// Not in the TRM; measured on an STM32F100 (docs/silicon.md, rules 20-23).
TEST_CASE("timing m3: writeback, stores and multiple loads as silicon shows them") {
    // str r5,[r6]; ldr r5,[r5]: the load waits for the store's data phase: 1 + (2 + 1)
    CHECK(cost(M3, {0x6035, 0x682d}).cycles == 4);
    // mov.w r7,r0; str.w r8,[r5]; ldr.w r3,[r8]: 1 + 1 + (2 + 1)
    CHECK(cost(M3, {0xea4f, 0x0700, 0xf8c5, 0x8000, 0xf8d8, 0x3000}).cycles == 5);
    // ldr.w r0,[r5]; str.w r1,[r6]; ldr.w r3,[r8]: the store pipelines behind the load, and the
    // load after it need not wait: 2 + 1 + 2
    CHECK(cost(M3, {0xf8d5, 0x0000, 0xf8c6, 0x1000, 0xf8d8, 0x3000}).cycles == 5);
    // str.w r7,[r6,#4]! twice: a store's written-back base is a cycle late: 1 + (1 + 1)
    CHECK(cost(M3, {0xf846, 0x7f04, 0xf846, 0x7f04}).cycles == 3);
    // ldmia r5,{r5} twice: a 16-bit LDM's last register is a cycle late for an address: 2 + (2 + 1)
    CHECK(cost(M3, {0xcd20, 0xcd20}).cycles == 5);
    // ldmia r5,{r5,r7}; ldr r5,[r5]: r5 is not the last register, so in time: 3 + 2
    CHECK(cost(M3, {0xcda0, 0x682d}).cycles == 5);
    // ldmia r5,{r4,r5}; ldr r5,[r5]: 3 + (2 + 1)
    CHECK(cost(M3, {0xcd30, 0x682d}).cycles == 6);
    // ldr.w r6,[r5,#4]!; ldr.w r5,[r6,#4]!: with writeback the loaded register is late: 2 + (2 + 1)
    CHECK(cost(M3, {0xf855, 0x6f04, 0xf856, 0x5f04}).cycles == 5);
    // ldr r5,[r6]; ldr.w r6,[r7,#4]!: a load with writeback does not pipeline: 2 + 2
    CHECK(cost(M3, {0x6835, 0xf857, 0x6f04}).cycles == 4);
    // ldr r0,[r1]; nop: a NOP runs in any load's data phase: 1 + 1
    CHECK(cost(M3, {0x6808, 0xbf00}).cycles == 2);
    // ldr.w r7,[r6,#4]!; nop: 1 + 1
    CHECK(cost(M3, {0xf856, 0x7f04, 0xbf00}).cycles == 2);
    // ldr.w r7,[r6,#4]!; str.w r8,[r4]: so does a store without writeback: 1 + 1
    CHECK(cost(M3, {0xf856, 0x7f04, 0xf8c4, 0x8000}).cycles == 2);
    // ldr.w r7,[r6,#4]!; cmp r7,#1: data processing does not: 2 + 1
    CHECK(cost(M3, {0xf856, 0x7f04, 0x2f01}).cycles == 3);
}

TEST_CASE("timing m3: multiple transfers cost 1 + N, plus what LDR pc pays after its data when they load the pc") {
    CHECK(cost(M3, {0xb5f0}).cycles == 6);          // push {r4-r7,lr}: 1 + 5
    CHECK(cost(M3, {0xbc0f}).cycles == 5);          // pop {r0-r3}: 1 + 4
    CHECK(cost(M3, {0xbdf0}).cycles == 9);          // pop {r4-r7,pc}: 1 + 5, then 1 + P as below
    CHECK(cost(M3, {0xe9d2, 0x0100}).cycles == 3);  // ldrd r0,r1,[r2]: 1 + N with N = 2
    CHECK(cost(M3, {0xf85d, 0xfb04}).cycles == 5);  // ldr pc,[sp],#4: 2 for the load + 3 for the reload
}

TEST_CASE("timing m3: branches cost 1 + P when taken; conditional ones settle at run time") {
    // The TRM gives B, BL and BX 1 + P. Silicon (STM32F100, bcond, bl_blx_bx_mov_pc_lr) corrects
    // it from flash: B, BL, and a branch to LR that the instruction before did not write, take P,
    // as does a taken B<cc>; from SRAM (2 cycles a word) each takes 1 + P at the start of a block
    // (and behind a load or a 32-bit instruction: the next test case).
    CHECK(cost(M3, {0xe7f2}).cycles == 2);                      // b: P
    CHECK(cost(M3, {0xe7f2}, 0x1000, 2).cycles == 3);           // b from SRAM: 1 + P (the target pays its word)
    CHECK(cost(M3, {0xf7ff, 0xfff4}).cycles == 2);              // bl: P
    CHECK(cost(M3, {0xf7ff, 0xfff4}, 0x1000, 2).cycles == 3);   // bl from SRAM: 1 + P
    CHECK(cost(M3, {0x4770}).cycles == 2);                      // bx lr: P
    CHECK(cost(M3, {0x46f7}).cycles == 2);                      // mov pc, lr: P
    CHECK(cost(M3, {0xea4f, 0x0e05, 0x4770}).cycles == 1 + 3);  // mov.w lr, r5; bx lr: 1 + P
    CHECK(cost(M3, {0x4740}).cycles == 3);                      // bx r8: 1 + P
    CHECK(cost(M3, {0x44af}).cycles == 4);                      // add pc, r5: 1 + P + 1 (silicon, add_pc)
    CHECK(cost(M3, {0xf000, 0xb800}).cycles == 2);              // b.w: P, its target decoded with it
    auto bne = cost(M3, {0xd1f1});                              // bne: 1 not taken, + P - 1 taken (silicon, bcond)
    CHECK(bne.cycles == 1);
    CHECK(bne.taken_extra == 1);
    CHECK(cost(M3, {0xd1f1}, 0x1000, 2).taken_extra == 2);  // from SRAM: + P
    auto cbz = cost(M3, {0xb108});                          // cbz: as a conditional branch
    CHECK(cbz.cycles == 1);
    CHECK(cbz.taken_extra == 2);
    CHECK(cost(M3, {0xe8df, 0xf000}).cycles == 6);  // tbb: 2 (load) + 1 (add) + 3 (reload)
    CHECK(cost(M3, {0xf3bf, 0x8f6f}).cycles == 3);  // isb: 1 + B, B = a refill
    CHECK(cost(M3, {0xf3bf, 0x8f5f}).cycles == 1);  // dmb: 1 + B, B at least 0
}

TEST_CASE("timing: multiply-accumulate is two cycles on M3, one on M4") {
    CHECK(cost(M3, {0xfb01, 0x0002}).cycles == 2);  // mla (M3 table: 2)
    CHECK(cost(M4, {0xfb01, 0x0002}).cycles == 1);  // mla (M4 table: 1)
    CHECK(cost(M3, {0xfba2, 0x0103}).cycles == 3);  // umull: M3 3-5, the minimum
    CHECK(cost(M4, {0xfba2, 0x0103}).cycles == 1);  // umull: M4 1
}

TEST_CASE("timing m3: an MLA that accumulates the RdHi of the SMULL or UMULL before it takes 1 less") {
    // Silicon (mull_div_dependencies): smull r7, r6, r5, r4 (3 at the least), then MLA 2, or 1
    // when r6 is only its accumulator.
    CHECK(cost(M3, {0xfb85, 0x7604, 0xfb0a, 0x6b09}).cycles == 3 + 1);  // mla fp, sl, r9, r6
    CHECK(cost(M3, {0xfb85, 0x7604, 0xfb07, 0x6609}).cycles == 3 + 1);  // mla r6, r7, r9, r6: RdLo multiplied
    CHECK(cost(M3, {0xfba5, 0x7604, 0xfb0a, 0x6b09}).cycles == 3 + 1);  // umull, then the same
    CHECK(cost(M3, {0xfb85, 0x7604, 0xfb0a, 0x8b09}).cycles == 3 + 2);  // mla fp, sl, r9, r8: r6 not read
    CHECK(cost(M3, {0xfb85, 0x7604, 0xfb06, 0x6b09}).cycles == 3 + 2);  // mla fp, r6, r9, r6: r6 also multiplied
    CHECK(cost(M3, {0xfb85, 0x7604, 0xfb0a, 0x6b19}).cycles == 3 + 2);  // mls fp, sl, r9, r6
    CHECK(cost(M3, {0xfbc5, 0x7604, 0xfb0a, 0x6b09}).cycles == 3 + 2);  // smlal, then mla fp, sl, r9, r6
    CHECK(cost(M4, {0xfb85, 0x7604, 0xfb0a, 0x6b09}).cycles == 1 + 1);  // M4: single-cycle multiplier
}

TEST_CASE("timing m0: no load pipelining, 3-cycle branches, 4-cycle BL") {
    CHECK(cost(M0, {0x6808, 0x681a}).cycles == 4);  // ldr; ldr: 2 + 2
    CHECK(cost(M0, {0xe7f2}).cycles == 3);          // b: 3
    CHECK(cost(M0, {0xf7ff, 0xfff4}).cycles == 4);  // bl: 4
    CHECK(cost(M0, {0x4770}).cycles == 3);          // bx: 3
    auto bne = cost(M0, {0xd1f1});                  // b<cond>: 1 not taken, 3 taken
    CHECK(bne.cycles == 1);
    CHECK(bne.cycles + bne.taken_extra == 3);
    CHECK(cost(M0, {0xbd10}).cycles == 5);          // pop {r4,pc}: 3 + N, N = 2
    CHECK(cost(M0, {0xf3bf, 0x8f5f}).cycles == 3);  // dmb: 3
    CHECK(cost(M0, {0x4348}).cycles == 1);          // muls: 1 (fast multiplier)
}

TEST_CASE("timing m4f: FPU instructions") {
    CHECK(cost(M4F, {0xee30, 0x0a81}).cycles == 1);   // vadd.f32: 1
    CHECK(cost(M4F, {0xee80, 0x0a81}).cycles == 14);  // vdiv.f32: 14
    CHECK(cost(M4F, {0xee00, 0x0a81}).cycles == 3);   // vmla.f32: 3
    CHECK(cost(M4F, {0xed90, 0x0a00}).cycles == 2);   // vldr: 2
}

// The TRM gives only "2-12 cycles"; the rule is measured on an STM32F100 (sdiv_udiv_timing).
TEST_CASE("timing: divides take 2 to 12 cycles by how much longer the dividend is than the divisor") {
    models::TimingModel m3(M3);
    CHECK(m3.divide(5, 0, false) == 2);                      // division by zero ends at once
    CHECK(m3.divide(0, 7, false) == 2);                      // so does a zero dividend
    CHECK(m3.divide(3, 7, false) == 3);                      // the dividend is shorter: quotient 0 in 3
    CHECK(m3.divide(4, 7, false) == 5);                      // as long, though smaller: 5
    CHECK(m3.divide(100, 7, false) == 6);                    // 4 bits longer: 5 + 1
    CHECK(m3.divide(0xFFFFFFF0u, 1, false) == 12);           // 31 bits longer: 5 + 7
    CHECK(m3.divide(0xFFFFFF9Cu, 7, true) == 6);             // -100 / 7 counts the dividend's magnitude
    CHECK(m3.divide(0x00F7311Fu, 0xFFFFFFFFu, true) == 11);  // / -1: the divisor counts as ~d = 0
    CHECK(m3.divide(0x0000FFFFu, 0xFFFF0000u, true) == 5);   // / -65536: ~d = 0xFFFF, as long
}

// The TRM gives "3-5" and "4-7"; the values are measured on an STM32F100 (smull_umull_*).
TEST_CASE("timing: long multiplies on the Cortex-M3 skip zero 16-bit halves of their operands") {
    models::TimingModel m3(M3), m4(M4F);
    CHECK(m3.multiply_long_by_operands());
    CHECK(!m4.multiply_long_by_operands());                             // single-cycle multiplier
    CHECK(m3.multiply_long(0x2DA0, 0x480, true, false) == 3);           // low halves only
    CHECK(m3.multiply_long(0x402DF0A0, 0x480, true, false) == 4);       // one operand wide
    CHECK(m3.multiply_long(0x98395B39, 0x824704EA, true, false) == 5);  // all four halves
    CHECK(m3.multiply_long(0x80EFC9F4, 0x1A00, false, false) == 4);     // UMULL alike
    CHECK(m3.multiply_long(0x2DA0, 0x480, true, true) == 3);            // SMLAL: 3/5/6/7
    CHECK(m3.multiply_long(0x402DF0A0, 0x480, true, true) == 5);
    CHECK(m3.multiply_long(0x402DF0A0, 0x04800000, false, true) == 6);  // Rm high half only
    CHECK(m3.multiply_long(0x98395B39, 0x824704EA, false, true) == 7);
    CHECK(m3.multiply_long(0, 0x824704EA, true, true) == 3);  // a zero operand ends at once
}

// Silicon (piq_narrow_b_to_unaligned, bcond): not in the TRM's table, which gives B as 1 + P.
TEST_CASE("timing m3: a B after a multi-cycle instruction hides one refill cycle") {
    // nop; b.n: 1 + P (from flash B takes P behind anything: bcond, movs; b.n)
    CHECK(cost(M3, {0xbf00, 0xe004}).cycles == 1 + 2);
    // udiv r3,r3,r4; b.n: the divide's minimum 2, then B's target fetch started early: P
    CHECK(cost(M3, {0xfbb3, 0xf3f4, 0xe004}).cycles == 2 + 2);
    // mla r0,r1,r2,r3; b.n: MLA 2, then P
    CHECK(cost(M3, {0xfb01, 0x3002, 0xe004}).cycles == 2 + 2);
}

TEST_CASE("timing: exception entry, return and tail-chaining") {
    models::TimingModel m3(M3), m0(M0);
    CHECK(m3.exception_entry() == 12);
    CHECK(m3.exception_return() == 10);
    CHECK(m3.tail_chain() == 6);
    CHECK(m0.exception_entry() == 16);
}

TEST_CASE("timing m3: code fetched over the System bus at 2 cycles a word (SRAM, measured on an STM32F100)") {
    // ldr r2,[r0,#4]; ldr r3,[r0,#4]: pipelined from flash (2 + 1), not from SRAM (2 + 2): the
    // loads share the System bus with instruction fetch. Silicon: tests/data/silicon data_processing,
    // times[0] of every code: sram configuration.
    CHECK(cost(M3, {0x6842, 0x6843}).cycles == 3);
    CHECK(cost(M3, {0x6842, 0x6843}, 0x20000000, 2).cycles == 4);
    // adds r0,#1; add.w r0,r0,#1 (32-bit, at an address 2 mod 4): one more cycle from SRAM to fetch
    // its second word; silicon: add_adc_sub_sbc_rsb_reg with an odd number of 16-bit adds.
    CHECK(cost(M3, {0x3001, 0xF100, 0x0001}).cycles == 2);
    CHECK(cost(M3, {0x3001, 0xF100, 0x0001}, 0x20000000, 2).cycles == 3);
    // A word takes 2 cycles to fetch from SRAM, so add.w (one cycle from flash) takes 2 there even
    // word-aligned; silicon: add_adc_sub_sbc_rsb_reg, N x add.w measures 2N + 2 from SRAM.
    CHECK(cost(M3, {0xF100, 0x0001, 0x3001}).cycles == 2);
    CHECK(cost(M3, {0xF100, 0x0001, 0x3001}, 0x20000000, 2).cycles == 3);
    // ldr.w; strb.w r7, [r6, #1]!; ldr.w: from SRAM the strb.w's second cycle, the next word's
    // fetch, covers its data phase, so the load behind it does not wait (strb_strh_imm_index:
    // 2 + 2 + 2; rule 21's wait applies from flash).
    CHECK(cost(M3, {0xf850, 0x2001, 0xf806, 0x7f01, 0xf850, 0x3001}, 0x20000014, 2).cycles == 2 + 2 + 2);
    // An instruction skipped in an IT block takes 1 (control_flow/it), but from SRAM a 32-bit one
    // still takes its word's fetch: mla.w skipped takes 2 there.
    decode::InstructionDecoder d;
    const std::vector<std::uint8_t> mla_w{0x00, 0xfb, 0x00, 0x00};
    models::TimingModel m3(M3);
    CHECK(m3.skipped(d.decode_one(mla_w, 0x1000)) == 1);
    CHECK(m3.skipped(d.decode_one(mla_w, 0x20000000), 2) == 2);
    // ldr.w r2,[r0,r1]; ldr.w r3,[r0,r1], both at 2 mod 4: the first waits for its second word
    // (2 + 1), the second does not, the first's two cycles having let the fetch run ahead (bx_seq).
    CHECK(cost(M3, {0xf850, 0x2001, 0xf850, 0x3001}, 0x20000002, 2).cycles == 3 + 2);
    // A branch's refill fetches the second word of a 32-bit target at 2 mod 4 that waits for it
    // (bx r4 to ldr.w: bx_seq), unless the branch fetched its target at decode (it_and_blx...).
    const std::vector<std::uint8_t> ldr_w{0x50, 0xf8, 0x01, 0x30}, add_w{0x05, 0xF1, 0x01, 0x05};
    CHECK(m3.refill_covers_straddle(d.decode_one(ldr_w, 0x20000002), 2) == 1);
    CHECK(m3.refill_covers_straddle(d.decode_one(ldr_w, 0x20000000), 2) == 0);
    CHECK(m3.refill_covers_straddle(d.decode_one(add_w, 0x20000002), 2) == 0);  // 2 cycles either way
    CHECK(m3.refill_covers_straddle(d.decode_one(ldr_w, 0x08000002), 0) == 0);  // flash
    const std::vector<std::uint8_t> movs_bx_lr{0x00, 0x27, 0x70, 0x47}, ldr_bx_lr{0x42, 0x68, 0x70, 0x47};
    auto movs_bx = d.decode(movs_bx_lr, 0x20000000), ldr_bx = d.decode(ldr_bx_lr, 0x20000000);
    CHECK(m3.fetches_target_early(movs_bx[1], &movs_bx[0], 2));
    CHECK_FALSE(m3.fetches_target_early(ldr_bx[1], &ldr_bx[0], 2));
    // From SRAM a word comes in every 2 cycles after a refill, and a branch's own refill waits
    // for the word in flight (bx_seq, bxPadded): bx r4 an even number of cycles after the
    // block's first word waits 1; a bx lr that fetched its target at decode does not.
    const std::vector<std::uint8_t> adds_bx_r4{0x5b, 0x18, 0x20, 0x47};
    auto adds_bx = d.decode(adds_bx_r4, 0x20000000);
    CHECK(m3.refill_waits_for_fetch(adds_bx[1], &adds_bx[0], 4, 2) == 1);
    CHECK(m3.refill_waits_for_fetch(adds_bx[1], &adds_bx[0], 3, 2) == 0);
    CHECK(m3.refill_waits_for_fetch(adds_bx[1], &adds_bx[0], 4, 0) == 0);  // flash
    CHECK(m3.refill_waits_for_fetch(movs_bx[1], &movs_bx[0], 4, 2) == 0);
    // A TBB at 2 mod 4 fetches its second word during its load (tbb_tbh_seq): nop; tbb [r5, r6]
    // takes 1 + 6 from SRAM as from flash.
    CHECK(cost(M3, {0xbf00, 0xe8d5, 0xf006}, 0x20000000, 2).cycles == 1 + 6);
    // SRAM on a code bus that keeps up (the generic zero-wait board) costs nothing extra.
    CHECK(cost(M3, {0xF100, 0x0001, 0x3001}, 0x20000000, 0).cycles == 2);
}

TEST_CASE("timing m3: from SRAM a branch fetches its target at decode only while the System bus is free") {
    // Silicon (STM32F100, bcond and b_after_ldr from SRAM). movs r7,#1; b: 1 + P, the b taking P
    // as from flash (the target then pays its slower word); ldr r2,[r0,#4]; b: 2 + (1 + P), the
    // load holding the bus; the b in b_after_ldr measures 2 more from SRAM than from flash.
    CHECK(cost(M3, {0x2701, 0xe7f2}, 0x20000000, 2).cycles == 1 + 2);
    CHECK(cost(M3, {0x6842, 0xe7f2}, 0x20000000, 2).cycles == 2 + 3);
    // movs r7,#1; bne: the target fetch starts at decode, taken or not. Not taken it has held the
    // bus for a word: 1 + (1 + 2) (bcond: movs; beq not taken; 4 x add.w measures 2 more than
    // without the movs). Taken, the bne costs 1 + P - 1 (+1 for the target's word, counted by
    // the target), so the block's not-taken word comes off again: taken_extra = P - 1 - 2.
    auto bne = cost(M3, {0x2701, 0xd1f1}, 0x20000000, 2);
    CHECK(bne.cycles == 1 + 3);
    CHECK(bne.taken_extra == -1);
    CHECK(cost(M3, {0x2701, 0xd1f1}).taken_extra == 1);  // from flash: P - 1 whatever precedes it
    // ldr.w r2,[r0,#4]; bne.w (aligned): the load holds the bus, so no early fetch; taken, the bne.w
    // does not wait for its next word's fetch, so it costs what a bne.n does: 2 + 1 + P.
    auto bne_w = cost(M3, {0xf8d0, 0x2004, 0xf040, 0x800a}, 0x20000000, 2);
    CHECK(bne_w.cycles == 2 + 2);
    CHECK(bne_w.cycles + bne_w.taken_extra == 2 + 1 + 2);
}

TEST_CASE("timing m3: from SRAM a store's data phase waits while the fetch holds the System bus") {
    // Silicon (STM32F100, str, code and data in SRAM): between two DWT reads, N register-offset
    // stores take 2, 4, 7, 10, 12 ... cycles as str.n (2.5 a store) and 2, 4, 7, 10, 13 ... as
    // str.w (3 a store). The fetch reads 2-cycle words while it holds fewer than 3 beyond the one
    // executing, and each store's data phase waits for the bus.
    auto between_reads = [](std::uint16_t store_lo, std::uint16_t store_hi, unsigned stores) {
        std::vector<std::uint8_t> bytes;
        auto put = [&](std::uint16_t h) {
            bytes.push_back(static_cast<std::uint8_t>(h));
            bytes.push_back(static_cast<std::uint8_t>(h >> 8));
        };
        put(0xf850), put(0x2001);  // ldr.w r2, [r0, r1]
        for (unsigned i = 0; i < stores; ++i) {
            put(store_lo);
            if (store_hi) put(store_hi);
        }
        put(0xf850), put(0x3001);  // ldr.w r3, [r0, r1]
        decode::InstructionDecoder d;
        auto insns = d.decode(bytes, 0x20000054);
        models::TimingModel m3(M3);
        std::vector<std::uint32_t> cost;
        for (std::size_t i = 0; i < insns.size(); ++i) cost.push_back(m3.instruction(insns[i], i ? &insns[i - 1] : nullptr, 2));
        m3.store_bus_waits(insns, cost, 2);
        std::uint32_t after_first = 0;
        for (std::size_t i = 1; i < cost.size(); ++i) after_first += cost[i];
        return after_first;  // the first read's sample to the second's
    };
    CHECK(between_reads(0x51f5, 0, 2) == 7);  // str r5, [r6, r7] x 2
    CHECK(between_reads(0x51f5, 0, 4) == 12);
    CHECK(between_reads(0xf846, 0x5007, 2) == 7);  // str.w r5, [r6, r7] x 2
    CHECK(between_reads(0xf846, 0x5007, 4) == 13);
    decode::InstructionDecoder d;
    const std::vector<std::uint8_t> str_w{0x46, 0xf8, 0x07, 0x50}, adds{0xc9, 0x19};
    models::TimingModel m3(M3);
    // adds r1, r1, r7; str.w r5, [r6, r7] at 2 mod 4 from SRAM: 3 cycles, and the wait for its
    // second word is a CPI cycle, not an LSU one (str: CPICNT 1, LSUCNT as at 0 mod 4).
    auto a = d.decode_one(adds, 0x20000518);
    auto st = d.decode_one(str_w, 0x2000051a);
    CHECK(m3.instruction(st, &a, 2) == 3);
    CHECK(m3.lsu_cycles(st, 3, &a, 2) == 1);
}

TEST_CASE("timing m3: a branch to a 32-bit instruction at a halfword address waits a second fetch") {
    // add.w r5,r5,#1 as a branch target: word-aligned, nothing extra; at 2 mod 4, one cycle
    // (silicon: piq_narrow_b_to_unaligned). The M0 fetches differently and is not affected.
    decode::InstructionDecoder d;
    const std::vector<std::uint8_t> add_w{0x05, 0xF1, 0x01, 0x05};
    models::TimingModel m3(M3), m0(M0);
    CHECK(m3.branch_target_fetch(d.decode_one(add_w, 0x1000)) == 0);
    CHECK(m3.branch_target_fetch(d.decode_one(add_w, 0x1002)) == 1);
    const std::vector<std::uint8_t> adds{0x01, 0x30};
    CHECK(m3.branch_target_fetch(d.decode_one(adds, 0x1002)) == 0);
    CHECK(m0.branch_target_fetch(d.decode_one(add_w, 0x1002)) == 0);
    // From SRAM (2 cycles a word) the refill's word costs 1 more; at 2 mod 4 a 32-bit target waits
    // for a second word, and a single-cycle 16-bit one leaves the next instruction a cycle short
    // (silicon: tbb_tbh), unlike a 2-cycle load or a branch (bx_seq).
    CHECK(m3.branch_target_fetch(d.decode_one(add_w, 0x20000000), 2) == 1);
    CHECK(m3.branch_target_fetch(d.decode_one(add_w, 0x20000002), 2) == 1 + 2);
    CHECK(m3.branch_target_fetch(d.decode_one(adds, 0x20000000), 2) == 1);
    CHECK(m3.branch_target_fetch(d.decode_one(adds, 0x20000002), 2) == 1 + 1);
    const std::vector<std::uint8_t> ldr{0x43, 0x58}, bx{0x20, 0x47};  // ldr r3, [r0, r1]; bx r4
    CHECK(m3.branch_target_fetch(d.decode_one(ldr, 0x20000002), 2) == 1);
    CHECK(m3.branch_target_fetch(d.decode_one(bx, 0x20000002), 2) == 1);
}

TEST_CASE("timing m3: from flash a branch right behind a load has its target's first two words in") {
    // Silicon (push, it from flash): a DWT read, then bl or b.n to a 32-bit instruction at 2 mod 4,
    // takes what it takes to one at 0 mod 4; behind udiv (piq_narrow_b_to_unaligned) or movs
    // (it_and_blx_bx_mov_pc_lr) the target waits for its second word.
    decode::InstructionDecoder d;
    models::TimingModel m3(M3), m0(M0);
    auto pair = [&](std::vector<std::uint8_t> bytes, std::uint32_t address) { return d.decode(bytes, address); };
    auto ldr_b = pair({0x58, 0xf8, 0x09, 0x20, 0x01, 0xe0}, 0x080007a4);   // ldr.w r2, [r8, r9]; b.n
    auto ldr_bl = pair({0x3e, 0x68, 0x00, 0xf0, 0x04, 0xf8}, 0x08000c08);  // ldr r6, [r7]; bl
    auto movs_b = pair({0x00, 0x27, 0x01, 0xe0}, 0x08000fd8);              // movs r7, #0; b.n
    auto udiv_b = pair({0xb3, 0xfb, 0xf4, 0xf3, 0x01, 0xe0}, 0x080007a8);  // udiv r3, r3, r4; b.n
    auto ldr_bx = pair({0x3e, 0x68, 0x20, 0x47}, 0x08000c08);              // ldr r6, [r7]; bx r4
    CHECK(m3.fetches_two_words_early(ldr_b[1], &ldr_b[0], 0));
    CHECK(m3.fetches_two_words_early(ldr_bl[1], &ldr_bl[0], 0));
    CHECK_FALSE(m3.fetches_two_words_early(movs_b[1], &movs_b[0], 0));
    CHECK_FALSE(m3.fetches_two_words_early(udiv_b[1], &udiv_b[0], 0));
    CHECK_FALSE(m3.fetches_two_words_early(ldr_bx[1], &ldr_bx[0], 0));  // bx r4 waits for its register
    CHECK_FALSE(m3.fetches_two_words_early(ldr_b[1], &ldr_b[0], 2));    // SRAM: rule 26 instead
    CHECK_FALSE(m0.fetches_two_words_early(ldr_b[1], &ldr_b[0], 0));
    // The target saves its wait for its second word, unless, taking one cycle, it has a 32-bit
    // instruction behind it that then waits for the third word (it: b.n to addne.w; ldr.w takes
    // 6 either way), and that one does not wait for a store anyway (push: str.w; ldr.w).
    auto add_adds = pair({0x05, 0xeb, 0x83, 0x05, 0xf6, 0x18}, 0x080007ee);             // add.w; adds
    auto add_ldr = pair({0x05, 0xeb, 0x83, 0x05, 0x58, 0xf8, 0x09, 0xb0}, 0x0800086e);  // add.w; ldr.w
    auto str_ldr = pair({0x4d, 0xf8, 0x04, 0x8d, 0xd6, 0xf8, 0x04, 0x50}, 0x08000c16);  // str.w r8, [sp, #-4]!; ldr.w
    auto aligned = pair({0x05, 0xeb, 0x83, 0x05, 0xf6, 0x18}, 0x080007f0);
    CHECK(m3.saves_second_word(add_adds, 0));
    CHECK_FALSE(m3.saves_second_word(add_ldr, 0));
    CHECK(m3.saves_second_word(str_ldr, 0));
    CHECK_FALSE(m3.saves_second_word(aligned, 0));  // no second word to wait for
    CHECK_FALSE(m3.saves_second_word(add_adds, 2));
}
