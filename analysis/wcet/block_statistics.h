#pragma once
// The statistics module of Dreyer et al. (WCET 2015, section 3.3): per basic block, the minimum,
// maximum, total and count of its measured execution times, kept separately for the first and the
// later iterations of its innermost loop. Updating is O(1) and the table's size depends on the
// program, not on the run. Tables of the same firmware merge associatively (min of mins, max of
// maxes, sums), so many runs, or a long soak, aggregate into one.

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace emutrace::analysis::wcet {

struct TimeStat {
    std::uint64_t min = UINT64_MAX, max = 0, total = 0, count = 0;
    void add(std::uint64_t t) {
        // Branches, not conditional moves: a block's time rarely sets a new extreme, and a cmov
        // would chain every update to the previous one through memory.
        if (t < min) [[unlikely]]
            min = t;
        if (t > max) [[unlikely]]
            max = t;
        total += t;
        ++count;
    }
    void merge(const TimeStat& o) {
        min = o.min < min ? o.min : min;
        max = o.max > max ? o.max : max;
        total += o.total;
        count += o.count;
    }
    bool seen() const { return count > 0; }
};

/// How often a block ran per run of its context's scope (LoopContextTracker::scope(): the
/// activation at the bottom of the call string, which holds every run of the context it made):
/// the most and the least over the scope's runs in which it ran, and in how many it ran. A count
/// the same in every run of the scope is a path count the IPET may hold the block to.
struct ScopeCount {
    std::uint64_t most = 0, least = UINT64_MAX, scopes = 0;
    void add(std::uint64_t count) {
        most = count > most ? count : most;
        least = count < least ? count : least;
        ++scopes;
    }
    void merge(const ScopeCount& o) {
        most = o.most > most ? o.most : most;
        least = o.least < least ? o.least : least;
        scopes += o.scopes;
    }
    bool seen() const { return scopes > 0; }
};

/// What one block measured; [0] first iterations (and blocks outside loops), [1] later iterations.
struct BlockRecord {
    TimeStat context[2];
    /// The same times split by the CFG successor the block left for, by its start address: a block
    /// that ends with a conditional branch takes longer when the branch is taken (the pipeline
    /// refills), and the IPET charges each edge its own time. Leaving by a call, a return or an
    /// exception is in `context` only.
    std::map<std::uint32_t, std::array<TimeStat, 2>> exits;
    /// Executions, and their cycles, per run of the context's scope; kept per context only (a
    /// union over contexts mixes scopes).
    ScopeCount per_scope, cycles_per_scope;
    void merge(const BlockRecord& other);
    bool seen() const { return context[0].seen() || context[1].seen(); }
};

/// A call-string context (analysis/wcet/call_context.h) by addresses: the start addresses of the
/// calling blocks, outermost first, and the function that runs in it.
struct ContextKey {
    std::vector<std::uint32_t> calls;
    std::uint32_t function = 0;
    auto operator<=>(const ContextKey&) const = default;
};

/// What the runs measured in one context.
struct ContextRecord {
    std::map<std::uint32_t, BlockRecord> blocks;         ///< by block start address
    std::map<std::uint32_t, std::uint64_t> loop_bounds;  ///< as StatisticsTable's, in this context
    std::map<std::uint32_t, std::uint64_t> loop_totals;
    /// Of a loop two or more levels deep, by (its header, the header of a loop around its parent):
    /// the most header executions over one entry of that outer loop (three loops in a triangle).
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> loop_totals_over;
    /// Of a recursive function entered in this context from outside its recursion: the most
    /// entries into it in one such activation, that one included (RecursionCounter); 0 where it
    /// never recursed.
    std::uint64_t recursion = 0;
    /// Of a function on a cycle of direct calls, in one outermost activation entered in this
    /// context: the most entries into each function of the cycle (by start address) and executions
    /// of each loop header there (by address), RecursionCounter::cycle_counts().
    std::map<std::uint32_t, std::uint64_t> recursion_entries, recursion_headers;
    /// Of every block of the functions on that cycle (by address), per activation of the cycle
    /// entered from outside in this context: its most and least executions in one, and the
    /// activations (RecursionCounter::block_counts()); held to where every activation agreed.
    std::map<std::uint32_t, ScopeCount> recursion_blocks;
    void merge(const ContextRecord& other);
    /// merge()'s part for the recursion's counts alone (recursion and recursion_*).
    void merge_recursion(const ContextRecord& other);
};

/// Per block and context, what one run of a function executed: the longest run, so that the
/// bound can say where it parts from it.
struct RunProfile {
    std::uint32_t function = 0;  ///< start address of the profiled function
    std::uint64_t cycles = 0;    ///< the run's length
    struct Executions {
        std::uint64_t count = 0, cycles = 0;
    };
    /// By (context, block start address): [0] first iterations, [1] later ones.
    std::map<std::pair<ContextKey, std::uint32_t>, std::array<Executions, 2>> blocks;
};

/// End-to-end times of a function, from its entry to its return, exceptions excluded.
struct FunctionRecord {
    TimeStat time;
};

/// The aggregate of runs of one firmware, keyed by addresses so that it outlives a rebuild of the
/// analysis (and merges across processes).
struct StatisticsTable {
    std::string firmware;  ///< the ELF the runs executed
    std::string code_id;   ///< identifies its code bytes: tables of other builds do not merge
    std::uint64_t runs = 0;
    std::uint64_t checked_runs = 0;                      ///< runs whose function times passed the soundness check
    std::map<std::uint32_t, BlockRecord> blocks;         ///< by block start address
    std::map<std::uint32_t, std::uint64_t> loop_bounds;  ///< most iterations per entry, by header address
    /// Of a nested loop, the most header executions in one entry of its enclosing loop, by header
    /// address (LoopContextTracker::max_totals()).
    std::map<std::uint32_t, std::uint64_t> loop_totals;
    /// Of a block on an irreducible cycle, the most executions in one call of its function, by
    /// block address.
    std::map<std::uint32_t, std::uint64_t> most_per_call;
    std::map<std::uint32_t, FunctionRecord> functions;  ///< by function start address
    /// Functions an indirect call (BLX rN) was seen to enter, by the calling block's start address,
    /// each with the functions that were running when it did (the caller and its callers): a
    /// bound of one of those counts the target, a bound of another function does not (printf's
    /// output callback is not snprintf's).
    std::map<std::uint32_t, std::map<std::uint32_t, std::set<std::uint32_t>>> indirect_targets;
    /// The call-string length k of `contexts` (0: one context per function).
    unsigned call_depth = 0;
    /// The same measurements per call-string context. `blocks`, `loop_bounds` and `loop_totals`
    /// above are their union over contexts, kept for readers that need no context.
    std::map<ContextKey, ContextRecord> contexts;
    /// Contexts were too many to tell apart (CallContexts::overflowed): bounds use none.
    bool contexts_folded = false;
    /// The contexts count recursion (ContextRecord::recursion); false for files written before it.
    bool counts_recursion = true;
    /// The longest run of the function the aggregation profiled (WcetAggregator::profile), if any.
    std::optional<RunProfile> longest_run;

    /// Keeps only the last `depth` call sites of every context, merging those that become equal.
    void truncate_contexts(unsigned depth);

    /// Throws ConfigError when the tables come from different code (code_id). Tables of different
    /// call-string lengths merge at the shorter one.
    void merge(const StatisticsTable& other);
    /// Writes the table as JSON; throws ConfigError when the file cannot be written.
    void save(const std::string& path) const;
    /// Reads a table written by save(); throws ConfigError naming the file and what is wrong.
    static StatisticsTable load(const std::string& path);
};

}  // namespace emutrace::analysis::wcet
