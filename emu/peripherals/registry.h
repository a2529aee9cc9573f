#pragma once
// Device types by name, as scenarios write them (`type: cmsdk.uart`). One row per type in
// registry.cpp; no self-registration.

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "emu/peripherals/peripheral.h"
#include "emutrace/config.h"

namespace emutrace::emu {

struct PeripheralType {
    std::string_view name;
    std::string_view summary;
    /// Builds a device from its `params:` mapping; throws ConfigError naming the bad key.
    std::unique_ptr<Peripheral> (*make)(const config::Node& params) = nullptr;
    /// Or, for a model of a part's peripheral, from its SVD description too (its registers).
    std::unique_ptr<Peripheral> (*make_from_svd)(const decode::svd::Peripheral& svd, const config::Node& params) = nullptr;
};

std::span<const PeripheralType> peripheral_types();
/// Builds a device of type `type`; unknown types throw ConfigError at `type`, listing the known
/// ones. `svd` is the description of the SVD peripheral of the device's name, if any.
std::unique_ptr<Peripheral> make_peripheral(const config::Node& type, const config::Node& params, const decode::svd::Peripheral* svd = nullptr);
/// The device an SVD peripheral is without a model: its registers and the scenario's rules.
std::unique_ptr<Peripheral> make_svd_registers(const decode::svd::Peripheral& svd);
std::unique_ptr<Peripheral> make_svd_device(const decode::svd::Peripheral& svd, const config::Node& params);

// Factories, one per file under emu/peripherals/.
std::unique_ptr<Peripheral> make_cmsdk_uart(const config::Node& params);
std::unique_ptr<Peripheral> make_stub(const config::Node& params);
std::unique_ptr<Peripheral> make_marker(const config::Node& params);
std::unique_ptr<Peripheral> make_ti_vims(const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_rcc(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_usart(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_timer(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_gpio(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_adc(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_i2c(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_flash(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_dma(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_crc(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_rtc(const decode::svd::Peripheral& svd, const config::Node& params);
std::unique_ptr<Peripheral> make_stm32_exti(const decode::svd::Peripheral& svd, const config::Node& params);

}  // namespace emutrace::emu
