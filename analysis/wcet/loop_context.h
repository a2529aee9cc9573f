#pragma once
// The loop module of Dreyer et al. (WCET 2015, section 3.3): a stack of rows, one per loop level
// and routine, moved by "up" and "down" operations as trace point events arrive. It decides for
// each executed block whether it runs in the first iteration of its innermost loop (index 0) or a
// later one (index 1). Beyond the paper, calls remember the caller's row, so a return goes back
// to it even after a tail call (which leaves the tail-called function's rows where the replaced
// function's were), and exceptions save and restore the whole context.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analysis/wcet/call_context.h"
#include "analysis/wcet/trace_points.h"

namespace emutrace::analysis::wcet {

struct LoopRow {
    bool valid = false;
    std::uint32_t id = 0;          ///< trace point that opened the row (a loop header or routine entry)
    std::uint8_t index = 0;        ///< 0: first iteration, 1: a later one
    std::uint32_t iterations = 0;  ///< header executions since the row opened
    std::uint32_t context = 0;     ///< the call context the row's function runs in (CallContexts id)
};

/// Which case of the transition relation the last step took.
/// Which case of the transition relation the last step took. TailCall: a block that leaves its
/// function by a branch (b.w f) reached another function's entry: a call that returns to the
/// caller of the function it replaces.
enum class Transition : std::uint8_t { Start, Call, TailCall, Return, Up, Down, Sibling, NextIteration, Stay };

class LoopContextTracker {
public:
    /// `rows` bounds the nesting of loops and calls it follows; deeper recursion saturates.
    /// `call_depth` is the call-string length k of the contexts it keeps (call_context.h).
    explicit LoopContextTracker(const TracePoints& points, std::size_t rows = 1024, unsigned call_depth = 0);

    /// The transition S[▷, e_i, e_i+1] for the next trace point; returns its index (0 or 1).
    unsigned step(std::uint32_t next) {
        // The common cases inline: the same loop body at the same level, no call or return.
        if (previous_ >= 0) [[likely]] {
            std::uint32_t c = shape_[static_cast<std::size_t>(previous_)], n = shape_[next];
            bool call = (c & (kCall | kExit)) && (n & kEntry), ret = (c & kExit) && (n & kRet);  // call or tail call
            if (((c ^ n) & kPlace) == 0 && !call && !ret) [[likely]] {
                stay_in_row(next);
                previous_ = next;
                return rows_[p_].index;
            }
        }
        return step_slow(next);
    }
    /// An exception interrupts the flow: the handler starts a fresh context above this one.
    void exception_entry();
    /// The handler returned: the interrupted context is back as it was.
    void exception_return();

    /// Most header executions seen per entry into each loop (TracePoints::loops()), rows still open included.
    std::vector<std::uint32_t> max_iterations() const;
    /// Per loop nested in another: the most header executions seen in all the iterations of one
    /// entry into the enclosing loop (a triangular inner loop sums to far less than its most
    /// iterations per entry times the outer bound); 0 for outermost loops.
    std::vector<std::uint64_t> max_totals() const;
    /// Per (context, loop) that ran, the same two figures as above, keyed by context << 32 | loop.
    /// The total of a function's outermost loop is over one entry of the nearest loop of a caller.
    std::unordered_map<std::uint64_t, std::uint32_t> max_iterations_by_context() const;
    std::unordered_map<std::uint64_t, std::uint64_t> max_totals_by_context() const;
    /// A loop's most header executions over one entry of a loop two or more levels around it in
    /// the same function (a triangle three loops deep), or, of a function's outermost loop, of a
    /// caller's loop around the call beyond the nearest, per context.
    struct NestedKey {
        std::uint32_t context, loop, outer;
        bool operator==(const NestedKey&) const = default;
    };
    struct NestedKeyHash {
        std::size_t operator()(const NestedKey& k) const {
            return (std::uint64_t{k.context} * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{k.loop} << 24) ^ k.outer;
        }
    };
    std::unordered_map<NestedKey, std::uint64_t, NestedKeyHash> max_totals_over_outer() const;
    /// The call context of the block the last step reached.
    std::uint32_t context() const { return context_; }
    /// The run that context's counts are per: an id of the activation of the function at the
    /// bottom of its call string (the one that made the outermost of its k calls), or of the
    /// function entered from nowhere when the string is shorter. Every run of the context lies
    /// inside that activation; a new id means a new one (ids are never reused).
    std::uint64_t scope() const { return scope_; }
    const CallContexts& contexts() const { return contexts_; }
    Transition last() const { return last_; }
    std::size_t pointer() const { return p_; }
    const LoopRow& row(std::size_t k) const { return rows_[k]; }
    /// How often the stack was full or a return found no call (recursion deeper than the rows).
    std::uint64_t saturations() const { return saturations_; }

private:
    // Same level, same loop body: the row's own header again is its next iteration.
    void stay_in_row(std::uint32_t next) {
        LoopRow& r = rows_[p_];
        if (r.valid && r.id == next) {
            r.index = 1;
            ++r.iterations;
            last_ = Transition::NextIteration;
        } else {
            last_ = Transition::Stay;
        }
    }
    unsigned step_slow(std::uint32_t next);
    void move(std::uint32_t from, std::uint32_t next);
    void up(std::size_t m, LoopRow r);
    void down(std::size_t m);
    void land(std::uint32_t next);
    void retire(std::size_t row);
    void add_to_caller_loop(std::size_t row, std::size_t l);
    void add_to_outer_loops(std::size_t row, std::size_t l);
    void add_over(std::size_t k, const NestedKey& key, std::uint32_t iterations);

