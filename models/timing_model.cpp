#include "models/timing_model.h"

#include "models/instruction_class.h"

#include <capstone/arm.h>

#include <algorithm>
#include <bit>

namespace emutrace::models {
namespace {

using decode::Instruction;
using decode::MemoryAccess;

constexpr std::uint16_t kPc = 1u << 15;

// The project's instruction classes (models/instruction_class.h) by Capstone id.
bool is_load_single(unsigned id) {
    return class_of_id(id) == InstructionClass::Load;
}

bool is_store_single(unsigned id) {
    return class_of_id(id) == InstructionClass::Store;
}

bool is_multiple(unsigned id) {
    InstructionClass c = class_of_id(id);
    return c == InstructionClass::LoadMultiple || c == InstructionClass::StoreMultiple;
}

bool is_branch(unsigned id) {
    switch (id) {
        case ARM_INS_B:
        case ARM_INS_BL:
        case ARM_INS_BX:
        case ARM_INS_BLX:
        case ARM_INS_CBZ:
        case ARM_INS_CBNZ: return true;
        default: return false;
    }
}

bool is_multiply_long(unsigned id) {
    InstructionClass c = class_of_id(id);
    return c == InstructionClass::MultiplyLong || c == InstructionClass::MultiplyAccumulateLong;
}

unsigned registers_in_list(const Instruction& insn) {
    return insn.memory.bytes / 4;
}

// The RdHi of SMULL/UMULL/SMLAL/UMLAL, which it writes in its last cycle (RdLo comes earlier).
std::uint16_t long_multiply_high(const Instruction& insn) {
    if (!is_multiply_long(insn.id) || insn.first_register < 0) return 0;
    return static_cast<std::uint16_t>(insn.writes & ~(1u << insn.first_register));
}

// A single or dual load or store with pre- or post-indexed writeback: it writes its base too.
bool writes_back(const Instruction& insn) {
    if (insn.memory.base < 0 || insn.memory.base > 14 || insn.memory.mode != MemoryAccess::Mode::Offset) return false;
    return (insn.writes >> insn.memory.base) & 1u && insn.memory.base != insn.first_register;
}

}  // namespace

TimingModel::TimingModel(CoreKind core) : core_(core) {
    if (core == CoreKind::CortexM0) {
        refill_ = 2;  // B<cond> taken: 3 against 1 not taken
        entry_ = 16;  // Cortex-M0 TRM: 16-cycle interrupt latency with zero wait states
        return_ = 16;
        tail_chain_ = 11;
    } else {
        refill_ = 2;  // P: 1-3 by target alignment and width; 2 is the typical figure
        entry_ = 12;
        return_ = 10;
        tail_chain_ = 6;
    }
}

// Measured on an STM32F100 (docs/silicon.md, sdiv_udiv_timing: all 9,512 operand pairs): a zero
// dividend or divisor ends in 2 cycles; a dividend with fewer significant bits than the divisor in
// 3; otherwise 5 plus one per 4 bits the dividend is longer than the divisor (up to 12). SDIV
// measures the dividend's magnitude but a negative divisor's one's complement (~d, not -d).
unsigned TimingModel::divide(std::uint32_t dividend, std::uint32_t divisor, bool is_signed) const {
    if (divisor == 0 || dividend == 0) return kDivideMinimum;
    if (is_signed) {
        if (static_cast<std::int32_t>(dividend) < 0) dividend = 0u - dividend;
        if (static_cast<std::int32_t>(divisor) < 0) divisor = ~divisor;
    }
    int longer = std::countl_zero(divisor) - std::countl_zero(dividend);
    if (longer < 0) return kDivideMinimum + 1;
    return kDivideMinimum + 3 + static_cast<unsigned>(longer) / 4;
}

// Measured on an STM32F100 (docs/silicon.md, smull_umull_regression and
// smull_umull_smlal_umlal_dependencies), with CMEmu's rule for the cases those tests leave open:
// the multiplier skips 16-bit halves of Rn and Rm that are zero. Each operand is L (bits 15:0 only
// non-zero), H (31:16 only; a negative value always has H) or B (both):
//   Rn,Rm   L,L  H,H  B,B  B,H  H,B  one of them L
//   UMULL    3    3    5    4    4    4
//   SMULL    3    3    5    4    4    4     +1 for H,H and B,H when either is negative, and
//                                          for one-L when Rm is negative
//   xMLAL    3    +2   +2   +2   +2   +1   on the multiply's count
// A zero operand ends it in 3.
unsigned TimingModel::multiply_long(std::uint32_t rn, std::uint32_t rm, bool is_signed, bool accumulate) const {
    if (rn == 0 || rm == 0) return kMultiplyLongMinimum;
    auto halves = [](std::uint32_t v) { return (v >> 16 ? 2u : 0u) | (v & 0xFFFFu ? 1u : 0u); };  // 1 L, 2 H, 3 B
    unsigned n = halves(rn), m = halves(rm);
    if (n == 1 && m == 1) return kMultiplyLongMinimum;
    bool n_negative = is_signed && static_cast<std::int32_t>(rn) < 0, m_negative = is_signed && static_cast<std::int32_t>(rm) < 0;
    bool negative = n_negative || m_negative;
    unsigned cycles = 0, accumulate_extra = 2;
    if (n == 3 && m == 3)
        cycles = 5;
    else if (n == m)
        cycles = negative ? 4 : 3;  // both H-only
    else if (n == 3 && m == 2)
        cycles = negative ? 5 : 4;
    else if (n == 2 && m == 3)
        cycles = 4;
    else {  // one operand L-only
        cycles = m_negative ? 5 : 4;
        accumulate_extra = 1;
    }
    return accumulate ? cycles + accumulate_extra : cycles;
}

bool TimingModel::by_operands(const Instruction& insn) const {
    switch (insn.id) {
        case ARM_INS_SDIV:
        case ARM_INS_UDIV: return true;
        case ARM_INS_SMULL:
        case ARM_INS_UMULL:
        case ARM_INS_SMLAL:
        case ARM_INS_UMLAL: return multiply_long_by_operands();
        default: return false;
    }
}

// Measured on an STM32F100 (docs/silicon.md, piq_narrow_b_to_unaligned): the refill fetches the
// word holding the target, so a 32-bit target at an address 2 mod 4 waits for the next word.
unsigned TimingModel::branch_target_fetch(const Instruction& first, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0) return 0;
    unsigned word = word_fetch > 1 ? word_fetch : 1;  // SRAM: the refill's fetch takes a System bus word
    if (!(first.address & 2)) return word - 1;
    // The first word holds only the target's first halfword: a 32-bit target waits for the next
    // word; from SRAM a 16-bit one that takes a single cycle leaves the next instruction a cycle
    // short (tbb_tbh: a tbb to adds at 2 mod 4 takes as long as to one more adds at 0 mod 4). A
    // 2-cycle load there gives the fetch that cycle, and a branch has no next instruction
    // (bx_seq: bx r4 to ldr r3, [r0, r1] or to bx r5 at 2 mod 4 cost nothing more).
    if (first.size == 4) return (word - 1) + word;
    bool next_waits = v7m(first, nullptr) == 1 && first.memory.mode == MemoryAccess::Mode::None && !first.writes_pc;
    return (word - 1) + (next_waits ? word - 1 : 0);
}

