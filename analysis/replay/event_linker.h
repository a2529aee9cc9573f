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
#include <unordered_set>
#include <vector>

#include "analysis/replay/event_log.h"

namespace emutrace::analysis::replay {

/// Handlers count as threads of their own: thread id kHandlerThread | exception number.
inline constexpr std::uint32_t kHandlerThread = 0xFFFFFF00u;

/// What a watch point is: a synchronisation function's entry, or one of an acquisition's returns.
struct WatchedCall {
    Operation op = Operation::Lock;
    bool at_return = false;  ///< this watch point is one of the function's returns
    std::string function;
    /// The operation when the call's object is a mutex (an RTOS preset's role_on_mutex): FreeRTOS
    /// gives a mutex and sends to a queue through one function.
    std::optional<Operation> on_mutex;
    /// Not an event: the objects of the watched calls made inside it are mutexes from then on.
    bool creates_mutex = false;
};

inline bool is_acquisition(Operation op) {
    return op == Operation::Lock || op == Operation::Receive;
}

/// A firmware-side recorder's events (kUnlinked: in the order they ran, `before` 0) with their
/// happens-before links, as the emulator's recorder would have made them from the same calls.
EventLog link_events(const EventLog& unlinked);

class EventLinker {
public:
    /// A watched call reached by `thread` with r0 and r1 there: the event it completes, or null
    /// when it only began one (an acquisition entered) or has none (a return without its entry).
    /// Releases happen at the entry, acquisitions at the return.
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
    /// What `thread`'s call of `call` on `object` is: its role, or its role on a mutex when the
    /// object is one (or the thread is creating a mutex, which the call then initialises).
    Operation operation(const WatchedCall& call, std::uint32_t object, std::uint32_t thread) const {
        if (!call.on_mutex) return call.op;
        auto c = creating_.find(thread);
        return mutexes_.count(object) || (c != creating_.end() && c->second) ? *call.on_mutex : call.op;
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
        Operation op;
        std::uint32_t object;
    };
    EventLog log_;
    std::unordered_set<std::uint32_t> mutexes_;                  ///< objects a mutex-creating call initialised
    std::unordered_map<std::uint32_t, std::uint32_t> creating_;  ///< per thread: mutex-creating calls entered
    bool keep_ = true;
    std::uint32_t count_ = 0;
    LogEvent last_;  ///< the last event, when events are not kept
    std::map<Operation, std::size_t> operations_;
    std::unordered_map<std::uint32_t, std::uint32_t> last_of_thread_;
    std::unordered_map<std::uint32_t, std::vector<Pending>> pending_;     ///< acquisitions entered, by thread
    std::unordered_map<std::uint32_t, std::uint32_t> last_release_;       ///< the last unlock, by object
    std::unordered_map<std::uint32_t, std::uint32_t> holder_;             ///< by mutex: the thread that locked it
    std::unordered_map<std::uint32_t, std::deque<std::uint32_t>> sends_;  ///< sends not yet received, by queue
    std::deque<std::uint32_t> creates_;                                   ///< creates whose thread has not run yet
};

}  // namespace emutrace::analysis::replay
