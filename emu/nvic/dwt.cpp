#include "emu/nvic/dwt.h"

#include "emu/nvic/system_control.h"

namespace emutrace::emu::nvic {
namespace {
enum Offset : std::uint32_t { CTRL = 0x00, CYCCNT = 0x04, CPICNT = 0x08, EXCCNT = 0x0C, SLEEPCNT = 0x10, LSUCNT = 0x14, FOLDCNT = 0x18, PCSR = 0x1C };
constexpr std::uint32_t CYCCNTENA = 1u << 0, CPIEVTENA = 1u << 17, EXCEVTENA = 1u << 18, SLEEPEVTENA = 1u << 19;
constexpr std::uint32_t kNumComparators = 4u << 28;  // CTRL.NUMCOMP on Cortex-M3/M4
}  // namespace

void Dwt::reset() {
    ctrl_ = 0;
    cyccnt_ = cpicnt_ = exccnt_ = sleepcnt_ = Counter{};
}

// CPICNT counts the extra cycles of multi-cycle instructions: neither sleep nor exception overhead.
std::uint64_t Dwt::cpi_source() const {
    return counters_.cycles - counters_.instructions - counters_.sleep - counters_.exception;
}

std::uint32_t Dwt::read(std::uint32_t offset, unsigned width) {
    std::uint64_t now = host().now();
    std::uint32_t v = 0;
    switch (offset & ~3u) {
        case CTRL: v = ctrl_ | kNumComparators; break;
        case CYCCNT: v = cyccnt_.value(now); break;
        case CPICNT: v = cpicnt_.value(cpi_source()) & 0xFF; break;
        case EXCCNT: v = exccnt_.value(counters_.exception) & 0xFF; break;
        case SLEEPCNT: v = sleepcnt_.value(counters_.sleep) & 0xFF; break;
        case LSUCNT: case FOLDCNT: v = 0; break;  // not modelled: the load/store and folding rules are not tracked per cycle
        case PCSR: v = 0; break;
        default: host().warn_once(offset, "read of an unimplemented DWT register; reads 0"); return 0;
    }
    v >>= (offset & 3) * 8;
    return width >= 4 ? v : v & ((1u << (width * 8)) - 1);
}

void Dwt::write(std::uint32_t offset, unsigned, std::uint32_t value) {
    std::uint64_t now = host().now();
    if (!scs_.trace_enabled()) {
        host().warn_once(offset, "DWT write while DEMCR.TRCENA is 0; ignored as on silicon");
        return;
    }
    switch (offset & ~3u) {
        case CTRL:
            ctrl_ = value & 0x0FFFFFFFu;
            cyccnt_.set_enabled(value & CYCCNTENA, now);
            cpicnt_.set_enabled(value & CPIEVTENA, cpi_source());
            exccnt_.set_enabled(value & EXCEVTENA, counters_.exception);
            sleepcnt_.set_enabled(value & SLEEPEVTENA, counters_.sleep);
            return;
        case CYCCNT: cyccnt_.write(value, now); return;
        case CPICNT: cpicnt_.write(value & 0xFF, cpi_source()); return;
        case EXCCNT: exccnt_.write(value & 0xFF, counters_.exception); return;
        case SLEEPCNT: sleepcnt_.write(value & 0xFF, counters_.sleep); return;
        case LSUCNT: case FOLDCNT: return;
        default: host().warn_once(offset, "write to an unimplemented DWT register; ignored"); return;
    }
}

}  // namespace emutrace::emu::nvic
