#pragma once
// The trace points of Dreyer et al. (WCET 2015, section 3.1): one per basic block of the program's
// CFG, with the block's first address, its loop nesting level, a distinctor for sibling loops and
// the call/entry/exit/return flags the loop module's transitions test. A trace point's id is its
// index: dense and collision-free, so statistics are a flat array.

#include <cstdint>
#include <vector>

#include "decode/program.h"

namespace emutrace::analysis::wcet {

struct TracePoint {
    std::uint32_t first = 0;       ///< address of the block's first instruction
    std::uint32_t end = 0;         ///< the address after its last instruction
    std::uint32_t function = 0;    ///< index into Program::functions()
    std::uint32_t block = 0;       ///< index into that function's blocks
    std::uint8_t level = 0;        ///< nesting depth of the innermost loop holding the block; 0 outside loops
    std::uint16_t distinctor = 0;  ///< which loop of the function (loop index + 1); 0 outside loops
    int loop = -1;                 ///< innermost loop, as an index into TracePoints::loops()
    bool call = false;             ///< the block ends with a call of a function (its entry, or indirect)
    /// It calls or jumps through a register (BLX rN, BX rN): the functions it enters are recorded.
    bool indirect = false;
    /// On an irreducible cycle (decode::BasicBlock::irreducible): its executions per call of its
    /// function are counted.
    bool counted = false;
    bool entry = false;  ///< the function's first block
    bool exit = false;   ///< the block can leave the function (return, tail call)
    bool ret = false;    ///< the block a call returns to
};

/// A loop of the program, numbered across functions.
struct LoopRef {
    std::uint32_t function = 0;  ///< index into Program::functions()
    std::uint32_t index = 0;     ///< index into that function's loops
    std::uint32_t header = 0;    ///< trace point id of the header
    int parent = -1;             ///< the enclosing loop, as an index into TracePoints::loops(), or -1
};

class TracePoints {
public:
    explicit TracePoints(const decode::Program& program);
    /// Given points (ids are their indices) and loops, e.g. a hand-made graph.
    TracePoints(std::vector<TracePoint> points, std::vector<LoopRef> loops);

    const std::vector<TracePoint>& points() const { return points_; }
    const std::vector<LoopRef>& loops() const { return loops_; }
    /// The id of the trace point whose block starts at `address`, or -1; constant time.
    int id_at(std::uint32_t address) const {
        // Open addressing, linear probing, at most half full: memory follows the number of blocks,
        // not how far apart the code lies (flash and RAM functions, or hostile symbols).
        for (std::size_t k = slot_of(address);; k = (k + 1) & mask_) {
            const Slot& s = slots_[k];
            if (s.id < 0 || s.address == address) return s.id;
        }
    }
    /// Every block start, sorted: what the emulator splits its block events at (MachineConfig::trace_points).
    std::vector<std::uint32_t> addresses() const;

private:
    void index_addresses();

    std::vector<TracePoint> points_;
    std::vector<LoopRef> loops_;
    struct Slot {
        std::uint32_t address = 0;
        int id = -1;
    };
    std::size_t slot_of(std::uint32_t address) const { return (address * 0x9E3779B1u) >> shift_ & mask_; }
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    unsigned shift_ = 0;
};

}  // namespace emutrace::analysis::wcet
