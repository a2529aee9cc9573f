#pragma once
// The continuous aggregation of Dreyer et al. as a sink: the measurement module (a block's time is
// the next trace point's stamp minus its own), the loop module (LoopContextTracker) and the
// statistics module (BlockRecord per trace point), all O(1) per block event. Exception handlers are
// measured as their own routines; the interrupted block is suspended meanwhile, so the handler's
// time is kept out of it and out of the end-to-end times of the functions it interrupts. A
// function entered by a tail call is a run of its own, and its time is also part of the run of
// the function it replaced, which returns with it (as the IPET bound counts it).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/loop_context.h"
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
    WcetAggregator(const decode::Program& program, const TracePoints& points);

    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions; }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;

    /// What this run measured, keyed by address (mergeable with saved tables).
    StatisticsTable table() const;
    const LoopContextTracker& tracker() const { return tracker_; }

private:
    void on_block(const trace::Event& e);
    /// The block of trace point `next` starts at `cycle`.
    void enter(std::uint32_t next, std::uint32_t address, std::uint64_t cycle);
    /// The blocks after trace point `id` that one Block event ran through, up to `range_end`.
    void step_through(std::uint32_t id, std::uint32_t range_end, std::uint64_t cycle);
    void on_exception_entry(const trace::Event& e);
    void on_exception_return(const trace::Event& e);
    void close(std::uint64_t cycle);

    struct Call {
        std::uint32_t function;
        std::uint64_t start;
        std::uint64_t excluded_at_start;  ///< exception cycles so far when the call began
        bool tail = false;                ///< entered by a tail call: returns with the call below it
    };
    /// A block an exception interrupted, and how long it had run.
    struct Suspended {
        std::int64_t block = -1;
        unsigned index = 0;
        std::uint64_t elapsed = 0;
        std::size_t calls = 0;  ///< open calls at the exception
    };

    const decode::Program& program_;
    const TracePoints& points_;
    LoopContextTracker tracker_;
    std::vector<BlockRecord> records_;
    std::vector<TimeStat> function_times_;
    std::vector<Call> calls_;
    std::map<std::uint32_t, std::map<std::uint32_t, std::set<std::uint32_t>>> indirect_targets_;  ///< StatisticsTable::indirect_targets
    void record_indirect_call(std::uint32_t from, std::uint32_t target);
    /// A run of function `f` ended: its counted blocks' executions in it go into the maxima.
    void fold_counts(std::uint32_t f);
    std::vector<std::uint8_t> counted_;                   ///< per trace point: TracePoint::counted
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