// Measured on an STM32F100 (docs/silicon.md, cbz): cbz taken then ldr counts CPI 2 (the refill)
// and LSU 1 (the load's second cycle).
// A load that writes the pc counts its refill as CPI cycles (tbb_tbh: TBB counts LSU 2, CPI 3), and
// so does a wait for the address register (str: adds r1, r1, r7; ldr r3, [r0, r1] counts CPI 1,
// LSU 1).
unsigned TimingModel::lsu_cycles(const Instruction& insn, unsigned cycles, const Instruction* previous, unsigned word_fetch) const {
    if (insn.memory.mode == MemoryAccess::Mode::None || cycles == 0) return 0;
    unsigned not_lsu = pc_load_refill(insn) + address_stall(insn, previous) + fetch_wait(insn, previous, word_fetch);
    return cycles - 1 - std::min(cycles - 1, not_lsu);
}

// The pipeline reload after a load of the pc, counted as CPI cycles: TBB/TBH 3, LDR pc and
// LDM/POP {pc} P (ldr_pc: LDR pc counts LSU 2, CPI 2).
unsigned TimingModel::pc_load_refill(const Instruction& insn) const {
    if (insn.id == ARM_INS_TBB || insn.id == ARM_INS_TBH) return 3;
    return (insn.writes & kPc) ? refill_ : 0;
}

// Measured on an STM32F100 (control_flow/it): movs.n; it pl; addpl; ldr takes 4 after a DWT read,
// the IT taking no cycle of its own, and FOLDCNT counts it.
bool TimingModel::folded(const Instruction& insn, const Instruction* previous, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || insn.id != ARM_INS_IT || insn.size != 2 || !previous) return false;
    // From SRAM only an IT sharing its word with the instruction before it folds.
    if (word_fetch > 1 && !(insn.address & 2)) return false;
    return previous->size == 2 && previous->memory.mode == MemoryAccess::Mode::None && !previous->writes_pc;
}

