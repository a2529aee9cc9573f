#pragma once
// The continuous aggregation of Dreyer et al. as a sink: the measurement module (a block's time is
// the next trace point's stamp minus its own), the loop module (LoopContextTracker) and the
// statistics module (BlockRecord per trace point), all O(1) per block event. Exception handlers are
// measured as their own routines; the interrupted block is suspended meanwhile, so the handler's
// time is kept out of it and out of the end-to-end times of the functions it interrupts. A
// function entered by a tail call is a run of its own, and its time is also part of the run of
// the function it replaced, which returns with it (as the IPET bound counts it).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/loop_context.h"
#include "analysis/wcet/recursion_counter.h"
#include "analysis/wcet/trace_points.h"
#include "emutrace/sink.h"

namespace emutrace::decode {
class Program;
}  // namespace emutrace::decode

namespace emutrace::analysis::wcet {

class WcetAggregator final : public trace::TraceSink {
public:
    /// Both must outlive the aggregator. For exact per-block times the source should start a block
    /// event at every trace point (emu::MachineConfig::trace_points = points.addresses()).
    /// `call_depth`: the call-string length k of the contexts blocks and loops are kept per.
    WcetAggregator(const decode::Program& program, const TracePoints& points, unsigned call_depth = 0);

    /// Keep the profile of the longest run of function `function` (Program::functions() index):
    /// per block and context, its executions and cycles (StatisticsTable::longest_run).
    void profile(std::uint32_t function) { profiled_ = function; }

    /// Blocks' costs it does not read: a block's time is the next event's stamp minus its own.
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions | trace::BlockCostUnused; }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;

    /// What this run measured, keyed by address (mergeable with saved tables).
    StatisticsTable table() const;
    const LoopContextTracker& tracker() const { return tracker_; }

private:
    void on_block(const trace::Event& e);
    /// The block of trace point `next` starts at `cycle`.
    void enter(std::uint32_t next, std::uint32_t address, std::uint64_t cycle);
    /// The record of trace point `point` in the tracker's current context.
    std::uint32_t record_of(std::uint32_t point) {
        const std::uint32_t context = tracker_.context();
        if (context != context_) [[unlikely]]
            switch_context(context);
        return point - context_first_ < context_size_ ? context_base_ + point - context_first_ : foreign_record(point);
    }
    void switch_context(std::uint32_t context);
    std::uint32_t foreign_record(std::uint32_t point);
    /// The blocks after trace point `id` that one Block event ran through, up to `range_end`.
    void step_through(std::uint32_t id, std::uint32_t range_end, std::uint64_t cycle);
    void on_exception_entry(const trace::Event& e);
    void on_exception_return(const trace::Event& e);
    /// The block being measured ends at `cycle`; `next` is the trace point it left for, if known.
    void close(std::uint64_t cycle, std::uint32_t next = UINT32_MAX);
    void add_contexts(StatisticsTable& t) const;

    struct Call {
        std::uint32_t function;
        std::uint64_t start;
        std::uint64_t excluded_at_start;  ///< exception cycles so far when the call began
        bool tail = false;                ///< entered by a tail call: returns with the call below it
    };
    /// A block an exception interrupted, and how long it had run.
    struct Suspended {
        std::int64_t block = -1;
        std::uint32_t record = 0;
        unsigned index = 0;
        std::uint64_t elapsed = 0;
        std::size_t calls = 0;  ///< open calls at the exception
        std::size_t roots = 0;  ///< open activations entered from nowhere (roots_) at the exception
    };

