#pragma once
// The project's own classes of instructions, as the pipeline sees them: what each occupies
// (execute cycles, bus transfers) and which registers it needs when. Capstone's instruction ids
// are read here once, when a block is first decoded; the timing components switch on these
// classes only.

#include <cstdint>

#include "decode/instruction_decoder.h"

namespace emutrace::models {

enum class InstructionClass : std::uint8_t {
    DataProcessing,          ///< ALU, shifts, moves, extends, bit fields, saturation, DSP SIMD, MUL
    MultiplyAccumulate,      ///< MLA, MLS
    MultiplyLong,            ///< SMULL, UMULL
    MultiplyAccumulateLong,  ///< SMLAL, UMLAL
    Divide,                  ///< SDIV, UDIV
    Load,                    ///< LDR/LDRB/LDRH/LDRSB/LDRSH/LDREX/LDRT... (one transfer)
    Store,                   ///< STR/STRB/STRH/STREX/STRT... (one transfer)
    LoadDual,                ///< LDRD
    StoreDual,               ///< STRD
    LoadMultiple,            ///< LDM, LDMDB, POP
    StoreMultiple,           ///< STM, STMDB, PUSH
    TableBranch,             ///< TBB, TBH: a load, then a branch
    Branch,                  ///< B (unconditional), BL: target in the encoding
    ConditionalBranch,       ///< B<cc>
    CompareBranch,           ///< CBZ, CBNZ
    RegisterBranch,          ///< BX, BLX Rm, MOV pc, ADD pc: target from a register
    It,                      ///< IT
    InstructionBarrier,      ///< ISB: flushes the pipeline
    Barrier,                 ///< DMB, DSB
    StatusRegister,          ///< MRS, MSR, CPS
    Sleep,                   ///< WFI, WFE
    Nop,                     ///< NOP, YIELD, SEV, hints
    FloatingPoint,           ///< FPU data processing
    FloatingDivide,          ///< VDIV, VSQRT
    FloatingMultiplyAdd,     ///< VMLA, VFMA and their kin
    FloatingLoad,            ///< VLDR, VSTR
    FloatingMultiple,        ///< VLDM, VSTM, VPUSH, VPOP
};

/// One instruction as the timing components see it.
struct ClassifiedInstruction {
    std::uint32_t address = 0;
    std::uint8_t size = 2;
    InstructionClass kind = InstructionClass::DataProcessing;
    bool writes_pc = false;
    bool conditional = false;    ///< B<cc>, or inside an IT block
    bool sets_flags = false;     ///< writes the condition flags
    bool writeback = false;      ///< a load/store that writes its base register back
    bool store = false;          ///< its data transfers are writes
    std::uint8_t transfers = 0;  ///< data transfers (words; LDM: one a register)
    std::uint8_t bytes = 0;      ///< bytes a single load/store moves
    std::uint8_t it_length = 0;  ///< an IT: the instructions it makes conditional
    std::int8_t base = -1;       ///< address registers (r15: a literal)
    std::int8_t index = -1;
    std::uint16_t reads = 0, writes = 0;  ///< r0-r15
    std::uint16_t late_write = 0;         ///< registers written in the instruction's last cycle (long multiply RdHi)
    std::int8_t accumulator = -1;         ///< Ra of MLA/MLS
    std::uint16_t multiplicands = 0;      ///< Rn, Rm of MLA/MLS
    std::uint16_t loaded = 0;             ///< registers a load writes with data from memory, in transfer order
    std::int8_t last_loaded = -1;         ///< the register of the last transfer (LDM: highest; LDRD: Rt2)
    std::uint32_t target = 0;             ///< a direct branch's destination
    bool reads_lr_target = false;         ///< a register branch to LR (BX LR, MOV pc, lr)
    bool late_branch = false;             ///< its target comes from the adder a cycle late (ADD pc, Rm)
    bool register_offset = false;         ///< a load/store addressed [Rn, Rm]
    bool subtracts = false;               ///< MLS rather than MLA
    bool memory_access() const { return transfers != 0; }
    bool is_load() const { return transfers && !store; }
    bool is_branch() const;
    /// Whether execute learns only late in a cycle that it is the instruction's last (CMEmu's
    /// instructions that postpone advancing the fetch head): a load or store (the bus answers
    /// then), a table branch, CBZ/CBNZ, MRS/MSR, a divide, and a multiply-accumulate or long
    /// multiply where they take more than one cycle (`multiplies_end_late`: the M3, not the M4's
    /// single-cycle MAC).
    bool ends_late(bool multiplies_end_late) const {
        switch (kind) {
            case InstructionClass::MultiplyAccumulate:
            case InstructionClass::MultiplyLong:
            case InstructionClass::MultiplyAccumulateLong: return multiplies_end_late;
            case InstructionClass::Divide:
            case InstructionClass::FloatingDivide:
            case InstructionClass::CompareBranch:
            case InstructionClass::StatusRegister: return true;
            default: return memory_access();
        }
    }
    std::uint16_t address_registers() const;
};

ClassifiedInstruction classify(const decode::Instruction& insn);
/// The class of a Capstone instruction id where the id alone decides it (loads, stores, multiples,
/// multiplies, divides, barriers...), else DataProcessing: for the per-block model's tables.
InstructionClass class_of_id(unsigned capstone_id);

}  // namespace emutrace::models
