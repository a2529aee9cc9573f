// ST's STM32 basic, general-purpose and advanced timers, counting up (RM0008 §14-15): CNT counts the
// timer clock divided by PSC+1 from 0 to ARR; the overflow is the update event (UIF, its
// interrupt, the preloaded PSC and ARR taking effect, one-pulse mode stopping the counter), a
// match with CCRx sets CCxIF. Counting is computed from the cycle count when read, and the device
// wakes itself at its next event, so a running timer costs nothing between events. The events
// other devices trigger on go out as wires (DeviceHost::signal): "TIMx.TRGO" as CR2.MMS selects
// it (UG, counter enable, update, compare pulse or OCxREF), and "TIMx.CCn" at a compare match of
// an enabled channel (CCER.CCnE): an ADC's external trigger listens to them. An enabled channel's
// output compare (CCMRx's OCnM: active, inactive or toggle on match, forced, PWM modes 1 and 2)
// drives the level wire "TIMx.CHn", its polarity CCnP applied (and BDTR.MOE on an advanced
// timer): a GPIO pin in alternate-function mode wired to it follows (stm32.gpio `alternate`).

#include <algorithm>
#include <array>
#include <memory>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

constexpr std::uint64_t kNever = ~std::uint64_t{0};

class Stm32Timer final : public RegisterPeripheral {
public:
    Stm32Timer(decode::svd::Peripheral d, std::string clock)
        : RegisterPeripheral(std::move(d)), clock_(std::move(clock)), cr1_(need("CR1")), cen_(need("CR1.CEN")), opm_(need("CR1.OPM")),
          urs_(need("CR1.URS")), arpe_(need("CR1.ARPE")), dir_(regs().field("CR1.DIR")), cms_(regs().field("CR1.CMS")), dier_(need("DIER")),
          uie_(need("DIER.UIE")), sr_(need("SR")), uif_(need("SR.UIF")), egr_(need("EGR")), ug_(need("EGR.UG")), cnt_(need("CNT")), psc_(need("PSC")),
          arr_(need("ARR")), mms_(regs().field("CR2.MMS")), moe_(regs().field("BDTR.MOE")), trgo_(description()->name + ".TRGO") {
        for (unsigned i = 0; i < 4; ++i) {
            const std::string n = std::to_string(i + 1);
            cce_[i] = regs().field("CCER.CC" + n + "E");
            ccp_[i] = regs().field("CCER.CC" + n + "P");
            ocm_[i] = regs().field(std::string(i < 2 ? "CCMR1_Output" : "CCMR2_Output") + ".OC" + n + "M");
            cc_wire_[i] = description()->name + ".CC" + n;
            ch_wire_[i] = LevelWire(description()->name + ".CH" + n, -1);
            ccr_[i] = regs().field("CCR" + n);
            ccif_[i] = regs().field("SR.CC" + n + "IF");
            ccie_[i] = regs().field("DIER.CC" + n + "IE");
            ccg_[i] = regs().field("EGR.CC" + n + "G");
        }
        // RM0008: the status flags are rc_w0, which ST's SVD calls read-write.
        for (const auto& f : description()->reg("SR")->fields)
            regs().set_write_action(regs().field("SR." + f.name), decode::svd::WriteAction::ZeroToClear);
        // Which interrupt line carries which event: one line for all, or TIMx_UP and TIMx_CC apart.
        const auto& irqs = description()->interrupts;
        for (std::size_t i = 0; i < irqs.size(); ++i) {
            if (irqs[i].name.find("_UP") != std::string::npos) update_line_ = static_cast<unsigned>(i);
            if (irqs[i].name.find("_CC") != std::string::npos) cc_line_ = static_cast<unsigned>(i);
        }
        if (irqs.size() > 1 && update_line_ == 0 && irqs[0].name.find("_UP") == std::string::npos) update_line_ = kNoLine;
    }

private:
    static constexpr unsigned kNoLine = ~0u;

    void reset_model() override {
        base_cycle_ = host().now();
        base_count_ = 0;
        psc_active_ = 0;
        arr_active_ = regs().get(arr_);
        ref_ = {};
        for (LevelWire& w : ch_wire_) w.reset();
    }

    void refresh(int) override { advance(host().now()); }

    void tick(std::uint64_t now) override {
        advance(now);
        reschedule();
    }

