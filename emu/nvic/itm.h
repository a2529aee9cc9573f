#pragma once
// The Instrumentation Trace Macrocell at 0xE0000000 (ARMv7-M ARM C1.7): 32 stimulus ports, their
// enable (TER) and privilege (TPR) masks, the control register (TCR) and the CoreSight lock
// (LAR/LSR), programmed by the firmware as on silicon (CMSIS's ITM_SendChar, libopencm3's
// traceswo). A stimulus port reads ready while the trace port's FIFO has room at the SWO's rate;
// what port 0 is sent goes to the console as the firmware's output. The packets themselves are
// made from the trace by the swo writer (analysis/swo), which sees the same register writes.

#include <cstdint>
#include <cstdio>

#include "emu/peripherals/peripheral.h"

namespace emutrace::emu::nvic {

constexpr std::uint32_t kItmBase = 0xE0000000;

class SystemControl;
class Tpiu;

class Itm final : public Peripheral {
public:
    /// `console`: where port 0's bytes are echoed (the machine's stdout), or null.
    Itm(const SystemControl& scs, Tpiu& tpiu, std::FILE* console) : scs_(scs), tpiu_(tpiu), console_(console) {}
    std::uint32_t size() const override { return 0x1000; }
    std::uint32_t read(std::uint32_t offset, unsigned width) override;
    void write(std::uint32_t offset, unsigned width, std::uint32_t value) override;
    void reset() override;

private:
    bool port_enabled(unsigned port) const;

    const SystemControl& scs_;
    Tpiu& tpiu_;
    std::FILE* console_;
    std::uint32_t ter_ = 0, tpr_ = 0, tcr_ = 0;
    bool locked_ = true;
};

}  // namespace emutrace::emu::nvic
