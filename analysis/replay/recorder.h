#pragma once
// Records a run's synchronisation and input events into an EventLog, from the emulator's event
// stream alone (watch points on the configured functions, thread switches, exceptions, device
// reads): the firmware is not touched. Releases (unlock, send, create, delay, yield, delete) are
// recorded at the function's entry, acquisitions (lock, receive) at its return, when they have
// happened. `before` is the event's partner in another thread when it has one (the unlock a lock
// follows, the send a receive takes, the create a new thread starts after), else the thread's
// previous event; program order within a thread is implied by the thread.

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/replay/event_log.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::replay {

/// Handlers count as threads of their own: thread id kHandlerThread | exception number.
inline constexpr std::uint32_t kHandlerThread = 0xFFFFFF00u;

struct WatchedCall {
    Operation op = Operation::Lock;
    bool at_return = false;  ///< this watch point is one of the function's returns
    std::string function;
};

struct RecorderConfig {
    std::unordered_map<std::uint32_t, WatchedCall> watches;  ///< by watch point address
    std::vector<std::string> input_devices;                  ///< reads of these devices are inputs
    bool interrupts = true;                                  ///< record interrupt deliveries (exceptions 15 and up)
};

class Recorder final : public trace::TraceSink {
public:
    explicit Recorder(RecorderConfig config) : config_(std::move(config)) {}
    std::uint32_t wants() const override {
        return trace::WantWatches | trace::WantExceptions | (config_.input_devices.empty() ? 0u : static_cast<std::uint32_t>(trace::WantMmio));
    }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;

    const EventLog& log() const { return log_; }
    std::size_t threads() const { return last_of_thread_.size(); }

private:
    std::uint32_t thread() const { return handlers_.empty() ? current_thread_ : kHandlerThread | handlers_.back(); }
    void record(Operation op, std::uint32_t object, std::uint32_t value, std::uint32_t partner);
    void on_watch(const trace::Event& e);

    struct Pending {
        Operation op;
        std::uint32_t object;
    };
    RecorderConfig config_;
    std::vector<bool> input_device_;  ///< by device index
    EventLog log_;
    std::uint32_t current_thread_ = 0;
    std::vector<std::uint32_t> handlers_;  ///< exception numbers, innermost last
    std::unordered_map<std::uint32_t, std::uint32_t> last_of_thread_;
    std::unordered_map<std::uint32_t, std::vector<Pending>> pending_;     ///< acquisitions entered, by thread
    std::unordered_map<std::uint32_t, std::uint32_t> last_release_;       ///< the last unlock, by object
    std::unordered_map<std::uint32_t, std::deque<std::uint32_t>> sends_;  ///< sends not yet received, by queue
    std::deque<std::uint32_t> creates_;                                   ///< creates whose thread has not run yet
};

}  // namespace emutrace::analysis::replay
