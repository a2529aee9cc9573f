// ST's STM32F1 ADC (RM0008 §11): 12-bit conversions of a regular group (SQR1-3, up to 16 channels,
// into DR) and an injected group (JSQR, up to 4, into JDR1-4 less JOFR1-4), started by software
// (SWSTART, JSWSTART, ADON written again) or by the trigger EXTSEL/JEXTSEL selects: another
// device's wire (a timer's TRGO or compare event, DeviceHost::signal). A conversion takes its
// channel's sampling time plus 12.5 ADC clock cycles (ADCCLK, PCLK2 over RCC's ADCPRE); scan mode
// converts the group's channels in turn, continuous mode starts it again. EOC at the end of a
// regular conversion (of the group in scan mode; a read of DR clears it), JEOC at the end of the
// injected group, and their interrupts (EOCIE, JEOCIE). With CR2.DMA each regular result raises the
// request line of the DMA channel the scenario names (default DMA1 channel 1, ADC1's) until DR is
// read. Calibration ends after the RM's 83 ADC clock cycles. What a channel reads is a scenario
// parameter (`inputs`), by default the temperature sensor's and VREFINT's typical values, else 0.

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "config/units.h"
#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

constexpr std::uint64_t kNever = ~std::uint64_t{0};
constexpr unsigned kChannels = 18;
// RM0008 §11.6: sampling times by SMPx, in half ADC clock cycles (1.5 .. 239.5).
constexpr std::array<unsigned, 8> kSampleHalfCycles{3, 15, 27, 57, 83, 111, 143, 479};
constexpr unsigned kConversionHalfCycles = 25;  // 12.5 cycles of successive approximation
constexpr unsigned kCalibrationCycles = 83;

// The triggers EXTSEL and JEXTSEL select on ADC1 and ADC2 (RM0008 Tables 69 and 70), as the wires
// the timer models drive; 7 is the software start.
constexpr std::array<std::string_view, 7> kRegularTriggers{"TIM1.CC1", "TIM1.CC2", "TIM1.CC3", "TIM2.CC2", "TIM3.TRGO", "TIM4.CC4", "EXTI.11"};
constexpr std::array<std::string_view, 7> kInjectedTriggers{"TIM1.TRGO", "TIM1.CC4", "TIM2.TRGO", "TIM2.CC1", "TIM3.CC4", "TIM4.TRGO", "EXTI.15"};

class Stm32Adc final : public RegisterPeripheral {
public:
    Stm32Adc(decode::svd::Peripheral d, std::array<std::uint16_t, kChannels> inputs, std::string dma_request)
        : RegisterPeripheral(std::move(d)), inputs_(inputs), dma_request_(std::move(dma_request)), eoc_(need("SR.EOC")), jeoc_(need("SR.JEOC")),
          strt_(need("SR.STRT")), jstrt_(need("SR.JSTRT")), scan_(need("CR1.SCAN")), eocie_(need("CR1.EOCIE")), jeocie_(need("CR1.JEOCIE")),
          jauto_(need("CR1.JAUTO")), cr2_(need("CR2")), adon_(need("CR2.ADON")), cont_(need("CR2.CONT")), cal_(need("CR2.CAL")),
          rstcal_(need("CR2.RSTCAL")), dma_(need("CR2.DMA")), align_(need("CR2.ALIGN")), extsel_(need("CR2.EXTSEL")), exttrig_(need("CR2.EXTTRIG")),
          jextsel_(need("CR2.JEXTSEL")), jexttrig_(need("CR2.JEXTTRIG")), swstart_(need("CR2.SWSTART")), jswstart_(need("CR2.JSWSTART")),
          sqr1_l_(need("SQR1.L")), jl_(need("JSQR.JL")), dr_(need("DR")) {
        for (unsigned i = 0; i < 16; ++i) {
            const std::string n = std::to_string(i + 1);
            sq_[i] = need(std::string(i < 6 ? "SQR3" : i < 12 ? "SQR2" : "SQR1") + ".SQ" + n);
        }
        for (unsigned i = 0; i < 4; ++i) {
            const std::string n = std::to_string(i + 1);
            jsq_[i] = need("JSQR.JSQ" + n);
            jdr_[i] = need("JDR" + n);
            jofr_[i] = need("JOFR" + n);
        }
        for (unsigned c = 0; c < kChannels; ++c) smp_[c] = need(std::string(c < 10 ? "SMPR2" : "SMPR1") + ".SMP" + std::to_string(c));
        // RM0008: the status flags are rc_w0, which ST's SVD calls read-write.
        for (FieldRef f : {eoc_, jeoc_, strt_, jstrt_, need("SR.AWD")}) regs().set_write_action(f, decode::svd::WriteAction::ZeroToClear);
    }

private:
    // A group's conversions in progress: the next channel's index in the sequence and when it ends.
    struct Group {
        bool running = false;
        unsigned index = 0;
        std::uint64_t done_at = kNever;
    };