    // Per trace point, packed: distinctor and level (where in the loop nest), and the flags.
    static constexpr std::uint32_t kDistinctor = 0x0000FFFFu, kPlace = 0x00FFFFFFu, kCall = 1u << 24, kEntry = 1u << 25, kExit = 1u << 26,
                                   kRet = 1u << 27;
    static constexpr std::size_t kMostFrames = 1u << 16;  ///< open calls remembered; deeper recursion saturates

    struct Saved {
        std::size_t p;
        std::int64_t previous;
        std::size_t frames;
        std::uint32_t context;
        std::uint64_t root, scope;
    };
    /// Sets scope_ for the context just entered (after a call, a return or an exception).
    void update_scope();

    const TracePoints& points_;
    std::vector<std::uint32_t> shape_;
    std::vector<LoopRow> rows_;
    std::size_t p_ = 0;
    std::int64_t previous_ = -1;  ///< the last trace point, or -1 at a context's start
    struct Frame {
        std::size_t p;             ///< the caller's row
        std::uint32_t caller;      ///< the block that called
        std::uint32_t context;     ///< the caller's context
        std::uint64_t activation;  ///< the callee's activation (scope())
    };
    std::vector<Frame> frames_;                         ///< one per open call
    std::vector<Saved> saved_;                          ///< one per exception being handled
    std::vector<std::vector<std::uint32_t>> children_;  ///< per loop: the loops nested directly in it
    std::vector<std::uint64_t> running_total_;          ///< per loop: header executions since its parent was entered
    /// Per row: the totals running over the row's current loop entry, of loops two or more levels
    /// in (add_to_outer_loops) and of called functions' outermost loops (add_to_caller_loop, outer
    /// kCallerLoop); the running sums; the most over one entry of a loop in the function.
    static constexpr unsigned kOuterLevels = 4;
    static constexpr std::uint32_t kCallerLoop = UINT32_MAX;
    std::vector<std::vector<NestedKey>> totals_over_;
    std::unordered_map<NestedKey, std::uint64_t, NestedKeyHash> running_over_, max_outer_;
    std::uint64_t saturations_ = 0;
    CallContexts contexts_;
    std::uint32_t context_ = 0;
    std::uint64_t activations_ = 0;  ///< activations begun so far: the last one's id
    std::uint64_t root_ = 0;         ///< the activation entered from nowhere that runs now
    std::uint64_t scope_ = 0;
    std::unordered_map<std::uint64_t, std::uint32_t> max_iterations_by_context_;
    std::unordered_map<std::uint64_t, std::uint64_t> max_total_by_context_;
    Transition last_ = Transition::Start;
};

}  // namespace emutrace::analysis::wcet
