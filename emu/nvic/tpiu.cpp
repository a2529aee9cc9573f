#include "emu/nvic/tpiu.h"

namespace emutrace::emu::nvic {
namespace {
enum Offset : std::uint32_t { SSPSR = 0x000, CSPSR = 0x004, ACPR = 0x010, SPPR = 0x0F0, FFSR = 0x300, FFCR = 0x304, DEVID = 0xFC8, DEVTYPE = 0xFCC };
}  // namespace

void Tpiu::reset() {
    cspsr_ = 1;
    acpr_ = 0;
    // As a debugger that captures SWO leaves it (silicon resets to Manchester with the formatter
    // on): NRZ, the formatter bypassed. Firmware that sets up SWO itself writes its own.
    sppr_ = 2;
    ffcr_ = 0x100;
    port_ = models::TracePort{};
    port_.configure(acpr_, models::TracePort::encoding_of(sppr_));
}

std::uint32_t Tpiu::read(std::uint32_t offset, unsigned) {
    switch (offset & ~3u) {
        case SSPSR: return 0xB;  // port sizes 1, 2 and 4
        case CSPSR: return cspsr_;
        case ACPR: return acpr_;
        case SPPR: return sppr_;
        case FFSR: return 0x8;  // FtNonStop
        case FFCR: return ffcr_;
        case DEVID: return 0xCA0;  // Manchester and NRZ supported, no trace data buffer
        case DEVTYPE: return 0x11;
        default: return 0;
    }
}

void Tpiu::write(std::uint32_t offset, unsigned, std::uint32_t value) {
    switch (offset & ~3u) {
        case CSPSR: cspsr_ = value; return;
        case ACPR: acpr_ = value & 0x1FFF; break;
        case SPPR:
            if ((value & 3) != 1 && (value & 3) != 2) host().warn_once(offset, "TPIU_SPPR: only SWO (1 Manchester, 2 NRZ) is modelled");
            sppr_ = value & 3;
            break;
        case FFCR: ffcr_ = value & 0x373; return;
        default: host().warn_once(offset, "write to an unmodelled TPIU register; ignored"); return;
    }
    port_.configure(acpr_, models::TracePort::encoding_of(sppr_));
}

}  // namespace emutrace::emu::nvic
