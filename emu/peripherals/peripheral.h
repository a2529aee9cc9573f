#pragma once
// The contract between the machine and a device model (Renode's IDoubleWordPeripheral +
// IKnownSize shape): register reads and writes by offset, a size, a reset. A device reaches
// back into the machine only through its DeviceHost.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "decode/svd/svd_device.h"
#include "models/memory_system.h"

namespace emutrace::emu {

/// A memory range a device watches (a DWT comparator's): its loads, its stores, or both.
struct DataWatch {
    std::uint32_t base = 0, size = 1;
    bool loads = false, stores = false;
    /// The device needs each access's pc (exact only with a hook on every instruction, which the
    /// machine then adds while the range is watched).
    bool wants_pc = false;
};

/// One load or store to a watched range.
struct DataAccess {
    std::uint32_t pc = 0;  ///< the instruction's, when its watch wants it; else 0
    std::uint32_t address = 0, value = 0;
    unsigned size = 0;
    bool store = false;
};

/// What a device may ask of the machine it is attached to.
class DeviceHost {
public:
    virtual ~DeviceHost() = default;
    /// Cycles executed since reset: the device's notion of time.
    virtual std::uint64_t now() const = 0;
    /// Adds wait cycles to the current access (slow devices, read latency).
    virtual void stall(std::uint32_t cycles) = 0;
    /// Drives the device's interrupt line (ignored when the scenario wires no irq).
    virtual void set_irq(bool level) = 0;
    /// Drives the device's `line`-th interrupt line, in the order its SVD or scenario lists them
    /// (an EXTI's EXTI0..EXTI15_10); line 0 is set_irq's.
    virtual void set_irq_line(unsigned line, bool level) {
        if (line == 0) set_irq(level);
    }
    /// Calls the device's Peripheral::on_time at cycle `cycle` (once; a later call replaces it):
    /// a timer's overflow, a transfer finishing.
    virtual void wake_at(std::uint64_t cycle) { (void)cycle; }
    /// A bus master's access (a DMA controller's): memory or a device register at `address`, as a
    /// load or store of the firmware's would reach it. False where nothing is, or a store to memory
    /// that cannot be written (flash): the transfer error the master reports.
    virtual bool bus_read(std::uint32_t address, unsigned width, std::uint32_t& value) {
        (void)address, (void)width, (void)value;
        return false;
    }
    virtual bool bus_write(std::uint32_t address, unsigned width, std::uint32_t value) {
        (void)address, (void)width, (void)value;
        return false;
    }
    /// Writes memory the core cannot store to (a flash controller programming or erasing its
    /// flash), and the regions that mirror it; false outside every memory region or past its end.
    virtual bool program(std::uint32_t address, std::span<const std::uint8_t> bytes) {
        (void)address, (void)bytes;
        return false;
    }
    /// A wire to the other devices of the board, "DEVICE.LINE" ("GPIOA.0", a pin): each gets
    /// Peripheral::on_signal (an EXTI controller watching the pins).
    virtual void signal(std::string_view line, bool level) { (void)line, (void)level; }
    /// Whether some device of the board drives `line` (Peripheral::drives): a DMA channel whose
    /// request line a peripheral model drives waits for its requests.
    virtual bool wired(std::string_view line) const {
        (void)line;
        return false;
    }
    /// The board's clocks by name, as a clock controller model sets them ("sysclk", "pclk1", ...):
    /// 0 for one nobody set. Setting "core" changes the clock emulated time runs at from now on.
    virtual void set_clock(std::string_view name, std::uint64_t hz) { (void)name, (void)hz; }
    virtual std::uint64_t clock(std::string_view name) const {
        (void)name;
        return 0;
    }
    /// Text the device sends to the outside world (a UART's TX line); recorded in the trace.
    virtual void output(std::string_view text) = 0;
    /// A user-defined event the firmware signalled through this device.
    virtual void user_event(std::uint32_t id, std::uint32_t payload) = 0;
    /// The DWT samples the program counter now: the trace gets a PcSample of the instruction the
    /// core is at (a device waking at a cycle is called between blocks: the next block's first).
    virtual void sample_pc() {}
    /// Watches `watches` from the next block on, replacing what the device watched: each access
    /// calls Peripheral::on_data_access with the watch's index.
    virtual void watch_data(std::vector<DataWatch> watches) { (void)watches; }
    /// The DWT traces a data access: the trace gets a DataTrace event (trace::DataTraceParts say
    /// which of pc, address offset and value its packets carry).
    virtual void data_trace(unsigned comparator, const DataAccess& access, std::uint16_t parts) { (void)comparator, (void)access, (void)parts; }
    /// Logs a guest misuse (unhandled offset, write to a read-only register) once per offset.
    virtual void warn_once(std::uint32_t offset, std::string_view what) = 0;
    /// The memory system's run-time switches from the next instruction on (a cache controller's
    /// mode and line-buffer bits): the timing models and the regions' caches follow them.
    virtual void set_memory_mode(const models::MemoryMode& mode) { (void)mode; }
};

/// A wire a device holds at a level (a DMA request line, a timer channel's output): the other
/// devices hear it only when the level changes. Unnamed, it is not connected and drives nothing.
class LevelWire {
public:
    /// `level`: what the wire is taken to be at reset (0 or 1), or -1 when its first drive
    /// always goes out.
    explicit LevelWire(std::string name = {}, int level = 0) : name_(std::move(name)), reset_level_(level), level_(level) {}
    const std::string& name() const { return name_; }
    bool is(std::string_view line) const { return !name_.empty() && line == name_; }
    void drive(DeviceHost& host, bool level) {
        if (name_.empty() || static_cast<int>(level) == level_) return;
        level_ = level;
        host.signal(name_, level);
    }
    void reset() { level_ = reset_level_; }

private:
    std::string name_;
    int reset_level_, level_;
};

class Peripheral {
public:
    virtual ~Peripheral() = default;
    /// Bytes of bus address space the device decodes.
    virtual std::uint32_t size() const = 0;
    /// A load of `width` bytes (1, 2, 4) at `offset` from the device base.
    virtual std::uint32_t read(std::uint32_t offset, unsigned width) = 0;
    virtual void write(std::uint32_t offset, unsigned width, std::uint32_t value) = 0;
    /// Back to the power-on state.
    virtual void reset() {}
    /// Stimuli: does the device have a register of this name, and set it from outside.
    virtual bool has_register(std::string_view name) const {
        (void)name;
        return false;
    }
    virtual void set_register(std::string_view name, std::uint32_t value) {
        (void)name;
        (void)value;
    }
    /// Stimuli: can the device receive bytes (a UART's RX line), and receive them.
    virtual bool can_receive() const { return false; }
    virtual void receive(std::string_view bytes) { (void)bytes; }
    /// The SVD description the device's registers come from, for naming accesses; null if none.
    virtual const decode::svd::Peripheral* description() const { return nullptr; }
    /// Another device drove a wire (DeviceHost::signal).
    virtual void on_signal(std::string_view line, bool level) { (void)line, (void)level; }
    /// A store the firmware made to read-only memory (flash): true when this device takes it (a
    /// flash controller programming it through DeviceHost::program, or refusing it with its
    /// error flags), false to leave it the fault it is.
    virtual bool store_to_rom(std::uint32_t address, unsigned width, std::uint32_t value) {
        (void)address, (void)width, (void)value;
        return false;
    }
    /// Whether this device drives wire `line` (a DMA request line its scenario names).
    virtual bool drives(std::string_view line) const {
        (void)line;
        return false;
    }
    /// The cycle the device asked for with DeviceHost::wake_at has come.
    virtual void on_time(std::uint64_t now) { (void)now; }
    /// A load or store to a range the device watches (DeviceHost::watch_data), `watch` its index there.
    virtual void on_data_access(unsigned watch, const DataAccess& access) { (void)watch, (void)access; }

    void attach(DeviceHost& host) { host_ = &host; }

protected:
    DeviceHost& host() const { return *host_; }

private:
    DeviceHost* host_ = nullptr;
};

}  // namespace emutrace::emu
