#pragma once
// Machine internals shared by machine.cpp (setup, run) and machine_hooks.cpp (Unicorn callbacks).

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "emu/detail/block_cache.h"
#include "emu/detail/unicorn_core.h"
#include "emu/machine.h"
#include "emu/memory_map.h"
#include "emu/semihosting.h"
#include "trace/event_recorder.h"

namespace emutrace::emu {

namespace detail {

struct MachineState;

/// A device on the bus, and the DeviceHost it talks to the machine through.
struct DeviceSlot final : DeviceHost {
    MachineState* machine = nullptr;
    std::uint16_t index = 0;
    std::string name;
    std::uint32_t base = 0;
    std::uint32_t size = 0;
    int irq = -1;
    bool irq_level = false;
    Peripheral* model = nullptr;
    std::unordered_set<std::uint32_t> warned;

    std::uint64_t now() const override;
    void stall(std::uint32_t cycles) override;
    void set_irq(bool level) override { irq_level = level; }
    void output(std::string_view text) override;
    void warn_once(std::uint32_t offset, std::string_view what) override;
};

struct WindowSlot {
    MachineState* machine = nullptr;
    std::uint32_t base = 0;
};

// Unicorn callbacks (machine_hooks.cpp).
void on_block(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_interrupt(uc_engine* uc, std::uint32_t intno, void* user);
bool on_invalid_memory(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
void on_stop_symbol(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
std::uint64_t on_mmio_read(uc_engine* uc, std::uint64_t offset, unsigned size, void* user);
void on_mmio_write(uc_engine* uc, std::uint64_t offset, unsigned size, std::uint64_t value, void* user);

}  // namespace detail

struct detail::MachineState final : SemihostingHost {
    MachineState(MachineConfig cfg, const decode::ElfImage& img);

    // SemihostingHost
    bool read_guest(std::uint32_t address, std::span<std::uint8_t> out) override { return uc.read_memory(address, out); }
    bool write_guest(std::uint32_t address, std::span<const std::uint8_t> bytes) override;
    std::uint64_t now_cycles() const override { return cycles(); }
    void output(trace::OutputChannel channel, std::string_view text) override;

    std::uint64_t cycles() const { return instructions + stall_cycles; }
    /// Ends the run (first reason wins) without writing PC, which would cancel the stop.
    void stop(StopReason why, std::string message);
    void stop_fault(FaultKind kind, std::uint32_t address, std::uint32_t pc, bool pc_is_block_start, std::string detail);
    void check_limits();
    void on_flagged_block(const detail::BlockInfo& block);
    detail::DeviceSlot* device_at(std::uint32_t address);
    std::uint32_t unclaimed_mmio(std::uint32_t address, bool is_write);
    std::string where(std::uint32_t pc) const;
    /// The instruction at `pc`, disassembled and in quotes: "'udf #0'".
    std::string quoted_instruction(std::uint32_t pc) const;
    bool reset(std::uint32_t& pc);
    void fault_from_error(uc_err err);
    RunResult finish();

    MachineConfig config;
    const decode::ElfImage& image;
    detail::UnicornCore uc;
    MemoryPlan plan;
    detail::BlockCache blocks;
    trace::EventRecorder recorder;
    Semihosting semihosting;
    std::vector<std::unique_ptr<detail::DeviceSlot>> devices;  ///< sorted by base
    std::vector<std::unique_ptr<detail::WindowSlot>> windows;
    std::optional<std::uint32_t> stop_symbol;

    bool want_blocks = false, want_mmio = false, want_output = false;
    std::uint64_t instructions = 0;
    std::uint64_t stall_cycles = 0;
    std::uint64_t next_check = 0;
    std::chrono::steady_clock::time_point started;
    std::unordered_set<std::uint32_t> warned_unclaimed;

    struct MemoryFault {
        uc_mem_type type;
        std::uint32_t address;
        std::uint32_t pc;
    };
    std::optional<MemoryFault> memory_fault;  ///< recorded by the hook, turned into a Fault after uc_emu_start
    std::optional<StopReason> reason;
    std::string message;
    int exit_code = 0;
    std::optional<Fault> fault;
    std::uint32_t stop_pc = 0;
};

}  // namespace emutrace::emu
