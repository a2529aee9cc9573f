#pragma once
// The SWO trace port's output FIFO and its bandwidth: bytes enter at the cycle their packet is
// made and leave one at a time at the port's rate (TPIU_ACPR's prescaler over TRACECLKIN, ten bit
// times per byte in NRZ/UART mode, two half-bits per bit in Manchester). A packet that does not fit
// is lost: the ITM then reads its stimulus port as not ready, and the trace carries an overflow
// packet (ARMv7-M ARM D4.2.3). Cycles are the core's; TRACECLKIN runs at the core clock.

#include <algorithm>
#include <cstdint>

namespace emutrace::models {

class TracePort {
public:
    /// Bytes the ITM/DWT output FIFO holds before the port (CoreSight ITM: a few words).
    static constexpr std::uint32_t kFifoBytes = 16;
    enum class Encoding { Nrz, Manchester };

    /// The protocol TPIU_SPPR selects: 1 Manchester; 2 NRZ, also for the trace-port modes that are
    /// not modelled (0, 3), which the TPIU warns of.
    static Encoding encoding_of(std::uint32_t sppr) { return (sppr & 3) == 1 ? Encoding::Manchester : Encoding::Nrz; }

    /// TPIU_ACPR.SWOSCALER and TPIU_SPPR's protocol.
    void configure(std::uint32_t prescaler, Encoding encoding) {
        const std::uint64_t bit = std::uint64_t{prescaler} + 1;
        cycles_per_byte_ = encoding == Encoding::Nrz ? 10 * bit : 16 * bit;
    }
    std::uint64_t cycles_per_byte() const { return cycles_per_byte_; }
    /// Bytes still waiting at `now`.
    std::uint32_t queued(std::uint64_t now) const {
        if (busy_until_ <= now) return 0;
        return static_cast<std::uint32_t>((busy_until_ - now + cycles_per_byte_ - 1) / cycles_per_byte_);
    }
    bool has_room(std::uint64_t now, std::uint32_t bytes) const { return queued(now) + bytes <= kFifoBytes; }
    /// Queues `bytes` at `now`; returns the cycle the last of them leaves.
    std::uint64_t push(std::uint64_t now, std::uint32_t bytes) {
        busy_until_ = std::max(busy_until_, now) + bytes * cycles_per_byte_;
        return busy_until_;
    }
    /// The cycle the port is idle again.
    std::uint64_t busy_until() const { return busy_until_; }

private:
    std::uint64_t cycles_per_byte_ = 10;  // ACPR 0: one bit per TRACECLKIN cycle
    std::uint64_t busy_until_ = 0;
};

}  // namespace emutrace::models
