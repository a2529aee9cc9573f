#include "emu/nvic/itm.h"

#include "emu/nvic/system_control.h"
#include "emu/nvic/tpiu.h"

namespace emutrace::emu::nvic {
namespace {
enum Offset : std::uint32_t { TER = 0xE00, TPR = 0xE40, TCR = 0xE80, LAR = 0xFB0, LSR = 0xFB4 };
constexpr std::uint32_t ITMENA = 1u << 0, kUnlock = 0xC5ACCE55;
// CoreSight identification (PID4, PID5-7, PID0-3, CID0-3): what a debugger's ROM table walk reads.
constexpr std::uint32_t kIds[12] = {0x04, 0, 0, 0, 0x01, 0xB0, 0x3B, 0x00, 0x0D, 0xE0, 0x05, 0xB1};
}  // namespace

void Itm::reset() {
    ter_ = tpr_ = tcr_ = 0;
    locked_ = true;
}

bool Itm::port_enabled(unsigned port) const {
    return scs_.trace_enabled() && (tcr_ & ITMENA) && (ter_ >> port & 1u);
}

std::uint32_t Itm::read(std::uint32_t offset, unsigned) {
    offset &= ~3u;
    if (offset < 0x80) return tpiu_.port().has_room(host().now(), 5) ? 1 : 0;  // FIFOREADY: room for a word's packet
    switch (offset) {
        case TER: return ter_;
        case TPR: return tpr_;
        case TCR: return tcr_;
        case LSR: return locked_ ? 3 : 1;
        default: return offset >= 0xFD0 ? kIds[(offset - 0xFD0) / 4] : 0;
    }
}

void Itm::write(std::uint32_t offset, unsigned width, std::uint32_t value) {
    offset &= ~3u;
    if (offset < 0x80) {
        const unsigned port = offset / 4;
        if (!port_enabled(port)) return;  // not traced: silicon drops it too
        models::TracePort& out = tpiu_.port();
        const std::uint32_t bytes = 1 + width;           // header and payload
        if (!out.has_room(host().now(), bytes)) return;  // lost: the trace says overflow
        out.push(host().now(), bytes);
        if (port == 0 && width == 1) {
            const char c = static_cast<char>(value & 0xFF);
            if (console_) std::fputc(c, console_);
            host().output(std::string_view(&c, 1));
        }
        return;
    }
    if (offset == LAR) {
        locked_ = value != kUnlock;
        return;
    }
    if (locked_) {
        host().warn_once(offset, "ITM register written while the ITM is locked; ignored as on silicon (write 0xC5ACCE55 to ITM_LAR first)");
        return;
    }
    switch (offset) {
        case TER: ter_ = value; return;
        case TPR: tpr_ = value & 0xF; return;
        case TCR: tcr_ = value & 0x00FF0F1F; return;
        default: host().warn_once(offset, "write to an unmodelled ITM register; ignored"); return;
    }
}

}  // namespace emutrace::emu::nvic
