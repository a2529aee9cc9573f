// Each expected figure is derived by hand from the TRM tables named in models/timing_model.h;
// the derivation is written next to it. P (pipeline refill) is 2 in the model. What silicon does
// beyond the tables is the pipeline model's, and tested there (tests/models/pipeline_*).
#include <doctest/doctest.h>

#include <initializer_list>
#include <vector>

#include "decode/instruction_decoder.h"
#include "models/block_costs.h"
#include "models/timing_model.h"

using namespace emutrace;

namespace {

// Assembles halfwords (in the order objdump prints them) into a block and costs it.
models::BlockTiming cost(models::CoreKind core, std::initializer_list<std::uint16_t> halfwords, std::uint32_t address = 0x1000) {
    std::vector<std::uint8_t> bytes;
    for (std::uint16_t h : halfwords) {
        bytes.push_back(static_cast<std::uint8_t>(h));
        bytes.push_back(static_cast<std::uint8_t>(h >> 8));
    }
    decode::InstructionDecoder d;
    auto insns = d.decode(bytes, address);
    REQUIRE(insns.size() > 0);
    return models::TimingModel(core).block(insns);
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
    // ldr r0,[r1,r2]; str r1,[r3,r2]: "normally three cycles total" = 2 + 1, the register-offset
    // store pipelined
    CHECK(cost(M3, {0x5888, 0x5099}).cycles == 3);
    // ldr r0,[r1,r5]; ldr r1,[r2]... here ldr r2,[r3,#4] twice after: "normally four cycles" = 2 + 1 + 1
    CHECK(cost(M3, {0x5948, 0x681a, 0x685a}).cycles == 4);
    // ldr r0,[r1]; ldr r0,[r0]: the first load's destination computes the next address, so no
    // pipelining: 2 + 2
    CHECK(cost(M3, {0x6808, 0x6800}).cycles == 4);
    // ldr r5,[r6]; ldr.w r6,[r7,#4]!: "any load with a base update is not normally pipelined": 2 + 2
    CHECK(cost(M3, {0x6835, 0xf857, 0x6f04}).cycles == 4);
    // ldr.w r6,[r5,#4]!; ldr.w r5,[r6,#4]!: 2 + 2
    CHECK(cost(M3, {0xf855, 0x6f04, 0xf856, 0x5f04}).cycles == 4);
}

TEST_CASE("timing m3: stores and address dependencies") {
    // str r0,[r3,#20]: STR with an immediate offset is always one cycle
    CHECK(cost(M3, {0x6158}).cycles == 1);
    // str r0,[r1,r2]: register offset, not after a load: 2
    CHECK(cost(M3, {0x5088}).cycles == 2);
    // adds r1,#4; ldr r0,[r1]: the address depends on a preceding data processing result, "no
    // forwarding path": 1 + (2 + 1)
    CHECK(cost(M3, {0x3104, 0x6808}).cycles == 4);
    // str r5,[r6]; ldr r5,[r5]: behind a store no such stall: 1 + 2
    CHECK(cost(M3, {0x6035, 0x682d}).cycles == 3);
    // ldmia r5,{r5} twice: LDM 1 + N, N = 1, behind a load no stall: 2 + 2
    CHECK(cost(M3, {0xcd20, 0xcd20}).cycles == 4);
    models::TimingModel m3(M3);
    decode::InstructionDecoder d;
    const std::vector<std::uint8_t> adds_ldr{0x04, 0x31, 0x08, 0x68};
    auto insns = d.decode(adds_ldr, 0x1000);
    // Of the load's 3 cycles the first is its own, the stall a CPI cycle: LSUCNT 1.
    CHECK(m3.lsu_cycles(insns[1], 3, &insns[0]) == 1);
    // The Cortex-M0 has no such stall: 1 + 2, the load's second cycle a load/store cycle.
    CHECK(cost(M0, {0x3104, 0x6808}).cycles == 3);
    CHECK(models::TimingModel(M0).lsu_cycles(insns[1], 2, &insns[0]) == 1);
}

TEST_CASE("timing m3: a load with base update takes one cycle when the next instruction writes no register") {
    // ldr.w r7,[r6,#4]!; nop: 1 + 1
    CHECK(cost(M3, {0xf856, 0x7f04, 0xbf00}).cycles == 2);
    // ldr.w r7,[r6,#4]!; cmp r7,#1: CMP is one of the TRM's examples: 1 + 1
    CHECK(cost(M3, {0xf856, 0x7f04, 0x2f01}).cycles == 2);
    // ldr.w r7,[r6,#4]!; str.w r8,[r4]: a store without writeback writes no register: 1 + 1
    CHECK(cost(M3, {0xf856, 0x7f04, 0xf8c4, 0x8000}).cycles == 2);
    // ldr.w r7,[r6,#4]!; adds r0,#1: it writes r0: 2 + 1
    CHECK(cost(M3, {0xf856, 0x7f04, 0x3001}).cycles == 3);
    // ldr r0,[r1]; nop: a load without base update is two cycles: 2 + 1
    CHECK(cost(M3, {0x6808, 0xbf00}).cycles == 3);
}

TEST_CASE("timing m3: multiple transfers cost 1 + N, + P when they load the pc") {
    CHECK(cost(M3, {0xb5f0}).cycles == 6);          // push {r4-r7,lr}: 1 + 5
    CHECK(cost(M3, {0xbc0f}).cycles == 5);          // pop {r0-r3}: 1 + 4
    CHECK(cost(M3, {0xbdf0}).cycles == 8);          // pop {r4-r7,pc}: 1 + 5 + P
    CHECK(cost(M3, {0xe9d2, 0x0100}).cycles == 3);  // ldrd r0,r1,[r2]: 1 + N with N = 2
    CHECK(cost(M3, {0xf85d, 0xfb04}).cycles == 5);  // ldr pc,[sp],#4: 2 for the load + 3 for the reload
    models::TimingModel m3(M3);
    decode::InstructionDecoder d;
    const std::vector<std::uint8_t> ldr_pc{0x5d, 0xf8, 0x04, 0xfb};
    CHECK(m3.lsu_cycles(d.decode_one(ldr_pc, 0x1000), 5) == 1);  // the reload is CPI: 5 - 1 - 3
}

TEST_CASE("timing m3: branches cost 1 + P, conditional ones 1, and + P when taken") {
    CHECK(cost(M3, {0xe7f2}).cycles == 3);                      // b: 1 + P
    CHECK(cost(M3, {0xf000, 0xb800}).cycles == 3);              // b.w: 1 + P
    CHECK(cost(M3, {0xf7ff, 0xfff4}).cycles == 3);              // bl: 1 + P
    CHECK(cost(M3, {0x4770}).cycles == 3);                      // bx lr: 1 + P
    CHECK(cost(M3, {0x4740}).cycles == 3);                      // bx r8: 1 + P
    CHECK(cost(M3, {0x46f7}).cycles == 3);                      // mov pc, lr: 1 + P
    CHECK(cost(M3, {0x44af}).cycles == 3);                      // add pc, r5: 1 + P
    CHECK(cost(M3, {0xea4f, 0x0e05, 0x4770}).cycles == 1 + 3);  // mov.w lr, r5; bx lr: 1 + (1 + P)
    CHECK(cost(M3, {0xbf00, 0xe004}).cycles == 1 + 3);          // nop; b.n: 1 + (1 + P)
    CHECK(cost(M3, {0xfbb3, 0xf3f4, 0xe004}).cycles == 2 + 3);  // udiv (its minimum); b.n: 2 + (1 + P)
    auto bne = cost(M3, {0xd1f1});                              // bne: 1 not taken, 1 + P taken
    CHECK(bne.cycles == 1);
    CHECK(bne.taken_extra == 2);
    auto cbz = cost(M3, {0xb108});  // cbz: as a conditional branch
    CHECK(cbz.cycles == 1);
    CHECK(cbz.taken_extra == 2);
    CHECK(cost(M3, {0xe8df, 0xf000}).cycles == 6);  // tbb: 2 (load) + 1 (add) + 3 (reload)
    CHECK(cost(M3, {0xf3bf, 0x8f6f}).cycles == 3);  // isb: 1 + B, B = a refill
    CHECK(cost(M3, {0xf3bf, 0x8f5f}).cycles == 1);  // dmb: 1 + B, B at least 0
}

TEST_CASE("timing m3: an IT folds onto a preceding 16-bit instruction") {
    // movs r0,#0; it eq; addeq r0,#1: 1 + 0 + 1
    CHECK(cost(M3, {0x2000, 0xbf08, 0x3001}).cycles == 2);
    // add.w r0,r0,#1; it eq; addeq r0,#1: 1 + 1 + 1, nothing 16-bit to fold onto
    CHECK(cost(M3, {0xf100, 0x0001, 0xbf08, 0x3001}).cycles == 3);
    // it eq at the block's start (a branch target): 1 + 1
    CHECK(cost(M3, {0xbf08, 0x3001}).cycles == 2);
    CHECK(models::TimingModel::skipped() == 1);  // an instruction failing its condition
}

TEST_CASE("timing: multiply-accumulate is two cycles on M3, one on M4") {
    CHECK(cost(M3, {0xfb01, 0x0002}).cycles == 2);  // mla (M3 table: 2)
    CHECK(cost(M4, {0xfb01, 0x0002}).cycles == 1);  // mla (M4 table: 1)
    CHECK(cost(M3, {0xfba2, 0x0103}).cycles == 3);  // umull: M3 3-5, the minimum
    CHECK(cost(M4, {0xfba2, 0x0103}).cycles == 1);  // umull: M4 1
    // smull r7,r6,r5,r4; mla fp,sl,r9,r6: 3 + 2 on M3, 1 + 1 on M4
    CHECK(cost(M3, {0xfb85, 0x7604, 0xfb0a, 0x6b09}).cycles == 3 + 2);
    CHECK(cost(M4, {0xfb85, 0x7604, 0xfb0a, 0x6b09}).cycles == 1 + 1);
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

// The TRM gives only "2-12 cycles". How many is the divider's behaviour, measured on an STM32F100
// (sdiv_udiv_timing), and used by both cycle models.
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
    // INT_MIN's magnitude does not fit 31 bits: against a negative divisor it counts as 0x7FFFFFFF
    // (CC2652 sdiv_powers_of_two), against a positive one as all 32 bits.
    CHECK(m3.divide(0x80000000u, 0xFFFFFFF0u, true) == 11);  // ~d = 15: 31 - 4 = 27 bits longer
    CHECK(m3.divide(0x80000000u, 0x00000010u, true) == 11);  // 16: 32 - 5 = 27 bits longer
    CHECK(m3.divide(0x80000000u, 0xF0000000u, true) == 5);   // ~d = 0x0FFFFFFF: 3 bits longer
    CHECK(m3.divide(0x80000000u, 0x10000000u, true) == 5);   // 0x10000000: 3 bits longer
    CHECK(m3.divide(0xFFFFFFF0u, 0xFFFFFFFFu, true) == 6);   // -16 / -1: 5 bits longer, as before
}

// The TRM gives "3-5" and "4-7" with early termination. How many is the iterative multiplier's
// behaviour, measured on an STM32F100 (smull_umull_*), and used by both cycle models.
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

TEST_CASE("timing: exception entry, return and tail-chaining") {
    models::TimingModel m3(M3), m0(M0);
    CHECK(m3.exception_entry() == 12);
    CHECK(m3.exception_return() == 10);
    CHECK(m3.tail_chain() == 6);
    CHECK(m0.exception_entry() == 16);
}

TEST_CASE("timing: an exception's cycles add the FP words the frame moves") {
    models::TimingModel m4f(models::CoreKind::CortexM4F);
    CHECK(m4f.entry_cycles(false, false) == m4f.exception_entry());
    CHECK(m4f.entry_cycles(true, false) == m4f.tail_chain());
    CHECK(m4f.entry_cycles(false, true) == m4f.exception_entry() + 17);  // S0-S15 and FPSCR
    CHECK(m4f.return_cycles(0) == m4f.exception_return());
    CHECK(m4f.return_cycles(2) == m4f.exception_return() + 34);  // unstacked, and preserved lazily uncharged
    CHECK(models::TimingModel::lazy_preservation_cycles() == 17);
}

// The operand-timed instructions are told apart by their T1 encoding's first halfword alone
// (1111 1011 1ooo nnnn), so a hook at the instruction needs nothing but it and two registers.
TEST_CASE("timing: operand-timed instructions from their encoding, and their cycles beyond the block's minimum") {
    using Op = models::TimingModel::OperandOp;
    auto sdiv = models::TimingModel::operand_timing(0xFB90), udiv = models::TimingModel::operand_timing(0xFBB3);
    auto smull = models::TimingModel::operand_timing(0xFB87), umlal = models::TimingModel::operand_timing(0xFBE1);
    CHECK((sdiv.op == Op::Divide && sdiv.is_signed));
    CHECK((udiv.op == Op::Divide && !udiv.is_signed));
    CHECK((smull.op == Op::MultiplyLong && smull.is_signed));
    CHECK((umlal.op == Op::MultiplyAccumulateLong && !umlal.is_signed));
    CHECK(models::TimingModel::operand_timing(0xF105).op == Op::None);  // add.w
    models::TimingModel m3(M3);
    CHECK(m3.operand_extra(udiv, 100, 7) == m3.divide(100, 7, false) - models::TimingModel::kDivideMinimum);
    CHECK(m3.operand_extra(sdiv, 0xFFFFFF9Cu, 7) == 4);  // -100 / 7: 6 cycles, 2 counted by the block
    CHECK(m3.operand_extra(umlal, 0x98395B39, 0x824704EA) == 7 - models::TimingModel::kMultiplyLongMinimum);
    CHECK(m3.operand_extra({}, 5, 7) == 0);
}

TEST_CASE("timing: a block's part cut at a trace point costs its instructions and its words' fetch waits, at most what is left") {
    CHECK(models::part_cycles(5, 8, 0, 20) == 5);
    CHECK(models::part_cycles(5, 8, 1, 20) == 7);  // two words, a wait each
    CHECK(models::part_cycles(5, 6, 1, 20) == 7);  // a part word is fetched whole
    CHECK(models::part_cycles(5, 8, 1, 6) == 6);   // never more than the block has left
}
