#pragma once
// Replays a recorded EventLog on the emulator (P-Replayer's replay phase). The outside world
// comes from the log: input reads return the recorded values and external interrupts are raised
// again, at their recorded cycle for an emulated recording or, for a board's, once the events
// before them have run. The happens-before order is enforced by the emulator, not the firmware: a
// thread whose next event's predecessor has not run yet is sent into the scenario's hold call
// (a yield, or a delay of one tick) from the entry of its synchronisation call, and comes back to
// that entry with its registers restored, so the RTOS runs the others meanwhile. Every event the
// replay makes is compared with the log; the first that differs stops the run.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/replay/context_tracker.h"
#include "analysis/replay/event_linker.h"
#include "analysis/replay/recorder.h"
#include "emutrace/sink.h"
#include "emutrace/steering.h"

namespace emutrace::decode {
class ElfImage;
}  // namespace emutrace::decode

namespace emutrace::analysis::replay {

/// Where a held thread is sent: a function the RTOS lets other threads run in.
struct HoldCall {
    std::uint32_t function = 0;
    std::uint32_t argument = 1;  ///< r0: the ticks of a delay
    std::string name;
};

struct ReplayConfig {
    RecorderConfig calls;
    std::optional<HoldCall> hold;      ///< none: an event whose predecessor has not run is a divergence
    std::uint32_t stall_holds = 2000;  ///< holds in a row without progress that count as a stall
    /// Deliver external interrupts once the events before them have run, not at their cycle
    /// (always so for a log from a board or from another cycle model).
    bool in_order = false;
};

/// The first event that differs from the log.
struct Divergence {
    std::optional<LogEvent> expected;  ///< none: the thread had no more events in the log
    LogEvent seen;
    std::string why;
    std::uint64_t cycle = 0;
    std::uint32_t pc = 0;
    std::vector<std::uint32_t> stack;  ///< the thread's call stack: function entries, outermost first
};

class Replayer final : public trace::Steering, public trace::TraceSink {
public:
    /// `image`: the firmware, for the call stack of a divergence.
    Replayer(ReplayConfig config, EventLog expected, const decode::ElfImage& image);

    // Steering
    trace::WatchOutcome at_watch(std::uint32_t address, trace::MachineControl& m) override;
    void at_exception(unsigned n, std::uint32_t pc, bool external, trace::MachineControl& m) override;
    std::uint32_t at_device_read(std::uint16_t device, std::uint32_t address, std::uint32_t value, trace::MachineControl& m) override;
    std::uint64_t next_time() const override;
    void at_time(trace::MachineControl& m) override;
    bool replaces_stimuli() const override { return true; }

    // TraceSink: thread names and call stacks, for the report.
    std::uint32_t wants() const override { return trace::WantBranches | trace::WantExceptions; }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;

