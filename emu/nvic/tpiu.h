#pragma once
// The Trace Port Interface Unit at 0xE0040000 (CoreSight TPIU, as on Cortex-M3/M4): the SWO's
// prescaler (ACPR), protocol (SPPR: Manchester or NRZ) and formatter control (FFCR). Firmware that
// sets up SWO itself programs these; the ITM paces its stimulus ports by the rate they give.

#include <cstdint>

#include "emu/peripherals/peripheral.h"
#include "models/trace_port.h"

namespace emutrace::emu::nvic {

constexpr std::uint32_t kTpiuBase = 0xE0040000;

class Tpiu final : public Peripheral {
public:
    std::uint32_t size() const override { return 0x1000; }
    std::uint32_t read(std::uint32_t offset, unsigned width) override;
    void write(std::uint32_t offset, unsigned width, std::uint32_t value) override;
    void reset() override;

    /// The port as the firmware set it: its FIFO and rate.
    models::TracePort& port() { return port_; }
    /// FFCR.EnFCont: bytes go out in 16-byte formatter frames, not as the bare ITM stream.
    bool formatter() const { return ffcr_ & 2u; }

private:
    std::uint32_t cspsr_ = 1, acpr_ = 0, sppr_ = 2, ffcr_ = 0x100;
    models::TracePort port_;
};

}  // namespace emutrace::emu::nvic
