// An SVD peripheral no model claims: its registers keep what the firmware writes as the SVD says,
// and the scenario's rules (register_peripheral.h) give it the behaviour start-up code waits on.

#include <memory>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

class SvdRegisters final : public RegisterPeripheral {
public:
    using RegisterPeripheral::RegisterPeripheral;
};

}  // namespace

std::unique_ptr<Peripheral> make_svd_registers(const decode::svd::Peripheral& svd) {
    return std::make_unique<SvdRegisters>(svd);
}

std::unique_ptr<Peripheral> make_svd_device(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({});
    return make_svd_registers(svd);
}

}  // namespace emutrace::emu
