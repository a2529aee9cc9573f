#pragma once
// Turns a scenario's stimuli (times in seconds, periods, seeded jitter) into a queue of events in
// emulated cycles. The same scenario and seed always give the same cycles.

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string_view>
#include <vector>

#include "emu/live_source.h"
#include "emu/machine_config.h"

namespace emutrace::emu {

/// What a stimulus acts on.
class StimulusTarget {
public:
    virtual ~StimulusTarget() = default;
    virtual void raise_irq(int irq) = 0;
    virtual void set_device_register(const std::string& device, const std::string& name, std::uint32_t value) = 0;
    virtual void receive_bytes(const std::string& device, std::string_view data) = 0;
};

class StimulusSchedule {
public:
    static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

    StimulusSchedule(const std::vector<Stimulus>& stimuli, std::uint64_t clock_hz, std::uint64_t seed);
    /// Cycle of the earliest stimulus still to come, or kNever.
    std::uint64_t next_time() const { return next_; }
    /// Performs every stimulus due at or before `now`, in time order.
    void fire_due(std::uint64_t now, StimulusTarget& target);
    /// Opens the live sources (uart_rx from a host path); throws ConfigError naming the path.
    void open_live_sources();

private:
    struct Entry {
        const Stimulus* stimulus;
        std::uint64_t start, period, jitter;
        std::uint64_t fired = 0;
        std::uint64_t next = kNever;
        std::mt19937_64 rng;
        LiveSource* source = nullptr;  ///< a live uart_rx: polled at each occurrence
    };
    std::uint64_t occurrence(Entry& e);
    void refresh_next();

    std::vector<Entry> entries_;
    std::vector<std::unique_ptr<LiveSource>> sources_;
    std::uint64_t next_ = kNever;
};

}  // namespace emutrace::emu
