#include "emu/detail/device_bus.h"

#include <algorithm>

namespace emutrace::emu::detail {

void BoardClocks::set(std::string_view name, std::uint64_t hz, std::uint64_t now) {
    if (!hz && name == "core") return;  // a stopped clock is 0; the core's never stops
    auto it = std::find_if(clocks_.begin(), clocks_.end(), [&](const auto& c) { return c.first == name; });
    if (it == clocks_.end())
        clocks_.emplace_back(std::string(name), hz);
    else
        it->second = hz;
    if (name == "core" && hz != core_hz_) {  // emulated time runs at the new clock from here
        seconds_before_ = seconds(now);
        core_hz_since_ = now;
        core_hz_ = hz;
    }
}

std::uint64_t BoardClocks::rate(std::string_view name) const {
    for (const auto& [n, hz] : clocks_)
        if (n == name) return hz;
    return name == "core" ? core_hz_ : 0;
}

void DeviceBus::attach(std::vector<DeviceConfig>& configured, MachineState& machine) {
    for (auto& d : configured) {
        auto slot = std::make_unique<DeviceSlot>();
        slot->machine = &machine;
        slot->name = d.name;
        slot->base = d.base;
        slot->size = d.model->size();
        slot->irq = d.irq;
        slot->more_irqs = d.more_irqs;
        slot->model = d.model.get();
        d.model->attach(*slot);
        d.model->reset();
        devices.push_back(std::move(slot));
    }
    std::sort(devices.begin(), devices.end(), [](auto& a, auto& b) { return a->base < b->base; });
    for (std::size_t i = 0; i < devices.size(); ++i) devices[i]->index = static_cast<std::uint16_t>(i);
}

DeviceSlot* DeviceBus::at(std::uint32_t address) {
    auto it = std::upper_bound(devices.begin(), devices.end(), address, [](std::uint32_t a, const auto& d) { return a < d->base; });
    if (it == devices.begin()) return nullptr;
    DeviceSlot* d = (--it)->get();
    return address - d->base < d->size ? d : nullptr;
}

DeviceSlot* DeviceBus::named(const std::string& name) {
    for (auto& d : devices)
        if (d->name == name) return d.get();
    return nullptr;
}

void DeviceBus::wake_due(std::uint64_t now) {
    next_wake = ~std::uint64_t{0};
    for (auto& d : devices)
        if (d->wake <= now) {
            d->wake = ~std::uint64_t{0};
            d->model->on_time(now);  // may ask for its next time
        }
    for (auto& d : devices) next_wake = std::min(next_wake, d->wake);
}

void DeviceBus::signal(const DeviceSlot* from, std::string_view line, bool level) {
    for (auto& d : devices)
        if (d.get() != from) d->model->on_signal(line, level);
}

bool DeviceBus::wired(const DeviceSlot* from, std::string_view line) const {
    for (const auto& d : devices)
        if (d.get() != from && d->model->drives(line)) return true;
    return false;
}

bool DeviceBus::store_to_rom(std::uint32_t address, unsigned size, std::uint32_t value) {
    for (auto& d : devices)
        if (d->model->store_to_rom(address, size, value)) return true;
    return false;
}

bool DeviceBus::program(UnicornCore& uc, std::uint32_t address, std::span<const std::uint8_t> bytes) {
    const MemoryRegion* r = region_at(plan, address);
    if (!r || bytes.empty() || address - r->base + bytes.size() > r->size) return false;
    const std::uint32_t offset = address - r->base, end = static_cast<std::uint32_t>(offset + bytes.size());
    uc.write_memory(address, bytes);
    uc.remove_cache(address, address + static_cast<std::uint32_t>(bytes.size()));  // code there runs as written
    for (const MemoryRegion& m : plan.memory)
        if (m.mirrors == r->name && end <= m.size) {
            uc.write_memory(m.base + offset, bytes);
            uc.remove_cache(m.base + offset, m.base + end);
        }
    return true;
}

DeviceBus::Unclaimed DeviceBus::note_unclaimed(std::uint32_t address, UnclaimedMmio policy) {
    ++unclaimed_accesses_;
    // Under the log policy an access already reported costs what a stub register's does: start-up
    // code polls status registers in loops, and finding the instruction that made it costs a
    // hundred times the access.
    if (policy == UnclaimedMmio::Fault) return Unclaimed::Report;
    if (warned_unclaimed_.size() > kUnclaimedReports || warned_unclaimed_.contains(address)) return Unclaimed::Quiet;
    warned_unclaimed_.insert(address);
    return warned_unclaimed_.size() > kUnclaimedReports ? Unclaimed::TooMany : Unclaimed::Report;
}

}  // namespace emutrace::emu::detail
