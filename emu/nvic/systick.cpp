#include "emu/nvic/systick.h"

namespace emutrace::emu::nvic {
namespace {
constexpr std::uint32_t ENABLE = 1u << 0, TICKINT = 1u << 1, CLKSOURCE = 1u << 2, COUNTFLAG = 1u << 16;
enum : std::uint32_t { CSR = 0x10, RVR = 0x14, CVR = 0x18, CALIB = 0x1C };
constexpr std::uint32_t kMask24 = 0x00FFFFFF;
}  // namespace

void SysTick::reset() {
    enabled_ = tickint_ = clksource_ = countflag_ = false;
    reload_ = frozen_ = 0;
    next_zero_ = 0;
}

std::uint32_t SysTick::current(std::uint64_t now) const {
    if (!enabled_) return frozen_;
    return now >= next_zero_ ? 0 : static_cast<std::uint32_t>(next_zero_ - now);
}

std::optional<std::uint64_t> SysTick::next_expiry() const {
    if (!enabled_ || reload_ == 0) return std::nullopt;
    return next_zero_;
}

bool SysTick::update(std::uint64_t now) {
    if (!enabled_ || reload_ == 0 || now < next_zero_) return false;
    std::uint64_t period = static_cast<std::uint64_t>(reload_) + 1;
    next_zero_ += ((now - next_zero_) / period + 1) * period;
    countflag_ = true;
    return tickint_;
}

std::uint32_t SysTick::read(std::uint32_t offset, std::uint64_t now) {
    switch (offset) {
        case CSR: {
            update(now);
            std::uint32_t v = (enabled_ ? ENABLE : 0) | (tickint_ ? TICKINT : 0) | (clksource_ ? CLKSOURCE : 0) | (countflag_ ? COUNTFLAG : 0);
            countflag_ = false;  // cleared by reading
            return v;
        }
        case RVR: return reload_;
        case CVR: return current(now);
        case CALIB: {
            // NOREF: no separate reference clock; TENMS: reload for 10 ms at the core clock.
            std::uint64_t tenms = clock_hz_ / 100;
            return (1u << 31) | static_cast<std::uint32_t>(tenms ? (tenms - 1) & kMask24 : 0);
        }
        default: return 0;
    }
}

void SysTick::write(std::uint32_t offset, std::uint32_t value, std::uint64_t now) {
    switch (offset) {
        case CSR: {
            bool enable = value & ENABLE;
            if (enable && !enabled_) {
                // Counting resumes from the frozen value; 0 reloads on the next clock.
                next_zero_ = now + (frozen_ ? frozen_ : static_cast<std::uint64_t>(reload_) + 1);
            } else if (!enable && enabled_) {
                frozen_ = current(now);
            }
            enabled_ = enable;
            tickint_ = value & TICKINT;
            clksource_ = value & CLKSOURCE;
            break;
        }
        case RVR: reload_ = value & kMask24; break;
        case CVR:
            // Any write clears the counter and COUNTFLAG; it reloads on the next clock.
            countflag_ = false;
            frozen_ = 0;
            next_zero_ = now + static_cast<std::uint64_t>(reload_) + 1;
            break;
        default: break;
    }
}

}  // namespace emutrace::emu::nvic
