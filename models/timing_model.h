#pragma once
// Instruction timing of the modelled cores, from the ARM Technical Reference Manuals: the
// Cortex-M0 TRM's instruction summary, the Cortex-M3 TRM's instruction set summary and its
// load/store timing rules, the Cortex-M4 TRM's processor instructions (DSP, FPU). A block's cost
// is computed once from its decoded instructions; only the outcome of its final conditional
// branch and the operands of divides are settled at run time.

#include <cstdint>
#include <span>

#include "decode/instruction_decoder.h"
#include "models/core.h"

namespace emutrace::models {

/// What a block costs, computed once when it is first seen.
struct BlockTiming {
    std::uint32_t cycles = 0;      ///< every instruction, the final branch as not taken (unconditional: taken)
    std::int32_t taken_extra = 0;  ///< added when the final conditional branch turns out taken (may be negative)
};

class TimingModel {
public:
    explicit TimingModel(CoreKind core);

    /// The block's cost at zero wait states. `word_fetch` > 0: the code is fetched over the
    /// System bus at that many cycles per 32-bit word (SRAM on an STM32F100: 2).
    BlockTiming block(std::span<const decode::Instruction> insns, unsigned word_fetch = 0) const;
    /// One instruction's cycles after `previous` (nullptr at the block's start): the TRM figure
    /// plus pipelining and address-dependency effects; a conditional branch counted as not taken.
    /// `before` is the instruction before `previous`, where known.
    unsigned instruction(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch = 0,
                         const decode::Instruction* before = nullptr) const;
    /// Whether one-cycle `store` pipelined behind load `before`, so that a load after it need not
    /// wait for its data phase. Silicon shows this only within one memory: the machine adds the
    /// wait back when a device access shows otherwise.
    bool store_pipelined(const decode::Instruction& store, const decode::Instruction* before) const;
    /// 1 when load `insn` waits for the data phase of `previous`, a store (`before` precedes it).
    unsigned waits_for_store(const decode::Instruction& insn, const decode::Instruction* previous, const decode::Instruction* before) const;
    /// Of `insn`'s `cycles`, those the DWT counts as load/store cycles (LSUCNT): a load or store's
    /// beyond its first, less a pc load's refill, a wait for the address register (`previous`
    /// wrote it) and, fetched over the System bus, a wait for its own fetch. The other extra
    /// cycles are CPI cycles.
    unsigned lsu_cycles(const decode::Instruction& insn, unsigned cycles, const decode::Instruction* previous = nullptr,
                        unsigned word_fetch = 0) const;
    /// Whether `insn` is an IT folded into the 16-bit instruction before it: it takes no cycle and
    /// the DWT counts it in FOLDCNT. From SRAM (`word_fetch` > 1) only an IT that shares its word
    /// with the instruction before it counts (it_and_blx_bx_mov_pc_lr), and it saves no cycle.
    bool folded(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch = 0) const;
    /// Whether load (or register-offset store) `insn` overlaps the load before it (its address
    /// phase in that load's data phase) and so takes one cycle. Silicon (STM32F100, ldr_reg and the DWT reads around every
    /// measurement) shows this only when both go to the same memory or device: the machine adds
    /// the cycle back when they do not (see pipeline_break()).
    bool pipelined_load(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch = 0) const;
    /// Whether `insn` runs in the data phase of `previous`, a load (a NOP behind any, a plain store
    /// behind one that writes its base back), which then takes one cycle less if it took two.
    bool overlaps_load(const decode::Instruction& insn, const decode::Instruction* previous) const;
    /// Extra cycles when `first` is reached by a branch rather than by falling through: a 32-bit
    /// instruction at a halfword-aligned target needs a second fetch after the refill; from SRAM
    /// the refill's word takes longer, and a single-cycle 16-bit target there delays the next.
    unsigned branch_target_fetch(const decode::Instruction& first, unsigned word_fetch = 0) const;
    /// 1 when `first`, from SRAM, counts a wait for its second word that a branch's refill
    /// fetches anyway: a branch there takes it back, unless it fetched its target early.
    unsigned refill_covers_straddle(const decode::Instruction& first, unsigned word_fetch) const;
    /// Whether branch `insn`, behind `previous`, has its target's first two words in when it
    /// executes: from flash, a branch with its target at decode right behind a load.
    bool fetches_two_words_early(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch) const;
    /// Whether the first of `insns`, reached by such a branch, saves its wait for its second word
    /// (part of branch_target_fetch()): not when the instruction after it then waits for the
    /// third word instead.
    bool saves_second_word(std::span<const decode::Instruction> insns, unsigned word_fetch) const;
    /// Cycles branch `branch` (behind `previous`), executing `since_refill` cycles after its
    /// block's first word arrived from SRAM, waits for the word the fetch has in flight.
    unsigned refill_waits_for_fetch(const decode::Instruction& branch, const decode::Instruction* previous, unsigned since_refill,
                                    unsigned word_fetch) const;
    /// Whether branch `insn` fetched its target early from SRAM, at decode or behind a
    /// multi-cycle instruction (behind `previous`).
    bool fetches_target_early(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch) const;
    /// Whether a B<cc>'s target fetch, started at decode, takes a fetch cycle from the code it
    /// falls through to (models::speculation_delays()): from flash at zero wait states. From SRAM
    /// instruction() counts the word it holds the System bus for.
    bool speculation_takes_fetch(unsigned word_fetch, unsigned wait_states) const;
    /// A B<cc>: its target fetch starts at decode, taken or not.
    bool speculates(const decode::Instruction& insn) const;
    /// Adds to the `cost` of each store in `insns`, a block fetched over the System bus, the
    /// cycles its data phase waits for the fetch to free the bus.
    void store_bus_waits(std::span<const decode::Instruction> insns, std::span<std::uint32_t> cost, unsigned word_fetch) const;
    /// The cycles of `insn`, in an IT block, when its condition fails.
    unsigned skipped(const decode::Instruction& insn, unsigned word_fetch = 0) const;
    /// Extra cycles of `insn`, a branch in an IT block, when its condition fails: the refetch of
    /// `next`, the instruction after it, when the branch had started fetching its target.
    unsigned skipped_branch_refetch(const decode::Instruction& insn, const decode::Instruction* previous, const decode::Instruction& next,
                                    unsigned word_fetch = 0) const;
    /// Extra cycles of a taken conditional branch or CBZ/CBNZ: the pipeline refill P.
    unsigned refill() const { return refill_; }
    /// What a block ending in `last` adds when its final branch is taken (may be negative): for
    /// CBZ/CBNZ P; for a B<cc>, which fetches its target at decode when the fetch bus is free
    /// (`previous` decides that from SRAM), P - 1, less from SRAM the word the block counted
    /// for that fetch; else 0 (an unconditional branch counts its refill itself).
    int taken_extra(const decode::Instruction& last, const decode::Instruction* previous, unsigned word_fetch = 0) const;

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

