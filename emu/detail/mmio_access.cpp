// Device registers as the core reaches them: through the MMIO windows Unicorn calls back for, and
// through the bit-band alias (a word per bit of a target, written as the bus's read-modify-write).
// A device access is stamped at its own cycle (the pipeline's data phase, or the block's count
// less what is still to come), and the unclaimed-MMIO policy answers where no device is.

#include <spdlog/spdlog.h>

#include "emu/bit_band.h"
#include "emu/detail/machine_impl.h"

namespace emutrace::emu::detail {

// The address of an access at `offset` in window `w`; with the pipeline, its counts are brought
// up to the access's data phase first, the cycle a device sees.
namespace {

std::uint32_t device_access_starts(WindowSlot& w, std::uint64_t offset) {
    std::uint32_t address = w.base + static_cast<std::uint32_t>(offset);
    if (MachineState& m = *w.machine; m.feed.pipeline_feed) {
        m.feed.pipeline_feed->data_access(address, true);
        m.feed.sync();
    }
    return address;
}

}  // namespace

nvic::CycleCounters MachineState::counters_at_access(std::uint32_t address) {
    if (feed.pipeline_feed) return feed.counters_at_access({}, 0);
    // The first of the block's accesses from the cursor on that covers `address`: two of one
    // address in one block are told apart by the order they happen in.
    const std::span<const BlockAccess> list = blocks.accesses(feed.block_pc);
    std::size_t i = feed.access_cursor();
    while (i < list.size() && !access_covers(list[i].access, list[i].address, address)) ++i;
    return feed.counters_at_access(list, i);
}

// A device's register read or written at `address`, or the unclaimed-MMIO policy where none is.
std::uint32_t device_read(MachineState& m, std::uint32_t address, unsigned size) {
    DeviceSlot* d = m.bus.at(address);
    if (!d) return m.unclaimed_mmio(address, false);
    m.feed.access_counters = m.counters_at_access(address);
    std::uint64_t when = m.feed.access_counters->cycles;
    std::uint32_t value = d->model->read(address - d->base, size);
    if (m.steering) value = m.steering->at_device_read(d->index, address, value, m.control);
    m.feed.access_counters.reset();
    m.stream.push_mmio(trace::EventKind::MmioRead, when, address, value, address - d->base, size, d->index);
    return value;
}

void device_write(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t value) {
    DeviceSlot* d = m.bus.at(address);
    if (!d) {
        m.unclaimed_mmio(address, true);
        return;
    }
    m.feed.access_counters = m.counters_at_access(address);
    m.stream.push_mmio(trace::EventKind::MmioWrite, m.feed.access_counters->cycles, address, value, address - d->base, size, d->index);
    d->model->write(address - d->base, size, value);
    m.feed.access_counters.reset();
}

bool target_read(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t& value) {
    if (!region_at(m.bus.plan, address)) {
        value = device_read(m, address, size);
        return true;
    }
    std::uint8_t bytes[4] = {};
    if (uc_mem_read(m.uc.get(), address, bytes, size) != UC_ERR_OK) return false;
    value = static_cast<std::uint32_t>(bytes[0] | bytes[1] << 8 | bytes[2] << 16 | static_cast<std::uint32_t>(bytes[3]) << 24);
    return true;
}

bool target_write(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t value) {
    if (!region_at(m.bus.plan, address)) {
        device_write(m, address, size, value);
        return true;
    }
    const std::uint8_t bytes[4] = {static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8), static_cast<std::uint8_t>(value >> 16),
                                   static_cast<std::uint8_t>(value >> 24)};
    return uc_mem_write(m.uc.get(), address, bytes, size) == UC_ERR_OK;
}

std::uint64_t on_mmio_read(uc_engine*, std::uint64_t offset, unsigned size, void* user) {
    auto& w = *static_cast<WindowSlot*>(user);
    MachineState& m = *w.machine;
    const std::uint32_t address = device_access_starts(w, offset);
    if (m.config.bit_band)
        if (auto t = bit_band_target(address, size)) {
            std::uint32_t value = 0;
            if (!target_read(m, t->address, size, value))
                m.stop_fault(FaultKind::UnmappedRead, t->address, m.instruction_pc, false, "through the bit-band alias");
            return value >> t->bit & 1u;
        }
    return device_read(m, address, size);
}

void on_mmio_write(uc_engine*, std::uint64_t offset, unsigned size, std::uint64_t value, void* user) {
    auto& w = *static_cast<WindowSlot*>(user);
    MachineState& m = *w.machine;
    const std::uint32_t address = device_access_starts(w, offset);
    if (m.config.bit_band)
        if (auto t = bit_band_target(address, size)) {  // the bus's read-modify-write of the target
            std::uint32_t word = 0;
            const std::uint32_t mask = 1u << t->bit;
            if (!target_read(m, t->address, size, word) || !target_write(m, t->address, size, (value & 1) ? word | mask : word & ~mask))
                m.stop_fault(FaultKind::UnmappedWrite, t->address, m.instruction_pc, false, "through the bit-band alias");
            return;
        }
    device_write(m, address, size, static_cast<std::uint32_t>(value));
}

std::uint32_t MachineState::unclaimed_mmio(std::uint32_t address, bool is_write) {
    const DeviceBus::Unclaimed report = bus.note_unclaimed(address, config.unclaimed_mmio);
    if (report == DeviceBus::Unclaimed::Quiet) return 0;
    std::uint32_t pc = uc.reg(UC_ARM_REG_PC);  // the block's start, here
    std::optional<std::uint32_t> at = faulting_instruction(pc, address);
    if (config.unclaimed_mmio == UnclaimedMmio::Fault) {
        stop_fault(FaultKind::UnclaimedMmio, address, at.value_or(pc), !at,
                   (at ? quoted_instruction(*at) + ", " : std::string()) + (is_write ? "a write" : "a read") +
                       " (set unclaimed_mmio: log to read 0 and go on)");
        return 0;
    }
    if (report == DeviceBus::Unclaimed::TooMany)
        spdlog::warn("unclaimed MMIO: more than {} addresses; the others are not reported (the run's summary counts every access)",
                     DeviceBus::kUnclaimedReports);
    else
        spdlog::warn("unclaimed MMIO {} at {:#010x} by {} ({}; policy: log)", is_write ? "write" : "read", address, where(at.value_or(pc)),
                     is_write ? "ignored" : "reads 0");
    return 0;
}

}  // namespace emutrace::emu::detail