// Measured on an STM32F100 (ldr_ldm_ldmdb_ldrd_same_args_and_rings): a load that writes its base
// back does not pipeline behind a load (ldr r5, [r6]; ldr.w r6, [r7, #4]!: 2 + 2), though a load
// behind it does.
bool TimingModel::pipelined_load(const Instruction& insn, const Instruction* previous, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || word_fetch || !previous || !is_load_single(previous->id) || (previous->writes & kPc)) return false;
    if (is_load_single(insn.id) && writes_back(insn)) return false;
    if (is_store_single(insn.id)) return insn.memory.index >= 0;  // a register-offset store
    return is_load_single(insn.id) && !(insn.writes & kPc) && !(previous->writes & insn.reads & 0x7FFF);
}

BlockTiming TimingModel::block(std::span<const Instruction> insns, unsigned word_fetch) const {
    BlockTiming t;
    const Instruction *previous = nullptr, *before = nullptr;
    unsigned previous_cost = 0;
    for (const auto& insn : insns) {
        unsigned cost = instruction(insn, previous, word_fetch, before);
        if (previous_cost > 1 && overlaps_load(insn, previous)) --t.cycles;  // the load before takes 1 less
        t.cycles += cost;
        previous_cost = cost;
        before = previous;
        previous = &insn;
    }
    if (!insns.empty()) t.taken_extra = taken_extra(insns.back(), insns.size() > 1 ? &insns[insns.size() - 2] : nullptr, word_fetch);
    return t;
}

unsigned TimingModel::instruction(const Instruction& insn, const Instruction* previous, unsigned word_fetch, const Instruction* before) const {
    if (insn.isa & (decode::IsaFpSingle | decode::IsaFpDouble)) return fpu(insn);
    if (core_ == CoreKind::CortexM0) return v6m(insn);
    // From SRAM a 32-bit store takes a second cycle for the next word's fetch, in which its data
    // phase is done (strb_strh_imm_index: strb.w r7, [r6, #1]!; ldr takes 2 + 2 there).
    bool store_done = word_fetch > 1 && previous && previous->size == 4;
    unsigned cycles = v7m(insn, previous) + system_bus_fetch(insn, previous, word_fetch) + (store_done ? 0 : waits_for_store(insn, previous, before));
    // A branch whose target fetch starts early saves a refill cycle: a B behind a multi-cycle
    // instruction, and any branch with its target known at decode, while the fetch bus is free.
    // From SRAM a load keeps the B behind it from fetching early (b_after_ldr: 2 more than from
    // flash), a multiply does not (mla_mls_b: mla; b.w saves the refill cycle, not the slower word
    // of the target, which branch_target_fetch() charges to the target).
    bool at_decode = decode_fetch(previous, word_fetch);
    bool early = early_target_fetch(insn, previous, word_fetch);
    if (early || (at_decode && target_at_decode(insn, previous))) --cycles;
    // From SRAM a B<cc> fetches its target at decode too, and when it is not taken that fetch has
    // held the System bus for a word (bcond: movs; beq not taken; 4 x add.w takes 2 more).
    if (word_fetch > 1 && at_decode && speculates(insn)) cycles += word_fetch;
    return cycles;
}

// Measured on an STM32F100 (bl_blx_bx_mov_pc_lr, it_and_blx_bx_mov_pc_lr, bcond): from flash, B,
// BL and a BX, BLX or MOV pc from LR take P, not 1 + P, whatever runs before them, unless the
// instruction just before wrote LR (mov.w lr, r5; bx lr: 1 + P). From SRAM only while the System
// bus is free (decode_fetch()). (A taken B<cc> likewise: taken_extra().)
bool TimingModel::target_at_decode(const Instruction& insn, const Instruction* previous) const {
    if (core_ == CoreKind::CortexM0 || decode::is_conditional_branch(insn)) return false;
    if (insn.id == ARM_INS_BL || (insn.id == ARM_INS_B && !insn.conditional)) return true;
    constexpr std::uint16_t kLr = 1u << 14;
    bool from_lr =
        (insn.id == ARM_INS_BX || insn.id == ARM_INS_BLX || insn.id == ARM_INS_MOV) && insn.writes_pc && (insn.reads & kLr) && insn.target == 0;
    return from_lr && !(previous && (previous->writes & kLr));
}

// Measured on an STM32F100 (bx_seq from SRAM): bx r4 to ldr.w at 2 mod 4 takes 1 + P, then 3
// for the target's two words, then 2 for the load: the refill fetched the load's second word, so
// its straddle wait (system_bus_fetch()) is not paid again. Behind a branch that fetched its
// target early it is (it_and_blx_bx_mov_pc_lr: blxeq lr to ldr.w at 2 mod 4 saves nothing).
unsigned TimingModel::refill_covers_straddle(const Instruction& first, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || word_fetch <= 1 || first.size != 4 || !(first.address & 2) || pc_load_refill(first)) return 0;
    return v7m(first, nullptr) >= word_fetch ? 1 : 0;
}

