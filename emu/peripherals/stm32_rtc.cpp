// ST's STM32F1 real-time clock (RM0008 §18): a 32-bit counter (CNTH:CNTL) that the RTC clock,
// divided by PRL+1, advances once a "second", setting SECF, ALRF when it reaches the alarm and
// OWF when it wraps, each with its interrupt enable in CRH. The RTC clock is the one RCC's BDCR
// selects ("rtcclk"). Counting is computed from the cycle count when read; the device wakes
// itself for the next second only when an interrupt is enabled.

#include <memory>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

class Stm32Rtc final : public RegisterPeripheral {
public:
    explicit Stm32Rtc(decode::svd::Peripheral d)
        : RegisterPeripheral(std::move(d)), crh_(need("CRH")), secie_(need("CRH.SECIE")), alrie_(need("CRH.ALRIE")), owie_(need("CRH.OWIE")),
          secf_(need("CRL.SECF")), alrf_(need("CRL.ALRF")), owf_(need("CRL.OWF")), prlh_(need("PRLH")), prll_(need("PRLL")), cnth_(need("CNTH")),
          cntl_(need("CNTL")), alrh_(need("ALRH")), alrl_(need("ALRL")), divl_(need("DIVL")) {
        // RM0008: the flags are rc_w0, which ST's SVD calls read-write.
        for (FieldRef f : {secf_, alrf_, owf_}) regs().set_write_action(f, decode::svd::WriteAction::ZeroToClear);
    }

private:
    void reset_model() override {
        base_cycle_ = host().now();
        count_ = 0;
    }

    void refresh(int) override { advance(host().now()); }

    void tick(std::uint64_t now) override {
        advance(now);
        reschedule();
    }

    void stored(int reg, std::uint32_t) override {
        if (reg == cnth_.reg || reg == cntl_.reg) {  // a new count, from this cycle
            count_ = regs().value(cnth_.reg) << 16 | (regs().value(cntl_.reg) & 0xffff);
            base_cycle_ = host().now();
        }
        reschedule();
    }

    // Core cycles per counter step; 0 while the RTC has no clock.
    std::uint64_t second_cycles() const {
        const std::uint64_t rtcclk = host().clock("rtcclk"), core = host().clock("core");
        const std::uint64_t prl = (regs().value(prlh_.reg) & 0xf) << 16 | (regs().value(prll_.reg) & 0xffff);
        if (!rtcclk || !core) return 0;
        return std::max<std::uint64_t>(1, core * (prl + 1) / rtcclk);
    }

    void advance(std::uint64_t now) {
        auto& r = regs();
        const std::uint64_t step = second_cycles();
        if (!step) {
            base_cycle_ = now;
            return;
        }
        const std::uint32_t alarm = r.value(alrh_.reg) << 16 | (r.value(alrl_.reg) & 0xffff);
        const std::uint64_t seconds = (now - base_cycle_) / step;
        if (seconds) {
            r.put(secf_, 1);
            if (alarm - count_ - 1 < seconds) r.put(alrf_, 1);  // the alarm's value passed
            if (std::uint64_t{count_} + seconds > 0xffffffffu) r.put(owf_, 1);
            count_ += static_cast<std::uint32_t>(seconds);
            base_cycle_ += seconds * step;
        }
        r.set(cnth_.reg, count_ >> 16);
        r.set(cntl_.reg, count_ & 0xffff);
        r.set(divl_.reg, static_cast<std::uint32_t>((step - (now - base_cycle_)) & 0xffff));
        update_irq();
    }

    void reschedule() {
        update_irq();
        const std::uint64_t step = second_cycles();
        if (step && (regs().get(secie_) || regs().get(alrie_) || regs().get(owie_))) host().wake_at(base_cycle_ + step);
    }

    void update_irq() {
        const auto& r = regs();
        host().set_irq((r.get(secie_) && r.get(secf_)) || (r.get(alrie_) && r.get(alrf_)) || (r.get(owie_) && r.get(owf_)));
    }

    FieldRef crh_, secie_, alrie_, owie_, secf_, alrf_, owf_, prlh_, prll_, cnth_, cntl_, alrh_, alrl_, divl_;
    std::uint64_t base_cycle_ = 0;  ///< the cycle the current second began
    std::uint32_t count_ = 0;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_rtc(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({});
    return std::make_unique<Stm32Rtc>(svd);
}

}  // namespace emutrace::emu
