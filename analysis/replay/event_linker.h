#pragma once
// Turns synchronisation calls, interrupts and input reads into log events with their
// happens-before links. One set of rules for recording (fed from the event stream) and for replay
// (fed by the machine as it runs), so that both build the same events from the same execution.
// `before` is the event's partner in another thread when it has one (the unlock a lock follows,
// the send a receive takes, the create a new thread starts after), else the thread's previous
// event; program order within a thread is implied by the thread.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/replay/event_log.h"

namespace emutrace::analysis::replay {

/// Handlers count as threads of their own: thread id kHandlerThread | exception number.
inline constexpr std::uint32_t kHandlerThread = 0xFFFFFF00u;

inline bool is_acquisition(Operation op) {
    return op == Operation::Lock || op == Operation::Receive;
}

/// What a watch point is: a synchronisation function's entry, or one of its returns (an
/// acquisition's always, another's when an RTOS preset names it).
struct WatchedCall {
    Operation op = Operation::Lock;
    bool at_return = false;  ///< this watch point is one of the function's returns
    std::string function{};
    /// The operation when the call passes no item (r1 null; an RTOS preset's role_without_item):
    /// FreeRTOS gives a mutex or semaphore and sends to a queue through one function.
    std::optional<Operation> without_item{};
    /// The call's object is the calling thread, not r0 (a FreeRTOS notification's take).
    bool object_is_caller = false;
    /// A release whose returns are watched too, so that the synchronisation calls it makes are
    /// part of it (a FreeRTOS stream buffer's send notifies the task waiting for it).
    bool returns_watched = false;

    /// What the call is, with r1 there at its entry.
    Operation operation(std::uint32_t r1) const { return without_item && r1 == 0 ? *without_item : op; }
    /// Its object, with r0 there at its entry.
    std::uint32_t object(std::uint32_t r0, std::uint32_t thread) const { return object_is_caller ? thread : r0; }
    /// Whether its end is seen: the calls made inside it are then its own.
    bool ends_watched() const { return returns_watched || is_acquisition(op); }
};

/// A firmware-side recorder's events (kUnlinked: in the order they ran, `before` 0) with their
/// happens-before links, as the emulator's recorder would have made them from the same calls.
EventLog link_events(const EventLog& unlinked);

class EventLinker {
public:
    /// A watched call reached by `thread` with r0 and r1 there: the event it completes, or null
    /// when it only began one (an acquisition entered) or has none (a return without its entry, a
    /// call inside another watched call's, which is part of that one). Releases happen at the
    /// entry, acquisitions at the return.
    const LogEvent* call(const WatchedCall& call, std::uint32_t r0, std::uint32_t r1, std::uint32_t thread, std::uint64_t cycle);
    /// Exception `n` taken, interrupting `pc`; `thread` is its handler's.
    const LogEvent& interrupt(unsigned n, std::uint32_t pc, bool external, std::uint32_t thread, std::uint64_t cycle);
    /// A read of an input register returned `value`.
    const LogEvent& input(std::uint32_t address, std::uint32_t value, std::uint32_t thread, std::uint64_t cycle);

    /// Items sent to queue `object` and not yet received, as the events so far tell.
    std::size_t items(std::uint32_t object) const {
        auto q = sends_.find(object);
        return q == sends_.end() ? 0 : q->second.size();
    }
    /// Whether `thread` is inside a watched call, whose calls are its own and no events.
    bool inside_call(std::uint32_t thread) const {
        auto d = depth_.find(thread);
        return d != depth_.end() && d->second;
    }
    /// The thread holding mutex `object` as the events so far tell; 0 when none.
    std::uint32_t holder(std::uint32_t object) const {
        auto h = holder_.find(object);
        return h == holder_.end() ? 0 : h->second;
    }

    /// The events made so far, when they are kept (the default); a recording written as it goes
    /// keeps none, and an event returned is then valid until the next call.
    const EventLog& log() const { return log_; }
    EventLog& log() { return log_; }
    void keep_events(bool keep) { keep_ = keep; }
    std::size_t threads() const { return last_of_thread_.size(); }
    /// Events made so far, kept or not, and how many of each operation.
    std::uint32_t events() const { return count_; }
    const std::map<Operation, std::size_t>& operations() const { return operations_; }

private:
    const LogEvent& record(Operation op, std::uint32_t object, std::uint32_t value, std::uint32_t partner, std::uint32_t thread, std::uint64_t cycle,
                           std::uint8_t flags = 0);
    struct Pending {
        Operation op = Operation::Lock;
        std::uint32_t object = 0;
    };
    EventLog log_;
    bool keep_ = true;
    std::uint32_t count_ = 0;
    LogEvent last_;  ///< the last event, when events are not kept
    std::map<Operation, std::size_t> operations_;
    std::unordered_map<std::uint32_t, std::uint32_t> last_of_thread_;
    std::unordered_map<std::uint32_t, std::uint32_t> depth_;              ///< by thread: watched calls entered, not yet returned
    std::unordered_map<std::uint32_t, Pending> pending_;                  ///< by thread: the outermost acquisition entered
    std::unordered_map<std::uint32_t, std::uint32_t> last_release_;       ///< the last unlock, by object
    std::unordered_map<std::uint32_t, std::uint32_t> holder_;             ///< by mutex: the thread that locked it
    std::unordered_map<std::uint32_t, std::deque<std::uint32_t>> sends_;  ///< sends not yet received, by queue
    std::deque<std::uint32_t> creates_;                                   ///< creates whose thread has not run yet
};

}  // namespace emutrace::analysis::replay
