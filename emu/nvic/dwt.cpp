#include "emu/nvic/dwt.h"

#include "emu/nvic/system_control.h"

namespace emutrace::emu::nvic {
namespace {
enum Offset : std::uint32_t { CTRL = 0x00, CYCCNT = 0x04, CPICNT = 0x08, EXCCNT = 0x0C, SLEEPCNT = 0x10, LSUCNT = 0x14, FOLDCNT = 0x18, PCSR = 0x1C };
constexpr std::uint32_t PCSAMPLENA = 1u << 12, CYCTAP = 1u << 9;
constexpr std::uint32_t CYCCNTENA = 1u << 0, CPIEVTENA = 1u << 17, EXCEVTENA = 1u << 18, SLEEPEVTENA = 1u << 19, LSUEVTENA = 1u << 20,
                        FOLDEVTENA = 1u << 21;
constexpr std::uint32_t kNumComparators = 4u << 28;  // CTRL.NUMCOMP on Cortex-M3/M4
}  // namespace

void Dwt::reset() {
    ctrl_ = 0;
    next_sample_ = 0;
    cyccnt_ = cpicnt_ = exccnt_ = sleepcnt_ = lsucnt_ = foldcnt_ = Counter{};
}

// CPICNT counts what the other counters do not (ARMv7-M ARM C1.8.10): cycles = instructions + CPI
// + LSU + exception + sleep - fold. So refills, fetch stalls and multi-cycle data processing.
std::uint64_t Dwt::cpi_source(const CycleCounters& c) {
    return c.cycles + c.fold - c.instructions - lsu_source(c) - c.sleep - c.exception;
}

std::uint64_t Dwt::sample_period() const {
    return (std::uint64_t{ctrl_ >> 1 & 0xF} + 1) * (ctrl_ & CYCTAP ? 1024 : 64);
}

void Dwt::on_time(std::uint64_t now) {
    if (!(ctrl_ & PCSAMPLENA) || !scs_.trace_enabled()) return;  // turned off: no more wakes
    host().sample_pc();
    const std::uint64_t period = sample_period();
    while (next_sample_ <= now) next_sample_ += period;  // a wake late by more than a period samples once
    host().wake_at(next_sample_);
}

std::uint32_t Dwt::read(std::uint32_t offset, unsigned width) {
    const CycleCounters& c = current();
    std::uint32_t v = 0;
    switch (offset & ~3u) {
        case CTRL: v = ctrl_ | kNumComparators; break;
        case CYCCNT: v = cyccnt_.value(c.cycles); break;
        case CPICNT: v = cpicnt_.value(cpi_source(c)) & 0xFF; break;
        case EXCCNT: v = exccnt_.value(c.exception) & 0xFF; break;
        case SLEEPCNT: v = sleepcnt_.value(c.sleep) & 0xFF; break;
        case LSUCNT: v = lsucnt_.value(lsu_source(c)) & 0xFF; break;
        case FOLDCNT: v = foldcnt_.value(c.fold) & 0xFF; break;
        case PCSR: v = 0; break;
        default: host().warn_once(offset, "read of an unimplemented DWT register; reads 0"); return 0;
    }
    v >>= (offset & 3) * 8;
    return width >= 4 ? v : v & ((1u << (width * 8)) - 1);
}

void Dwt::write(std::uint32_t offset, unsigned, std::uint32_t value) {
    const CycleCounters& c = current();
    if (!scs_.trace_enabled()) {
        host().warn_once(offset, "DWT write while DEMCR.TRCENA is 0; ignored as on silicon");
        return;
    }
    switch (offset & ~3u) {
        case CTRL:
            if (!(ctrl_ & PCSAMPLENA) && (value & PCSAMPLENA)) {
                next_sample_ = c.cycles + ((value >> 1 & 0xF) + 1) * (value & CYCTAP ? 1024 : 64);
                host().wake_at(next_sample_);
            }
            ctrl_ = value & 0x0FFFFFFFu;
            cyccnt_.set_enabled(value & CYCCNTENA, c.cycles);
            cpicnt_.set_enabled(value & CPIEVTENA, cpi_source(c));
            exccnt_.set_enabled(value & EXCEVTENA, c.exception);
            sleepcnt_.set_enabled(value & SLEEPEVTENA, c.sleep);
            lsucnt_.set_enabled(value & LSUEVTENA, lsu_source(c));
            foldcnt_.set_enabled(value & FOLDEVTENA, c.fold);
            return;
        case CYCCNT: cyccnt_.write(value, c.cycles); return;
        case CPICNT: cpicnt_.write(value & 0xFF, cpi_source(c)); return;
        case EXCCNT: exccnt_.write(value & 0xFF, c.exception); return;
        case SLEEPCNT: sleepcnt_.write(value & 0xFF, c.sleep); return;
        case LSUCNT: lsucnt_.write(value & 0xFF, lsu_source(c)); return;
        case FOLDCNT: foldcnt_.write(value & 0xFF, c.fold); return;
        default: host().warn_once(offset, "write to an unimplemented DWT register; ignored"); return;
    }
}

}  // namespace emutrace::emu::nvic
