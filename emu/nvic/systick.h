#pragma once
// The SysTick timer (ARMv7-M ARM B3.3), counting emulated core cycles. Evaluated lazily: nothing
// ticks per instruction; the machine asks for the next expiry and calls update() when it is due.

#include <cstdint>
#include <optional>

namespace emutrace::emu::nvic {

class SysTick {
public:
    explicit SysTick(std::uint64_t clock_hz) : clock_hz_(clock_hz) {}
    void reset();

    /// CSR (0x10), RVR (0x14), CVR (0x18), CALIB (0x1C), as offsets into the SCS.
    std::uint32_t read(std::uint32_t offset, std::uint64_t now);
    void write(std::uint32_t offset, std::uint32_t value, std::uint64_t now);

    /// The cycle at which the counter next reaches zero, if it is counting.
    std::optional<std::uint64_t> next_expiry() const;
    /// Catches up to `now`; true when the counter reached zero with TICKINT set (pend SysTick).
    bool update(std::uint64_t now);
    bool interrupt_enabled() const { return enabled_ && tickint_; }

private:
    std::uint32_t current(std::uint64_t now) const;

    std::uint64_t clock_hz_;
    bool enabled_ = false, tickint_ = false, clksource_ = false, countflag_ = false;
    std::uint32_t reload_ = 0;
    std::uint32_t frozen_ = 0;     ///< counter value while disabled
    std::uint64_t next_zero_ = 0;  ///< cycle of the next 1 -> 0 transition while enabled
};

}  // namespace emutrace::emu::nvic
