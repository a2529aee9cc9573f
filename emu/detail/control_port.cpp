// The machine as a Steering sees it: registers by architectural number, the current thread and
// exception, external interrupts and stopping, without Unicorn's types.
#include "emu/detail/machine_impl.h"

namespace emutrace::emu::detail {
namespace {

int unicorn_register(unsigned n) {
    return n < 13 ? UC_ARM_REG_R0 + static_cast<int>(n) : n == 13 ? UC_ARM_REG_SP : n == 14 ? UC_ARM_REG_LR : UC_ARM_REG_PC;
}

}  // namespace

std::uint64_t ControlPort::cycle() const {
    // Inside a device access: the access's own cycle, as its MmioRead event is stamped.
    return m_.feed.access_counters ? m_.feed.access_counters->cycles : m_.cycles();
}
std::uint32_t ControlPort::reg(unsigned n) const {
    return m_.uc.reg(unicorn_register(n));
}
void ControlPort::set_reg(unsigned n, std::uint32_t value) {
    m_.uc.set_reg(unicorn_register(n), n == 15 ? value | 1 : value);  // an M-class pc without the Thumb bit faults (P3)
}
std::uint32_t ControlPort::thread() const {
    return m_.current_thread;
}
unsigned ControlPort::exception() const {
    return m_.current_exception();
}
void ControlPort::pend(unsigned exception) {
    m_.pend_external(static_cast<int>(exception));
}
void ControlPort::stop(const std::string& why) {
    m_.stop(StopReason::Steered, why);
}

}  // namespace emutrace::emu::detail
