#pragma once
// The post-processing of Dreyer et al. (section 3.4): the CFG of a function and its callees,
// annotated with the aggregated block statistics, becomes an IPET problem whose optimum is the WCET
// estimate and its worst path. Solved twice: with the loop context (first and later iterations
// costed apart) and without it (one maximum per block), so the gain of the context shows.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/trace_points.h"
#include "decode/program.h"

namespace emutrace::analysis::wcet {

/// A loop bound given by the user, or a recursion's; it overrides the observed one.
struct FlowFact {
    std::string function;                 ///< with `loop`: the loop's function; with `recursion`: the recursive one
    int loop = -1;                        ///< the loop's index as `emutrace cfg` prints it
    std::optional<std::uint32_t> header;  ///< or the loop's header address
    std::uint64_t bound = 0;              ///< most header executions per entry into the loop; 0: not given
    /// Of a nested loop: most header executions in one entry of its enclosing loop, summed over
    /// that loop's iterations (a triangular nest); 0: not given.
    std::uint64_t total = 0;
    /// Only in this call-string context: the addresses of the call instructions that lead to the
    /// loop's function, outermost first (its last k), as the flow-facts file writes them. Unset:
    /// every context.
    std::optional<std::vector<std::uint32_t>> context;
    /// Of a loop three or more deep: most header executions in one entry of a loop further out in
    /// its function (by index), summed over everything between (a triangle three deep).
    std::vector<std::pair<int, std::uint64_t>> totals_over;
    /// Of a function's outermost loop: most header executions over one entry of a caller's loop
    /// around the call beyond the nearest (which `total` is over), named "function loop N".
    std::vector<std::pair<std::string, std::uint64_t>> totals_over_callers;
    /// Of a recursive function (no loop): most entries into it per call from outside its
    /// recursion, that call included; 0: not given.
    std::uint64_t recursion = 0;
    /// A path count (analysis/wcet/path_counts.h): the block starting at `block` of `function`
    /// executes at most `count` times per run of function `per` (empty: of the bounded function).
    std::optional<std::uint32_t> block;
    std::uint64_t count = 0;
    std::string per;
    /// With `block`: at most this many cycles in all its executions per run of `per`; 0: not given.
    std::uint64_t cycles = 0;
    std::string origin;  ///< where the fact was written ("facts.yaml:12"), for messages
};

/// The call-string length k a bound uses by default (docs/wcet.md, "Call-site context").
inline constexpr unsigned kDefaultCallDepth = 2;

struct WcetQuery {
    std::string function;
    std::vector<FlowFact> flow_facts;
    /// "file.c:12" for an address, or "": names loops in messages (optional).
    std::function<std::string(std::uint32_t)> source_line;
    /// Call-string length k: each function is bounded per distinct last k call sites (at most the
    /// statistics' own k). 0: one bound per function, whatever calls it.
    unsigned call_depth = kDefaultCallDepth;
    /// Hold blocks to the runs' path counts where every run of their scope agreed
    /// (analysis/wcet/path_counts.h); false: any path mix (flow facts' counts still hold).
    bool path_counts = true;
};

struct PathBlock {
    std::string function;
    std::string context;  ///< the call string it ran in, e.g. "k_fir@0x0000020c", "" for the bounded function
    std::uint32_t start = 0, end = 0;
    std::uint64_t first_count = 0, later_count = 0;  ///< executions on the worst path, by context
    std::uint64_t first_cost = 0, later_cost = 0;    ///< the measured maxima used
    std::uint64_t cycles = 0;                        ///< the block's share of the bound
};

struct FunctionShare {
    std::string name;
    std::uint64_t cycles = 0;   ///< of the bound, in the function's own blocks
    std::uint64_t entries = 0;  ///< times entered on the worst path
    /// In the longest observed run of the bounded function (when the statistics kept its
    /// profile): the function's own blocks' cycles, and its entries.
    std::uint64_t observed_cycles = 0, observed_entries = 0;
    std::size_t contexts = 0;  ///< call-string contexts of the function in the bound
};

/// Where the bound and the longest observed run part: one block in one context.
struct GapBlock {
    std::string function, context;
    std::uint32_t start = 0, end = 0;
    std::uint64_t bound_count = 0, bound_cycles = 0;        ///< on the worst path
    std::uint64_t observed_count = 0, observed_cycles = 0;  ///< in the longest run
    std::int64_t gap() const { return static_cast<std::int64_t>(bound_cycles) - static_cast<std::int64_t>(observed_cycles); }
    /// The part of the gap from executions the run did not make (more iterations, another path).
    std::int64_t from_count() const;
};

/// What the runs covered of the analysed code: the bound holds for these.
struct Coverage {
    std::size_t blocks = 0, blocks_seen = 0;
    std::size_t edges = 0, edges_seen = 0;
    std::size_t contexts = 0;                  ///< call-string contexts in the ILP (each ran)
    std::vector<std::string> unseen_contexts;  ///< call sites whose call no run made, "f calls g at 0x..."
    unsigned call_depth = 0;                   ///< the k the bound used
};

struct UnexecutedBlock {
    std::string function;
    std::uint32_t start = 0, end = 0;
    bool reachable = true;  ///< reachable in the CFG: an untested path; otherwise dead code
};

struct LoopBoundUsed {
    std::string function;
    int loop = 0;
    std::uint32_t header = 0;
    std::uint64_t bound = 0;
    std::string context;                       ///< the call string, "" for the bounded function's own loops
    std::vector<std::uint32_t> context_calls;  ///< the same as call instruction addresses (FlowFact::context)
    std::string source;                        ///< "observed", "flow fact" or "never entered"
    std::uint64_t total = 0;                   ///< per entry of the enclosing loop, when used; 0: none
    std::string total_source;                  ///< "observed" or "flow fact"
    std::string total_over;                    ///< the loop the total is over when it encloses the call that leads here, "" its own parent
    /// Totals over one entry of loops further out in the function (a triangle three deep), or, of
    /// an outermost loop, of callers' loops beyond the nearest, by the loop's name ("f loop 2");
    /// for loops of its own function, their indices alongside; observed or from a flow fact.
    std::vector<std::pair<std::string, std::uint64_t>> outer_totals;
    std::vector<int> outer_total_loops;
    std::string outer_totals_source;
    std::string line;  ///< the header's source line, "file.c:12", when known
};

/// A recursion's bound in one context it is entered from outside: the most entries into its head,
/// per such call, that call included.
struct RecursionBoundUsed {
    std::string function;                      ///< the head (analysis/wcet/recursion.h)
    std::vector<std::string> cycle;            ///< the recursion's functions, the head first
    std::string context;                       ///< the call string of the call from outside, "" for the bounded function
    std::vector<std::uint32_t> context_calls;  ///< the same as call instruction addresses (FlowFact::context)
    std::uint64_t entries = 0;
    std::string source;  ///< "observed", "flow fact", or "no recursion seen" (1: the call alone)
    /// " (with g, h)": the recursion's other functions, as the outputs name them; "" for none.
    std::string others() const;
};

/// A block held to a path count: at most `count` executions per run of `per`.
struct PathCountUsed {
    std::string function;
    std::string context;                       ///< the call string, "" for the bounded function
    std::vector<std::uint32_t> context_calls;  ///< the same as call instruction addresses (FlowFact::context)
    std::uint32_t block = 0;
    std::uint64_t count = 0;
    std::string per;         ///< the scope function, "" for the bounded function's one run
    std::string source;      ///< "observed" or "flow fact"
    std::uint64_t runs = 0;  ///< runs of the scope in which the statistics saw the block (observed)
    std::size_t cap = 0;     ///< its IpetProblem::caps index
    /// Its cycles per run of `per`, where they were the same in every run (or a fact gives them)
    /// and below what its executions at their slowest cost; 0: not held. IpetProblem::cycle_caps
    /// index `cycle_cap`.
    std::uint64_t cycles = 0;
    std::size_t cycle_cap = 0;
    /// On the worst path the block runs as often as the count allows: the count holds the bound.
    bool binding = false;
};

/// A block on an irreducible cycle and the most executions per call the bound allows it.
struct CycleBlockUsed {
    std::string function;
    std::uint32_t block = 0;
    std::uint64_t most_per_call = 0;
    std::string where;  ///< address and source line
};

struct WcetResult {
    std::string function;
    std::uint64_t bound_cycles = 0;
    std::uint64_t insensitive_bound_cycles = 0;
    std::uint64_t observed_max_cycles = 0;
    std::uint64_t observed_runs = 0;
    std::vector<PathBlock> path;           ///< blocks executed on the worst path
    std::vector<FunctionShare> functions;  ///< per function, worst path
    std::vector<UnexecutedBlock> never_executed;
    std::vector<LoopBoundUsed> loops;
    std::vector<RecursionBoundUsed> recursions;
    std::vector<CycleBlockUsed> cycles;  ///< blocks of irreducible cycles, bounded per call
    std::vector<PathCountUsed> path_counts;
    /// The bound without the runs' path counts (any path mix; flow facts' counts still hold), and
    /// why the runs' were not used, if they were not.
    std::uint64_t any_path_bound_cycles = 0;
    std::string path_counts_unused;
    std::vector<std::string> warnings;  ///< indirect calls not followed, and the like
    /// Reasons not to trust the bound: it is below an observed run, or the statistics' function
    /// times disagree with the branch events of the same run (SoundnessReport). Empty: trusted.
    std::vector<std::string> errors;
    std::string cross_check;  ///< what the soundness cross-check covered, one line
    std::size_t blocks = 0;   ///< in the ILP
    Coverage coverage;
    /// Per block and context, bound against the longest run, largest gap first; empty when the
    /// statistics hold no profile of a run of the function.
    std::vector<GapBlock> gap;
    std::uint64_t profiled_cycles = 0;  ///< the profiled run's length (the longest observed)
    double solve_seconds = 0;           ///< both ILP solves
    std::size_t ilp_rows = 0, ilp_columns = 0;
    bool trusted() const { return errors.empty(); }
};

/// Throws ConfigError when the function is unknown, a loop it runs has no bound, or a recursion it
/// runs cannot be bounded by its entries.
WcetResult compute_wcet(const decode::Program& program, const StatisticsTable& stats, const WcetQuery& query);

}  // namespace emutrace::analysis::wcet
