#pragma once
// The Cortex-M3 instruction fetch when data reads share its port: on an STM32F1 the ICode and
// DCode buses meet at the one flash interface, which serves one transfer a cycle and gives a data
// read the cycle before a fetch. A run of loads from flash then starves the fetch, and the core
// waits for an instruction it has not fetched (silicon: ldm_narrow, ldm_ldmdb; docs/silicon.md
// rule 35). Which loads read flash is known only when they run, so a block's loss is computed
// per set of such loads, each set once.

#include <cstdint>
#include <span>
#include <vector>

namespace emutrace::models {

/// One instruction of a block as the fetch model sees it.
struct PortInstruction {
    std::uint32_t address = 0;
    std::uint8_t size = 2;    ///< 2 or 4 bytes
    std::uint8_t cycles = 1;  ///< what the timing model counts for it (at most 255)
    std::uint8_t reads = 0;   ///< words its data access reads: LDM one a register, LDRD 2, other loads 1
    bool overlapped = false;  ///< the next instruction runs in its data phase (TimingModel::overlaps_load)
    bool pipelined = false;   ///< a load whose address phase lies in the data phase of the load before
    bool speculates = false;  ///< a B<cc> whose target fetch takes the port in its decode cycle
};

/// Cycles a block loses to a starved fetch, and of those the DWT's LSUCNT share.
struct Starvation {
    std::uint32_t cycles = 0;
    std::uint32_t lsu = 0;
};

/// What `block` loses when the data reads of the instructions flagged in `on_port` (bit i:
/// instruction i; only the first 64 can be flagged) take the fetch's port. `refilled`: the block
/// starts with an empty prefetch queue (a branch target, or behind ISB); else the queue is full.
///
/// The fetch: a word's address phase in cycle f, its data in f + 1, decoded in f + 2, executed
/// from f + 3 at the earliest; a new word only while the 3-word queue (the decode register
/// counting whole) has a word free, or will have once the decoded instruction moves on (unless
/// that is a load waiting for the load before it). A load's reads take the port in the cycles
/// before its last (its data phase). A load pipelined behind one to another memory takes its
/// cycle back, as the machine counts it. A pipelined load held up, or an instruction meant to run
/// in a load's data phase, counts its first lost cycle as LSU, the rest as CPI.
Starvation fetch_starvation(std::span<const PortInstruction> block, std::uint64_t on_port, bool refilled);

/// How much later each instruction of `run` starts because each B<cc> flagged `speculates`, not
/// taken, took the port in its decode cycle to fetch its target (silicon: bcond,
/// misspredicted_branch_sequences; docs/silicon.md rule 41). `run` is straight-line code from
/// where the queue's state is known (`refilled` as for fetch_starvation()). A running maximum:
/// a delay the code absorbs later is still counted.
std::vector<std::uint32_t> speculation_delays(std::span<const PortInstruction> run, bool refilled);

}  // namespace emutrace::models