    unsigned exception_entry() const { return entry_; }    ///< stacking to the first handler instruction
    unsigned exception_return() const { return return_; }  ///< unstacking to the resumed instruction
    unsigned tail_chain() const { return tail_chain_; }    ///< one handler's return straight into the next

private:
    unsigned v6m(const decode::Instruction& insn) const;
    unsigned v7m(const decode::Instruction& insn, const decode::Instruction* previous) const;
    unsigned system_bus_fetch(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch) const;
    // Of system_bus_fetch(), the wait for `insn`'s own fetch rather than for a data access.
    unsigned fetch_wait(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch) const;
    unsigned fpu(const decode::Instruction& insn) const;
    unsigned pc_load_refill(const decode::Instruction& insn) const;
    // A B decoded while a multi-cycle instruction executes starts its target fetch early.
    bool early_target_fetch(const decode::Instruction& insn, const decode::Instruction* previous, unsigned word_fetch) const;
    // A single-cycle load or store right behind another data access.
    bool data_after_data(const decode::Instruction& insn, const decode::Instruction* previous) const;
    // 1 when `insn` waits for an address register the instruction before it writes.
    unsigned address_stall(const decode::Instruction& insn, const decode::Instruction* previous) const;
    unsigned accumulates_long_result(const decode::Instruction& insn, const decode::Instruction* previous) const;
    // The register `load` writes a cycle too late for the next address, or -1.
    int late_loaded_register(const decode::Instruction& load) const;
    // A B, a BL, or a branch to LR not just written, has its target in decode: one refill cycle less.
    bool target_at_decode(const decode::Instruction& insn, const decode::Instruction* previous) const;
    // Whether a target fetch can start at decode behind `previous`: the fetch bus is free.
    bool decode_fetch(const decode::Instruction* previous, unsigned word_fetch) const;

    CoreKind core_;
    unsigned refill_;
    unsigned entry_, return_, tail_chain_;
};

}  // namespace emutrace::models
