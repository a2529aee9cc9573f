#pragma once
// Decodes ARM code with Capstone: M-profile Thumb for the emulator (when a block is first seen,
// never per executed instruction, and for fault reports), and A/R-profile ARM and Thumb for the
// program structure of images that run on application cores.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "emutrace/event.h"

namespace emutrace::decode {

/// Architecture features an instruction needs beyond ARMv6-M (bit mask).
enum IsaFeature : std::uint8_t {
    IsaThumb2 = 1u << 0,    ///< a Thumb-2 (ARMv7-M) instruction: 32-bit encodings, IT, CBZ
    IsaDivide = 1u << 1,    ///< SDIV/UDIV
    IsaDsp = 1u << 2,       ///< ARMv7E-M DSP extension (SIMD, saturating, SMLAxy, ...)
    IsaFpSingle = 1u << 3,  ///< single-precision FPU (FPv4-SP)
    IsaFpDouble = 1u << 4,  ///< double-precision FPU, on no core emutrace models
};

/// The data memory an instruction touches, as a function of its registers before it executes.
struct MemoryAccess {
    enum class Mode : std::uint8_t {
        None,             ///< no data access
        Offset,           ///< [base + index<<shift + disp], also pre/post-indexed and literals
        IncrementAfter,   ///< LDM/STM/POP: [base, base + bytes)
        DecrementBefore,  ///< STMDB/LDMDB/PUSH: [base - bytes, base)
    };
    Mode mode = Mode::None;
    std::int8_t base = -1;   ///< r0-r15 (r15 reads as Align(pc + 4, 4), as literal loads use it)
    std::int8_t index = -1;  ///< index register or -1
    bool subtract = false;   ///< index is subtracted
    std::uint8_t shift = 0;  ///< left shift of the index
    std::int32_t disp = 0;
    std::uint8_t bytes = 4;  ///< bytes accessed
};

struct Instruction {
    std::uint32_t address = 0;
    std::uint8_t size = 0;            ///< 2 or 4 bytes (always 4 in the ARM instruction set)
    std::uint8_t isa = 0;             ///< IsaFeature bits
    unsigned id = 0;                  ///< Capstone instruction id (ARM_INS_*)
    std::string text;                 ///< "ldr r0, [r2]"
    MemoryAccess memory{};            ///< the data access, if any
    bool is_jump = false;             ///< a branch: ends a translated block
    std::uint32_t target = 0;         ///< a direct branch's destination (B, BL, CBZ), else 0
    bool conditional = false;         ///< has a condition other than AL (B<cc>, or inside an IT block)
    bool writes_pc = false;           ///< changes the pc: branches, POP/LDM with pc, LDR pc, MOV/ADD pc
    bool sets_flags = false;          ///< writes the condition flags (an S suffix, CMP/CMN/TST/TEQ, MSR APSR)
    std::uint16_t writes = 0;         ///< mask of r0-r15 written
    std::uint16_t reads = 0;          ///< mask of r0-r15 read
    std::int8_t first_register = -1;  ///< the first operand's register (Rd; RdLo of a long multiply), or -1
    std::int8_t accumulator = -1;     ///< Ra of MLA/MLS, or -1
    std::uint16_t multiplicands = 0;  ///< mask of Rn and Rm of MLA/MLS
    /// Writes SP a value that may not be word-aligned: from another register, a load, an MSR, or
    /// SP plus an immediate that is not a multiple of 4 (not PUSH, POP, LDM/STM, `sub sp, #8`).
    /// ARMv7-M keeps SP's bits [1:0] at zero; Unicorn 2.0.1 keeps what was written.
    bool may_misalign_sp = false;
};

/// How an instruction leaves its block when it executes, for call tracing. A conditional one (in
/// an IT block, or B<cc>) may also fall through: Instruction::conditional says so.
enum class ControlFlow : std::uint8_t {
    None,    ///< falls through or branches within the function
    Call,    ///< BL, BLX
    Return,  ///< BX LR, MOV pc,lr, or a load of pc (POP/LDM/LDR pc)
    Jump,    ///< B, B<cc> or BX to another register: a tail call when it reaches a function start
};
ControlFlow control_flow(const Instruction& insn);
/// B<cc> or CBZ/CBNZ: a branch that may or may not be taken.
bool is_conditional_branch(const Instruction& insn);
/// How many instructions an IT instruction makes conditional (1-4); 0 for any other instruction.
unsigned it_block_length(const Instruction& insn);

/// The PFT 1.1 waypoint class of an instruction, as a PTM traces it and OpenCSD decodes it.
trace::BlockEnd waypoint(const Instruction& insn);

/// The first address `access` touches, given the instruction's address and a register reader.
template <typename ReadRegister>
std::uint32_t effective_address(const MemoryAccess& access, std::uint32_t insn_address, ReadRegister&& reg) {
    std::uint32_t base = access.base == 15 ? ((insn_address + 4) & ~3u) : reg(access.base);
    switch (access.mode) {
        case MemoryAccess::Mode::Offset: {
            std::uint32_t index = access.index >= 0 ? reg(access.index) << access.shift : 0;
            return base + static_cast<std::uint32_t>(access.disp) + (access.subtract ? 0u - index : index);
        }
        case MemoryAccess::Mode::IncrementAfter: return base;
        case MemoryAccess::Mode::DecrementBefore: return base - access.bytes;
        case MemoryAccess::Mode::None: break;
    }
    return 0;
}

/// The instruction set a decoder reads.
enum class InstructionSet : std::uint8_t {
    ThumbM,  ///< Thumb on an M-profile core (Cortex-M)
    Thumb,   ///< Thumb-2 on an A/R-profile core
    Arm,     ///< the 32-bit ARM instruction set (A32)
};
std::string to_string(InstructionSet set);

/// Capstone behind the project's Instruction. Like Capstone's handle it holds, a decoder is used
/// by one thread at a time.
class InstructionDecoder {
public:
    explicit InstructionDecoder(InstructionSet set = InstructionSet::ThumbM);
    InstructionSet instruction_set() const { return set_; }
    ~InstructionDecoder();
    InstructionDecoder(const InstructionDecoder&) = delete;
    InstructionDecoder& operator=(const InstructionDecoder&) = delete;

    /// Decodes as many instructions of `code` (placed at `address`) as are valid, in order.
    std::vector<Instruction> decode(std::span<const std::uint8_t> code, std::uint32_t address) const;
    /// One instruction, or an Instruction with size 0 and text "(undecodable)". Allocates nothing
    /// in Capstone (a CFG decodes every instruction of a firmware so).
    Instruction decode_one(std::span<const std::uint8_t> code, std::uint32_t address) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    InstructionSet set_;
};

/// Bytes of the Thumb instruction whose first halfword is `hw1`: 4 for 32-bit encodings.
constexpr unsigned thumb_instruction_size(std::uint16_t hw1) {
    return ((hw1 >> 11) == 0x1D || (hw1 >> 11) == 0x1E || (hw1 >> 11) == 0x1F) ? 4 : 2;
}

/// Thumb instructions in `code` by their encodings alone (IT-skipped ones included).
inline std::uint32_t thumb_instruction_count(std::span<const std::uint8_t> code) {
    std::uint32_t n = 0;
    for (std::size_t off = 0; off + 1 < code.size(); ++n) off += thumb_instruction_size(static_cast<std::uint16_t>(code[off] | code[off + 1] << 8));
    return n;
}

}  // namespace emutrace::decode