// Measured on an STM32F100 (push, it, from flash): a BL or B right behind a DWT read, to a 32-bit
// instruction at 2 mod 4, takes what it takes to one at 0 mod 4 (push: bl to str.w r8, [sp,
// #-4]!; it: b.n to addne.w), where behind a udiv (piq_narrow_b_to_unaligned) or a movs
// (it_and_blx_bx_mov_pc_lr) the target waits a cycle for its second word. A load gives the fetch
// that began at decode a cycle more before the branch executes.
bool TimingModel::fetches_two_words_early(const Instruction& insn, const Instruction* previous, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || word_fetch > 1 || !previous) return false;
    return is_load_single(previous->id) && !(previous->writes & kPc) && target_at_decode(insn, previous);
}

// Measured on an STM32F100 (it, from flash): the word after those two comes when it would have.
// A DWT read; b.n to addne.w at 2 mod 4, then ldr.w at 2 mod 4 takes 6, as if the addne.w had
// waited: the load, decoded a cycle after it, waits for its second word instead. A load that
// waits for the store before it anyway (push: str.w; ldr.w) loses nothing.
bool TimingModel::saves_second_word(std::span<const Instruction> insns, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || word_fetch > 1 || insns.empty()) return false;
    const Instruction& first = insns.front();
    if (first.size != 4 || !(first.address & 2)) return false;
    if (insns.size() < 2 || instruction(first, nullptr, word_fetch) > 1) return true;
    const Instruction& next = insns[1];
    return next.size != 4 || waits_for_store(next, &first, nullptr) > 0;
}

// From SRAM: at decode (decode_fetch()), or behind a multi-cycle instruction without a data access
// (early_target_fetch()).
bool TimingModel::fetches_target_early(const Instruction& insn, const Instruction* previous, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || word_fetch <= 1 || !insn.writes_pc) return false;
    if (early_target_fetch(insn, previous, word_fetch)) return true;
    return decode_fetch(previous, word_fetch) && (target_at_decode(insn, previous) || speculates(insn));
}

// Measured on an STM32F100 (bx_seq from SRAM, bxPadded): after a refill the fetch reads a word
// every 2 cycles, and a branch's own refill starts only when the word in flight is in. ldr.w r2,
// [r0, r1]; adds; bx r4 to the next word takes 1 more than ldr.w r2, [r0, r1]; bx r4: its bx
// executes an even number of cycles after the block's first word came in, mid-fetch.
unsigned TimingModel::refill_waits_for_fetch(const Instruction& branch, const Instruction* previous, unsigned since_refill,
                                             unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || word_fetch <= 1 || !branch.writes_pc || branch.conditional) return 0;
    if (branch.memory.mode != MemoryAccess::Mode::None || fetches_target_early(branch, previous, word_fetch)) return 0;
    return since_refill % word_fetch == 0 ? 1 : 0;
}

// Measured on an STM32F100 (control_flow/it): an instruction in an IT block that fails its
// condition takes 1 cycle, whatever it is; from SRAM a 32-bit one still takes its word's fetch
// (it, code in SRAM: a skipped mla{cond}.w measures a cycle more than that).
unsigned TimingModel::skipped(const Instruction& insn, unsigned word_fetch) const {
    return word_fetch > 1 && insn.size == 4 ? word_fetch : 1;
}

// Measured on an STM32F100 (it_and_blx_bx_mov_pc_lr from flash, it_fold_after_skipped_branch from
// SRAM): a branch skipped by its IT condition had its target fetched at decode, so the next
// instruction is fetched again, as after a branch to it: from flash a 32-bit one at 2 mod 4 costs
// a cycle more.
unsigned TimingModel::skipped_branch_refetch(const Instruction& insn, const Instruction* previous, const Instruction& next,
                                             unsigned word_fetch) const {
    if (!insn.conditional || !target_at_decode(insn, previous) || !decode_fetch(previous, word_fetch)) return 0;
    // From SRAM the target's fetch has held the System bus for a word, as for a B<cc> not taken
    // (it_fold_after_skipped_branch: it ne; bxne lr skipped takes 2 more than it ne; bxne r8).
    // A next instruction that straddles a word waits for its second word anyway, which hides it
    // (it_and_blx_bx_mov_pc_lr: it ne; blxne lr at 0 mod 4, then nop.w).
    if (word_fetch > 1) return next.size == 4 && (next.address & 2) ? 0 : word_fetch;
    return branch_target_fetch(next, word_fetch);
}

