#include "emu/peripherals/registry.h"

#include <array>

namespace emutrace::emu {
namespace {

constexpr std::array<PeripheralType, 4> kTypes{{
    {"cmsdk.uart", "Arm CMSDK APB UART (MPS2 boards): DATA, STATE, CTRL, INTSTATUS, BAUDDIV", &make_cmsdk_uart},
    {"stub", "scripted registers: reset values, access, read sequences, timed changes, latency", &make_stub},
    {"marker", "user-defined events: write PAYLOAD (+0x0), then the event id to ID (+0x4)", &make_marker},
    {"ti.vims", "TI CC13x2/CC26x2 VIMS: STAT, CTL (cache mode, line-buffer disables); the flash timing follows them", &make_ti_vims},
}};

}  // namespace

std::span<const PeripheralType> peripheral_types() {
    return kTypes;
}

std::unique_ptr<Peripheral> make_peripheral(const config::Node& type, const config::Node& params) {
    std::string name = type.str();
    for (const auto& t : kTypes)
        if (t.name == name) return t.make(params);
    std::string known;
    for (const auto& t : kTypes) known += (known.empty() ? "" : ", ") + std::string(t.name);
    type.fail("unknown peripheral type '" + name + "' (known types: " + known + ")");
}

}  // namespace emutrace::emu