    void stored(int reg, std::uint32_t before) override {
        const std::uint64_t now = host().now();
        auto& r = regs();
        if (reg == cr1_.reg) {
            if ((dir_ && r.get(dir_)) || (cms_ && r.get(cms_)))
                host().warn_once(r.offset(reg), "down and centre-aligned counting are not modelled; the timer counts up");
            if (!(before & cen_.mask) && r.get(cen_)) {
                base_cycle_ = now;  // counting starts now
                if (master_mode() == kMmsEnable) pulse(trgo_);
            }
        } else if (reg == cnt_.reg) {
            base_count_ = r.get(cnt_);
            base_cycle_ = now;
        } else if (reg == arr_.reg && !r.get(arpe_)) {
            arr_active_ = r.get(arr_);
        } else if (reg == egr_.reg) {
            for (unsigned i = 0; i < 4; ++i)
                if (ccg_[i] && r.get(ccg_[i]) && ccif_[i]) r.put(ccif_[i], 1);
            if (r.get(ug_)) {
                if (master_mode() == kMmsReset) pulse(trgo_);
                update(now, !r.get(urs_));
            }
            r.set(egr_.reg, 0);  // event bits clear themselves
        } else if ((ocm_[0] && (reg == ocm_[0].reg || reg == ocm_[2].reg)) || (cce_[0] && reg == cce_[0].reg) || (moe_ && reg == moe_.reg)) {
            advance(now);
            for (unsigned i = 0; i < 4; ++i) set_reference(i);
        }
        reschedule();
    }

    // Counter ticks between two cycles at the current clocks (the timer clock over PSC+1).
    std::uint64_t ticks(std::uint64_t from, std::uint64_t to) const {
        if (to <= from) return 0;
        const unsigned __int128 num = static_cast<unsigned __int128>(to - from) * timer_hz();
        return static_cast<std::uint64_t>(num / (static_cast<unsigned __int128>(core_hz()) * (psc_active_ + 1)));
    }
    // The first cycle at which `n` ticks have passed since `from`.
    std::uint64_t cycle_after(std::uint64_t from, std::uint64_t n) const {
        const unsigned __int128 den = timer_hz();
        const unsigned __int128 num = static_cast<unsigned __int128>(n) * core_hz() * (psc_active_ + 1);
        return from + static_cast<std::uint64_t>((num + den - 1) / den);
    }
    std::uint64_t timer_hz() const {
        std::uint64_t hz = host().clock(clock_);
        return hz ? hz : core_hz();
    }
    std::uint64_t core_hz() const {
        std::uint64_t hz = host().clock("core");
        return hz ? hz : 1;
    }

    // Runs the counter up to `now`: its update events and compare matches on the way.
    void advance(std::uint64_t now) {
        auto& r = regs();
        if (!r.get(cen_)) return;
        for (;;) {
            const std::uint64_t period = std::uint64_t{arr_active_} + 1;
            const std::uint64_t to_update = period > base_count_ ? period - base_count_ : 1;
            const std::uint64_t at = cycle_after(base_cycle_, to_update);
            if (at > now) break;
            compare(base_count_, arr_active_ + std::uint64_t{1});
            update(at, true);
            if (!r.get(cen_)) return;  // one-pulse mode
        }
        const std::uint64_t count = base_count_ + ticks(base_cycle_, now);
        compare(base_count_, count);
        const std::uint64_t whole = ticks(base_cycle_, now);
        base_cycle_ = cycle_after(base_cycle_, whole);  // keep the fraction of a tick
        base_count_ = static_cast<std::uint32_t>(count);
        r.put(cnt_, base_count_);
        update_irq();
    }

    // CCxIF for every CCRx the counter reached in (from, to].
    void compare(std::uint64_t from, std::uint64_t to) {
        auto& r = regs();
        for (unsigned i = 0; i < 4; ++i)
            if (ccr_[i] && ccif_[i]) {
                const std::uint64_t c = r.get(ccr_[i]);
                if (c > from && c <= to && c <= arr_active_) {
                    r.put(ccif_[i], 1);
                    if (cce_[i] && r.get(cce_[i])) pulse(cc_wire_[i]);
                    if (trgo_on_compare(i)) pulse(trgo_);
                    on_match(i);
                }
            }
    }

    // CR2.MMS (RM0008 §15.4.2): what the timer sends on TRGO.
    static constexpr unsigned kMmsReset = 0, kMmsEnable = 1, kMmsUpdate = 2, kMmsComparePulse = 3;
    unsigned master_mode() const { return mms_ ? regs().get(mms_) : kMmsReset; }
    bool trgo_on_compare(unsigned i) const {
        const unsigned m = master_mode();
        return (m == kMmsComparePulse && i == 0) || m == 4 + i;  // OC1REF..OC4REF
    }
    // Whether another device may be waiting for channel i's compare events.
    bool compare_sends(unsigned i) const { return (cce_[i] && regs().get(cce_[i])) || trgo_on_compare(i); }

