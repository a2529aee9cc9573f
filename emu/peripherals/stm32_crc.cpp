// ST's STM32 CRC calculation unit (RM0008 §4): each word written to DR is folded into the CRC-32
// (polynomial 0x04C11DB7, most significant bit first, no reflection) that DR reads back; CR.RESET
// sets DR to 0xFFFFFFFF; IDR is a free byte.

#include <memory>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

class Stm32Crc final : public RegisterPeripheral {
public:
    explicit Stm32Crc(decode::svd::Peripheral d) : RegisterPeripheral(std::move(d)), dr_(need("DR")), reset_(need("CR.RESET")) {}

private:
    void stored(int reg, std::uint32_t before) override {
        auto& r = regs();
        if (reg == dr_.reg) {
            std::uint32_t crc = before ^ r.value(reg);  // the unit takes whole words: a narrower store is zero-extended
            for (int bit = 0; bit < 32; ++bit) crc = crc & 0x80000000u ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
            r.set(reg, crc);
        } else if (reg == reset_.reg && r.get(reset_)) {
            r.set(dr_.reg, 0xFFFFFFFFu);
            r.put(reset_, 0);
        }
    }

    FieldRef dr_, reset_;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_crc(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({});
    return std::make_unique<Stm32Crc>(svd);
}

}  // namespace emutrace::emu
