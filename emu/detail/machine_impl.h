#pragma once
// The machine: the components it is made of, and what joins them. Each component keeps its own
// state: the CPU core (UnicornCore) and its hooks, the bus with its memory map and devices
// (DeviceBus), the NVIC and SCB (nvic::SystemControl, a device), the timing feed (TimingFeed)
// and the event stream (EventStream). MachineState holds them and does what spans them: the run's
// control (services at block boundaries, limits, stops, faults) and M-profile exception entry and
// return. Where each part lives (in emu/detail/ but the first):
//   ../machine.cpp   construction, the run loop and the end of a run (Machine, the facade)
//   block_hook.cpp   the block hook: what happens as each block starts, top to bottom
//   core_hooks.cpp   the core's other hooks (interrupts, invalid accesses, stop, watch points)
//   exceptions.cpp   exception entry and return, which Unicorn does not do
//   mmio_access.cpp  device registers through the MMIO windows and the bit-band alias
//   device_slot.cpp  a device's requests to the machine (DeviceHost)
//   run_control.cpp  services, limits, stops and faults
//   control_port.cpp the machine as a steering (record/replay) sees it
//   data_watches.cpp memory a device watches (the DWT's comparators), hooked at block boundaries

#include <bitset>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "emu/detail/block_cache.h"
#include "emu/detail/data_watches.h"
#include "emu/detail/debug_attachment.h"
#include "emu/detail/device_bus.h"
#include "emu/detail/event_stream.h"
#include "emu/detail/timing_feed.h"
#include "emu/detail/unicorn_core.h"
#include "emu/machine.h"
#include "emu/memory_map.h"
#include "emu/nvic/system_control.h"
#include "emu/semihosting.h"
#include "emu/stimulus_schedule.h"
#include "emutrace/steering.h"

