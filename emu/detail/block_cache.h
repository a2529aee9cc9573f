#pragma once
// Static facts about each translated block, computed once when the block is first seen and then
// found by a direct-mapped lookup on every execution (the hot path: no allocation, no hashing).

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "decode/instruction_decoder.h"
#include "decode/symbol_table.h"
#include "emu/detail/unicorn_core.h"
#include "emu/memory_map.h"
#include "models/block_costs.h"
#include "models/core.h"
#include "models/timing_model.h"

namespace emutrace::emu::detail {

struct BlockInfo {
    enum Flag : std::uint16_t {
        SelfLoop = 1,       ///< `b .`
        Unsupported = 2,    ///< holds an instruction the core lacks
        Sleep = 4,          ///< ends with WFI or WFE
        MaskChange = 8,     ///< CPS or MSR: PRIMASK, FAULTMASK or BASEPRI may change
        Split = 16,         ///< a trace point lies inside: its event is delivered as pieces()
        OperandSites = 32,  ///< holds operand_sites() not yet hooked: the machine hooks them, then clears it
        /// Timed by the pipeline model (TimingMode::Pipeline): the block costs nothing here, and
        /// its event is pushed when the next block starts, with the cycles that went by.
        Deferred = 64,
        /// Holds an FPU instruction. While a lazily stacked frame's FP area waits to be written
        /// (FPCCR.LSPACT), the first such block is where the core writes it: the block leaves the
        /// hot path then (MachineState::hot_flags), and only then.
        UsesFpu = 128,
        /// Writes SP a value that may be unaligned (decode::Instruction::may_misalign_sp), its
        /// stack_sites() not hooked yet: the machine hooks them, then clears it.
        StackSites = 256,
        /// Flags the hot path handles itself.
        HotPath = Split | Deferred,
    };
    std::uint32_t address = 1;       ///< odd: matches no Thumb block, so empty slots always miss
    std::uint16_t instructions = 0;  ///< a translated block holds at most 512
    std::uint16_t flags = 0;
    std::uint32_t cycles = 0;       ///< timing model cost incl. fetch wait states; final branch not taken
    std::uint32_t first_piece = 0;  ///< Split: where its parts start in BlockCache::pieces()
    std::uint16_t size = 0;         ///< bytes
    std::int16_t taken_extra = 0;   ///< added when the final conditional branch is taken (may be negative)
    /// trace::BranchKind of the final instruction (Call/Return/Jump), or 0; with kConditionalExit
    /// when it may fail its condition and fall through, which is then no branch at all.
    std::uint8_t exit = 0;
    static constexpr std::uint8_t kConditionalExit = 0x80;
    static constexpr std::uint8_t kIndirectExit = 0x40;  ///< through a register or a load: Event::width 1
    std::uint8_t end = 0;                                ///< trace::BlockEnd: the final instruction as a trace waypoint
    /// Added when entered by a branch, not by falling through: the first instruction's cost
    /// without the predecessor it has when the block only continues one.
    std::int8_t branch_in_extra = 0;
    std::uint16_t lsu = 0;   ///< of `cycles`, load/store cycles beyond each one's first (DWT LSUCNT)
    std::uint16_t fold = 0;  ///< instructions that take no cycle (DWT FOLDCNT)
    /// Where the next block starts when it is reached by falling through: address + size, or 1
    /// (no block) when the final instruction always branches, so that even a branch to the next
    /// instruction is entered as a branch target (silicon: bx to the next instruction refills).
    std::uint32_t sequential = 1;
};
static_assert(sizeof(BlockInfo) == 32, "the direct-mapped cache keeps its slots small");

/// One part of a translated block that holds trace points: the event a sink sees for it.
struct BlockPiece {
    std::uint32_t address = 0, size = 0, instructions = 0;
    std::uint32_t cycles = 0;  ///< this part's share of BlockInfo::cycles; the parts add up to it
    std::uint8_t end = 0;      ///< trace::BlockEnd; Fallthrough but for the last part
};

/// A data access inside a block and how much of the block's counts remain when it happens, so
/// that a device sees the cycle of the access, not of the block's start, and the DWT the counts.
struct BlockAccess {
    std::uint32_t address = 0;  ///< of the instruction
    decode::MemoryAccess access;
    struct Remaining {
        std::uint32_t cycles = 0;        ///< after the access: the instruction's last cycle is its data phase
        std::uint32_t instructions = 0;  ///< after the accessing instruction, and so fold
        std::uint32_t lsu = 0;           ///< and the LSU cycle of a data phase still to come
        std::uint32_t fold = 0;
    } remaining;
};

/// An instruction whose cycles are settled when it runs: by its operands' values (a divide, or on
/// a core with an iterative multiplier a long multiply), by its two encoding halfwords; or, in an
/// IT block, by whether it runs at all (the block counts the 1 cycle of a skipped one, and
/// Unicorn calls a code hook only for an instruction whose condition passes).
struct OperandSiteCode {
    std::uint32_t address = 0;
    std::uint16_t first = 0, second = 0;  ///< 0, 0: not timed by operands
    std::int8_t executed_extra = 0;       ///< cycles it takes beyond the block's count when it runs (may be negative)
    std::uint8_t executed_extra_lsu = 0;  ///< and of those, load/store cycles
};

/// The first instruction of a block the core cannot execute.
struct Violation {
    std::uint32_t pc = 0;
    std::string message;
};

class BlockCache {
public:
    /// `timing` null means one cycle per instruction (timing model off). `trace_points` (sorted)
    /// are addresses where a block event must start even inside a translated block.
    /// `timed_by_pipeline`: the pipeline model counts the cycles (blocks flagged Deferred).
    BlockCache(const UnicornCore& core, const models::CoreSpec& spec, const models::TimingModel* timing, const MemoryPlan& plan,
               const decode::SymbolTable& symbols, std::vector<std::uint32_t> trace_points = {}, bool timed_by_pipeline = false)
        : uc_(core), spec_(spec), timing_(timing), plan_(plan), symbols_(symbols), trace_points_(std::move(trace_points)),
          timed_by_pipeline_(timed_by_pipeline) {}