    const decode::Program& program_;
    const TracePoints& points_;
    LoopContextTracker tracker_;
    /// What a block measured in one context: its times, and per CFG successor the times when it
    /// left for that one.
    struct Record {
        TimeStat time[2];
        // Beside the times each event updates: the open scope run's counts.
        std::uint64_t scope = 0;    ///< the scope run `running` counts in (LoopContextTracker::scope())
        std::uint64_t running = 0;  ///< executions in that run so far
        std::uint64_t running_cycles = 0;
        TimeStat exit[2][2];
        ScopeCount per_scope, cycles_per_scope;
        /// An execution of `t` cycles in scope run `s`: a run of another scope closes the counts
        /// of the last one.
        void count_in(std::uint64_t s, std::uint64_t t) {
            if (s != scope) [[unlikely]] {
                close_run(per_scope, cycles_per_scope);
                scope = s;
                running = running_cycles = 0;
            }
            ++running;
            running_cycles += t;
        }
        /// The counts (executions, cycles) with the last scope's run closed as far as it got.
        std::pair<ScopeCount, ScopeCount> scope_counts() const {
            std::pair<ScopeCount, ScopeCount> c{per_scope, cycles_per_scope};
            close_run(c.first, c.second);
            return c;
        }
        /// Adds the open scope run's counts, if it ran, to `counts` and `cycles`.
        void close_run(ScopeCount& counts, ScopeCount& cycles) const {
            if (running == 0) return;
            counts.add(running);
            cycles.add(running_cycles);
        }
    };
    std::vector<Record> records_;  ///< per (context, trace point): a context's function's points are one run of it
    struct ContextRecords {
        std::uint32_t base = 0, first = 0, size = 0;  ///< records_[base + p - first] for p in [first, first + size)
        bool folded = false;                          ///< shares its function's records of last resort
    };
    /// At most this many records (264 bytes each): past it contexts fold (switch_context).
    static constexpr std::size_t kMostRecords = std::size_t{1} << 20;
    static constexpr std::uint32_t kFoldedContext = UINT32_MAX;  ///< foreign_'s key for records past the budget
    bool folded_ = false;
    std::map<std::uint32_t, std::uint32_t> folded_records_;     ///< per function: its records of last resort
    std::vector<ContextRecords> context_records_;               ///< per context id
    std::unordered_map<std::uint64_t, std::uint32_t> foreign_;  ///< (context << 32 | point) of another function's code
    /// Not a trace point, and unlike close()'s UINT32_MAX (no next block) never equal to one.
    static constexpr std::uint32_t kNoSuccessor = UINT32_MAX - 1;
    std::vector<std::array<std::uint32_t, 2>> successors_;  ///< per trace point: its first two CFG successors, or kNoSuccessor
    std::vector<std::uint32_t> first_point_;                ///< per function: its first trace point
    std::uint32_t context_ = UINT32_MAX, context_base_ = 0, context_first_ = 0, context_size_ = 0;
    std::uint32_t current_record_ = 0;
    // The profile of the run of profiled_ in progress (per record: [first, later] executions) and
    // of the longest finished one.
    struct Executions {
        std::uint64_t count = 0, cycles = 0;
    };
    void add_to_profile(std::uint64_t t);
    void finish_profile(std::uint64_t run_cycles);
    std::uint32_t profiled_ = UINT32_MAX;
    bool profiling_ = false;
    std::size_t profiled_call_ = 0;  ///< index in calls_ of the profiled run's call
    std::vector<Executions> profile_;
    std::vector<std::uint32_t> touched_;  ///< profile_ entries of the run in progress
    struct Profiled {
        std::uint32_t entry;
        Executions e;
    };
    std::vector<Profiled> longest_;
    std::uint64_t longest_cycles_ = 0;
    bool have_longest_ = false;
    std::vector<TimeStat> function_times_;
    std::vector<Call> calls_;
    /// The innermost open call returned (or an exception return cut it off).
    void pop_call();
    RecursionCounter recursion_;
    std::map<std::uint32_t, std::map<std::uint32_t, std::set<std::uint32_t>>> indirect_targets_;  ///< StatisticsTable::indirect_targets
    void record_indirect_call(std::uint32_t from, std::uint32_t target);
    /// A run of function `f` ended: its counted blocks' executions in it go into the maxima.
    void fold_counts(std::uint32_t f);
    /// Per trace point: kCountedPerCall (TracePoint::counted), kCountedInRecursion (a loop header the
    /// recursion counter counts), kCountedInCycle (a block of a function on a cycle of calls).
    std::vector<std::uint8_t> counted_;
    static constexpr std::uint8_t kCountedPerCall = 1, kCountedInRecursion = 2, kCountedInCycle = 4;
    std::vector<std::uint32_t> roots_;                    ///< functions entered from nowhere, open: reset's, then one per exception being handled
    std::vector<std::uint32_t> counts_;                   ///< per counted trace point: executions in the open run
    std::vector<std::uint64_t> most_per_call_;            ///< per counted trace point
    std::vector<std::vector<std::uint32_t>> counted_of_;  ///< per function: its counted trace points
    std::vector<Suspended> suspended_;                    ///< one per exception being handled
    std::optional<Suspended> resume_;                     ///< set at an exception return, taken up by the next block
    std::string firmware_;
    std::int64_t current_ = -1;  ///< the trace point being measured
    unsigned current_index_ = 0;
    std::uint64_t current_start_ = 0;
    std::uint64_t exception_cycles_ = 0;  ///< time spent in exception handlers, entry to the resumed block
    std::uint64_t exception_start_ = 0;
    unsigned exception_depth_ = 0;
    bool resuming_ = false;
};

}  // namespace emutrace::analysis::wcet