namespace emutrace::emu {

namespace detail {

struct MachineState;

// The block hooks (block_hook.cpp): on_block with no timing or the per-block model, or the
// pipeline with facts per instruction; on_pipelined_block with the pipeline and facts per block,
// on_pipelined_block_through_flash_caches the same on a board with a flash cache (one is chosen
// as the machine is made, so that the hot path does not ask).
void on_block(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_pipelined_block(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_pipelined_block_through_flash_caches(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);

// The core's other hooks (core_hooks.cpp); user: the MachineState.
void on_interrupt(uc_engine* uc, std::uint32_t intno, void* user);
bool on_invalid_memory(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
void on_stop_address(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_user_event_function(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_watch_point(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// Every instruction, with TimingMode::Pipeline and facts per instruction: the pipeline advances beside it.
void on_pipeline_instruction(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// Every data access to memory, with TimingMode::Pipeline on a board whose memories differ in
/// timing; the second on such a board with a flash cache (chosen as the machine is made).
void on_pipeline_data_access(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
void on_pipeline_data_access_through_flash_caches(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
/// Every instruction, while a sink wants memory accesses: their pc (Unicorn's is the block's, P7).
void on_instruction(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// Right after an instruction that may have left SP unaligned (BlockInfo::StackSites): clears
/// bits [1:0] of SP, and with `banked`, of MSP and PSP (after an MSR).
void on_stack_site(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_banked_stack_site(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// A load or store to RAM, while a sink wants memory accesses.
void on_ram_access(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);

/// What service() did at a block boundary.
enum class Service { Continue, Redirected, Stopping };

/// The machine as a Steering sees it (emutrace/steering.h).
class ControlPort final : public trace::MachineControl {
public:
    explicit ControlPort(MachineState& m) : m_(m) {}
    std::uint64_t cycle() const override;
    std::uint32_t reg(unsigned n) const override;
    void set_reg(unsigned n, std::uint32_t value) override;
    std::uint32_t thread() const override;
    unsigned exception() const override;
    void pend(unsigned exception) override;
    void stop(const std::string& why) override;

private:
    MachineState& m_;
};

/// FPCCR.LSPACT as the machine follows it: an extended frame's FP area reserved and not yet
/// written, and whether one was written without being charged yet.
struct LazyFpState {
    bool pending = false;              ///< the area is reserved, not yet written
    bool preserved_uncharged = false;  ///< it was written, found only at an entry or return: charged at the next return
    /// Block flags the block hooks' hot paths serve themselves: an FPU instruction's too, unless a
    /// preservation is pending.
    std::uint16_t hot_flags = BlockInfo::HotPath | BlockInfo::UsesFpu;
    void set_pending(bool p) {
        pending = p;
        hot_flags = p ? BlockInfo::HotPath : BlockInfo::HotPath | BlockInfo::UsesFpu;
    }
};

}  // namespace detail

struct detail::MachineState final : SemihostingHost, nvic::ScsHost, StimulusTarget {
    MachineState(MachineConfig cfg, const decode::ElfImage& img);

    // SemihostingHost
    bool read_guest(std::uint32_t address, std::span<std::uint8_t> out) override { return uc.read_memory(address, out); }
    bool write_guest(std::uint32_t address, std::span<const std::uint8_t> bytes) override;
    std::uint64_t now_cycles() const override { return cycles(); }
    void output(trace::OutputChannel channel, std::string_view text) override;
    // ScsHost
    std::uint32_t current_exception() const override { return uc.reg(UC_ARM_REG_IPSR) & 0x1FF; }
    void exceptions_changed() override { next_check = 0; }
    void reset_requested() override;
    void auxiliary_control(std::uint32_t actlr) override { feed.set_auxiliary_control(actlr); }
    // StimulusTarget
    void raise_irq(int irq) override;
    void set_device_register(const std::string& device, const std::string& name, std::uint32_t value) override;
    void receive_bytes(const std::string& device, std::string_view data) override;

    std::uint64_t cycles() const { return feed.cycles(); }
    /// Time that passes without instructions (wait states, sleep, exception overhead): a deferred
    /// block's event gets its cycles first.
    void add_idle_cycles(std::uint64_t n, std::uint64_t& bucket) {
        stream.flush_deferred_block(feed.cycles());
        feed.add_idle(n, bucket);
    }
    /// With TimingMode::Pipeline: the pipeline has run what ran before execution got to `pc` (the
    /// instruction there `including`). Every hook but the pipeline's own starts with it.
    void settle_pipeline(std::uint32_t pc, bool including) { feed.settle(pc, including); }
    double emulated_seconds() const { return bus.clocks.seconds(cycles()); }

    // mmio_access.cpp
    /// The counters as of the current block's data access to a device at `address`.
    nvic::CycleCounters counters_at_access(std::uint32_t address);
    /// An access no device claims, under the scenario's policy: reads 0, or stops as a fault.
    std::uint32_t unclaimed_mmio(std::uint32_t address, bool is_write);
    /// Where `access`, of the instruction at `insn_address`, goes with the current registers.
    std::uint32_t access_address(const decode::MemoryAccess& access, std::uint32_t insn_address) const {
        return decode::effective_address(access, insn_address, [this](int r) { return uc.core_register(static_cast<unsigned>(r)); });
    }
    /// Whether `access`, of the instruction at `insn_address`, covers `address` with the current registers.
    bool access_covers(const decode::MemoryAccess& access, std::uint32_t insn_address, std::uint32_t address) const {
        return address - access_address(access, insn_address) < access.bytes;
    }

    // run_control.cpp
    /// Ends the run (first reason wins) without writing PC, which would cancel the stop.
    void stop(StopReason why, std::string message);
    void stop_fault(FaultKind kind, std::uint32_t address, std::uint32_t pc, bool pc_is_block_start, std::string detail);
    /// Limits, timers, stimuli and pending exceptions, at the boundary before the block at `pc`.
    Service service(std::uint32_t pc);
    /// Stops on max instructions or wall clock; returns the next cycle a limit check is due.
    std::uint64_t check_limits();
    /// A block flagged other than HotPath is about to run: unsupported, unmasking, sleeping, hanging.
    void on_flagged_block(const BlockInfo& block);
    std::string where(std::uint32_t pc) const;
    std::string quoted_instruction(std::uint32_t pc) const;
    bool reset(std::uint32_t& pc);
    /// The instruction in the block at `block_start` whose data access covers `address`, found by
    /// decoding the block and evaluating each access with the current registers (which Unicorn
    /// leaves as they were before the faulting instruction; only its pc is the block's start).
    std::optional<std::uint32_t> faulting_instruction(std::uint32_t block_start, std::uint32_t address) const;
    void fault_from_error(uc_err err);
    /// A user-defined event; `from_function` when the hook function was called.
    void push_marker(std::uint32_t id, std::uint32_t payload, bool from_function, std::uint64_t when) {
        stream.push_marker(when, feed.block_pc, id, payload, from_function);
    }
    /// A watch point reached: the steering first, then the event unless it held the thread.
    void reach_watch(std::uint32_t address);
    /// First sight of a block flagged StackSites: hooks its sites (once each), and the block is
    /// translated again with them.
    void hook_stack_sites(std::uint32_t address, std::uint32_t size);
    /// Exception `n` pended from outside the machine: its entry is reported external.
    void pend_external(int n);

    // exceptions.cpp
    int execution_priority(bool ignore_primask = false) const;
    /// At an exception return: what the steering has due by now, before tail-chaining is decided.
    void steer_due_before_tail_chain();
    void process_timed_events(std::uint64_t now);
    std::uint64_t next_timed_event() const;
    /// Takes the pending exception that preempts, returning to `return_address`; false if none.
    /// `tail_chain`: straight from another handler's return, at the tail-chaining cost.
    bool take_pending(std::uint32_t return_address, bool tail_chain = false);
    /// A synchronous exception (SVC, a fault): escalates to HardFault, or locks up, as the core does.
    bool take_synchronous(int exception, std::uint32_t return_address);
    /// Stacks, vectors and charges the core's entry (or tail-chain) latency.
    /// `tail_chain_entry`: straight from a return (the pipeline model then reads only the vector).
    bool enter_exception(int exception, std::uint32_t return_address, bool tail_chain_entry = false);
    void return_from_exception(std::uint32_t exc_return);
    /// Lazy FP state preservation (FPCCR.LSPACT) ends at the first FP instruction after an entry,
    /// which Unicorn shows as CONTROL.FPCA set; seen at the next entry or return, from `control`.
    void note_fp_use(std::uint32_t control);
    /// A block holding an FPU instruction is about to run while the FP area is reserved: the core
    /// writes S0-S15 and FPSCR to it at that instruction, and the cycles are charged here.
    void preserve_fp_lazily();
    /// Turns a Unicorn memory or instruction error into the architectural fault (FaultPolicy::Handler).
    bool deliver_fault(uc_err err);
    /// WFI/WFE at `pc`: emulated time jumps to the next event that can wake the core.
    bool sleep(std::uint32_t pc);
    bool interrupt_possible() const;
    void check_thread();
    /// The name in thread control block `tcb` (rtos.name_offset), or empty.
    std::string thread_name(std::uint32_t tcb) const;

    // machine.cpp: the constructor's steps, in order, and the run's end.
    void map_memory_and_devices();
    void load_image();
    void resolve_symbols();
    void add_hooks();
    RunResult finish();

    MachineConfig config;
    const decode::ElfImage& image;
    nvic::SystemControl* scs = nullptr;  ///< owned by config.devices
    UnicornCore uc;
    DeviceBus bus;

    // The block hooks' state: the stream's wants and pending branch (its last members), when a
    // service is next due, the FP state, and the feed's counters (its first), on one cache line.
    EventStream stream;
    std::uint64_t next_check = 0;
    LazyFpState fp;
    TimingFeed feed;

    BlockCache blocks;
    Semihosting semihosting;
    StimulusSchedule stimuli;
    std::unique_ptr<DebugAttachment> debug;                ///< with a debugger attached
    DataWatches data_watches;                              ///< memory the DWT's comparators watch
    std::unordered_set<std::uint32_t> stack_sites_hooked;  ///< BlockCache::stack_sites() with their hook
    std::optional<std::uint32_t> stop_address;             ///< stop.at_symbol resolved, or stop.at_address
    std::optional<std::uint32_t> thread_variable;
    std::uint32_t current_thread = 0;
    /// Every thread control block that has been current, in order (a debugger's thread list).
    std::vector<std::uint32_t> threads_seen;
    static constexpr std::size_t kMostThreadsSeen = 4096;
    trace::Steering* steering = nullptr;  ///< the run's steering (record/replay), or none
    ControlPort control{*this};
    std::bitset<512> external_pending;  ///< exceptions pended from outside and not yet taken
    bool in_stimulus = false;           ///< a stimulus is acting: what it pends is external
    bool want_memory = false;
    std::uint32_t instruction_pc = 0;  ///< the instruction running, kept while a sink wants memory accesses
    std::uint64_t exceptions_taken = 0;
    std::uint64_t thread_switches = 0;
    std::uint32_t sleep_resume = 1;  ///< pc after the WFI/WFE that ended the last block; odd = none
    std::chrono::steady_clock::time_point started;
    std::function<void(std::uint64_t, std::uint64_t)> progress;  ///< Machine::set_progress

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
};

}  // namespace emutrace::emu
