// A device's requests to the machine (DeviceHost): the time, stalls, interrupt lines, wake-ups,
// clocks, signals to the other devices, bus transfers of its own, output and events.

#include <spdlog/spdlog.h>

#include "emu/detail/machine_impl.h"

namespace emutrace::emu::detail {

std::uint64_t DeviceSlot::now() const {
    return machine->feed.access_counters ? machine->feed.access_counters->cycles : machine->cycles();
}
void DeviceSlot::stall(std::uint32_t cycles) {
    machine->add_idle_cycles(cycles, machine->feed.counters.stall);
}
void DeviceSlot::set_irq(bool level) {
    set_irq_line(0, level);
}
void DeviceSlot::set_irq_line(unsigned line, bool level) {
    const int n = line == 0 ? irq : line - 1 < more_irqs.size() ? more_irqs[line - 1] : -1;
    if (n < 0) return;
    // A device answering a stimulus (bytes arriving) raises its line for the outside world.
    if (level && machine->in_stimulus) machine->external_pending.set(static_cast<std::size_t>(nvic::kFirstIrq + n));
    machine->scs->exceptions().set_line(n, level);
    machine->next_check = 0;
}
void DeviceSlot::wake_at(std::uint64_t cycle) {
    machine->bus.wake_at(*this, cycle);
    machine->next_check = std::min(machine->next_check, cycle);
}
void DeviceSlot::set_clock(std::string_view clock_name, std::uint64_t hz) {
    machine->bus.clocks.set(clock_name, hz, machine->cycles());
}
std::uint64_t DeviceSlot::clock(std::string_view clock_name) const {
    return machine->bus.clocks.rate(clock_name);
}
void DeviceSlot::signal(std::string_view line, bool level) {
    machine->bus.signal(this, line, level);
}
bool DeviceSlot::wired(std::string_view line) const {
    return machine->bus.wired(this, line);
}
bool DeviceSlot::program(std::uint32_t address, std::span<const std::uint8_t> bytes) {
    return machine->bus.program(machine->uc, address, bytes);
}
bool DeviceSlot::bus_read(std::uint32_t address, unsigned width, std::uint32_t& value) {
    if (!region_at(machine->bus.plan, address) && !machine->bus.at(address)) return false;
    return target_read(*machine, address, width, value);
}
bool DeviceSlot::bus_write(std::uint32_t address, unsigned width, std::uint32_t value) {
    const MemoryRegion* r = region_at(machine->bus.plan, address);
    if (r ? !(r->access & AccessWrite) : !machine->bus.at(address)) return false;
    return target_write(*machine, address, width, value);
}
void DeviceSlot::output(std::string_view text) {
    machine->stream.push_output(machine->cycles(), static_cast<std::uint16_t>(0x100 + index), text);
}
void DeviceSlot::user_event(std::uint32_t id, std::uint32_t payload) {
    machine->push_marker(id, payload, false, now());
}
void DeviceSlot::sample_pc() {
    machine->stream.push_pc_sample(now(), machine->uc.reg(UC_ARM_REG_PC), index);
}
void DeviceSlot::watch_data(std::vector<DataWatch> watches) {
    machine->data_watches.request(*model, std::move(watches));
    machine->next_check = 0;  // installed at the next block boundary (block_hook.cpp)
}
void DeviceSlot::data_trace(unsigned comparator, const DataAccess& access, std::uint16_t parts) {
    machine->stream.push_data_trace(now(), comparator, access, parts);
}
void DeviceSlot::warn_once(std::uint32_t offset, std::string_view what) {
    if (warned.insert(offset).second) spdlog::warn("{}: {} (offset {:#x}, near pc {:#010x})", name, what, offset, machine->uc.reg(UC_ARM_REG_PC));
}
void DeviceSlot::set_memory_mode(const models::MemoryMode& mode) {
    machine->feed.set_memory_mode(mode);
}

}  // namespace emutrace::emu::detail