// Measured on an STM32F100: a NOP after a load runs in the load's data phase, so the load takes 1
// (ldr_writeback_pipelining: ldr.w r7, [r6, #4]!; nop: 1 + 1, LSUCNT 0; cbz_deps: a DWT read;
// nop; cbz measures 1 less than with adds for the nop). After a load that writes its base back a
// store without writeback does too (ldr.w r7, [r6, #4]!; str.w r8, [r4]: 1 + 1). Data processing
// there, dependent or not, does not (cmn, cmp, add.w), nor a store with writeback.
bool TimingModel::overlaps_load(const Instruction& insn, const Instruction* previous) const {
    if (core_ == CoreKind::CortexM0 || !previous || !is_load_single(previous->id) || (previous->writes & kPc)) return false;
    if (insn.id == ARM_INS_NOP) return true;
    return writes_back(*previous) && (is_store_single(insn.id) && insn.memory.index < 0 && !writes_back(insn));
}

// Measured on an STM32F100 (mov_str_imm_deps, str_imm_index, stm_stmdb): a load right behind a
// one-cycle store waits a cycle for the store's data phase (mov; str; ldr: 1 + 1 + 3), unless the
// store pipelined behind a load to the same memory (ldr_str_unaligned: ldr.w r0, [r5]; str.w r1,
// [r6]; ldr: 2 + 1 + 2). A store that writes its base back does not pipeline so.
unsigned TimingModel::waits_for_store(const Instruction& insn, const Instruction* previous, const Instruction* before) const {
    bool after_store = previous && is_store_single(previous->id) && previous->memory.index < 0;
    if (core_ == CoreKind::CortexM0 || !is_load_single(insn.id) || !after_store) return 0;
    return store_pipelined(*previous, before) ? 0 : 1;
}

bool TimingModel::store_pipelined(const Instruction& store, const Instruction* before) const {
    if (!before || !is_load_single(before->id) || (before->writes & kPc) || writes_back(*before) || writes_back(store)) return false;
    bool base_loaded = store.memory.base >= 0 && store.memory.base < 15 && ((before->writes >> store.memory.base) & 1u);
    return !base_loaded;
}

int TimingModel::taken_extra(const Instruction& last, const Instruction* previous, unsigned word_fetch) const {
    if (!decode::is_conditional_branch(last)) return 0;
    // From SRAM a taken 32-bit B<cc> does not wait for the next word's fetch, which the block
    // counted as its second cycle (bcond: ldr; bne.w taken costs what ldr; bne.n does).
    int next_word = speculates(last) && word_fetch > 1 && last.size == 4 && !(last.address & 2) ? 1 : 0;
    if (!speculates(last) || !decode_fetch(previous, word_fetch)) return static_cast<int>(refill_) - next_word;
    // The target was fetched at decode: a refill cycle less, and from SRAM the word the block
    // counted for the not-taken case is the target's.
    return static_cast<int>(refill_) - 1 - static_cast<int>(word_fetch > 1 ? word_fetch : 0) - next_word;
}

// Measured on an STM32F100 (bcond, b_after_ldr, bl_blx_bx_mov_pc_lr from SRAM): fetching a target
// at decode needs the fetch bus. From SRAM it is free only behind a 16-bit instruction that does
// not access memory: behind a load (ldr; b) or a 32-bit instruction (mov.w lr, r5; bl), whose
// fetch holds the System bus, a branch takes 1 + P.
bool TimingModel::decode_fetch(const Instruction* previous, unsigned word_fetch) const {
    return word_fetch <= 1 || (previous && previous->size == 2 && previous->memory.mode == MemoryAccess::Mode::None);
}

// Measured on an STM32F100 (bcond, misspredicted_branch_sequences, from flash): a DWT read; movs;
// beq.w not taken at 2 mod 4, then four add.w at 2 mod 4 takes 1 more than the same with beq.n at
// 0 mod 4, and two, three and four bne.w not taken in a row 1, 2 and 3 more than the model gave:
// each takes the fetch's cycle in its decode cycle, which costs once the fetch has no word to spare.
bool TimingModel::speculation_takes_fetch(unsigned word_fetch, unsigned wait_states) const {
    return core_ != CoreKind::CortexM0 && word_fetch <= 1 && wait_states == 0;
}

// A B<cc>, whose target fetch starts at decode whether or not it will be taken (not CBZ/CBNZ,
// which wait for their register: cbz_deps).
bool TimingModel::speculates(const Instruction& insn) const {
    return core_ != CoreKind::CortexM0 && insn.id == ARM_INS_B && decode::is_conditional_branch(insn);
}

// Measured on an STM32F100 (docs/silicon.md, piq_narrow_b_to_unaligned, b_after_ldr): a B decoded
// while a multi-cycle instruction (a load too, from flash) executes starts its target fetch early.
// From SRAM a load keeps the B behind it from fetching early (b_after_ldr: 2 more than from
// flash), a multiply does not (mla_mls_b).
bool TimingModel::early_target_fetch(const Instruction& insn, const Instruction* previous, unsigned word_fetch) const {
    if (insn.id != ARM_INS_B || insn.conditional || !previous || previous->writes_pc || previous->id == ARM_INS_ISB) return false;
    if (word_fetch > 1 && previous->memory.mode != MemoryAccess::Mode::None) return false;
    return v7m(*previous, nullptr) > 1;
}

