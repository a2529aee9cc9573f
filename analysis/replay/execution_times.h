#pragma once
// Execution time per thread and per function with the replay's overhead removed (P-Replayer's
// equations 1'-5'). Each cycle of the run is charged to the context that ran it (a thread, or a
// handler), and, within it, to one of:
//   - instrumentation: code that exists only to record (the firmware-side recorder's functions,
//     replay: instrumentation:), the paper's n_nd * c_nd (and the recording part of n_d * c_d);
//   - hold: the thread's own cycles in the hold call the replay sent it into, the rest of n_d * c_d;
//   - the program's own work.
// The paper calibrates c_nd and c_d offline because a multi-core host cannot attribute them
// online; on one emulated core every cycle is attributed, so they are measured per event here,
// but for what the recorder costs its caller outside its functions (setting up the arguments,
// the call itself): a constant per call site, calibrated offline (bench/bench_replay).
// The analyses attached to a replay (race detector, call tracer) cost the firmware no cycle at
// all: O_profile is 0. The estimate of a thread is its cycles minus its overhead; of a function
// call, the thread's own cycles between its entry and exit minus the overhead in between.

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/replay/context_tracker.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::replay {

class Replayer;

struct ContextTime {
    std::uint64_t cycles = 0;           ///< all the context ran (C_replay-T)
    std::uint64_t instrumentation = 0;  ///< of them, in instrumentation functions and their call sites
    std::uint64_t recorder_calls = 0;   ///< calls into instrumentation from the program
    std::uint64_t hold = 0;             ///< of them, in the replay's hold call
    std::uint64_t estimate() const { return cycles - instrumentation - hold; }
};

struct FunctionTime {
    std::uint64_t calls = 0;     ///< calls that returned
    std::uint64_t cycles = 0;    ///< their own thread's cycles from entry to exit, summed
    std::uint64_t overhead = 0;  ///< instrumentation and hold cycles among them
    std::uint64_t estimate() const { return cycles - overhead; }
};

class ExecutionTimes final : public trace::TraceSink {
public:
    /// `instrumentation`: [start, end) of the functions whose cycles are recording overhead.
    /// `replayer`: the replay whose holds are overhead; null for a recording. `site_cycles`: what
    /// a call into instrumentation costs the caller.
    ExecutionTimes(std::vector<std::pair<std::uint32_t, std::uint32_t>> instrumentation, const Replayer* replayer, std::uint32_t site_cycles);
    std::uint32_t wants() const override { return trace::WantBranches | trace::WantExceptions; }
    void on_batch(const trace::EventBatch& batch) override;

    /// By context: thread control block, or kHandlerThread | exception.
    const std::map<std::uint32_t, ContextTime>& contexts() const { return contexts_; }
    /// By function start address.
    const std::map<std::uint32_t, FunctionTime>& functions() const { return functions_; }
    /// Which thread or handler a context id is, as reports name it.
    const ContextTracker& context_names() const { return tracker_; }

private:
    struct Frame {
        std::uint32_t function = 0;
        std::uint64_t cycles_at_entry = 0, overhead_at_entry = 0;
        bool instrumentation = false;  ///< this frame or one it was called from is instrumentation
    };
    bool instrumentation(std::uint32_t address) const;
    /// Charges the cycles since the last event to the context that ran them.
    void charge(std::uint64_t now);

    std::vector<std::pair<std::uint32_t, std::uint32_t>> instrumentation_;
    const Replayer* replayer_;
    std::uint32_t site_cycles_;
    ContextTracker tracker_;
    std::uint64_t last_ = 0;
    std::map<std::uint32_t, ContextTime> contexts_;
    std::unordered_map<std::uint32_t, std::vector<Frame>> stacks_;
    std::map<std::uint32_t, FunctionTime> functions_;
};

}  // namespace emutrace::analysis::replay