    void reset_model() override { regular_ = injected_ = {}, dma_request_.reset(); }
    void request(bool level) { dma_request_.drive(host(), level); }
    bool drives(std::string_view line) const override { return dma_request_.is(line); }

    void stored(int reg, std::uint32_t before) override {
        auto& r = regs();
        const std::uint64_t now = host().now();
        if (reg == cr2_.reg) {
            // ADON written 1 again, with no other bit changed, starts the regular group (RM0008
            // §11.12.3); SWSTART and JSWSTART do when the software trigger is selected.
            const bool adon_again = (before & adon_.mask) && r.get(adon_) && ((r.value(reg) ^ before) & ~adon_.mask) == 0;
            if (adon_again) start(regular_, now);
            // Cleared by hardware as the conversion starts; with another trigger selected they stay.
            if (r.get(swstart_) && r.get(exttrig_) && r.get(extsel_) == 7) start(regular_, now), r.put(swstart_, 0);
            if (r.get(jswstart_) && r.get(jexttrig_) && r.get(jextsel_) == 7) start(injected_, now), r.put(jswstart_, 0);
            if (r.get(cal_) || r.get(rstcal_)) calibration_done_ = now + adc_cycles(kCalibrationCycles * 2);
            if (!r.get(adon_)) regular_ = injected_ = {};
        }
        reschedule();
        update_irq();
    }

    void loaded(int reg) override {
        if (reg == dr_.reg) regs().put(eoc_, 0), request(false);
        update_irq();
    }

    void refresh(int) override { catch_up(host().now()); }

    void tick(std::uint64_t now) override {
        catch_up(now);
        reschedule();
    }

    void on_signal(std::string_view line, bool level) override {
        if (!level || !regs().get(adon_)) return;
        auto& r = regs();
        const std::uint64_t now = host().now();
        const unsigned sel = r.get(extsel_), jsel = r.get(jextsel_);
        if (r.get(exttrig_) && sel < kRegularTriggers.size() && line == kRegularTriggers[sel]) start(regular_, now);
        if (r.get(jexttrig_) && jsel < kInjectedTriggers.size() && line == kInjectedTriggers[jsel]) start(injected_, now);
        reschedule();
    }

    void start(Group& g, std::uint64_t now) {
        auto& r = regs();
        if (!r.get(adon_) || g.running) return;
        g = {true, 0, now + conversion_cycles(channel(g, 0))};
        r.put(&g == &regular_ ? strt_ : jstrt_, 1);
    }

    // The group's `index`-th channel: SQ1, SQ2, ... for the regular group; the injected group's
    // JL+1 channels end at JSQ4 (RM0008 §11.12.12: with JL = 0 only JSQ4 is converted).
    unsigned channel(const Group& g, unsigned index) const {
        const auto& r = regs();
        if (&g == &regular_) return r.get(sq_[index]) % kChannels;
        const unsigned length = r.get(jl_) + 1;
        return r.get(jsq_[4 - length + index]) % kChannels;
    }
    unsigned length(const Group& g) const {
        if (!regs().get(scan_)) return 1;
        return &g == &regular_ ? regs().get(sqr1_l_) + 1 : regs().get(jl_) + 1;
    }

    // Runs the conversions due by `now`, in order. The DMA reading DR for a request comes back
    // here through refresh(): the conversions are up to date then.
    void catch_up(std::uint64_t now) {
        if (catching_up_) return;
        catching_up_ = true;
        for (;;) {
            Group* g = regular_.done_at <= injected_.done_at ? &regular_ : &injected_;
            if (g->done_at > now) break;
            finish(*g);
        }
        auto& r = regs();
        if (calibration_done_ <= now) r.put(cal_, 0), r.put(rstcal_, 0), calibration_done_ = kNever;
        catching_up_ = false;
        update_irq();
    }