    // Output compare (RM0008 §15.3.8-10): OCnM's modes, and OCnREF as the counter makes it.
    static constexpr unsigned kFrozen = 0, kActiveOnMatch = 1, kInactiveOnMatch = 2, kToggle = 3, kForceInactive = 4, kForceActive = 5, kPwm1 = 6,
                              kPwm2 = 7;
    unsigned output_mode(unsigned i) const { return ocm_[i] ? regs().get(ocm_[i]) : kFrozen; }
    bool output_enabled(unsigned i) const { return cce_[i] && regs().get(cce_[i]) && (!moe_ || regs().get(moe_)); }
    // OCnREF for the mode and the count now (a level only a match changes stays), and the output.
    void set_reference(unsigned i) {
        const auto& r = regs();
        const std::uint32_t ccr = ccr_[i] ? r.get(ccr_[i]) : 0;
        switch (output_mode(i)) {
            case kForceInactive: ref_[i] = false; break;
            case kForceActive: ref_[i] = true; break;
            case kPwm1: ref_[i] = base_count_ < ccr; break;  // active while CNT < CCRn
            case kPwm2: ref_[i] = base_count_ >= ccr; break;
            default: break;  // frozen, or a level only a match changes
        }
        drive_output(i);
    }
    void on_match(unsigned i) {
        switch (output_mode(i)) {
            case kActiveOnMatch: ref_[i] = true; break;
            case kInactiveOnMatch: ref_[i] = false; break;
            case kToggle: ref_[i] = !ref_[i]; break;
            case kPwm1: ref_[i] = false; break;  // CNT reached CCRn
            case kPwm2: ref_[i] = true; break;
            default: return;
        }
        drive_output(i);
    }
    void drive_output(unsigned i) {
        if (!output_enabled(i)) return;
        ch_wire_[i].drive(host(), ref_[i] != (ccp_[i] && regs().get(ccp_[i])));
    }
    // Whether channel i's pin changes at its compare match.
    bool output_moves(unsigned i) const {
        const unsigned m = output_mode(i);
        return output_enabled(i) && (m == kActiveOnMatch || m == kInactiveOnMatch || m == kToggle || m == kPwm1 || m == kPwm2);
    }
    bool pwm_output() const {
        for (unsigned i = 0; i < 4; ++i)
            if (output_enabled(i) && (output_mode(i) == kPwm1 || output_mode(i) == kPwm2)) return true;
        return false;
    }
    void pulse(const std::string& wire) {
        host().signal(wire, true);
        host().signal(wire, false);
    }

    void update(std::uint64_t at, bool flag) {
        auto& r = regs();
        base_cycle_ = at;
        base_count_ = 0;
        psc_active_ = r.get(psc_);
        arr_active_ = r.get(arr_);
        r.put(cnt_, 0);
        if (flag) r.put(uif_, 1);
        if (master_mode() == kMmsUpdate) pulse(trgo_);
        for (unsigned i = 0; i < 4; ++i)
            if (output_mode(i) == kPwm1 || output_mode(i) == kPwm2) set_reference(i);
        if (r.get(opm_)) r.put(cen_, 0);
        update_irq();
    }

    void reschedule() {
        auto& r = regs();
        update_irq();
        if (!r.get(cen_)) return;
        std::uint64_t next = kNever;
        if (r.get(uie_) || master_mode() == kMmsUpdate || pwm_output())
            next = cycle_after(base_cycle_, std::uint64_t{arr_active_} + 1 - std::min<std::uint64_t>(base_count_, arr_active_));
        for (unsigned i = 0; i < 4; ++i)
            if (ccr_[i] && ((ccie_[i] && r.get(ccie_[i])) || compare_sends(i) || output_moves(i))) {
                const std::uint64_t c = r.get(ccr_[i]);
                if (c > base_count_ && c <= arr_active_) next = std::min(next, cycle_after(base_cycle_, c - base_count_));
            }
        if (next != kNever) host().wake_at(next);
    }

    void update_irq() {
        auto& r = regs();
        const bool up = r.get(uie_) && r.get(uif_);
        bool cc = false;
        for (unsigned i = 0; i < 4; ++i) cc |= ccie_[i] && ccif_[i] && r.get(ccie_[i]) && r.get(ccif_[i]);
        if (update_line_ == kNoLine || update_line_ == cc_line_) {
            host().set_irq_line(cc_line_, up || cc);
        } else {
            host().set_irq_line(update_line_, up);
            host().set_irq_line(cc_line_, cc);
        }
    }

    std::string clock_;
    FieldRef cr1_, cen_, opm_, urs_, arpe_, dir_, cms_, dier_, uie_, sr_, uif_, egr_, ug_, cnt_, psc_, arr_, mms_, moe_;
    std::array<FieldRef, 4> ccr_{}, ccif_{}, ccie_{}, ccg_{}, cce_{}, ccp_{}, ocm_{};
    std::array<LevelWire, 4> ch_wire_{};    ///< the output compare levels' wires, "TIM3.CH1".., first drive always heard
    std::array<bool, 4> ref_{};             ///< OCnREF
    std::string trgo_;                      ///< the TRGO wire, "TIM2.TRGO"
    std::array<std::string, 4> cc_wire_{};  ///< the compare events' wires, "TIM2.CC1"..
    unsigned update_line_ = 0, cc_line_ = 0;
    std::uint64_t base_cycle_ = 0;  ///< the cycle at which the counter held base_count_
    std::uint32_t base_count_ = 0;
    std::uint32_t psc_active_ = 0, arr_active_ = 0;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_timer(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"clock"});
    // The timer clock (RM0008 §7: the APB clock, twice it when the APB prescaler divides).
    return std::make_unique<Stm32Timer>(svd, params.has("clock") ? params["clock"].str() : "tim_pclk1");
}

}  // namespace emutrace::emu
