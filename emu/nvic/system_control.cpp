#include "emu/nvic/system_control.h"

#include <string>

namespace emutrace::emu::nvic {
namespace {

enum Offset : std::uint32_t {
    ICTR = 0x004,
    ACTLR = 0x008,
    ISER = 0x100,
    ICER = 0x180,
    ISPR = 0x200,
    ICPR = 0x280,
    IABR = 0x300,
    IPR = 0x400,
    IPR_END = 0x5F0,
    CPUID = 0xD00,
    ICSR = 0xD04,
    VTOR = 0xD08,
    AIRCR = 0xD0C,
    SCR = 0xD10,
    CCR = 0xD14,
    SHPR1 = 0xD18,
    SHPR3_END = 0xD24,
    SHCSR = 0xD24,
    CFSR = 0xD28,
    HFSR = 0xD2C,
    DFSR = 0xD30,
    MMFAR = 0xD34,
    BFAR = 0xD38,
    AFSR = 0xD3C,
    CPACR = 0xD88,
    DEMCR = 0xDFC,
    STIR = 0xF00,
    FPCCR = 0xF34,
    FPCAR = 0xF38,
    FPDSCR = 0xF3C,
};
// FPCCR: ASPEN (FPCA set by the first FP instruction) and LSPEN (lazy stacking), both set out of
// reset; the rest are status bits the stacking sets, which firmware may write.
constexpr std::uint32_t kFpccrReset = 0xC0000000u, kFpccrWritable = 0xC000017Bu;
constexpr std::uint32_t kFpdscrWritable = 0x07C00000u;  // AHP, DN, FZ, RMode
enum Icsr : std::uint32_t {
    NMIPENDSET = 1u << 31,
    PENDSVSET = 1u << 28,
    PENDSVCLR = 1u << 27,
    PENDSTSET = 1u << 26,
    PENDSTCLR = 1u << 25,
    ISRPENDING = 1u << 22,
    RETTOBASE = 1u << 11,
};
constexpr std::uint32_t kVectKey = 0x05FA;

std::uint32_t cpuid(models::CoreKind kind) {
    switch (kind) {
        case models::CoreKind::CortexM0: return 0x410CC200;  // r0p0
        case models::CoreKind::CortexM3: return 0x412FC231;  // r2p1
        case models::CoreKind::CortexM4:
        case models::CoreKind::CortexM4F: return 0x410FC241;  // r0p1
    }
    return 0;
}

// SHCSR active/pending bit of each system exception.
struct ShcsrBit {
    int exception;
    std::uint32_t active, pending;
};
constexpr ShcsrBit kShcsrBits[] = {
    {kMemManage, 1u << 0, 1u << 13}, {kBusFault, 1u << 1, 1u << 14}, {kUsageFault, 1u << 3, 1u << 12}, {kSvcall, 1u << 7, 1u << 15},
    {kDebugMonitor, 1u << 8, 0},     {kPendSv, 1u << 10, 0},         {kSysTick, 1u << 11, 0},
};

}  // namespace

SystemControl::SystemControl(const models::CoreSpec& core, unsigned priority_bits, unsigned irqs, std::uint64_t clock_hz)
    : core_(core), state_(priority_bits, irqs), systick_(clock_hz), fpccr_(has_fpu() ? kFpccrReset : 0) {}

void SystemControl::reset() {
    state_.reset();
    systick_.reset();
    vtor_ = scr_ = actlr_ = cpacr_ = 0;
    ccr_ = 0x200;  // STKALIGN: 8-byte aligned exception frames
    cfsr_ = hfsr_ = mmfar_ = bfar_ = dfsr_ = 0;
    demcr_ = 0;
    fpccr_ = has_fpu() ? kFpccrReset : 0;
    fpcar_ = fpdscr_ = 0;
}

void SystemControl::changed() {
    if (scs_host_) scs_host_->exceptions_changed();
}

void SystemControl::record_fault(std::uint32_t bits, std::uint32_t address) {
    cfsr_ |= bits;
    if (bits & kBfarvalid) bfar_ = address;
    if (bits & kMmarvalid) mmfar_ = address;
}

std::uint32_t SystemControl::read(std::uint32_t offset, unsigned width) {
    std::uint32_t word = read_word(offset & ~3u);
    word >>= (offset & 3) * 8;
    return width >= 4 ? word : word & ((1u << (width * 8)) - 1);
}

void SystemControl::write(std::uint32_t offset, unsigned width, std::uint32_t value) {
    unsigned shift = (offset & 3) * 8;
    std::uint32_t mask = width >= 4 ? 0xFFFFFFFFu : ((1u << (width * 8)) - 1) << shift;
    write_word(offset & ~3u, (value << shift) & mask, mask);
}

std::uint32_t SystemControl::icsr() const {
    std::uint32_t active = scs_host_ ? scs_host_->current_exception() : 0;
    int pending = state_.highest_pending();
    std::uint32_t v = active | (static_cast<std::uint32_t>(pending) << 12);
    bool irq_pending = false;
    for (int n = kFirstIrq; n < kFirstIrq + static_cast<int>(state_.irqs()); ++n) irq_pending |= state_.pending(n);
    if (irq_pending) v |= ISRPENDING;
    if (state_.pending(kPendSv)) v |= PENDSVSET;
    if (state_.pending(kSysTick)) v |= PENDSTSET;
    if (state_.pending(kNmi)) v |= NMIPENDSET;
    if (state_.active_count() <= 1) v |= RETTOBASE;
    return v;
}

void SystemControl::write_icsr(std::uint32_t v) {
    if (v & NMIPENDSET) state_.set_pending(kNmi, true);
    if (v & PENDSVSET)
        state_.set_pending(kPendSv, true);
    else if (v & PENDSVCLR)
        state_.set_pending(kPendSv, false);
    if (v & PENDSTSET)
        state_.set_pending(kSysTick, true);
    else if (v & PENDSTCLR)
        state_.set_pending(kSysTick, false);
    changed();
}

std::uint32_t SystemControl::shcsr() const {
    std::uint32_t v = 0;
    for (const auto& b : kShcsrBits) {
        if (state_.active(b.exception)) v |= b.active;
        if (b.pending && state_.pending(b.exception)) v |= b.pending;
    }
    for (int n = kMemManage; n <= kUsageFault; ++n)
        if (state_.fault_enabled(n)) v |= 1u << (16 + (n - kMemManage));
    return v;
}

void SystemControl::write_shcsr(std::uint32_t v) {
    for (int n = kMemManage; n <= kUsageFault; ++n) state_.set_fault_enabled(n, v & (1u << (16 + (n - kMemManage))));
    for (const auto& b : kShcsrBits)
        if (b.pending) state_.set_pending(b.exception, v & b.pending);
    changed();
}

std::uint32_t SystemControl::read_word(std::uint32_t off) {
    std::uint64_t now = host().now();
    if (off >= 0x010 && off < 0x020) return systick_.read(off, now);
    if (off >= ISER && off < IABR + 0x40) {
        unsigned bank = (off & 0x7F) / 4;
        std::uint32_t v = 0;
        for (unsigned bit = 0; bit < 32; ++bit) {
            int n = kFirstIrq + static_cast<int>(bank * 32 + bit);
            bool set = off < ICER + 0x80 ? state_.enabled(n) : off < ICPR + 0x80 ? state_.pending(n) : state_.active(n);
            if (set && n < kFirstIrq + static_cast<int>(state_.irqs())) v |= 1u << bit;
        }
        return v;
    }
    if (off >= IPR && off < IPR_END) {
        std::uint32_t v = 0;
        for (unsigned i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(state_.priority(kFirstIrq + static_cast<int>(off - IPR + i))) << (8 * i);
        return v;
    }
    if (off >= SHPR1 && off < SHPR3_END) {
        std::uint32_t v = 0;
        for (unsigned i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(state_.priority(static_cast<int>(off - SHPR1 + 4 + i))) << (8 * i);
        return v;
    }
    switch (off) {
        case ICTR: return (state_.irqs() + 31) / 32 - 1;
        case ACTLR: return actlr_;
        case CPUID: return cpuid(core_.kind);
        case ICSR: return icsr();
        case VTOR: return vtor_;
        case AIRCR: return 0xFA050000u | (state_.prigroup() << 8);
        case SCR: return scr_;
        case CCR: return ccr_;
        case SHCSR: return shcsr();
        case CFSR: return cfsr_;
        case HFSR: return hfsr_;
        case DFSR: return dfsr_;
        case MMFAR: return mmfar_;
        case BFAR: return bfar_;
        case AFSR: return 0;
        case CPACR: return cpacr_;
        case DEMCR: return demcr_;
        case FPCCR:
        case FPCAR:
        case FPDSCR:
            if (has_fpu()) return off == FPCCR ? fpccr_ : off == FPCAR ? fpcar_ : fpdscr_;
            [[fallthrough]];
        default: host().warn_once(off, "read of an unimplemented System Control Space register; reads 0"); return 0;
    }
}

void SystemControl::write_word(std::uint32_t off, std::uint32_t value, std::uint32_t mask) {
    std::uint64_t now = host().now();
    if (off >= 0x010 && off < 0x020) {
        systick_.write(off, value, now);  // SysTick registers are written as words
        changed();
        return;
    }
    if (off >= ISER && off < IABR) {
        unsigned bank = (off & 0x7F) / 4;
        for (unsigned bit = 0; bit < 32; ++bit) {
            if (!(value & (1u << bit))) continue;
            int n = kFirstIrq + static_cast<int>(bank * 32 + bit);
            if (off < ICER)
                state_.set_enabled(n, true);
            else if (off < ISPR)
                state_.set_enabled(n, false);
            else if (off < ICPR)
                state_.set_pending(n, true);
            else
                state_.set_pending(n, false);
        }
        changed();
        return;
    }
    auto write_priorities = [&](int first) {
        for (unsigned i = 0; i < 4; ++i)
            if (mask & (0xFFu << (8 * i))) state_.set_priority(first + static_cast<int>(i), static_cast<std::uint8_t>(value >> (8 * i)));
        changed();
    };
    if (off >= IPR && off < IPR_END) return write_priorities(kFirstIrq + static_cast<int>(off - IPR));
    if (off >= SHPR1 && off < SHPR3_END) return write_priorities(static_cast<int>(off - SHPR1 + 4));
    switch (off) {
        case ACTLR:
            actlr_ = value;
            if (scs_host_) scs_host_->auxiliary_control(value);
            return;
        case ICSR: write_icsr(value); return;
        case VTOR: set_vtor(value); return;
        case AIRCR:
            if ((value >> 16) != kVectKey) {
                host().warn_once(off, "AIRCR write without VECTKEY 0x05FA; ignored");
                return;
            }
            state_.set_prigroup((value >> 8) & 7);
            changed();
            if ((value & (1u << 2)) && scs_host_) scs_host_->reset_requested();
            return;
        case SCR: scr_ = value & 0x16; return;
        case CCR: ccr_ = (value & 0x31B) | 0x200; return;
        case SHCSR: write_shcsr((shcsr() & ~mask) | value); return;
        case CFSR: cfsr_ &= ~value; return;  // write one to clear
        case HFSR: hfsr_ &= ~value; return;
        case DFSR: dfsr_ &= ~value; return;
        case MMFAR: mmfar_ = value; return;
        case BFAR: bfar_ = value; return;
        case CPACR: cpacr_ = value; return;
        case DEMCR: demcr_ = (demcr_ & ~mask) | (value & 0x010F07F1u); return;
        case STIR:
            state_.set_pending(kFirstIrq + static_cast<int>(value & 0x1FF), true);
            changed();
            return;
        case FPCCR:
        case FPCAR:
        case FPDSCR:
            if (!has_fpu()) break;
            if (off == FPCCR) fpccr_ = value & kFpccrWritable;
            if (off == FPCAR) set_fp_context_address(value);
            if (off == FPDSCR) fpdscr_ = value & kFpdscrWritable;
            return;
        default: break;
    }
    host().warn_once(off, "write to an unimplemented System Control Space register; ignored");
}

}  // namespace emutrace::emu::nvic
