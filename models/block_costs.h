#pragma once
// A translated block's cycles under the per-block model (`timing: trm`): per instruction, what the
// DWT's event counters count of them, what a taken final branch and an entry by a branch add, and
// how much of the block's counts remains at each data access, so that a device sees the cycle of
// its access. With no model, one cycle per instruction. The emulator keeps the result per block.

#include <cstdint>
#include <span>
#include <vector>

#include "decode/instruction_decoder.h"
#include "models/timing_model.h"

namespace emutrace::models {

struct BlockCosts {
    std::vector<std::uint32_t> cost;               ///< per instruction; one an IT block may skip at its skipped cost
    std::vector<std::uint32_t> lsu, fold;          ///< of each cost, DWT LSUCNT and FOLDCNT cycles
    std::vector<std::int32_t> executed_extra;      ///< what an IT-block instruction adds when it runs (may be negative)
    std::vector<std::uint8_t> executed_extra_lsu;  ///< and of that, load/store cycles
    std::uint32_t cycles = 0;                      ///< the block, its fetch waits included, its final branch not taken
    std::uint32_t lsu_total = 0, fold_total = 0;
    std::int32_t taken_extra = 0;      ///< added when the final conditional branch is taken
    std::int32_t branch_in_extra = 0;  ///< added when entered by a branch rather than from `previous`
    /// A data access: its instruction, and the block's counts left once its data phase is done.
    struct Access {
        std::size_t instruction = 0;
        std::uint32_t cycles_after = 0, instructions_after = 0, lsu_after = 0, fold_after = 0;
    };
    std::vector<Access> accesses;
};

/// The costs of `insns`, `instructions` of them by their encodings (IT-skipped ones included) and
/// `bytes` long, under `model` (null: one cycle each). `previous` is the instruction before the
/// block when it continues one without a branch (the emulator ended that one at a page boundary,
/// an ISB...), else null; `fetch_wait` the cycles each fetched word waits in its memory.
BlockCosts block_costs(const TimingModel* model, std::span<const decode::Instruction> insns, const decode::Instruction* previous,
                       std::uint32_t instructions, std::uint32_t bytes, unsigned fetch_wait);

/// The cycles of a block's part cut at a trace point: its instructions' costs as block_costs()
/// counted them plus the fetch waits of its `bytes`, at most `left`, what the block has not spent
/// (the last part takes what remains: its final branch and refill).
inline std::uint32_t part_cycles(std::uint32_t instruction_cycles, std::uint32_t bytes, unsigned fetch_wait, std::uint32_t left) {
    std::uint32_t cycles = instruction_cycles + fetch_wait * ((bytes + 3) / 4);
    return cycles < left ? cycles : left;
}

}  // namespace emutrace::models
