#pragma once
// Implicit path enumeration (IPET): the longest path through a graph of measured basic blocks, as
// an integer linear program solved with GLPK. Blocks inside loops are virtually unrolled once
// (Dreyer et al., WCET 2015): a block has a cost in the first iteration of its innermost loop and
// another in the later ones, with separate execution counts, so a first iteration that is slower
// (a cold cache, a one-off path) is not charged to every iteration.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace emutrace::analysis::wcet {

struct IpetBlock {
    double first_cost = 0;   ///< cycles per execution outside loops or in a first iteration
    double later_cost = 0;   ///< cycles per execution in a later iteration (loop >= 0 only)
    bool first_seen = true;  ///< false: never measured in that context, so it executes 0 times there
    bool later_seen = true;
    int loop = -1;          ///< innermost loop (index into IpetProblem::loops), or -1
    bool may_exit = false;  ///< control can leave the graph here (return, tail call)
};

struct IpetEdge {
    std::size_t from = 0, to = 0;  ///< block indices
    /// What `from` costs when it leaves by this edge, per context, if measured (< 0: not measured,
    /// the block's cost). A block that ends in a conditional branch is slower when the branch is
    /// taken; the edge's own time lets the other edge be charged less.
    double first_exit_cost = -1, later_exit_cost = -1;
};

struct IpetLoop {
    std::size_t header = 0;            ///< block index
    std::vector<std::size_t> entries;  ///< indices of the edges entering the header from outside the loop
    std::uint64_t bound = 0;           ///< most header executions per entry into the loop; 0: unknown
    std::string name;                  ///< for error messages, e.g. "main loop 0 at 0x00000124"
    /// With parent >= 0 and total > 0: most header executions in one entry of the enclosing loop
    /// `parent`, whatever its iterations (a triangular loop nest: n(n+1)/2, not n * n).
    int parent = -1;
    std::uint64_t total = 0;
    /// Most header executions over one entry of a loop further out (two or more levels), by that
    /// loop's index: a triangle three loops deep.
    std::vector<std::pair<std::size_t, std::uint64_t>> outer_totals;
};

/// A call (or tail call) site: each execution of `caller` enters the graph once more at `callee`
/// (a conditional one: at most once).
struct IpetCall {
    std::size_t caller = 0, callee = 0;  ///< block indices: the calling block, the callee's entry block
    /// The call may fail its condition (B<cc> or an IT block): at most once per execution.
    bool conditional = false;
    /// Conditional calls with the same group >= 0 are one call site's alternatives (the observed
    /// targets of an indirect call): together at most once per execution of the caller.
    int group = -1;
    /// With a conditional call: an edge out of `caller` that the call replaces (libgcc's `bleq` into
    /// its own special-case code, which returns to the caller's caller): the call and that edge
    /// together at most once per execution; -1 none.
    int instead_of_edge = -1;
};

/// A block held to a count per run of a scope: at most `most` executions per unit of flow into
/// any of the block ranges [first, last) in `scopes` (a call into one, and the problem's one entry
/// if it is in one); with no ranges, `most` in all (the problem's one entry is the scope's run).
/// A block on a cycle no loop bounds (irreducible control flow) is held so per run of its
/// function; a block with a path count, per run of its call string's outermost caller.
struct IpetCap {
    std::size_t block = 0;
    std::uint64_t most = 0;
    std::vector<std::pair<std::size_t, std::size_t>> scopes;
};

/// A block's cycles held per run of a scope (ranges as IpetCap's): its executions' cost, less what
/// its edges save, is at most `most` per unit of flow into the scope. The runs' time totals per
/// block, where every run agreed (analysis/wcet/path_counts.h): a block whose time depends on
/// data keeps the runs' mix of fast and slow executions.
struct IpetCycleCap {
    std::size_t block = 0;
    std::uint64_t most = 0;
    std::vector<std::pair<std::size_t, std::size_t>> scopes;
};

/// A recursion bounded per activation (analysis/wcet/recursion.h): each call from outside it (and
/// the problem's entry, when that starts one) starts an outermost activation, and each budget
/// holds what such an activation may do: its calls `calls` (entries into functions) and the
/// executions of its blocks `blocks` (loop headers) together at most `most[i]` for the activation
/// started by `outer[i]`, and `entry_most` for the entry's.
struct IpetRecursion {
    struct Budget {
        std::vector<std::size_t> calls, blocks;
        std::vector<std::uint64_t> most;  ///< parallel to `outer`
        std::uint64_t entry_most = 0;
        /// What the entry itself counts (1 in the head's entries: it enters the head once).
        std::uint64_t entry_counted = 0;
        std::string what;  ///< for messages
    };
    std::vector<std::size_t> outer;  ///< call indices
    bool entry = false;
    std::vector<Budget> budgets;
    std::string name;  ///< for messages, e.g. "recursion of fib"
};

struct IpetProblem {
    std::vector<IpetBlock> blocks;
    std::vector<IpetEdge> edges;
    std::vector<IpetLoop> loops;
    std::vector<IpetCall> calls;
    std::vector<IpetCap> caps;
    std::vector<IpetCycleCap> cycle_caps;  ///< at most one per block
    std::vector<IpetRecursion> recursions;
    std::size_t entry = 0;  ///< executed exactly once
};

struct IpetSolution {
    double bound = 0;                   ///< the objective: cycles on the longest path
    std::vector<std::uint64_t> first;   ///< per block: executions outside loops or in first iterations
    std::vector<std::uint64_t> later;   ///< per block: executions in later iterations
    std::vector<std::uint64_t> edges;   ///< per edge: times taken on the longest path
    std::vector<double> discounts;      ///< per edge: cycles its block costs less when it leaves by it
    std::vector<double> cycles;         ///< per block: its share of the bound (costs less discounts, or its cycle cap)
    std::vector<std::uint64_t> calls;   ///< per call: times made on the longest path
    std::size_t rows = 0, columns = 0;  ///< the integer program's size
};

/// The runs of a scope (IpetCap::scopes) on solution `s`'s path: the flow into its ranges, the
/// problem's one entry included; 1 for no ranges.
std::uint64_t scope_runs(const IpetProblem& problem, const IpetSolution& s, const std::vector<std::pair<std::size_t, std::size_t>>& scopes);

/// Solves for the longest path. With `context_sensitive` false every block costs the larger of its
/// two costs in every execution and is allowed in both contexts if it was seen in either: the
/// classic one-maximum-per-block bound. Throws std::runtime_error naming the loop when a loop whose
/// header was seen has no bound (bound 0), and when GLPK finds no integer optimum.
IpetSolution solve_ipet(const IpetProblem& problem, bool context_sensitive = true);

}  // namespace emutrace::analysis::wcet
