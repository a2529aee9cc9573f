#include "models/instruction_class.h"

#include <capstone/arm.h>

#include <bit>

namespace emutrace::models {
namespace {

using decode::Instruction;
using decode::MemoryAccess;

constexpr std::uint16_t kPc = 1u << 15;
constexpr std::uint16_t kLr = 1u << 14;

}  // namespace

InstructionClass class_of_id(unsigned id) {
    switch (id) {
        case ARM_INS_LDR:
        case ARM_INS_LDRB:
        case ARM_INS_LDRH:
        case ARM_INS_LDRSB:
        case ARM_INS_LDRSH:
        case ARM_INS_LDRT:
        case ARM_INS_LDRBT:
        case ARM_INS_LDRHT:
        case ARM_INS_LDRSBT:
        case ARM_INS_LDRSHT:
        case ARM_INS_LDREX:
        case ARM_INS_LDREXB:
        case ARM_INS_LDREXH: return InstructionClass::Load;
        case ARM_INS_STR:
        case ARM_INS_STRB:
        case ARM_INS_STRH:
        case ARM_INS_STRT:
        case ARM_INS_STRBT:
        case ARM_INS_STRHT:
        case ARM_INS_STREX:
        case ARM_INS_STREXB:
        case ARM_INS_STREXH: return InstructionClass::Store;
        case ARM_INS_LDRD: return InstructionClass::LoadDual;
        case ARM_INS_STRD: return InstructionClass::StoreDual;
        case ARM_INS_LDM:
        case ARM_INS_LDMDB:
        case ARM_INS_POP: return InstructionClass::LoadMultiple;
        case ARM_INS_STM:
        case ARM_INS_STMDB:
        case ARM_INS_PUSH: return InstructionClass::StoreMultiple;
        case ARM_INS_TBB:
        case ARM_INS_TBH: return InstructionClass::TableBranch;
        case ARM_INS_BL: return InstructionClass::Branch;
        case ARM_INS_CBZ:
        case ARM_INS_CBNZ: return InstructionClass::CompareBranch;
        case ARM_INS_IT: return InstructionClass::It;
        case ARM_INS_ISB: return InstructionClass::InstructionBarrier;
        case ARM_INS_DMB:
        case ARM_INS_DSB: return InstructionClass::Barrier;
        case ARM_INS_MRS:
        case ARM_INS_MSR:
        case ARM_INS_CPS: return InstructionClass::StatusRegister;
        case ARM_INS_WFI:
        case ARM_INS_WFE: return InstructionClass::Sleep;
        case ARM_INS_NOP:
        case ARM_INS_YIELD:
        case ARM_INS_SEV:
        case ARM_INS_HINT: return InstructionClass::Nop;
        case ARM_INS_MLA:
        case ARM_INS_MLS: return InstructionClass::MultiplyAccumulate;
        case ARM_INS_SMULL:
        case ARM_INS_UMULL: return InstructionClass::MultiplyLong;
        case ARM_INS_SMLAL:
        case ARM_INS_UMLAL: return InstructionClass::MultiplyAccumulateLong;
        case ARM_INS_SDIV:
        case ARM_INS_UDIV: return InstructionClass::Divide;
        case ARM_INS_VDIV:
        case ARM_INS_VSQRT: return InstructionClass::FloatingDivide;
        case ARM_INS_VMLA:
        case ARM_INS_VMLS:
        case ARM_INS_VNMLA:
        case ARM_INS_VNMLS:
        case ARM_INS_VFMA:
        case ARM_INS_VFMS:
        case ARM_INS_VFNMA:
        case ARM_INS_VFNMS: return InstructionClass::FloatingMultiplyAdd;
        case ARM_INS_VLDR:
        case ARM_INS_VSTR: return InstructionClass::FloatingLoad;
        case ARM_INS_VPUSH:
        case ARM_INS_VPOP:
        case ARM_INS_VLDMIA:
        case ARM_INS_VSTMIA:
        case ARM_INS_VLDMDB:
        case ARM_INS_VSTMDB: return InstructionClass::FloatingMultiple;
        default: return InstructionClass::DataProcessing;
    }
}

namespace {

InstructionClass class_of(const Instruction& insn) {
    switch (insn.id) {
        case ARM_INS_B: return decode::is_conditional_branch(insn) ? InstructionClass::ConditionalBranch : InstructionClass::Branch;
        case ARM_INS_BX:
        case ARM_INS_BLX: return insn.target ? InstructionClass::Branch : InstructionClass::RegisterBranch;
        default: break;
    }
    if (InstructionClass c = class_of_id(insn.id); c != InstructionClass::DataProcessing) return c;
    if (insn.isa & (decode::IsaFpSingle | decode::IsaFpDouble)) return InstructionClass::FloatingPoint;
    if (insn.writes_pc) return InstructionClass::RegisterBranch;  // MOV pc, ADD pc
    return InstructionClass::DataProcessing;
}

bool is_store_id(unsigned id) {
    switch (id) {
        case ARM_INS_VSTR:
        case ARM_INS_VSTMIA:
        case ARM_INS_VSTMDB:
        case ARM_INS_VPUSH: return true;
        default: return false;
    }
}

}  // namespace

bool ClassifiedInstruction::is_branch() const {
    switch (kind) {
        case InstructionClass::Branch:
        case InstructionClass::ConditionalBranch:
        case InstructionClass::CompareBranch:
        case InstructionClass::RegisterBranch:
        case InstructionClass::TableBranch: return true;
        default: return writes_pc;
    }
}

std::uint16_t ClassifiedInstruction::address_registers() const {
    std::uint16_t regs = 0;
    if (base >= 0 && base < 15) regs |= static_cast<std::uint16_t>(1u << base);
    if (index >= 0) regs |= static_cast<std::uint16_t>(1u << index);
    return regs;
}

ClassifiedInstruction classify(const Instruction& insn) {
    ClassifiedInstruction c;
    c.address = insn.address;
    c.size = insn.size;
    c.kind = class_of(insn);
    c.writes_pc = insn.writes_pc;
    c.conditional = insn.conditional;
    c.sets_flags = insn.sets_flags;
    c.reads = insn.reads;
    c.writes = insn.writes;
    c.target = insn.target;
    c.accumulator = insn.accumulator;
    c.multiplicands = insn.multiplicands;
    c.it_length = static_cast<std::uint8_t>(decode::it_block_length(insn));
    c.subtracts = insn.id == ARM_INS_MLS;
    c.late_branch = c.kind == InstructionClass::RegisterBranch && insn.id == ARM_INS_ADD;
    c.register_offset = insn.memory.mode == MemoryAccess::Mode::Offset && insn.memory.index >= 0;
    c.reads_lr_target = c.kind == InstructionClass::RegisterBranch && (insn.reads & kLr) && !(insn.reads & ~(kLr | kPc) & 0x1FFF);
    if (insn.memory.mode != MemoryAccess::Mode::None) {
        c.base = insn.memory.base;
        c.index = insn.memory.index;
        c.transfers = static_cast<std::uint8_t>(std::max(1, (insn.memory.bytes + 3) / 4));
        c.bytes = insn.memory.bytes;
        switch (c.kind) {
            case InstructionClass::Store:
            case InstructionClass::StoreDual:
            case InstructionClass::StoreMultiple: c.store = true; break;
            case InstructionClass::FloatingLoad:
            case InstructionClass::FloatingMultiple: c.store = is_store_id(insn.id); break;
            default: break;
        }
        bool base_written = insn.memory.base >= 0 && insn.memory.base < 15 && ((insn.writes >> insn.memory.base) & 1u);
        if (insn.memory.mode == MemoryAccess::Mode::Offset)
            c.writeback = base_written && insn.memory.base != insn.first_register &&
                          !(c.kind == InstructionClass::LoadDual && insn.memory.base == insn.first_register + 1);
        else
            c.writeback = base_written && static_cast<unsigned>(std::popcount(insn.writes)) > c.transfers;
        if (!c.store) {
            c.loaded = static_cast<std::uint16_t>(insn.writes & ~(c.writeback ? 1u << insn.memory.base : 0u));
            if (c.loaded) c.last_loaded = static_cast<std::int8_t>(15 - std::countl_zero(c.loaded));
        }
    }
    if ((c.kind == InstructionClass::MultiplyLong || c.kind == InstructionClass::MultiplyAccumulateLong) && insn.first_register >= 0)
        c.late_write = static_cast<std::uint16_t>(insn.writes & ~(1u << insn.first_register));
    return c;
}

}  // namespace emutrace::models
