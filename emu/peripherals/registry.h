#pragma once
// Device types by name, as scenarios write them (`type: cmsdk.uart`). One row per type in
// registry.cpp; no self-registration.

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "config/node.h"
#include "emu/peripherals/peripheral.h"

namespace emutrace::emu {

struct PeripheralType {
    std::string_view name;
    std::string_view summary;
    /// Builds a device from its `params:` mapping; throws ConfigError naming the bad key.
    std::unique_ptr<Peripheral> (*make)(const config::Node& params);
};

std::span<const PeripheralType> peripheral_types();
/// Builds a device of type `type`; unknown types throw ConfigError at `where`, listing the known ones.
std::unique_ptr<Peripheral> make_peripheral(const config::Node& type, const config::Node& params);

// Factories, one per file under emu/peripherals/.
std::unique_ptr<Peripheral> make_cmsdk_uart(const config::Node& params);
std::unique_ptr<Peripheral> make_stub(const config::Node& params);
std::unique_ptr<Peripheral> make_marker(const config::Node& params);
std::unique_ptr<Peripheral> make_ti_vims(const config::Node& params);

}  // namespace emutrace::emu
