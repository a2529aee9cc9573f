// ST's STM32F1 GPIO port (RM0008 §9.2): BSRR and BRR set and reset ODR's bits in one store, IDR
// reads the pins (an output pin reads what it drives; an input pin what a stimulus set, by
// `set: {device: GPIOA, register: IDR.IDR0, value: 1}`), CRL/CRH say which is which. A pin in
// alternate-function output mode that the scenario wires to a peripheral's output (`alternate:
// {6: TIM3.CH1}`, RM0008's default mapping in the presets) drives what that wire says instead of
// ODR. A pin that changes level drives the wire "GPIOA.0" to the board's other devices (EXTI).

#include <array>
#include <memory>
#include <string>

#include "config/units.h"
#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

class Stm32Gpio final : public RegisterPeripheral {
public:
    Stm32Gpio(decode::svd::Peripheral d, std::array<std::string, 16> alternate)
        : RegisterPeripheral(std::move(d)), crl_(need("CRL")), crh_(need("CRH")), idr_(need("IDR")), odr_(need("ODR")), bsrr_(need("BSRR")),
          brr_(need("BRR")), alternate_(std::move(alternate)) {}

private:
    void reset_model() override {
        inputs_ = regs().value(idr_.reg);
        from_alternate_ = 0;
        levels_ = pins();
    }

    // A peripheral output wired to one of the pins changed.
    void on_signal(std::string_view line, bool level) override {
        for (unsigned pin = 0; pin < 16; ++pin) {
            if (alternate_[pin].empty() || line != alternate_[pin]) continue;
            from_alternate_ = (from_alternate_ & ~(1u << pin)) | (std::uint32_t{level} << pin);
            regs().set(idr_.reg, pins());
            drive(regs().value(idr_.reg));
        }
    }

    void stored(int reg, std::uint32_t) override {
        auto& r = regs();
        if (reg == bsrr_.reg || reg == brr_.reg) {
            const std::uint32_t v = r.value(reg);
            const std::uint32_t set = reg == bsrr_.reg ? v & 0xffff : 0;
            const std::uint32_t clear = reg == bsrr_.reg ? v >> 16 : v & 0xffff;
            r.set(odr_.reg, (r.value(odr_.reg) & ~clear) | set);  // set wins where both are written
            r.set(reg, 0);
        } else if (reg == idr_.reg) {  // a stimulus drove the pins
            inputs_ = r.value(idr_.reg);
        }
        r.set(idr_.reg, pins());
        drive(r.value(idr_.reg));
    }

    void drive(std::uint32_t levels) {
        const std::uint32_t changed = levels ^ levels_;
        levels_ = levels;
        for (unsigned pin = 0; pin < 16; ++pin)
            if (changed >> pin & 1) host().signal(description()->name + "." + std::to_string(pin), levels >> pin & 1);
    }

    void refresh(int reg) override {
        if (reg == idr_.reg) regs().set(idr_.reg, pins());
    }

    // IDR: outputs read back what ODR drives (an alternate-function one what its peripheral
    // drives), inputs what the outside drives.
    std::uint32_t pins() const {
        const auto& r = regs();
        std::uint32_t outputs = 0, alternate = 0;
        for (unsigned pin = 0; pin < 16; ++pin) {
            const std::uint32_t mode = r.value(pin < 8 ? crl_.reg : crh_.reg) >> (4 * (pin % 8)) & 0xf;
            if ((mode & 3) == 0) continue;  // MODE 00: an input
            outputs |= 1u << pin;
            if ((mode & 8) && !alternate_[pin].empty()) alternate |= 1u << pin;  // CNF 1x: alternate function
        }
        const std::uint32_t plain = outputs & ~alternate;
        return ((r.value(odr_.reg) & plain) | (from_alternate_ & alternate) | (inputs_ & ~outputs)) & 0xffff;
    }

    FieldRef crl_, crh_, idr_, odr_, bsrr_, brr_;
    std::array<std::string, 16> alternate_;  ///< per pin: the peripheral output wire it takes in alternate-function mode
    std::uint32_t from_alternate_ = 0;       ///< those wires' levels
    std::uint32_t inputs_ = 0;
    std::uint32_t levels_ = 0;  ///< the pins as the board's wires last saw them
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_gpio(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"alternate"});
    std::array<std::string, 16> alternate;
    if (params.has("alternate"))
        for (const auto& [pin, wire] : params["alternate"].entries()) {
            const std::uint64_t number = config::parse_integer(pin).value_or(16);
            if (number > 15) wire.fail("a pin is 0 to 15, not '" + pin + "'");
            alternate[number] = wire.str();
        }
    return std::make_unique<Stm32Gpio>(svd, std::move(alternate));
}

}  // namespace emutrace::emu
