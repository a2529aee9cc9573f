// ST's STM32F1 external interrupt controller (RM0008 §10.2): a line pends in PR when SWIER is
// written 1 (or an edge arrives: a stimulus setting SWIER stands for the pin), interrupts when
// IMR unmasks it, and a store of 1 to PR clears it and its SWIER bit. Lines 0-4 have interrupts
// of their own, 5-9 and 10-15 share one each, as the SVD's EXTI0..EXTI4, EXTI9_5, EXTI15_10 say.

#include <array>
#include <memory>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

constexpr unsigned kLines = 16;

class Stm32Exti final : public RegisterPeripheral {
public:
    explicit Stm32Exti(decode::svd::Peripheral d) : RegisterPeripheral(std::move(d)), imr_(need("IMR")), swier_(need("SWIER")), pr_(need("PR")) {
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

    FieldRef imr_, swier_, pr_;
    std::array<unsigned, kLines> line_of_{};
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_exti(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({});
    return std::make_unique<Stm32Exti>(svd);
}

}  // namespace emutrace::emu