    void finish(Group& g) {
        auto& r = regs();
        const unsigned c = channel(g, g.index);
        const std::uint32_t value = inputs_[c];
        const std::uint64_t at = g.done_at;
        const bool regular = &g == &regular_, last = g.index + 1 >= length(g);
        if (regular) {
            r.set(dr_.reg, r.get(align_) ? value << 4 : value);
            if (last) r.put(eoc_, 1);
        } else {
            // The k-th conversion of the group goes to JDRk, less JOFRk (RM0008 §11.12.13).
            const std::int32_t shifted = static_cast<std::int32_t>(value) - static_cast<std::int32_t>(r.get(jofr_[g.index]));
            r.set(jdr_[g.index].reg, static_cast<std::uint32_t>(r.get(align_) ? shifted * 16 : shifted) & 0xffff);
            if (last) r.put(jeoc_, 1);
        }
        if (!last) {
            ++g.index;
            g.done_at = at + conversion_cycles(channel(g, g.index));
        } else {
            g = {};
            if (regular && r.get(jauto_)) start(injected_, at);
            if (regular && r.get(cont_)) regular_ = {true, 0, at + conversion_cycles(channel(regular_, 0))};
        }
        // The result is in DR: the request stays high until DR is read (by the DMA channel).
        if (regular && r.get(dma_)) request(true);
    }

    std::uint64_t conversion_cycles(unsigned c) const { return adc_cycles(kSampleHalfCycles[regs().get(smp_[c]) & 7] + kConversionHalfCycles); }
    // Core cycles for `half` half ADC clock cycles (at least one).
    std::uint64_t adc_cycles(std::uint64_t half) const {
        const std::uint64_t core = host().clock("core"), adc = host().clock("adcclk");
        if (!core || !adc) return (half + 1) / 2;
        const unsigned __int128 num = static_cast<unsigned __int128>(half) * core;
        return std::max<std::uint64_t>(1, static_cast<std::uint64_t>((num + 2 * adc - 1) / (2 * adc)));
    }

    void reschedule() {
        const std::uint64_t next = std::min({regular_.done_at, injected_.done_at, calibration_done_});
        if (next != kNever) host().wake_at(next);
    }

    void update_irq() {
        const auto& r = regs();
        host().set_irq((r.get(eocie_) && r.get(eoc_)) || (r.get(jeocie_) && r.get(jeoc_)));
    }

    std::array<std::uint16_t, kChannels> inputs_;
    LevelWire dma_request_;  ///< the DMA channel's request line, high from a result until DR is read
    FieldRef eoc_, jeoc_, strt_, jstrt_, scan_, eocie_, jeocie_, jauto_, cr2_, adon_, cont_, cal_, rstcal_, dma_, align_, extsel_, exttrig_, jextsel_,
        jexttrig_, swstart_, jswstart_, sqr1_l_, jl_, dr_;
    std::array<FieldRef, 16> sq_{};
    std::array<FieldRef, 4> jsq_{}, jdr_{}, jofr_{};
    std::array<FieldRef, kChannels> smp_{};
    Group regular_, injected_;
    std::uint64_t calibration_done_ = kNever;
    bool catching_up_ = false;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_adc(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"inputs", "dma"});
    // RM0008 §11.10 and the datasheet's typical values at 3.3 V: the temperature sensor's 1.43 V
    // at 25 °C (channel 16) and VREFINT's 1.20 V (channel 17).
    std::array<std::uint16_t, kChannels> inputs{};
    inputs[16] = 1775;
    inputs[17] = 1489;
    if (params.has("inputs")) {
        for (const auto& [key, value] : params["inputs"].entries()) {
            const std::uint64_t channel = config::parse_integer(key).value_or(kChannels);
            if (channel >= kChannels || value.integer() > 0xfff)
                value.fail("ADC input " + key + ": the channels are 0 to 17, and a 12-bit result is at most 4095");
            inputs[channel] = static_cast<std::uint16_t>(value.integer());
        }
    }
    return std::make_unique<Stm32Adc>(svd, inputs, params.has("dma") ? params["dma"].str() : "DMA1.1");
}

}  // namespace emutrace::emu