// A single-cycle load or store right behind another data access, which from SRAM cannot overlap it.
bool TimingModel::data_after_data(const Instruction& insn, const Instruction* previous) const {
    bool after_data = previous && previous->memory.mode != MemoryAccess::Mode::None;
    return insn.memory.mode != MemoryAccess::Mode::None && after_data && v7m(insn, previous) == 1;
}

// Measured on an STM32F100 (str from SRAM to SRAM): N register-offset stores take 2.5N cycles as
// str.n and 3N as str.w (2 LSU cycles each). The fetch reads words of `word_fetch` cycles back to
// back while it holds fewer than 3 words beyond the one executing, and a store's data phase (its
// last cycle) waits while a fetch holds the System bus. Stores are taken to go to SRAM; the block
// does not know their address.
void TimingModel::store_bus_waits(std::span<const Instruction> insns, std::span<std::uint32_t> cost, unsigned word_fetch) const {
    if (core_ == CoreKind::CortexM0 || word_fetch <= 1 || insns.empty()) return;
    constexpr std::uint32_t kPrefetchWords = 3;
    // The block's first word came in the cycle before it decoded, and the next word's fetch
    // started then: it holds the bus through the first instruction's first cycle.
    std::uint32_t bus_free = word_fetch - 1, next_word = (insns.front().address & ~3u) + 8, t = 0;
    auto fetch_until = [&](std::uint32_t cycle, std::uint32_t executing_word) {
        while (bus_free < cycle && (next_word - executing_word) / 4 < kPrefetchWords) {
            bus_free += word_fetch;
            next_word += 4;
        }
    };
    for (std::size_t i = 0; i < insns.size(); ++i) {
        const Instruction& insn = insns[i];
        std::uint32_t word = insn.address & ~3u;
        if (next_word <= word) next_word = word + 4;  // its word is in
        fetch_until(t, word);
        // A store in an IT block may not run; it is left out.
        if (is_store_single(insn.id) && !insn.conditional && cost[i] > 0) {
            std::uint32_t data = t + cost[i] - 1;
            fetch_until(data, word);
            if (bus_free > data) {
                cost[i] += bus_free - data;
                data = bus_free;
            }
            bus_free = data + 1;
        }
        t += cost[i];
        fetch_until(t, word);
    }
}

// Of system_bus_fetch(), the cycles `insn` waits for its own fetch (its second word, a word's
// fetch time), not for a data access: CPI cycles (str: adds; str.w at 2 mod 4 from SRAM counts
// CPI 1 and no more LSU than at 0 mod 4).
unsigned TimingModel::fetch_wait(const Instruction& insn, const Instruction* previous, unsigned word_fetch) const {
    if (word_fetch <= 1) return 0;
    unsigned extra = system_bus_fetch(insn, previous, word_fetch);
    return extra - std::min(extra, data_after_data(insn, previous) ? 1u : 0u);
}

// Code fetched over the System bus (SRAM on a Cortex-M3/M4), which data accesses share, at
// `word_fetch` cycles per word. Measured on an STM32F100, where a word takes 2 (docs/silicon.md):
// a 32-bit instruction takes at least a word's fetch (mul.w, add.w: 1 from flash, 2 from SRAM);
// one straddling a word boundary waits for a second fetch; and a load or store cannot overlap a
// load or store just before it.
unsigned TimingModel::system_bus_fetch(const Instruction& insn, const Instruction* previous, unsigned word_fetch) const {
    if (word_fetch == 0) return 0;
    // Fetching a halfword a cycle, the core has no spare cycle for an IT to fold into (it: a
    // folding sequence measures 1 more from SRAM than from flash).
    if (folded(insn, previous)) return 1;
    // A 32-bit instruction at 2 mod 4 waits for its second word, but a load of the pc fetches it
    // during its load cycles (tbb_tbh_seq: a tbb at 2 mod 4 costs no more, and no more LSU
    // cycles, than one at 0 mod 4 besides its target's fetch).
    // A previous instruction that took a word's fetch or longer gave the fetch its spare cycle
    // (bx_seq: ldr.w; ldr.w, both at 2 mod 4, takes 2 + 2).
    // And a wait for an address register overlaps the wait for the second word (str: adds r1, r1,
    // r7; ldr.w r3, [r0, r1] at 2 mod 4 takes 1 + 3, not 1 + 4).
    bool fetched_ahead = previous && !previous->writes_pc && v7m(*previous, nullptr) >= word_fetch;
    bool waits_anyway = address_stall(insn, previous) > 0;
    unsigned extra = insn.size == 4 && (insn.address & 2) && !pc_load_refill(insn) && !fetched_ahead && !waits_anyway ? 1 : 0;
    unsigned own = v7m(insn, previous);
    if (data_after_data(insn, previous)) ++extra;
    if (insn.size == 4 && own + extra < word_fetch) extra = word_fetch - own;
    return extra;
}

