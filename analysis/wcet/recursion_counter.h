#pragma once
// Recursion measured as flow facts, per call-string context of an outermost activation (one no
// other activation of the same function encloses):
// - of every function, the most entries into it in one such activation, that one included: the
//   form TACLeBench states its recursive kernels' bounds in ("flowrestriction 1*fib <=
//   177*recursivecall"), and what the IPET shares among a recursion's calls;
// - of a function on a cycle of direct calls (known before the run), the most entries into each
//   function of its cycle and executions of each loop header there, per such activation: a
//   recursion's shape (how many leaves, how long the partitions) beside its size;
// - of a cycle, per activation of it entered from outside (the recursion's head's, for a
//   recursion the bound can take): each of its blocks' executions, the most and the least over
//   those activations, so that a block every activation ran as often holds the bound to it (a
//   path count inside the recursion: Fibonacci's leaves against its inner calls).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/trace_points.h"

namespace emutrace::analysis::wcet {

/// The cycles of direct calls (and tail calls) between the program's functions: what recursion
/// the code can make without a function pointer.
struct RecursionCycles {
    std::vector<int> cycle_of;                          ///< per function: its cycle, or -1
    std::vector<std::vector<std::uint32_t>> functions;  ///< per cycle: its functions
    std::vector<std::vector<std::uint32_t>> loops;      ///< per cycle: its functions' loops (TracePoints::loops() ids)
    std::vector<std::vector<std::uint32_t>> points;     ///< per cycle: its functions' blocks (TracePoints::points() ids)
    static RecursionCycles of(const decode::Program& program, const TracePoints& points);
};

class RecursionCounter {
public:
    explicit RecursionCounter(std::size_t functions, RecursionCycles cycles = {});

    /// Function `f` (Program::functions() index) was entered by a call, a tail call or from nowhere
    /// (reset, an exception), in call context `context` (CallContexts id).
    void entered(std::uint32_t f, std::uint32_t context);
    /// An activation of `f` returned (or an exception return cut it off).
    void left(std::uint32_t f);
    /// The header of loop `loop` (TracePoints::loops() id) ran; only a loop of a cycle counts.
    void header(std::uint32_t loop) {
        if (loop < item_of_loop_.size() && item_of_loop_[loop] >= 0) count(static_cast<std::size_t>(cycle_of_loop_[loop]), item_of_loop_[loop]);
    }
    /// Whether loop `loop`'s header is counted (it is in a cycle).
    bool counts_loop(std::uint32_t loop) const { return loop < item_of_loop_.size() && item_of_loop_[loop] >= 0; }
    /// The block of trace point `point` ran; only a block of a cycle's function counts.
    void block(std::uint32_t point) {
        if (point >= block_of_point_.size() || block_of_point_[point] < 0) return;
        const auto cycle = static_cast<std::size_t>(cycle_of_point_[point]);
        if (cycle_open_[cycle] > 0) ++running_blocks_[cycle][static_cast<std::size_t>(block_of_point_[point])];
    }
    /// Whether trace point `point`'s block is counted (its function is on a cycle).
    bool counts_block(std::uint32_t point) const { return point < block_of_point_.size() && block_of_point_[point] >= 0; }

    /// Per context id: the most entries in one outermost activation entered there, for the
    /// activations that recursed (2 or more entries; a context missing here never recursed).
    /// Activations still open count as far as they got.
    std::unordered_map<std::uint32_t, std::uint64_t> most_by_context() const;

    /// Of an outermost activation of a function on a cycle: the most entries into a function of
    /// the cycle (`loop` false; `which` a function index) or executions of a loop header there
    /// (`loop` true; `which` a loop id) in one activation entered in context `context`.
    struct CycleCount {
        std::uint32_t context = 0;
        bool loop = false;
        std::uint32_t which = 0;
        std::uint64_t most = 0;
    };
    std::vector<CycleCount> cycle_counts() const;

    /// Of a block of a cycle's function (`point`, a trace point id), over the activations of the
    /// cycle entered from outside in context `context`: its most and least executions in one, and
    /// how many activations (ScopeCount::scopes). Activations still open count as far as they got.
    struct BlockCount {
        std::uint32_t context = 0, point = 0;
        ScopeCount count;
    };
    std::vector<BlockCount> block_counts() const;

private:
    void count(std::size_t cycle, int item) {
        for (std::uint32_t f : cycles_.functions[cycle])
            if (open_[f] > 0) ++running_items_[base_[f] + static_cast<std::size_t>(item)];
    }
    void note(std::uint32_t f);
    /// A cycle's activation from outside ended (or is read while open): its blocks' counts go into `into`.
    void note_blocks(std::size_t cycle, std::unordered_map<std::uint64_t, ScopeCount>& into) const;
    void note_entries(std::uint32_t f, std::unordered_map<std::uint32_t, std::uint64_t>& into) const;
    void note_items(std::uint32_t f, std::unordered_map<std::uint64_t, std::uint64_t>& into) const;
    std::size_t items(std::size_t cycle) const { return cycles_.functions[cycle].size() + cycles_.loops[cycle].size(); }

    std::vector<std::uint32_t> open_;     ///< per function: its open activations
    std::vector<std::uint64_t> running_;  ///< per function: entries since its outermost open activation began
    std::vector<std::uint32_t> context_;  ///< per function: that activation's context
    std::unordered_map<std::uint32_t, std::uint64_t> most_;

    RecursionCycles cycles_;
    std::vector<int> item_of_function_;  ///< per function on a cycle: its item there
    std::vector<int> item_of_loop_, cycle_of_loop_;
    /// Per cycle, its items' place in items_ (functions, then loops), which numbers them for most_items_.
    std::vector<std::size_t> first_item_;
    struct Item {
        bool loop;
        std::uint32_t which;
    };
    std::vector<Item> items_;
    std::vector<std::size_t> base_;                                ///< per function on a cycle: its counts in running_items_
    std::vector<std::uint64_t> running_items_;                     ///< per function on a cycle, per item of its cycle: counts in its open activation
    std::unordered_map<std::uint64_t, std::uint64_t> most_items_;  ///< (context << 32 | items_ index): the most

    std::vector<int> block_of_point_, cycle_of_point_;            ///< per trace point: its index among its cycle's blocks, its cycle; -1 none
    std::vector<std::uint32_t> cycle_open_;                       ///< per cycle: open activations of its functions
    std::vector<std::uint32_t> cycle_context_;                    ///< per cycle: the context of its activation from outside
    std::vector<std::vector<std::uint64_t>> running_blocks_;      ///< per cycle, per block: executions in its open activation
    std::unordered_map<std::uint64_t, ScopeCount> block_counts_;  ///< (context << 32 | trace point)
};

}  // namespace emutrace::analysis::wcet