    const EventLog& expected() const { return expected_; }
    /// The events the replay made, in the log's layout.
    const EventLog& replayed() const { return linker_.log(); }
    std::size_t reproduced() const { return reproduced_; }
    const std::optional<Divergence>& divergence() const { return divergence_; }
    /// The first expected event that never ran; none when all did (or the replay diverged).
    std::optional<LogEvent> first_missing() const;
    std::size_t missing() const { return expected_.events.size() - reproduced_; }
    /// Holds: how often a thread was sent into the hold call, and the cycles it spent there.
    std::size_t holds() const { return holds_; }
    std::uint64_t held_cycles() const { return held_cycles_; }
    /// Events that had to wait for their predecessor (n_d of the paper) and those that did not (n_nd).
    std::size_t delayed_events() const { return delayed_; }
    /// Which thread or handler a context id is, as reports name it.
    const ContextTracker& context_names() const { return tracker_; }
    /// Per thread: its events reproduced, and those of them that had to wait (were held).
    std::size_t events_of(std::uint32_t thread) const { return lookup(events_of_, thread); }
    std::size_t delayed_of(std::uint32_t thread) const { return lookup(delayed_of_, thread); }
    /// Cycles of [from, to) during which `thread` was held (in the hold call or waiting in it).
    std::uint64_t held_between(std::uint32_t thread, std::uint64_t from, std::uint64_t to) const;
    /// Whether external interrupts are delivered at their recorded cycle (else in order, and the
    /// interrupted pc is not compared).
    bool by_cycle() const { return by_cycle_; }

private:
    struct Held {
        std::uint32_t resume = 0;  ///< the call's entry, where the thread comes back
        std::uint32_t r[4] = {};
        std::uint32_t lr = 0;
        std::uint64_t since = 0;
        /// The hold call has not started yet: the next watch at its first instruction is its
        /// own entry, not the thread coming back (a held delay whose hold call is that delay).
        bool entering = true;
    };
    static std::uint32_t thread_of(const trace::MachineControl& m);
    const LogEvent* next_of(std::uint32_t thread) const;
    bool ready(const LogEvent& e) const { return e.before == 0 || done_[e.before - 1]; }
    /// A lock whose predecessor is the unlock the mutex's holder will do next: the RTOS makes
    /// it wait for exactly that unlock, as when recorded, so it need not be held.
    bool waits_for_holder(const LogEvent& lock) const;
    /// The first send to queue `object` in the log that has not run; 0 when none.
    std::uint32_t first_undone_send(std::uint32_t object);
    /// A receive from an empty queue whose predecessor is the next send to it: the RTOS makes
    /// it wait for exactly that send (sends to a queue are kept in their logged order).
    bool waits_for_send(const LogEvent& receive);
    /// Compares an event the replay made with the thread's next in the log: on a match it counts
    /// as reproduced, else the replay stops.
    void check(const LogEvent& seen, bool compare_value, trace::MachineControl& m);
    void diverge(const LogEvent* expected, const LogEvent& seen, std::string why, trace::MachineControl& m);
    void hold(std::uint32_t thread, std::uint32_t entry, trace::MachineControl& m);
    /// By-order injection: raises the external interrupts whose predecessors have all run.
    void inject_due(trace::MachineControl& m);
    static std::size_t lookup(const std::unordered_map<std::uint32_t, std::size_t>& m, std::uint32_t k) {
        auto it = m.find(k);
        return it == m.end() ? 0 : it->second;
    }

    ReplayConfig config_;
    EventLog expected_;
    EventLinker linker_;
    std::vector<char> done_;                                                ///< by seq - 1
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> queues_;  ///< per thread: its events' indices, in order
    std::unordered_map<std::uint32_t, std::size_t> cursor_;                 ///< per thread: the next of its queue
    std::unordered_map<std::uint32_t, Held> held_;
    std::unordered_map<std::uint32_t, bool> waited_;  ///< per thread: its next event was held at least once
    std::vector<std::uint32_t> externals_;            ///< indices of the external interrupts, in log order
    std::size_t next_external_ = 0;
    bool by_cycle_ = true;
    std::uint32_t prefix_ = 0;  ///< every event up to this seq has run
    std::size_t reproduced_ = 0, holds_ = 0, delayed_ = 0, holds_without_progress_ = 0;
    std::uint64_t held_cycles_ = 0;
    std::optional<Divergence> divergence_;
    InputDevices inputs_;

    std::unordered_map<std::uint32_t, std::size_t> events_of_, delayed_of_;
    /// Per queue: its sends' seqs in log order, and how many of the first have run.
    std::unordered_map<std::uint32_t, std::pair<std::vector<std::uint32_t>, std::size_t>> sends_of_;
    /// Per thread: [hold, resume) cycle intervals in order; the last one open (~0) while held.
    std::unordered_map<std::uint32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> holds_of_;

    // The sink's view, for the report.
    ContextTracker tracker_;
    CallTracer calls_;
};

}  // namespace emutrace::analysis::replay