// Cortex-M0 TRM, "Instruction set summary": no pipelining of loads, 3-cycle taken branches.
unsigned TimingModel::v6m(const Instruction& insn) const {
    unsigned id = insn.id;
    if (is_load_single(id) || is_store_single(id)) return 2;
    if (id == ARM_INS_POP && (insn.writes & kPc)) return 3 + registers_in_list(insn);
    if (is_multiple(id)) return 1 + registers_in_list(insn);
    switch (id) {
        case ARM_INS_B: return insn.conditional ? 1 : 3;  // taken conditional: +refill at run time
        case ARM_INS_BL: return 4;
        case ARM_INS_BX:
        case ARM_INS_BLX: return 3;
        case ARM_INS_MRS:
        case ARM_INS_MSR:
        case ARM_INS_ISB:
        case ARM_INS_DSB:
        case ARM_INS_DMB: return 3;
        case ARM_INS_WFI:
        case ARM_INS_WFE: return 2;
        default: break;
    }
    if (insn.writes_pc) return 3;  // MOV pc / ADD pc
    return 1;                      // data processing, MULS (fast multiplier), extend, reverse, CPS, NOP, SEV
}

// Measured on an STM32F100 (ldr_ldm_ldmdb_ldrd_same_args_and_rings): the register a load writes
// last is a cycle late for the next instruction's address when the load also writes its base back
// (ldr.w r6, [r5, #4]!; ldr.w r5, [r6, #4]!: 1 + 2 + 1 + 2; ldmia.w r5!, {r4, r6}), and always
// behind a 16-bit LDM or POP (ldmia r5, {r4, r5}; ldr r5, [r5]). Its other registers are in
// time (ldmia r5, {r5, r7}), as are those of LDR, LDRD and LDM.W without writeback.
int TimingModel::late_loaded_register(const Instruction& load) const {
    if (load.writes & kPc) return -1;
    std::uint16_t written = static_cast<std::uint16_t>(load.writes & 0x7FFF);
    if (is_load_single(load.id)) return writes_back(load) ? load.first_register : -1;
    if (load.id == ARM_INS_LDRD) {  // the second register, Rt2, comes last
        if (!writes_back(load)) return -1;
        std::uint16_t rt2 = static_cast<std::uint16_t>(written & ~(1u << load.memory.base) & ~(1u << load.first_register));
        return rt2 ? 15 - std::countl_zero(rt2) : -1;
    }
    if (load.id != ARM_INS_LDM && load.id != ARM_INS_LDMDB && load.id != ARM_INS_POP) return -1;
    bool writeback = static_cast<unsigned>(std::popcount(written)) > registers_in_list(load) && load.memory.base >= 0;
    if (!writeback && load.size == 4) return -1;
    std::uint16_t list = writeback ? static_cast<std::uint16_t>(written & ~(1u << load.memory.base)) : written;
    return list ? 15 - std::countl_zero(list) : -1;
}

// A load or store whose address register was just written by the previous instruction waits a
// cycle: there is no forwarding path to address generation.
// Measured on an STM32F100 (smull_umull_smlal_umlal_dependencies): a long multiply forwards
// RdLo in time, and only an address in RdHi, written in its last cycle, waits.
unsigned TimingModel::address_stall(const Instruction& insn, const Instruction* previous) const {
    if (insn.memory.mode == MemoryAccess::Mode::None || !previous) return 0;
    std::uint16_t address_regs = 0;
    if (insn.memory.base >= 0 && insn.memory.base < 15) address_regs |= static_cast<std::uint16_t>(1u << insn.memory.base);
    if (insn.memory.index >= 0) address_regs |= static_cast<std::uint16_t>(1u << insn.memory.index);
    if (int late = late_loaded_register(*previous); late >= 0) return (address_regs >> late) & 1u;
    // Behind any other load or multiple transfer the address is in time, written back included
    // (ldrd_imm_index: ldrd r4, r5, [r6, #8]! twice takes 3 + 3).
    if (is_load_single(previous->id) || is_multiple(previous->id) || previous->id == ARM_INS_LDRD) return 0;
    std::uint16_t late = is_multiply_long(previous->id) && previous->first_register >= 0 ? long_multiply_high(*previous) : previous->writes;
    return (late & address_regs) ? 1 : 0;
}

