#pragma once
// The board's bus: its memory plan, the MMIO windows Unicorn calls back for, the devices on them
// in address order (each in a DeviceSlot, the DeviceHost it talks to the machine through), the
// clocks they set, and what the unclaimed-MMIO policy has reported.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "emu/detail/unicorn_core.h"
#include "emu/machine_config.h"
#include "emu/memory_map.h"
#include "emu/peripherals/peripheral.h"

namespace emutrace::emu::detail {

struct MachineState;

/// A device on the bus, and the DeviceHost it talks to the machine through (device_slot.cpp).
struct DeviceSlot final : DeviceHost {
    MachineState* machine = nullptr;
    std::uint16_t index = 0;
    std::string name;
    std::uint32_t base = 0;
    std::uint32_t size = 0;
    int irq = -1;
    std::vector<int> more_irqs;  ///< lines 1, 2, ...
    Peripheral* model = nullptr;
    std::unordered_set<std::uint32_t> warned;
    std::uint64_t wake = ~std::uint64_t{0};  ///< the cycle the device asked to be called at

    std::uint64_t now() const override;
    void stall(std::uint32_t cycles) override;
    void set_irq(bool level) override;
    void set_irq_line(unsigned line, bool level) override;
    void wake_at(std::uint64_t cycle) override;
    void set_clock(std::string_view name, std::uint64_t hz) override;
    std::uint64_t clock(std::string_view name) const override;
    void signal(std::string_view line, bool level) override;
    bool wired(std::string_view line) const override;
    bool program(std::uint32_t address, std::span<const std::uint8_t> bytes) override;
    bool bus_read(std::uint32_t address, unsigned width, std::uint32_t& value) override;
    bool bus_write(std::uint32_t address, unsigned width, std::uint32_t value) override;
    void output(std::string_view text) override;
    void user_event(std::uint32_t id, std::uint32_t payload) override;
    void sample_pc() override;
    void watch_data(std::vector<DataWatch> watches) override;
    void data_trace(unsigned comparator, const DataAccess& access, std::uint16_t parts) override;
    void warn_once(std::uint32_t offset, std::string_view what) override;
    void set_memory_mode(const models::MemoryMode& mode) override;
};

/// An MMIO window Unicorn calls back for, where its offsets start.
struct WindowSlot {
    MachineState* machine = nullptr;
    std::uint32_t base = 0;
};

/// The board's clocks as a clock controller sets them; emulated time is the sum over the core
/// clocks it ran at.
class BoardClocks {
public:
    explicit BoardClocks(std::uint64_t core_hz) : core_hz_(core_hz) {}
    /// Clock `name` runs at `hz` from cycle `now` on (a stopped clock is 0; the core's never stops).
    void set(std::string_view name, std::uint64_t hz, std::uint64_t now);
    /// Clock `name`'s rate: the core's by default, 0 for one never set.
    std::uint64_t rate(std::string_view name) const;
    std::uint64_t core_hz() const { return core_hz_; }
    /// Emulated seconds up to core cycle `now`.
    double seconds(std::uint64_t now) const { return seconds_before_ + static_cast<double>(now - core_hz_since_) / static_cast<double>(core_hz_); }

private:
    std::vector<std::pair<std::string, std::uint64_t>> clocks_;
    std::uint64_t core_hz_ = 0;
    std::uint64_t core_hz_since_ = 0;  ///< the cycle the core clock changed to core_hz_ at
    double seconds_before_ = 0;        ///< emulated time up to core_hz_since_
};

class DeviceBus {
public:
    DeviceBus(MemoryPlan plan, std::uint64_t core_hz) : plan(std::move(plan)), clocks(core_hz) {}

    /// Attaches `configured`'s devices to `machine` and resets them, in address order.
    void attach(std::vector<DeviceConfig>& configured, MachineState& machine);
    DeviceSlot* at(std::uint32_t address);
    DeviceSlot* named(const std::string& name);

    /// Calls the devices whose DeviceSlot::wake has come.
    void wake_due(std::uint64_t now);
    /// A device asked to be called at `cycle`.
    void wake_at(DeviceSlot& d, std::uint64_t cycle) {
        d.wake = cycle;
        next_wake = std::min(next_wake, cycle);
    }
    /// Signal `line` at `level` from `from` to every other device.
    void signal(const DeviceSlot* from, std::string_view line, bool level);
    /// Whether a device other than `from` drives `line`.
    bool wired(const DeviceSlot* from, std::string_view line) const;
    /// A store to read-only memory offered to the devices (a flash controller programming): true
    /// when one took it.
    bool store_to_rom(std::uint32_t address, unsigned size, std::uint32_t value);
    /// Writes `bytes` into plain memory at `address` and every region mirroring it, and has the
    /// code there translated again. False when they do not fit one region.
    bool program(UnicornCore& uc, std::uint32_t address, std::span<const std::uint8_t> bytes);

    /// How an access no device claims is reported: every one under the fault policy; under the
    /// log policy the first of each address, up to a bound a hostile scan cannot grow, and then
    /// once that the bound is passed.
    enum class Unclaimed { Quiet, Report, TooMany };
    /// Counts an access no device claims, and says how to report it.
    Unclaimed note_unclaimed(std::uint32_t address, UnclaimedMmio policy);
    std::uint64_t unclaimed_accesses() const { return unclaimed_accesses_; }

    MemoryPlan plan;
    std::vector<std::unique_ptr<WindowSlot>> windows;
    std::vector<std::unique_ptr<DeviceSlot>> devices;  ///< sorted by base
    std::uint64_t next_wake = ~std::uint64_t{0};       ///< no later than the earliest DeviceSlot::wake
    BoardClocks clocks;

    /// The most unclaimed addresses reported one by one.
    static constexpr std::size_t kUnclaimedReports = 64;

private:
    std::unordered_set<std::uint32_t> warned_unclaimed_;
    std::uint64_t unclaimed_accesses_ = 0;
};

// A device's register read or written at `address`, or the unclaimed-MMIO policy where none is
// (mmio_access.cpp): the firmware's accesses, and a debugger's.
std::uint32_t device_read(MachineState& m, std::uint32_t address, unsigned size);
void device_write(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t value);
/// The target of a bus access a device or the bit-band makes: plain memory read and written as the
/// core's bus would, a device through its registers. False where nothing is (a bus fault).
bool target_read(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t& value);
bool target_write(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t value);

// Unicorn's MMIO callbacks (user: the WindowSlot).
std::uint64_t on_mmio_read(uc_engine* uc, std::uint64_t offset, unsigned size, void* user);
void on_mmio_write(uc_engine* uc, std::uint64_t offset, unsigned size, std::uint64_t value, void* user);

}  // namespace emutrace::emu::detail
