// ST's STM32F1 external interrupt controller (RM0008 §10.2): an unmasked line pends in PR when
// SWIER is written 1 or its pin's edge arrives (the GPIO ports' wires, "GPIOB.5", the port of each
// line as AFIO's EXTICR registers select it, RTSR and FTSR the edges), interrupts, and a store of
// 1 to PR clears it and its SWIER bit. Lines 0-4 have interrupts of their own, 5-9 and 10-15
// share one each, as the SVD's EXTI0..EXTI4, EXTI9_5, EXTI15_10 say.

#include <array>
#include <memory>
#include <optional>
#include <string_view>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

constexpr unsigned kLines = 16;

class Stm32Exti final : public RegisterPeripheral {
public:
    Stm32Exti(decode::svd::Peripheral d, std::optional<std::uint32_t> exticr)
        : RegisterPeripheral(std::move(d)), exticr_(exticr), imr_(need("IMR")), rtsr_(need("RTSR")), ftsr_(need("FTSR")), swier_(need("SWIER")),
          pr_(need("PR")) {
        // RM0008: PR is rc_w1, which ST's SVD calls read-write.
        for (const auto& f : description()->reg("PR")->fields)
            regs().set_write_action(regs().field("PR." + f.name), decode::svd::WriteAction::OneToClear);
        line_of_.fill(kNoLine);
        const auto& irqs = description()->interrupts;
        auto named = [&](const std::string& name) {
            for (std::size_t i = 0; i < irqs.size(); ++i)
                if (irqs[i].name == name) return static_cast<unsigned>(i);
            return kNoLine;
        };
        for (unsigned l = 0; l < 5; ++l) line_of_[l] = named("EXTI" + std::to_string(l));
        for (unsigned l = 5; l < 10; ++l) line_of_[l] = named("EXTI9_5");
        for (unsigned l = 10; l < kLines; ++l) line_of_[l] = named("EXTI15_10");
    }

    // A pin of a GPIO port changed: "GPIOC.13".
    void on_signal(std::string_view line, bool level) override {
        if (!exticr_ || line.size() < 7 || line.substr(0, 4) != "GPIO" || line[5] != '.') return;
        const unsigned port = static_cast<unsigned>(line[4] - 'A');
        unsigned pin = 0;
        for (char c : line.substr(6)) {
            if (c < '0' || c > '9') return;
            pin = pin * 10 + static_cast<unsigned>(c - '0');
        }
        if (port > 15 || pin >= kLines) return;
        std::uint32_t select = 0;  // EXTICRn: four bits a line, four lines a register
        if (!host().bus_read(*exticr_ + 4 * (pin / 4), 4, select) || (select >> (4 * (pin % 4)) & 0xf) != port) return;
        auto& r = regs();
        const std::uint32_t bit = 1u << pin;
        const bool edge = level ? (r.value(rtsr_.reg) & bit) : (r.value(ftsr_.reg) & bit);
        if (!edge || !(r.value(imr_.reg) & bit)) return;
        r.set(pr_.reg, r.value(pr_.reg) | bit);
        update_irqs();
    }

private:
    static constexpr unsigned kNoLine = ~0u;

    void stored(int reg, std::uint32_t before) override {
        auto& r = regs();
        if (reg == swier_.reg) {  // a 0 -> 1 store pends the line when it is unmasked
            const std::uint32_t rising = r.value(reg) & ~before & r.value(imr_.reg);
            r.set(pr_.reg, r.value(pr_.reg) | rising);
        } else if (reg == pr_.reg) {
            r.set(swier_.reg, r.value(swier_.reg) & r.value(pr_.reg));  // clearing PR clears SWIER
        }
        update_irqs();
    }

    void update_irqs() {
        const std::uint32_t active = regs().value(pr_.reg) & regs().value(imr_.reg);
        std::array<bool, 8> level{};
        for (unsigned l = 0; l < kLines; ++l)
            if (line_of_[l] != kNoLine && line_of_[l] < level.size() && (active >> l & 1)) level[line_of_[l]] = true;
        for (unsigned i = 0; i < description()->interrupts.size() && i < level.size(); ++i) host().set_irq_line(i, level[i]);
    }

    std::optional<std::uint32_t> exticr_;
    FieldRef imr_, rtsr_, ftsr_, swier_, pr_;
    std::array<unsigned, kLines> line_of_{};
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_exti(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"exticr"});
    // Where AFIO's EXTICR1 is (EXTICR2-4 follow it): which port's pin each line watches.
    std::optional<std::uint32_t> exticr;
    if (params.has("exticr")) exticr = params["exticr"].u32();
    return std::make_unique<Stm32Exti>(svd, exticr);
}

}  // namespace emutrace::emu
