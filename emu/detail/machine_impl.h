#pragma once
// Machine internals shared by machine.cpp (setup, run), machine_hooks.cpp (Unicorn callbacks) and
// exceptions.cpp (M-profile exception entry and return, which Unicorn does not do).

#include <bitset>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "emu/detail/block_cache.h"
#include "emu/detail/debug_attachment.h"
#include "emu/detail/unicorn_core.h"
#include "emu/machine.h"
#include "emu/memory_map.h"
#include "emu/nvic/dwt.h"
#include "emu/nvic/system_control.h"
#include "emu/semihosting.h"
#include "emu/stimulus_schedule.h"
#include "emutrace/steering.h"
#include "models/feed/pipeline_feed.h"
#include "models/timing_model.h"
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
    void warn_once(std::uint32_t offset, std::string_view what) override;
    void set_memory_mode(const models::MemoryMode& mode) override;
};

struct WindowSlot {
    MachineState* machine = nullptr;
    std::uint32_t base = 0;
};

// A device's register read or written at `address`, or the unclaimed-MMIO policy where none is
// (machine_hooks.cpp): the firmware's accesses, and a debugger's.
std::uint32_t device_read(MachineState& m, std::uint32_t address, unsigned size);
void device_write(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t value);

// Unicorn callbacks (machine_hooks.cpp).
void on_block(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// The block hook with TimingMode::Pipeline and facts per block, in place of on_block.
void on_pipelined_block(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_interrupt(uc_engine* uc, std::uint32_t intno, void* user);
bool on_invalid_memory(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
void on_stop_address(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_user_event_function(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
void on_watch_point(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
std::uint64_t on_mmio_read(uc_engine* uc, std::uint64_t offset, unsigned size, void* user);
void on_mmio_write(uc_engine* uc, std::uint64_t offset, unsigned size, std::uint64_t value, void* user);

/// What service() did at a block boundary.
enum class Service { Continue, Redirected, Stopping };

/// An instruction whose cycles are settled when it runs (hooked at its address): by its operands'
/// values (a divide, or on cores with an iterative multiplier a long multiply), or in an IT block
/// by whether it runs (the hook is called only when it does).
struct OperandSite {
    MachineState* machine = nullptr;
    std::uint8_t rn = 0, rm = 0;
    models::TimingModel::OperandTiming timing;  ///< op None: timed by whether it runs only
    std::int8_t executed_extra = 0;             ///< an IT-block instruction's when it runs (may be negative)
    std::uint8_t executed_extra_lsu = 0;        ///< and of those, load/store cycles
};

/// A memory region whose data accesses cost more than the block counted (hooked over its address
/// range): wait states, or the extra bus transfers of an unaligned access.
struct TimedRegion {
    MachineState* machine = nullptr;
    std::uint32_t wait_states = 0;
    bool times_unaligned = false;
};

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

void on_operand_site(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// Every instruction, with TimingMode::Pipeline: the pipeline advances beside it.
void on_pipeline_instruction(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// Every data access to memory, with TimingMode::Pipeline per block on a board whose memories differ in timing.
void on_pipeline_data_access(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
/// Every instruction, while a sink wants memory accesses: their pc (Unicorn's is the block's, P7).
void on_instruction(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
/// A load or store to RAM, while a sink wants memory accesses.
void on_ram_access(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
bool on_timed_access(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
/// A data read from a region that shares the fetch's port (user: the MachineState).

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
    void auxiliary_control(std::uint32_t actlr) override;
    // StimulusTarget
    void raise_irq(int irq) override;
    void set_device_register(const std::string& device, const std::string& name, std::uint32_t value) override;
    void receive_bytes(const std::string& device, std::string_view data) override;

    std::uint64_t cycles() const { return counters.cycles; }
    /// Time that passes without instructions: wait states, sleep, exception overhead.
    void add_idle_cycles(std::uint64_t n, std::uint64_t& bucket) {
        flush_deferred_block(counters.cycles);
        bucket += n;
        counters.cycles += n;
        if (pipeline_feed) pipeline_feed->pipeline().change().drain_and_wait(n);
    }
    /// With TimingMode::Pipeline a block's event waits for the next block, which tells its cycles.
    struct DeferredBlock {
        bool active = false;
        std::uint64_t start = 0;
        std::uint32_t pc = 0, size = 0, instructions = 0;
        std::uint32_t events = 0;     ///< its Block events (its parts at trace points)
        std::size_t first_event = 0;  ///< where they are in the recorder's batch
        std::uint64_t batch = 0;      ///< and which batch that is
    } deferred_block;
    void defer_block_event(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b);
    /// defer_block_event for a block with one event (not cut at trace points), inline for the hot
    /// path of a run whose sinks want blocks (and what defer_block_event does for such a block):
    /// the block before it (one event too, mostly) gets its cycles in place.
    void defer_whole_block_event(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
        DeferredBlock& d = deferred_block;
        if (d.active && d.events == 1) [[likely]] {
            d.active = false;
            if (trace::Event* e = recorder.unsent(d.first_event, d.batch))
                e->channel = static_cast<std::uint16_t>(std::min<std::uint64_t>(start > d.start ? start - d.start : 0, 0xFFFF));
        } else {
            flush_deferred_block(start);
        }
        recorder.make_room(kRoomForTheBlock);
        d = {true, start, pc, size, b.instructions, 1, recorder.next_index(), recorder.batch_number()};
        recorder.push_block(start, pc, size, b.instructions, 0, b.end);
    }
    /// Events a deferred block may push before its cycles are known, kept in one batch.
    static constexpr std::size_t kRoomForTheBlock = 64;
    /// Pushes the deferred block's event with the cycles up to `now` (the next block, an exception, the end).
    void flush_deferred_block(std::uint64_t now);
    /// With TimingMode::Pipeline: the pipeline has run what ran before execution got to `pc`
    /// (the instruction there `including`), and the DWT's counts are its. Every hook but the
    /// pipeline's own starts with it.
    void settle_pipeline(std::uint32_t pc, bool including) {
        if (!pipeline_feed) return;
        pipeline_feed->reached(pc, including);
        sync_pipeline_counters();
    }
    /// The block before ended: the machine's counts follow the pipeline's, by the transition it
    /// followed on (its counts added to both) or, when it ran the block otherwise, by a copy. Not
    /// its instructions: the machine counted the block's when it started (account_block), and a
    /// followed run is the whole block, none skipped.
    void pipeline_block_ended(std::uint32_t successor) {
        if (const auto* t = pipeline_feed->ends_followed(successor)) {
            counters.cycles += t->cycles, counters.lsu += t->lsu, counters.fold += t->fold;
            return;
        }
        pipeline_block_unfollowed(successor);
    }
    /// The pipeline's counts, with the block before ended otherwise than by following on.
    [[gnu::noinline]] void pipeline_block_unfollowed(std::uint32_t successor) {
        pipeline_feed->ends_unfollowed(successor);
        sync_pipeline_counters();
    }
    void sync_pipeline_counters() {
        const models::PipelineCounters& p = pipeline_feed->pipeline().counters();
        counters.cycles = p.cycles;
        counters.instructions = p.instructions;
        counters.lsu = p.lsu;
        counters.fold = p.fold;
    }
    /// The counters as of the current block's data access to `device` at `address`: the block's
    /// cycles are all counted when it starts, so take back those still to come.
    nvic::CycleCounters counters_at_access(std::uint32_t address);
    /// r0-r12, sp or lr by its number in an instruction encoding (Unicorn numbers them apart).
    std::uint32_t core_register(int r) const { return uc.reg(r < 13 ? UC_ARM_REG_R0 + r : r == 13 ? UC_ARM_REG_SP : UC_ARM_REG_LR); }
    /// Where `access`, of the instruction at `insn_address`, goes with the current registers.
    std::uint32_t access_address(const decode::MemoryAccess& access, std::uint32_t insn_address) const {
        return decode::effective_address(access, insn_address, [this](int r) { return core_register(r); });
    }
    /// Whether `access`, of the instruction at `insn_address`, covers `address` with the current registers.
    bool access_covers(const decode::MemoryAccess& access, std::uint32_t insn_address, std::uint32_t address) const {
        return address - access_address(access, insn_address) < access.bytes;
    }
    /// The first of `list` (the current block's accesses) from `from` on that covers `address`,
    /// or list.size(): accesses happen in program order, so a cursor tells two of one address apart.
    std::size_t next_access_covering(std::span<const BlockAccess> list, std::size_t from, std::uint32_t address) const;
    /// First sight of a block flagged OperandSites: hooks its sites and runs the block again.
    void hook_operand_sites(std::uint32_t address, std::uint32_t size);
    /// Ends the run (first reason wins) without writing PC, which would cancel the stop.
    void stop(StopReason why, std::string message);
    void stop_fault(FaultKind kind, std::uint32_t address, std::uint32_t pc, bool pc_is_block_start, std::string detail);
    /// Limits, timers, stimuli and pending exceptions, at the boundary before the block at `pc`.
    Service service(std::uint32_t pc);
    /// Stops on max instructions or wall clock; returns the next cycle a limit check is due.
    std::uint64_t check_limits();
    void on_flagged_block(const BlockInfo& block);
    DeviceSlot* device_at(std::uint32_t address);
    DeviceSlot* device_named(const std::string& name);
    std::uint32_t unclaimed_mmio(std::uint32_t address, bool is_write);
    std::string where(std::uint32_t pc) const;
    std::string quoted_instruction(std::uint32_t pc) const;
    bool reset(std::uint32_t& pc);
    /// The instruction in the block at `block_start` whose data access covers `address`, found by
    /// decoding the block and evaluating each access with the current registers (which Unicorn
    /// leaves as they were before the faulting instruction; only its pc is the block's start).
    std::optional<std::uint32_t> faulting_instruction(std::uint32_t block_start, std::uint32_t address) const;
    void fault_from_error(uc_err err);
    RunResult finish();

    // exceptions.cpp
    int execution_priority(bool ignore_primask = false) const;
    /// At an exception return: what the steering has due by now, before tail-chaining is decided.
    void steer_due_before_tail_chain();
    void process_timed_events(std::uint64_t now);
    /// Calls the devices whose DeviceSlot::wake has come.
    void wake_devices(std::uint64_t now);
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
    /// Turns a Unicorn memory or instruction error into the architectural fault (FaultPolicy::Handler).
    bool deliver_fault(uc_err err);
    /// WFI/WFE at `pc`: emulated time jumps to the next event that can wake the core.
    bool sleep(std::uint32_t pc);
    bool interrupt_possible() const;
    void check_thread();
    // The constructor's steps, in order.
    void map_memory_and_devices();
    void load_image();
    void resolve_symbols();
    void add_hooks();
    /// The name in thread control block `tcb` (rtos.name_offset), or empty.
    std::string thread_name(std::uint32_t tcb) const;
    /// A user-defined event; `from_function` when the hook function was called.
    void push_marker(std::uint32_t id, std::uint32_t payload, bool from_function, std::uint64_t when);
    void push_watch(std::uint32_t address);
    /// A watch point reached: the steering first, then the event unless it held the thread.
    void reach_watch(std::uint32_t address);
    /// Exception `n` pended from outside the machine: its entry is reported external.
    void pend_external(int n);
    /// The Branch event for reaching the block at `target`.
    void push_branch(std::uint32_t target, std::uint64_t when);

    MachineConfig config;
    const decode::ElfImage& image;
    nvic::SystemControl* scs = nullptr;  ///< owned by config.devices
    UnicornCore uc;
    MemoryPlan plan;
    std::optional<models::TimingModel> timing;          ///< none with TimingMode::None or Pipeline
    std::optional<models::PipelineFeed> pipeline_feed;  ///< with TimingMode::Pipeline (in place: the block hook reaches it without a load)
    BlockCache blocks;
    trace::EventRecorder recorder;
    Semihosting semihosting;
    StimulusSchedule stimuli;
    std::vector<std::unique_ptr<DeviceSlot>> devices;    ///< sorted by base
    std::unique_ptr<DebugAttachment> debug;              ///< with a debugger attached
    std::uint64_t next_device_wake = ~std::uint64_t{0};  ///< no later than the earliest DeviceSlot::wake
    /// The board's clocks as a clock controller set them (DeviceHost::set_clock).
    std::vector<std::pair<std::string, std::uint64_t>> clocks;
    /// The core's clock and since when: emulated time is the sum over the clocks it ran at.
    std::uint64_t core_hz = 0;
    std::uint64_t core_hz_since = 0;
    double seconds_before = 0;  ///< emulated time up to core_hz_since
    double emulated_seconds() const { return seconds_before + static_cast<double>(cycles() - core_hz_since) / static_cast<double>(core_hz); }
    std::vector<std::unique_ptr<WindowSlot>> windows;
    std::vector<std::unique_ptr<OperandSite>> operand_sites;
    std::unordered_set<std::uint32_t> hooked_sites;
    std::vector<std::unique_ptr<TimedRegion>> timed_regions;
    /// The caches of the regions that have one: a block's fetch misses stall the core before it runs.
    std::vector<models::FlashCache> flash_caches;
    /// The memory system's run-time switches as a device last set them (DeviceHost::set_memory_mode).
    models::MemoryMode memory_mode;
    /// Block [pc, pc + size), which is about to run, fetched through the flash cache that covers
    /// it, if any: its misses and tag lookups stall the core before it runs.
    void fetch_through_flash_caches(std::uint32_t pc, std::uint32_t size) {
        if (flash_caches.empty()) [[likely]]
            return;
        for (auto& c : flash_caches)
            if (c.covers(pc)) {
                if (!c.enabled()) return;
                if (unsigned stall = c.fetch(pc, size)) add_idle_cycles(stall, counters.stall);
                return;
            }
    }
    std::optional<std::uint32_t> stop_address;  ///< stop.at_symbol resolved, or stop.at_address
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

    // The block hook's state, kept together on one cache line.
    nvic::CycleCounters counters;  ///< the DWT in config.devices holds a reference, read only while running
    bool want_blocks = false, want_mmio = false, want_output = false, want_exceptions = false, want_markers = false;
    bool want_branches = false, want_watches = false, want_samples = false;
    /// How the previous block left (trace::BranchKind), reported when the next block starts;
    /// kept 0 when no sink wants branches (branch_mask), so the hot path never takes that turn.
    std::uint8_t pending_branch = 0;
    std::uint8_t branch_mask = 0;
    std::uint64_t next_check = 0;
    /// The previous block's fall-through address and what its final conditional branch costs
    /// when taken: settled when the next block starts.
    std::uint32_t fallthrough = 1;
    std::uint32_t sequential = 1;  ///< the previous block's BlockInfo::sequential
    std::int32_t taken_extra = 0;
    /// While a device is being accessed: the counters as of that access (DeviceHost::now(), the DWT).
    std::optional<nvic::CycleCounters> access_counters;
    /// Data accesses of the current block already matched: they happen in program order, so two
    /// loads from one address in one block are told apart.
    std::uint32_t access_cursor = 0;
    /// The block executing now. Unicorn's pc inside device callbacks is the block's start only
    /// until a code hook (a divide) fires in it, so the machine keeps its own.
    std::uint32_t block_pc = 1;
    std::uint64_t exceptions_taken = 0;
    bool fp_lazy_pending = false;         ///< FPCCR.LSPACT: an extended frame's FP area is reserved, not yet written
    bool fp_preserved_uncharged = false;  ///< it was written, found only at an entry or return: charged at the next return
    /// Block flags the block hooks' hot paths serve themselves: an FPU instruction's too, unless
    /// a lazy preservation is pending (set_fp_lazy_pending).
    std::uint16_t hot_flags = BlockInfo::HotPath | BlockInfo::UsesFpu;
    void set_fp_lazy_pending(bool pending) {
        fp_lazy_pending = pending;
        hot_flags = pending ? BlockInfo::HotPath : BlockInfo::HotPath | BlockInfo::UsesFpu;
    }
    /// A block holding an FPU instruction is about to run while the FP area is reserved: the core
    /// writes S0-S15 and FPSCR to it at that instruction, and the cycles are charged here.
    void preserve_fp_lazily();
    std::uint64_t thread_switches = 0;
    std::uint32_t sleep_resume = 1;  ///< pc after the WFI/WFE that ended the last block; odd = none
    std::chrono::steady_clock::time_point started;
    std::function<void(std::uint64_t, std::uint64_t)> progress;  ///< Machine::set_progress
    // Unclaimed MMIO under the log policy: each address reported once, up to a bound a hostile
    // scan cannot grow; every access counted.
    static constexpr std::size_t kUnclaimedReports = 64;
    std::unordered_set<std::uint32_t> warned_unclaimed;
    std::uint64_t unclaimed_accesses = 0;

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
