#pragma once
// Records a run's synchronisation and input events into an EventLog, from the emulator's event
// stream alone (watch points on the configured functions, thread switches, exceptions, device
// reads): the firmware is not touched. The events and their links are EventLinker's.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/replay/context_tracker.h"
#include "analysis/replay/event_linker.h"
#include "analysis/replay/event_log_writer.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::replay {

/// Which interrupt deliveries are events.
enum class InterruptEvents : std::uint8_t {
    None,
    External,  ///< those the outside world raised (stimuli, live input): the run's nondeterminism (default)
    All,       ///< also the machine's own (SysTick, SVC, PendSV is below 15 and never counted)
};

struct RecorderConfig {
    std::unordered_map<std::uint32_t, WatchedCall> watches;  ///< by watch point address
    std::vector<std::string> input_devices;                  ///< reads of these devices are inputs
    InterruptEvents interrupts = InterruptEvents::External;
    /// Whether exception `n` (external or not) is an event under this configuration.
    bool records(unsigned n, bool external) const {
        return n >= 15 && (interrupts == InterruptEvents::All || (interrupts == InterruptEvents::External && external));
    }
};

/// Which devices are inputs, by device index, and which exceptions their interrupt lines raise:
/// an input device's interrupt is the outside world's even when the device raises it from its
/// own state (a UART's next received byte), since a replay serves that device from the log.
class InputDevices {
public:
    void on_start(const trace::RunInfo& info, const std::vector<std::string>& names);
    bool is_input(std::uint16_t device) const { return device < input_.size() && input_[device]; }
    bool is_input_exception(unsigned n) const { return std::find(exceptions_.begin(), exceptions_.end(), n) != exceptions_.end(); }

private:
    std::vector<bool> input_;
    std::vector<unsigned> exceptions_;
};

class Recorder final : public trace::TraceSink {
public:
    explicit Recorder(RecorderConfig config) : config_(std::move(config)) {}
    std::uint32_t wants() const override {
        return trace::WantWatches | trace::WantExceptions | (config_.input_devices.empty() ? 0u : static_cast<std::uint32_t>(trace::WantMmio));
    }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;

    /// The recording so far, when it is not written as it goes.
    const EventLog& log() const { return linker_.log(); }
    EventLog& log() { return linker_.log(); }
    std::size_t threads() const { return linker_.threads(); }
    std::uint32_t events() const { return linker_.events(); }
    const std::map<Operation, std::size_t>& operations() const { return linker_.operations(); }
    /// Writes each event to `writer` as it is made, keeping none (null: keep them in log()).
    void write_to(EventLogWriter* writer) {
        writer_ = writer;
        linker_.keep_events(!writer);
    }

private:
    void made(const LogEvent& e) {
        if (writer_) writer_->append(e);
    }
    RecorderConfig config_;
    EventLinker linker_;
    EventLogWriter* writer_ = nullptr;
    InputDevices inputs_;
    ContextTracker tracker_;
};

}  // namespace emutrace::analysis::replay
