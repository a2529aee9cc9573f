#pragma once
// Steering: an analysis that acts on the run while it happens instead of reading it afterwards
// (record/replay's scheduler). The emulator calls it synchronously, at the points below, with a
// MachineControl: registers, the current thread, interrupts, stopping. No engine type appears
// here, and a capture source has no steering. One steering per run.

#include <cstdint>
#include <limits>
#include <string>

namespace emutrace::trace {

/// The machine as a steering sees it during one of its calls.
class MachineControl {
public:
    virtual ~MachineControl() = default;
    /// Cycles spent so far.
    virtual std::uint64_t cycle() const = 0;
    /// r0-r12, 13 sp, 14 lr, 15 pc.
    virtual std::uint32_t reg(unsigned n) const = 0;
    /// Writing 15 sends execution there once the current call returns (the Thumb bit is added).
    virtual void set_reg(unsigned n, std::uint32_t value) = 0;
    /// The firmware's current thread (the scenario's rtos: pointer); 0 without one.
    virtual std::uint32_t thread() const = 0;
    /// The active exception number (IPSR); 0 in thread mode.
    virtual unsigned exception() const = 0;
    /// Pends exception `n` (16 + IRQ) as the outside world would: its entry is reported external.
    virtual void pend(unsigned exception) = 0;
    /// Ends the run at the next instruction boundary; `why` becomes the stop message.
    virtual void stop(const std::string& why) = 0;
};

enum class WatchOutcome : std::uint8_t {
    Continue,  ///< the watch point is reported as usual
    Held,      ///< the steering sent the thread elsewhere (set_reg(15, ...)): nothing is reported
};

class Steering {
public:
    static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
    virtual ~Steering() = default;
    /// At a watch point (Analysis::watch_points), before its Watch event.
    virtual WatchOutcome at_watch(std::uint32_t address, MachineControl& m) = 0;
    /// The core took exception `n`, interrupting `pc`; `external`: the outside world raised it (a
    /// stimulus, or pend()), rather than the machine itself (SysTick, a device's own timer, SVC).
    virtual void at_exception(unsigned n, std::uint32_t pc, bool external, MachineControl& m) { (void)n, (void)pc, (void)external, (void)m; }
    /// A read of device `device` (RunInfo::devices index) at bus address `address` returned
    /// `value`; returns what the firmware sees.
    virtual std::uint32_t at_device_read(std::uint16_t device, std::uint32_t address, std::uint32_t value, MachineControl& m) {
        (void)device, (void)address, (void)m;
        return value;
    }
    /// The cycle at which at_time() wants to run next; kNever for none.
    virtual std::uint64_t next_time() const { return kNever; }
    virtual void at_time(MachineControl& m) { (void)m; }
    /// True: the scenario's stimuli do not run; this steering is the run's outside world.
    virtual bool replaces_stimuli() const { return false; }
};

}  // namespace emutrace::trace
