#pragma once
// Instruction timing of the modelled cores, from the ARM Technical Reference Manuals: the
// Cortex-M0 TRM's instruction summary, the Cortex-M3 TRM's instruction set summary and its
// load/store timing rules, the Cortex-M4 TRM's processor instructions (DSP, FPU). A block's cost
// is computed once from its decoded instructions; only the outcome of its final conditional
// branch and the operands of divides (and, on the Cortex-M3, long multiplies) are settled at run
// time. This is the per-block model (--timing trm): the TRM tables and nothing fitted to a part.
// What a particular chip does beyond them (fetch timing, speculation, bus contention) is the
// pipeline model's (models/pipeline).

#include <cstdint>
#include <span>

#include "decode/instruction_decoder.h"
#include "models/core.h"

namespace emutrace::models {

/// What a block costs, computed once when it is first seen.
struct BlockTiming {
    std::uint32_t cycles = 0;      ///< every instruction, the final branch as not taken (unconditional: taken)
    std::int32_t taken_extra = 0;  ///< added when the final conditional branch turns out taken
};

class TimingModel {
public:
    explicit TimingModel(CoreKind core);

    /// The block's cost at zero wait states (the memory map's are added by the caller).
    BlockTiming block(std::span<const decode::Instruction> insns) const;
    /// One instruction's cycles after `previous` (nullptr at the block's start): the TRM figure
    /// plus the TRM's load/store pipelining and address-dependency rules; a conditional branch
    /// counted as not taken.
    unsigned instruction(const decode::Instruction& insn, const decode::Instruction* previous) const;
    /// Of `insn`'s `cycles`, those the DWT counts as load/store cycles (LSUCNT): a load or store's
    /// beyond its first, less a pc load's pipeline reload and a wait for the address register
    /// (`previous` wrote it). The other extra cycles are CPI cycles.
    unsigned lsu_cycles(const decode::Instruction& insn, unsigned cycles, const decode::Instruction* previous = nullptr) const;
    /// Whether `insn` is an IT folded onto the 16-bit instruction before it: it takes no cycle and
    /// the DWT counts it in FOLDCNT.
    bool folded(const decode::Instruction& insn, const decode::Instruction* previous) const;
    /// Whether load (or register-offset store) `insn` pipelines behind the load before it (its
    /// address phase in that load's data phase) and so takes one cycle.
    bool pipelined_load(const decode::Instruction& insn, const decode::Instruction* previous) const;
    /// Whether `insn`, which writes no register, runs in the second cycle of `previous`, a load
    /// with base update, which then takes one cycle less if it took two.
    bool overlaps_load(const decode::Instruction& insn, const decode::Instruction* previous) const;
    /// The cycles of an instruction in an IT block whose condition fails: 1, as a NOP.
    static constexpr unsigned skipped() { return 1; }
    /// Extra cycles of a taken conditional branch or CBZ/CBNZ: the pipeline refill P.
    unsigned refill() const { return refill_; }
    /// What a block ending in `last` adds when its final branch is taken: P for a conditional
    /// branch, else 0 (an unconditional branch counts its refill itself).
    int taken_extra(const decode::Instruction& last) const;

    /// SDIV/UDIV take 2 to 12 cycles by how much longer the dividend is than the divisor (the block
    /// counts the minimum).
    unsigned divide(std::uint32_t dividend, std::uint32_t divisor, bool is_signed) const;
    static constexpr unsigned kDivideMinimum = 2;
    /// Whether SMULL/UMULL/SMLAL/UMLAL take longer for larger operands (Cortex-M3: an iterative
    /// multiplier); when true the block counts kMultiplyLongMinimum and multiply_long() the rest.
    bool multiply_long_by_operands() const { return core_ == CoreKind::CortexM3; }
    unsigned multiply_long(std::uint32_t rn, std::uint32_t rm, bool is_signed, bool accumulate) const;
    /// Whether `insn`'s cycles depend on its operands' values: divide(), or multiply_long().
    bool by_operands(const decode::Instruction& insn) const;
    static constexpr unsigned kMultiplyLongMinimum = 3;
    /// What an instruction timed by its operands is, from its encoding's first halfword.
    enum class OperandOp : std::uint8_t { None, Divide, MultiplyLong, MultiplyAccumulateLong };
    struct OperandTiming {
        OperandOp op = OperandOp::None;
        bool is_signed = false;
    };
    static OperandTiming operand_timing(std::uint16_t first_halfword);
    /// The cycles such an instruction takes with operands `rn` and `rm` beyond the minimum its
    /// block counted (kDivideMinimum, kMultiplyLongMinimum).
    unsigned operand_extra(OperandTiming what, std::uint32_t rn, std::uint32_t rm) const;

    unsigned exception_entry() const { return entry_; }    ///< stacking to the first handler instruction
    unsigned exception_return() const { return return_; }  ///< unstacking to the resumed instruction
    unsigned tail_chain() const { return tail_chain_; }    ///< one handler's return straight into the next
    /// An exception entry's cycles: a tail-chain's or a full entry's, and the FP words a cycle
    /// each when the frame stacks them now.
    unsigned entry_cycles(bool tail_chain, bool fp_stacked) const {
        return (tail_chain ? tail_chain_ : entry_) + (fp_stacked ? kFloatingFrameWords : 0);
    }
    /// An exception return's cycles, with the FP words of `fp_frames` extended frames moved (one
    /// unstacked, one preserved lazily since and not charged then).
    unsigned return_cycles(unsigned fp_frames) const { return return_ + fp_frames * kFloatingFrameWords; }
    /// Lazy FP preservation at a handler's first FP instruction: the FP words, a cycle each.
    static constexpr unsigned lazy_preservation_cycles() { return kFloatingFrameWords; }

private:
    unsigned v6m(const decode::Instruction& insn) const;
    unsigned v7m(const decode::Instruction& insn, const decode::Instruction* previous) const;
    unsigned fpu(const decode::Instruction& insn) const;
    unsigned pc_load_refill(const decode::Instruction& insn) const;
    // 1 when load or store `insn` computes its address from a register the data processing
    // instruction before it wrote.
    unsigned address_stall(const decode::Instruction& insn, const decode::Instruction* previous) const;

    CoreKind core_;
    unsigned refill_;
    unsigned entry_, return_, tail_chain_;
};

}  // namespace emutrace::models
