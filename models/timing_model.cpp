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

unsigned registers_in_list(const Instruction& insn) {
    return insn.memory.bytes / 4;
}

// A single load or store with pre- or post-indexed writeback: it writes its base too.
bool writes_back(const Instruction& insn) {
    if (insn.memory.base < 0 || insn.memory.base > 14 || insn.memory.mode != MemoryAccess::Mode::Offset) return false;
    return (insn.writes >> insn.memory.base) & 1u && insn.memory.base != insn.first_register;
}

// The registers a load or store computes its address from (not the pc).
std::uint16_t address_registers(const Instruction& insn) {
    std::uint16_t regs = 0;
    if (insn.memory.base >= 0 && insn.memory.base < 15) regs |= static_cast<std::uint16_t>(1u << insn.memory.base);
    if (insn.memory.index >= 0 && insn.memory.index < 15) regs |= static_cast<std::uint16_t>(1u << insn.memory.index);
    return regs;
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

// The divider's behaviour, used by both cycle models (the pipeline through models/feed/pipeline_feed):
// the TRMs give SDIV/UDIV only as "2-12 cycles"; how many was measured on an STM32F100
// (docs/silicon.md, sdiv_udiv_timing: all 9,512 operand pairs). A zero dividend or divisor ends in
// 2 cycles; a dividend with fewer significant bits than the divisor in
// 3; otherwise 5 plus one per 4 bits the dividend is longer than the divisor (up to 12). SDIV
// measures the dividend's magnitude but a negative divisor's one's complement (~d, not -d).
// The magnitude of INT_MIN does not fit 31 bits: against a negative divisor the divider counts
// it as 0x7FFFFFFF, a bit shorter (measured on the CC2652, sdiv_powers_of_two: 3,134 operand
// pairs; against a positive divisor it counts all 32 bits).
unsigned TimingModel::divide(std::uint32_t dividend, std::uint32_t divisor, bool is_signed) const {
    if (divisor == 0 || dividend == 0) return kDivideMinimum;
    if (is_signed) {
        const bool negative_divisor = static_cast<std::int32_t>(divisor) < 0;
        if (static_cast<std::int32_t>(dividend) < 0) dividend = dividend == 0x80000000u && negative_divisor ? 0x7FFFFFFFu : 0u - dividend;
        if (negative_divisor) divisor = ~divisor;
    }
    int longer = std::countl_zero(divisor) - std::countl_zero(dividend);
    if (longer < 0) return kDivideMinimum + 1;
    return kDivideMinimum + 3 + static_cast<unsigned>(longer) / 4;
}

// The Cortex-M3's iterative long multiplier, used by both cycle models (the pipeline through
// models/feed/pipeline_feed): the TRM gives "3-5" (SMULL/UMULL) and "4-7" (SMLAL/UMLAL) with early
// termination by operand size; how many was measured on an STM32F100 (docs/silicon.md,
// smull_umull_regression and smull_umull_smlal_umlal_dependencies), with CMEmu's rule for the
// cases those tests leave open: the multiplier skips 16-bit halves of Rn and Rm that are zero. Each operand is L (bits 15:0 only
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

// T1 encodings (ARMv7-M ARM A7.7): first halfword 1111 1011 1ooo nnnn; SDIV/UDIV o = 001/011,
// SMULL/UMULL o = 000/010, SMLAL/UMLAL o = 100/110.
TimingModel::OperandTiming TimingModel::operand_timing(std::uint16_t first_halfword) {
    if ((first_halfword & 0xFF80u) != 0xFB80u) return {};
    unsigned o = (first_halfword >> 4) & 7;
    OperandOp op = o == 1 || o == 3 ? OperandOp::Divide : o < 4 ? OperandOp::MultiplyLong : OperandOp::MultiplyAccumulateLong;
    return {op, o == 0 || o == 1 || o == 4};
}

unsigned TimingModel::operand_extra(OperandTiming what, std::uint32_t rn, std::uint32_t rm) const {
    switch (what.op) {
        case OperandOp::None: return 0;
        case OperandOp::Divide: return divide(rn, rm, what.is_signed) - kDivideMinimum;
        case OperandOp::MultiplyLong:
        case OperandOp::MultiplyAccumulateLong:
            return multiply_long(rn, rm, what.is_signed, what.op == OperandOp::MultiplyAccumulateLong) - kMultiplyLongMinimum;
    }
    return 0;
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

// The pipeline reload after a load of the pc, counted as CPI cycles. Cortex-M3 TRM "Load/store
// timings": LDR pc and TBB/TBH pay three cycles for it; LDM/POP {.., pc} the table's P.
unsigned TimingModel::pc_load_refill(const Instruction& insn) const {
    if (insn.id == ARM_INS_TBB || insn.id == ARM_INS_TBH) return 3;
    if (!(insn.writes & kPc)) return 0;
    return is_load_single(insn.id) ? 3 : refill_;
}

unsigned TimingModel::lsu_cycles(const Instruction& insn, unsigned cycles, const Instruction* previous) const {
    if (insn.memory.mode == MemoryAccess::Mode::None || cycles == 0) return 0;
    unsigned not_lsu = pc_load_refill(insn) + address_stall(insn, previous);
    return cycles - 1 - std::min(cycles - 1, not_lsu);
}

// Cortex-M3 TRM instruction set summary, IT: it can be folded onto a preceding 16-bit Thumb
// instruction and then takes no cycle (the DWT counts it in FOLDCNT). Not behind a branch, after
// which the IT is a refill's first instruction.
bool TimingModel::folded(const Instruction& insn, const Instruction* previous) const {
    if (core_ == CoreKind::CortexM0 || insn.id != ARM_INS_IT || insn.size != 2 || !previous) return false;
    return previous->size == 2 && !previous->writes_pc;
}

// Cortex-M3 TRM "Load/store timings": "LDR [any] are pipelined when possible": a load or store
// right behind a load takes one cycle less unless the first load's destination computes its
// address (LDR R0,[R1]; LDR R1,[R2] and LDR R0,[R1,R2]; STR R1,[R3,R2]: three cycles each). A
// load with base update "is not normally pipelined", nor is a load of the pc.
bool TimingModel::pipelined_load(const Instruction& insn, const Instruction* previous) const {
    if (core_ == CoreKind::CortexM0 || !previous || !is_load_single(previous->id) || (previous->writes & kPc)) return false;
    if (previous->writes & address_registers(insn)) return false;
    if (is_store_single(insn.id)) return insn.memory.index >= 0;  // an immediate-offset store takes one cycle anyway
    return is_load_single(insn.id) && !(insn.writes & kPc) && !writes_back(insn);
}

// Cortex-M3 TRM "Load/store timings": a load with base update is at least two cycles, "however,
// if the next instruction does not require to read from a register, the load is reduced to one
// cycle. Non register writing instructions include CMP, TST, NOP": the next writes no register.
bool TimingModel::overlaps_load(const Instruction& insn, const Instruction* previous) const {
    if (core_ == CoreKind::CortexM0 || !previous || !is_load_single(previous->id) || (previous->writes & kPc) || !writes_back(*previous))
        return false;
    return insn.writes == 0 && !insn.writes_pc;
}

BlockTiming TimingModel::block(std::span<const Instruction> insns) const {
    BlockTiming t;
    const Instruction* previous = nullptr;
    unsigned previous_cost = 0;
    for (const auto& insn : insns) {
        unsigned cost = instruction(insn, previous);
        if (previous_cost > 1 && overlaps_load(insn, previous)) --t.cycles;  // the load before takes 1 less
        t.cycles += cost;
        previous_cost = cost;
        previous = &insn;
    }
    if (!insns.empty()) t.taken_extra = taken_extra(insns.back());
    return t;
}

unsigned TimingModel::instruction(const Instruction& insn, const Instruction* previous) const {
    if (insn.isa & (decode::IsaFpSingle | decode::IsaFpDouble)) return fpu(insn);
    if (core_ == CoreKind::CortexM0) return v6m(insn);
    return v7m(insn, previous);
}

int TimingModel::taken_extra(const Instruction& last) const {
    return decode::is_conditional_branch(last) ? static_cast<int>(refill_) : 0;
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

// Cortex-M3 TRM "Load/store timings": "Any load or store that generates an address dependent on
// the result of a preceding data processing operation will stall the pipeline for an additional
// cycle whilst the register bank is updated. There is no forwarding path for this scenario."
// Behind a load the dependency instead keeps the two from pipelining (pipelined_load()). The
// Cortex-M0 TRM gives a load or store 2 cycles whatever precedes it.
unsigned TimingModel::address_stall(const Instruction& insn, const Instruction* previous) const {
    if (core_ == CoreKind::CortexM0) return 0;
    if (insn.memory.mode == MemoryAccess::Mode::None || !previous || previous->memory.mode != MemoryAccess::Mode::None) return 0;
    if (previous->writes_pc) return 0;
    return (previous->writes & address_registers(insn)) ? 1 : 0;
}

// Cortex-M3 TRM "Instruction set summary" and "Load/store timings"; Cortex-M4 TRM "Processor
// instructions" for the single-cycle MAC and DSP instructions.
unsigned TimingModel::v7m(const Instruction& insn, const Instruction* previous) const {
    unsigned id = insn.id;
    bool m4 = core_ != CoreKind::CortexM3;
    unsigned stall = address_stall(insn, previous);
    if (is_load_single(id)) {
        if (insn.writes & kPc) return 2 + pc_load_refill(insn);  // LDR pc: 2 for the load, 3 for the reload
        return (pipelined_load(insn, previous) ? 1 : 2) + stall;
    }
    if (is_store_single(id)) {
        // STR with an immediate offset is always one cycle (the store completes while the next
        // instruction executes); a register offset costs two unless it pipelines behind a load.
        unsigned base = insn.memory.index >= 0 && !pipelined_load(insn, previous) ? 2 : 1;
        return base + stall;
    }
    switch (id) {
        case ARM_INS_LDRD:
        case ARM_INS_STRD: return 3 + stall;  // 1 + N, N = 2; never pipelined
        case ARM_INS_TBB:
        case ARM_INS_TBH: return 2 + 1 + pc_load_refill(insn);  // load, add, pipeline reload
        default: break;
    }
    // LDM/STM/PUSH/POP: 1 + N, and + P when the pc is loaded.
    if (is_multiple(id)) return 1 + registers_in_list(insn) + pc_load_refill(insn) + stall;
    if (is_branch(id)) {
        if (decode::is_conditional_branch(insn)) return 1;  // +P if taken
        return 1 + refill_;
    }
    switch (id) {
        case ARM_INS_IT: return folded(insn, previous) ? 0 : 1;
        case ARM_INS_SDIV:
        case ARM_INS_UDIV: return kDivideMinimum;  // the rest is added by operand value
        case ARM_INS_MLA:
        case ARM_INS_MLS: return m4 ? 1 : 2;
        case ARM_INS_UMULL:
        case ARM_INS_SMULL:
        case ARM_INS_UMLAL:
        case ARM_INS_SMLAL: return m4 ? 1 : kMultiplyLongMinimum;  // M3: the rest by operand value
        case ARM_INS_ISB: return 1 + refill_;                      // 1 + B, B at least a refill
        case ARM_INS_DMB:
        case ARM_INS_DSB: return 1;  // 1 + B, B at least 0
        case ARM_INS_MRS:
        case ARM_INS_MSR: return 1;
        default: break;
    }
    if (insn.writes_pc) return 1 + refill_;  // MOV pc, ADD pc: 1 + P
    return 1;                                // data processing, MUL, bit field, saturate, DSP SIMD, NOP, CPS
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
