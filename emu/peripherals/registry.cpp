#include "emu/peripherals/registry.h"

#include <array>

namespace emutrace::emu {
namespace {

constexpr std::array<PeripheralType, 16> kTypes{{
    {"cmsdk.uart", "Arm CMSDK APB UART (MPS2 boards): DATA, STATE, CTRL, INTSTATUS, BAUDDIV", &make_cmsdk_uart},
    {"stub", "scripted registers: reset values, access, read sequences, timed changes, latency", &make_stub},
    {"marker", "user-defined events: write PAYLOAD (+0x0), then the event id to ID (+0x4)", &make_marker},
    {"ti.vims", "TI CC13x2/CC26x2 VIMS: STAT, CTL (cache mode, line-buffer disables); the flash timing follows them", &make_ti_vims},
    {"svd", "an SVD peripheral's registers (reset values, access, write and read actions) and the scenario's rules", nullptr, &make_svd_device},
    {"stm32.rcc", "STM32F1 RCC as a clock tree: SYSCLK, HCLK (the core's clock), PCLK1/2 and the timer clocks follow CR/CFGR", nullptr,
     &make_stm32_rcc},
    {"stm32.usart", "STM32 USART: TX to the console at the baud rate, RX from stimuli, TXE/TC/RXNE and their interrupt", nullptr, &make_stm32_usart},
    {"stm32.timer", "STM32 timer counting up: PSC, ARR, the update event and interrupt, CCRx matches, one-pulse mode", nullptr, &make_stm32_timer},
    {"stm32.gpio", "STM32F1 GPIO port: BSRR/BRR set and reset ODR, IDR reads outputs and stimulus-driven inputs", nullptr, &make_stm32_gpio},
    {"stm32.exti", "STM32F1 EXTI: SWIER and PR (write 1 to clear), IMR, the EXTI0..4, EXTI9_5 and EXTI15_10 interrupts", nullptr, &make_stm32_exti},
    {"stm32.dma", "STM32F1 DMA: memory-to-memory channels, and channels a peripheral's requests pace, through the bus; TC/HT/TE flags and interrupts",
     nullptr, &make_stm32_dma},
    {"stm32.adc",
     "STM32F1 ADC: regular and injected groups by software or a timer's trigger, scan and continuous modes, EOC/JEOC and their interrupt, DMA "
     "requests",
     nullptr, &make_stm32_adc},
    {"stm32.i2c",
     "STM32F1 I2C master: START/address/data/STOP at the SCL rate, SB/ADDR/BTF/TxE/RxNE/AF and the event and error interrupts, register-pointer "
     "targets",
     nullptr, &make_stm32_i2c},
    {"stm32.flash",
     "STM32F1 flash controller: KEYR unlock, half-word programming (PG), page and mass erase, BSY for their time, EOP/PGERR and the interrupt",
     nullptr, &make_stm32_flash},
    {"stm32.crc", "STM32 CRC unit: CRC-32 (0x04C11DB7) of the words written to DR, CR.RESET", nullptr, &make_stm32_crc},
    {"stm32.rtc", "STM32F1 RTC: the counter at the RTC clock over PRL+1, SECF/ALRF/OWF and their interrupt", nullptr, &make_stm32_rtc},
}};

}  // namespace

std::span<const PeripheralType> peripheral_types() {
    return kTypes;
}

std::unique_ptr<Peripheral> make_peripheral(const config::Node& type, const config::Node& params, const decode::svd::Peripheral* svd) {
    std::string name = type.str();
    for (const auto& t : kTypes) {
        if (t.name != name) continue;
        if (t.make) return t.make(params);
        if (!svd)
            type.fail("a '" + name +
                      "' device takes its registers from the scenario's SVD (svd:), and its name must be one of the SVD's peripherals");
        return t.make_from_svd(*svd, params);
    }
    std::string known;
    for (const auto& t : kTypes) known += (known.empty() ? "" : ", ") + std::string(t.name);
    type.fail("unknown peripheral type '" + name + "' (known types: " + known + ")");
}

}  // namespace emutrace::emu
