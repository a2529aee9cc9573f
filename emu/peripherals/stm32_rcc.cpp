// ST's STM32F1 reset and clock control as a clock tree (RM0008 §7.2): the system clock from the
// HSI, the HSE or the PLL (its source, predivider and multiplier), the AHB and APB prescalers, and
// the timers' clocks (twice their APB clock when it is divided) and the ADCs' (PCLK2 over ADCPRE). Each store to CR, CFGR or CFGR2
// sets the board's clocks, "core" among them, so the emulated time and every clocked model follow
// what the firmware configured. The ready bits are the board preset's rules (follows).

#include <memory>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

class Stm32Rcc final : public RegisterPeripheral {
public:
    Stm32Rcc(decode::svd::Peripheral d, std::uint64_t hsi, std::uint64_t hse, std::uint64_t lse, std::uint64_t lsi)
        : RegisterPeripheral(std::move(d)), hsi_(hsi), hse_(hse), lse_(lse), lsi_(lsi), cr_(need("CR")), cfgr_(need("CFGR")), sw_(need("CFGR.SW")),
          hpre_(need("CFGR.HPRE")), ppre1_(need("CFGR.PPRE1")), ppre2_(need("CFGR.PPRE2")), pllsrc_(need("CFGR.PLLSRC")),
          pllxtpre_(need("CFGR.PLLXTPRE")), pllmul_(need("CFGR.PLLMUL")), prediv1_(regs().field("CFGR2.PREDIV1")), rtcsel_(need("BDCR.RTCSEL")),
          rtcen_(need("BDCR.RTCEN")), adcpre_(regs().field("CFGR.ADCPRE")) {}

private:
    void reset_model() override { set_clocks(); }

    void stored(int reg, std::uint32_t) override {
        if (reg == cr_.reg || reg == cfgr_.reg || reg == rtcsel_.reg || (prediv1_ && reg == prediv1_.reg)) set_clocks();
    }

    void set_clocks() {
        const auto& r = regs();
        std::uint64_t sysclk = hsi_;
        switch (r.get(sw_)) {
            case 1: sysclk = hse_; break;
            case 2: {
                // Value-line parts divide the HSE by CFGR2.PREDIV1 (PLLXTPRE is its low bit).
                const std::uint64_t prediv = prediv1_ ? r.get(prediv1_) + 1 : r.get(pllxtpre_) + 1;
                const std::uint64_t in = r.get(pllsrc_) ? hse_ / prediv : hsi_ / 2;
                sysclk = in * std::min<std::uint64_t>(16, r.get(pllmul_) + 2);
                break;
            }
            default: break;
        }
        const unsigned hpre = r.get(hpre_);
        const std::uint64_t hclk = hpre < 8 ? sysclk : sysclk >> (hpre < 12 ? hpre - 7 : hpre - 6);  // /2../16, then /64../512
        auto apb = [&](FieldRef f) {
            const unsigned p = r.get(f);
            return p < 4 ? hclk : hclk >> (p - 3);
        };
        const std::uint64_t pclk1 = apb(ppre1_), pclk2 = apb(ppre2_);
        host().set_clock("sysclk", sysclk);
        host().set_clock("hclk", hclk);
        host().set_clock("pclk1", pclk1);
        host().set_clock("pclk2", pclk2);
        host().set_clock("tim_pclk1", pclk1 == hclk ? pclk1 : 2 * pclk1);
        host().set_clock("tim_pclk2", pclk2 == hclk ? pclk2 : 2 * pclk2);
        host().set_clock("core", hclk);
        if (adcpre_) host().set_clock("adcclk", pclk2 / (2 * (r.get(adcpre_) + 1)));  // /2, /4, /6, /8
        // The RTC's clock (BDCR.RTCSEL: LSE, LSI or HSE/128), while RTCEN runs it.
        const unsigned sel = r.get(rtcsel_);
        host().set_clock("rtcclk", !r.get(rtcen_) ? 0 : sel == 1 ? lse_ : sel == 2 ? lsi_ : sel == 3 ? hse_ / 128 : 0);
    }

    std::uint64_t hsi_, hse_, lse_, lsi_;
    FieldRef cr_, cfgr_, sw_, hpre_, ppre1_, ppre2_, pllsrc_, pllxtpre_, pllmul_, prediv1_, rtcsel_, rtcen_, adcpre_;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_rcc(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"hsi", "hse", "lse", "lsi"});
    auto hz = [&](const char* key, std::uint64_t otherwise) { return params.has(key) ? params[key].frequency() : otherwise; };
    // The board's crystals (an 8 MHz HSE, a 32.768 kHz LSE) and the part's RC oscillators.
    return std::make_unique<Stm32Rcc>(svd, hz("hsi", 8'000'000), hz("hse", 8'000'000), hz("lse", 32'768), hz("lsi", 40'000));
}

}  // namespace emutrace::emu