// Measured on an STM32F100 (mull_div_dependencies): an MLA right behind SMULL or UMULL takes 1
// cycle less when it accumulates the multiply's RdHi, written in the multiply's last cycle, and
// does not multiply it (smull r7, r6, r5, r4; mla fp, sl, r9, r6 measures 1 less than with r8 for
// the r6, or with r6 also a multiplicand). Not an MLS, nor behind SMLAL or UMLAL.
unsigned TimingModel::accumulates_long_result(const Instruction& insn, const Instruction* previous) const {
    if (!previous || (previous->id != ARM_INS_SMULL && previous->id != ARM_INS_UMULL) || insn.id != ARM_INS_MLA || insn.accumulator < 0) return 0;
    std::uint16_t high = long_multiply_high(*previous);
    return ((high >> insn.accumulator) & 1u) && !(insn.multiplicands & high) ? 1 : 0;
}

// Cortex-M3 TRM "Instruction set summary" and "Load/store timings"; Cortex-M4 TRM "Processor
// instructions" for the single-cycle MAC and DSP instructions.
unsigned TimingModel::v7m(const Instruction& insn, const Instruction* previous) const {
    unsigned id = insn.id;
    bool m4 = core_ != CoreKind::CortexM3;
    auto address_stall = [&] { return this->address_stall(insn, previous); };
    if (is_load_single(id)) {
        if (insn.writes & kPc) return 3 + pc_load_refill(insn);  // LDR pc: 3 load cycles (ldr_pc: LSU 2), then the refill
        // Back-to-back loads pipeline: a load after a load costs one cycle unless its address
        // needs the previous load's result.
        return (pipelined_load(insn, previous) ? 1 : 2) + address_stall();
    }
    if (is_store_single(id)) {
        // STR with an immediate offset completes in one cycle through the write buffer; a
        // register offset costs two unless it pipelines behind a load.
        unsigned base = insn.memory.index >= 0 && !pipelined_load(insn, previous) ? 2 : 1;
        return base + address_stall();
    }
    switch (id) {
        case ARM_INS_LDRD:
        case ARM_INS_STRD: return 3 + address_stall();  // 1 + N, N = 2; never pipelined
        case ARM_INS_TBB:
        case ARM_INS_TBH: return 2 + 1 + pc_load_refill(insn);  // load, add, pipeline reload
        default: break;
    }
    // LDM/POP {.., pc}: the pc is its last transfer and pays what LDR pc pays after its data phase,
    // a load cycle and then the refill (ldr_pc), as the pipeline components give.
    if (is_multiple(id)) return 1 + registers_in_list(insn) + ((insn.writes & kPc) ? 1 : 0) + pc_load_refill(insn) + address_stall();
    if (is_branch(id)) {
        if (decode::is_conditional_branch(insn)) return 1;  // +P if taken
        return 1 + refill_;                                 // instruction() takes off a refill cycle its early target fetch hides
    }
    switch (id) {
        case ARM_INS_IT: return folded(insn, previous) ? 0 : 1;
        case ARM_INS_SDIV:
        case ARM_INS_UDIV: return kDivideMinimum;  // the rest is added by operand value
        case ARM_INS_MLA:
        case ARM_INS_MLS: return m4 ? 1 : 2 - accumulates_long_result(insn, previous);
        case ARM_INS_UMULL:
        case ARM_INS_SMULL:
        case ARM_INS_UMLAL:
        case ARM_INS_SMLAL: return m4 ? 1 : kMultiplyLongMinimum;  // M3: the rest by operand value
        case ARM_INS_ISB: return 1 + refill_;
        case ARM_INS_DMB:
        case ARM_INS_DSB: return 1;  // 1 + B, B at least 0
        case ARM_INS_MRS:
        case ARM_INS_MSR: return 1;
        default: break;
    }
    // Measured on an STM32F100 (add_pc): ADD pc, Rm takes 1 + P + 1, its target coming from the
    // adder a cycle after a register read would have it (MOV pc, r8 takes 1 + P: bl_blx_bx_mov_pc_lr).
    if (insn.writes_pc) return id == ARM_INS_ADD ? 2 + refill_ : 1 + refill_;
    return 1;  // data processing, MUL, bit field, saturate, DSP SIMD, IT, NOP, CPS
}

// Cortex-M4 TRM "FPU instruction set" (cortex-m4f).
unsigned TimingModel::fpu(const Instruction& insn) const {
    switch (class_of_id(insn.id)) {
        case InstructionClass::FloatingDivide: return 14;  // VDIV, VSQRT
        case InstructionClass::FloatingMultiplyAdd: return 3;
        case InstructionClass::FloatingLoad: return 2;  // VLDR, VSTR
        case InstructionClass::FloatingMultiple: return 1 + insn.memory.bytes / 4;
        default: return 1;  // VADD, VSUB, VMUL, VNEG, VABS, VCMP, VCVT, VMOV, VMRS
    }
}

}  // namespace emutrace::models