    const BlockInfo& lookup(std::uint32_t address, std::uint32_t size) {
        BlockInfo& slot = front_[(address >> 1) & (kFrontSlots - 1)];
        if (slot.address == address && slot.size == size) [[likely]]
            return slot;
        slot = analyse(address, size);
        return slot;
    }
    /// The direct-mapped slot for `address`, which may hold another block (check address and size).
    const BlockInfo& slot(std::uint32_t address) const { return front_[(address >> 1) & (kFrontSlots - 1)]; }

    /// Why the block at `address` cannot run on this core (valid after lookup flagged it).
    Violation violation(std::uint32_t address) const;
    /// The parts of a block flagged Split, in order: from its first_piece to the part that ends
    /// where the block does.
    const BlockPiece* pieces(const BlockInfo& block) const { return piece_store_.data() + block.first_piece; }
    const BlockPiece* pieces_from(std::uint32_t first_piece) const { return piece_store_.data() + first_piece; }
    /// The data accesses of the block starting at `address` (empty if it has none or is unknown).
    std::span<const BlockAccess> accesses(std::uint32_t address) const;
    const decode::InstructionDecoder& decoder() const { return decoder_; }
    /// The operand-timed instructions of the block flagged OperandSites at `address`.
    std::span<const OperandSiteCode> operand_sites(std::uint32_t address) const;
    /// Clears OperandSites on the block once its sites are hooked, so it runs on the fast path.
    void operand_sites_hooked(std::uint32_t address, std::uint32_t size) { clear_flag(address, size, BlockInfo::OperandSites); }
    /// Of the block flagged StackSites at `address`: the address after each instruction that may
    /// leave SP unaligned, where SP's bits [1:0] are to be cleared as ARMv7-M keeps them; odd
    /// after an MSR, which may have written the stack pointer not in use.
    std::span<const std::uint32_t> stack_sites(std::uint32_t address) const;
    void stack_sites_hooked(std::uint32_t address, std::uint32_t size) { clear_flag(address, size, BlockInfo::StackSites); }
    std::size_t distinct_blocks() const { return blocks_.size(); }

private:
    static constexpr std::size_t kFrontSlots = 8192;
    BlockInfo analyse(std::uint32_t address, std::uint32_t size);
    void clear_flag(std::uint32_t address, std::uint32_t size, BlockInfo::Flag flag);
    // analyse()'s steps, in order.
    std::vector<decode::Instruction> decode_block(std::uint32_t address, std::span<const std::uint8_t> code);
    models::BlockCosts cost_block(BlockInfo& info, const std::vector<decode::Instruction>& insns);
    void scan_instructions(BlockInfo& info, std::span<const std::uint8_t> code, const std::vector<decode::Instruction>& insns,
                           const models::BlockCosts& costs);
    void follow_on(BlockInfo& info, const std::vector<decode::Instruction>& insns);
    // Flags the block Split and keeps its pieces when a trace point lies inside it.
    void split_at_trace_points(BlockInfo& info, std::span<const std::uint8_t> code, std::span<const decode::Instruction> insns,
                               std::span<const std::uint32_t> cost);

    const UnicornCore& uc_;
    models::CoreSpec spec_;
    const models::TimingModel* timing_;
    const MemoryPlan& plan_;
    const decode::SymbolTable& symbols_;
    std::unordered_map<std::uint32_t, std::vector<BlockAccess>> accesses_;
    decode::InstructionDecoder decoder_;
    std::array<BlockInfo, kFrontSlots> front_{};
    std::unordered_map<std::uint64_t, BlockInfo> blocks_;
    std::unordered_map<std::uint32_t, Violation> violations_;
    std::unordered_map<std::uint32_t, std::vector<OperandSiteCode>> operand_sites_;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> stack_sites_;
    std::vector<std::uint32_t> trace_points_;
    bool timed_by_pipeline_ = false;
    std::vector<BlockPiece> piece_store_;
    /// The last instruction of each block that ends without branching (Unicorn ends a block at a
    /// page boundary, after ISB, MSR and the like), by the address that continues it.
    std::unordered_map<std::uint32_t, decode::Instruction> continued_from_;
    /// The IT instruction of an IT block that runs past the end of such a block, by the address
    /// that continues it.
    std::unordered_map<std::uint32_t, std::uint32_t> open_it_;
};

}  // namespace emutrace::emu::detail
