// Unicorn callbacks. The block hook is the hot path: a cached lookup, an optional event append and
// a counter compare. Everything else runs only on rare events (MMIO, BKPT, faults, stops).

#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "emu/bit_band.h"
#include "emu/detail/machine_impl.h"
#include "emu/stop_signal.h"

namespace emutrace::emu {
namespace detail {
namespace {

constexpr std::uint64_t kCheckInterval = 1u << 20;  // instructions between wall-clock checks
constexpr std::uint16_t kBkptSemihosting = 0xBEAB;  // bkpt 0xab

detail::MachineState& machine(void* user) {
    return *static_cast<detail::MachineState*>(user);
}

}  // namespace

std::uint64_t DeviceSlot::now() const {
    return machine->access_counters ? machine->access_counters->cycles : machine->cycles();
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
    wake = cycle;
    machine->next_device_wake = std::min(machine->next_device_wake, cycle);
    machine->next_check = std::min(machine->next_check, cycle);
}
void DeviceSlot::set_clock(std::string_view clock_name, std::uint64_t hz) {
    if (!hz && clock_name == "core") return;  // a stopped clock is 0; the core's never stops
    auto& clocks = machine->clocks;
    auto it = std::find_if(clocks.begin(), clocks.end(), [&](const auto& c) { return c.first == clock_name; });
    if (it == clocks.end())
        clocks.emplace_back(std::string(clock_name), hz);
    else
        it->second = hz;
    if (clock_name == "core" && hz != machine->core_hz) {  // emulated time runs at the new clock from here
        const std::uint64_t at = machine->cycles();
        machine->seconds_before = machine->emulated_seconds();
        machine->core_hz_since = at;
        machine->core_hz = hz;
    }
}
std::uint64_t DeviceSlot::clock(std::string_view clock_name) const {
    for (const auto& [n, hz] : machine->clocks)
        if (n == clock_name) return hz;
    return clock_name == "core" ? machine->core_hz : 0;
}
void DeviceSlot::stall(std::uint32_t cycles) {
    machine->add_idle_cycles(cycles, machine->counters.stall);
}
void DeviceSlot::output(std::string_view text) {
    if (machine->want_output) machine->recorder.push_output(machine->cycles(), static_cast<std::uint16_t>(0x100 + index), text);
}
void DeviceSlot::user_event(std::uint32_t id, std::uint32_t payload) {
    machine->push_marker(id, payload, false, now());
}
void DeviceSlot::sample_pc() {
    if (machine->want_samples)
        machine->recorder.push({now(), static_cast<std::uint32_t>(machine->uc.reg(UC_ARM_REG_PC)), 0, 0, trace::EventKind::PcSample, 0, index});
}

void DeviceSlot::warn_once(std::uint32_t offset, std::string_view what) {
    if (warned.insert(offset).second) spdlog::warn("{}: {} (offset {:#x}, near pc {:#010x})", name, what, offset, machine->uc.reg(UC_ARM_REG_PC));
}

void DeviceSlot::set_memory_mode(const models::MemoryMode& mode) {
    if (mode == machine->memory_mode) return;
    machine->memory_mode = mode;
    for (auto& c : machine->flash_caches) c.enable(mode.cache_enabled);
    // The pipeline settles the instructions given so far and goes on in the new mode (its saved
    // states carry the mode in their key, so a cached run is not reused across the change).
    if (machine->pipeline_feed) machine->pipeline_feed->pipeline().change().set_memory_mode(mode);
}

void MachineState::auxiliary_control(std::uint32_t actlr) {
    // ACTLR.DISDEFWBUF (bit 1) and DISFOLD (bit 2): the pipeline settles what was given and goes
    // on with them (its saved states carry them in their key). The per-block model keeps the TRM's.
    if (!pipeline_feed) return;
    models::Pipeline::CoreControl control{.write_buffer = !(actlr & 2u), .fold_it = !(actlr & 4u)};
    pipeline_feed->pipeline().change().set_core_control(control);
}

namespace {

// The cycle a block about to run starts at: the previous block's final branch was taken if this
// is not its fall-through, and then the refill adds to it.
inline std::uint64_t block_start(const MachineState& m, std::uint32_t pc, const BlockInfo& b) {
    std::uint64_t start = m.counters.cycles;
    if (pc != m.sequential) start += static_cast<std::uint64_t>(static_cast<std::int64_t>(m.taken_extra) + b.branch_in_extra);
    return start;
}

// Counts a block that is about to run: its cycles and instructions, and its event.
inline void account_block(MachineState& m, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
    std::uint64_t start = block_start(m, pc, b);
    m.pending_branch = b.exit & m.branch_mask;
    m.fallthrough = pc + size;
    m.sequential = b.sequential;
    m.taken_extra = b.taken_extra;
    m.access_cursor = 0;
    m.block_pc = pc;
    m.counters.cycles = start + b.cycles;
    m.counters.instructions += b.instructions;
    m.counters.lsu += b.lsu;
    m.counters.fold += b.fold;
    if (!m.want_blocks) return;
    if (b.flags & BlockInfo::Deferred) [[unlikely]]
        return m.defer_block_event(start, pc, size, b);
    if (b.flags & BlockInfo::Split) [[unlikely]] {
        const BlockPiece* piece = m.blocks.pieces(b);
        for (std::uint32_t end = pc + size;; ++piece) {
            m.recorder.push_block(start, piece->address, piece->size, piece->instructions, piece->cycles, piece->end);
            start += piece->cycles;
            if (piece->address + piece->size >= end) return;
        }
    }
    m.recorder.push_block(start, pc, size, b.instructions, b.cycles, b.end);
}

// Whether the known block `b` takes on_block's hot path at `pc`: it is the one translated there,
// flagged at most HotPath, with no service due and no branch to report.
bool takes_hot_path(const MachineState& m, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
    return m.counters.cycles < m.next_check && b.address == pc && b.size == size && !(b.flags & ~m.hot_flags) && !m.pending_branch;
}

// Everything on_block does not do inline: services, first sight of a block, flagged blocks. The
// pipeline, if any, has been told that the block before ended.
[[gnu::noinline]] void on_block_slow(MachineState& m, std::uint32_t address, std::uint32_t size) {
    // Exceptions are taken at block boundaries: redirecting here means this block does not run.
    if (m.counters.cycles >= m.next_check && m.service(address) == Service::Redirected) return;
    if (m.pipeline_feed && m.pipeline_feed->per_block() && !m.pipeline_feed->block_starts(address, size))
        return m.uc.set_reg(UC_ARM_REG_PC, address | 1);  // its sites are hooked now: run it again
    const BlockInfo& b = m.blocks.lookup(address, size);
    if (b.flags & BlockInfo::OperandSites) [[unlikely]]
        return m.hook_operand_sites(address, size);  // runs it again
    // The block runs: its lines are fetched, and its first FPU instruction writes a reserved FP area.
    m.fetch_through_flash_caches(address, size);
    if ((b.flags & BlockInfo::UsesFpu) && m.fp_lazy_pending) m.preserve_fp_lazily();
    // Stamped as the block it reaches, so that a call's or return's time is the blocks' time.
    if (m.pending_branch) m.push_branch(address, block_start(m, address, b));
    account_block(m, address, size, b);
    if (m.pipeline_feed && m.pipeline_feed->per_block()) m.pipeline_feed->mark_plain(!(b.flags & ~(BlockInfo::HotPath | BlockInfo::UsesFpu)));
    if (b.flags) m.on_flagged_block(b);
}

// on_pipelined_block's every other path, out of line so that its hot path needs no frame.
[[gnu::noinline]] void start_pipelined_block(MachineState& m, std::uint32_t pc, std::uint32_t size, bool followed) {
    if (followed)
        m.sync_pipeline_counters();
    else
        m.pipeline_block_unfollowed(pc);
    const BlockInfo& b = m.blocks.slot(pc);
    if (!takes_hot_path(m, pc, size, b)) [[unlikely]]
        return on_block_slow(m, pc, size);
    if (!m.pipeline_feed->block_starts(pc, size)) [[unlikely]]
        return m.uc.set_reg(UC_ARM_REG_PC, pc | 1);  // its sites are hooked now: run it again
    // Before the pipeline is given the block's instructions.
    m.fetch_through_flash_caches(pc, size);
    m.pipeline_feed->mark_plain(true);
    account_block(m, pc, size, b);  // its per-block costs are 0 here: only the counts and the event
}

}  // namespace

// on_pipelined_block's hot path when a sink wants blocks (--etm, --pft) and none branches: the
// plain hot path, and the block's event, deferred until the next block gives its cycles. A block
// cut at trace points takes the other path.
inline bool follows_with_event(MachineState& m, std::uint32_t pc, std::uint32_t size) {
    const BlockInfo& b = m.blocks.slot(pc);
    if (b.address != pc || b.size != size || (b.flags & BlockInfo::Split) || !m.pipeline_feed->plain_block_starts(pc, size)) return false;
    m.block_pc = pc;
    m.defer_whole_block_event(m.pipeline_feed->pipeline().followed_counters().cycles, pc, size, b);
    return true;
}

// The hot path: a known block flagged at most HotPath, with no service due and no branch to report,
// settles the previous block's conditional branch, adds this block's cycles and, when a sink wants
// blocks, appends its event (or its parts' events). Free of calls but the final flush, so it needs no frame.
void on_block(uc_engine*, std::uint64_t address, std::uint32_t size, void* user) {
    detail::MachineState& m = machine(user);
    auto pc = static_cast<std::uint32_t>(address);
    if (m.pipeline_feed) [[unlikely]]  // the block before is done: its cycles, before any service is due
        m.pipeline_block_ended(pc);
    const BlockInfo& b = m.blocks.slot(pc);
    if (!takes_hot_path(m, pc, size, b)) [[unlikely]]
        return on_block_slow(m, pc, size);
    m.fetch_through_flash_caches(pc, size);
    account_block(m, pc, size, b);
}

// The block hook with TimingMode::Pipeline and facts per block. The hot path, while no sink wants
// blocks or branches: the block before is done by the transition the pipeline followed, and the
// block here is the one the pipeline expected after it, which the machine marked plain: the
// pipeline's chain of transitions and blocks stands in for the machine's own lookup, and the
// per-block model's accounting, whose costs are all 0 in this mode, is not run. Nor are the
// machine's counts kept up on it: between hooks the pipeline's are the machine's, and every other
// path, here and in every other hook, copies them first (sync_pipeline_counters).
void on_pipelined_block(uc_engine*, std::uint64_t address, std::uint32_t size, void* user) {
    detail::MachineState& m = machine(user);
    auto pc = static_cast<std::uint32_t>(address);
    const bool followed = m.pipeline_feed->ends_followed(pc);
    // A board with a flash cache looks each block's lines up once it is known to run (not on a run
    // the hooking of its operand sites repeats), and while an FP area waits for a handler's first
    // FPU instruction each block is checked for one: neither takes this path.
    if (followed && m.flash_caches.empty() && !m.fp_lazy_pending && m.pipeline_feed->pipeline().followed_counters().cycles < m.next_check &&
        !m.branch_mask) [[likely]] {
        if (!m.want_blocks) {
            if (m.pipeline_feed->plain_block_starts(pc, size)) {
                // Only where the block is: no branch event is pending with no sink wanting one
                // (so its fall-through is never read), and a device access asks the pipeline, not
                // the block's access list, for its cycle.
                m.block_pc = pc;
                return;
            }
        } else if (follows_with_event(m, pc, size)) {
            return;
        }
    }
    start_pipelined_block(m, pc, size, followed);
}

void on_pipeline_instruction(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    MachineState& m = machine(user);
    m.pipeline_feed->executes(static_cast<std::uint32_t>(address));  // runs when a hook needs the counts
}

void on_pipeline_data_access(uc_engine*, uc_mem_type, std::uint64_t address, int, std::int64_t, void* user) {
    machine(user).pipeline_feed->data_access(static_cast<std::uint32_t>(address), false);
}

void on_operand_site(uc_engine*, std::uint64_t, std::uint32_t, void* user) {
    auto& site = *static_cast<OperandSite*>(user);
    MachineState& m = *site.machine;
    m.counters.cycles += static_cast<std::uint64_t>(static_cast<std::int64_t>(site.executed_extra));
    m.counters.lsu += site.executed_extra_lsu;
    if (site.timing.op == models::TimingModel::OperandOp::None) return;
    // Part of the instruction's own cost, as the block's minimum is.
    m.counters.cycles += m.timing->operand_extra(site.timing, m.core_register(site.rn), m.core_register(site.rm));
}

bool on_timed_access(uc_engine*, uc_mem_type, std::uint64_t address, int size, std::int64_t, void* user) {
    auto& region = *static_cast<TimedRegion*>(user);
    MachineState& m = *region.machine;
    if (region.wait_states) m.add_idle_cycles(region.wait_states, m.counters.stall);
    if (region.times_unaligned) {
        std::uint32_t extra = models::unaligned_transfer_extra(static_cast<std::uint32_t>(address), static_cast<unsigned>(size), region.wait_states);
        m.counters.cycles += extra;
        m.counters.lsu += extra;
    }
    return true;
}

void on_interrupt(uc_engine*, std::uint32_t intno, void* user) {
    detail::MachineState& m = machine(user);
    std::uint32_t pc = m.uc.reg(UC_ARM_REG_PC);
    if (intno == 8 && m.pipeline_feed) {  // the block ended with the branch to EXC_RETURN
        m.pipeline_block_ended(pc | 1);
    }
    m.settle_pipeline(pc, intno == 7);  // BKPT: pc at it; SVC: past it
    switch (intno) {
        case 7: {  // EXCP_BKPT, pc at the BKPT
            std::array<std::uint8_t, 2> hw{};
            m.uc.read_memory(pc, hw);
            std::uint16_t insn = static_cast<std::uint16_t>(hw[0] | hw[1] << 8);
            if (insn != kBkptSemihosting) {
                m.stop_fault(FaultKind::UnhandledException, pc, pc, false, m.quoted_instruction(pc) + " with no debugger attached");
                return;
            }
            SemihostingOutcome out = m.semihosting.call(m.uc.reg(UC_ARM_REG_R0), m.uc.reg(UC_ARM_REG_R1));
            if (out.exited) {
                m.exit_code = out.exit_code;
                m.stop(StopReason::Exited, "firmware exited with code " + std::to_string(out.exit_code));
                return;  // no PC write: it would cancel the stop (Unicorn 2.0.1)
            }
            m.uc.set_reg(UC_ARM_REG_R0, out.r0);
            m.uc.set_reg(UC_ARM_REG_PC, (pc + 2) | 1);
            return;
        }
        case 2:  // EXCP_SWI, pc already past the SVC
            m.take_synchronous(nvic::kSvcall, pc);
            return;
        case 8:  // EXCP_EXCEPTION_EXIT: a branch to EXC_RETURN in handler mode, pc without bit 0
            m.return_from_exception(pc | 1);
            return;
        default: m.stop_fault(FaultKind::UnhandledException, pc, pc, false, "CPU exception " + std::to_string(intno)); return;
    }
}

bool on_invalid_memory(uc_engine*, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user) {
    detail::MachineState& m = machine(user);
    // A store to flash that a flash controller programs: it writes the memory itself, and the
    // store is done (Unicorn skips the instruction's own write when the hook returns true).
    if (type == UC_MEM_WRITE_PROT)
        for (auto& d : m.devices)
            if (d->model->store_to_rom(static_cast<std::uint32_t>(address), static_cast<unsigned>(size), static_cast<std::uint32_t>(value)))
                return true;
    m.settle_pipeline(~0u, false);  // where in the block is not known (P7): all of it
    if (!m.memory_fault) m.memory_fault = detail::MachineState::MemoryFault{type, static_cast<std::uint32_t>(address), m.uc.reg(UC_ARM_REG_PC)};
    return false;
}

void on_stop_address(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    detail::MachineState& m = machine(user);
    m.settle_pipeline(static_cast<std::uint32_t>(address), false);
    std::string what = m.config.stop.at_symbol.empty() ? "the stop address" : m.config.stop.at_symbol;
    m.stop(StopReason::SymbolReached, "reached " + what + " at " + m.where(static_cast<std::uint32_t>(address)));
}

void on_watch_point(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    MachineState& m = machine(user);
    const auto pc = static_cast<std::uint32_t>(address);
    if (m.debug && m.debug->hooks_ran_at(pc)) return;  // once per run of it
    m.settle_pipeline(pc, false);
    m.reach_watch(pc);
}

void on_instruction(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    machine(user).instruction_pc = static_cast<std::uint32_t>(address);
}

void on_ram_access(uc_engine*, uc_mem_type type, std::uint64_t address, int size, std::int64_t, void* user) {
    MachineState& m = machine(user);
    m.settle_pipeline(m.instruction_pc, true);
    const bool masked = (m.uc.reg(UC_ARM_REG_PRIMASK) & 1) || m.uc.reg(UC_ARM_REG_BASEPRI);
    m.recorder.push({m.cycles(), static_cast<std::uint32_t>(address), m.uc.reg(UC_ARM_REG_SP), m.instruction_pc, trace::EventKind::Access,
                     static_cast<std::uint8_t>(size), static_cast<std::uint16_t>((type == UC_MEM_WRITE ? 1 : 0) | (masked ? 2 : 0))});
}

void on_user_event_function(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    MachineState& m = machine(user);
    if (m.debug && m.debug->hooks_ran_at(static_cast<std::uint32_t>(address))) return;  // once per run of it
    m.settle_pipeline(static_cast<std::uint32_t>(address), false);
    m.push_marker(m.uc.reg(UC_ARM_REG_R0), m.uc.reg(UC_ARM_REG_R1), true, m.cycles());
}

// The address of an access at `offset` in window `w`; with the pipeline, its counts are brought
// up to the access's data phase first, the cycle a device sees.
static std::uint32_t device_access_starts(WindowSlot& w, std::uint64_t offset) {
    std::uint32_t address = w.base + static_cast<std::uint32_t>(offset);
    if (MachineState& m = *w.machine; m.pipeline_feed) {
        m.pipeline_feed->data_access(address, true);
        m.sync_pipeline_counters();
    }
    return address;
}

// A device's register read or written at `address`, or the unclaimed-MMIO policy where none is.
std::uint32_t device_read(MachineState& m, std::uint32_t address, unsigned size) {
    DeviceSlot* d = m.device_at(address);
    if (!d) return m.unclaimed_mmio(address, false);
    m.access_counters = m.counters_at_access(address);
    std::uint64_t when = m.access_counters->cycles;
    std::uint32_t value = d->model->read(address - d->base, size);
    if (m.steering) value = m.steering->at_device_read(d->index, address, value, m.control);
    m.access_counters.reset();
    if (m.want_mmio)
        m.recorder.push({when, address, value, address - d->base, trace::EventKind::MmioRead, static_cast<std::uint8_t>(size), d->index});
    return value;
}

void device_write(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t value) {
    DeviceSlot* d = m.device_at(address);
    if (!d) {
        m.unclaimed_mmio(address, true);
        return;
    }
    m.access_counters = m.counters_at_access(address);
    if (m.want_mmio)
        m.recorder.push(
            {m.access_counters->cycles, address, value, address - d->base, trace::EventKind::MmioWrite, static_cast<std::uint8_t>(size), d->index});
    d->model->write(address - d->base, size, value);
    m.access_counters.reset();
}

// The target of a bit-band access: plain memory read and written as the core's bus would, a device
// through its registers. False when plain memory is not there (a bus fault, stopped as one).
bool target_read(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t& value) {
    if (!region_at(m.plan, address)) {
        value = device_read(m, address, size);
        return true;
    }
    std::uint8_t bytes[4] = {};
    if (uc_mem_read(m.uc.get(), address, bytes, size) != UC_ERR_OK) return false;
    value = static_cast<std::uint32_t>(bytes[0] | bytes[1] << 8 | bytes[2] << 16 | static_cast<std::uint32_t>(bytes[3]) << 24);
    return true;
}

bool target_write(MachineState& m, std::uint32_t address, unsigned size, std::uint32_t value) {
    if (!region_at(m.plan, address)) {
        device_write(m, address, size, value);
        return true;
    }
    const std::uint8_t bytes[4] = {static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8), static_cast<std::uint8_t>(value >> 16),
                                   static_cast<std::uint8_t>(value >> 24)};
    return uc_mem_write(m.uc.get(), address, bytes, size) == UC_ERR_OK;
}

void DeviceSlot::signal(std::string_view line, bool level) {
    for (auto& d : machine->devices)
        if (d.get() != this) d->model->on_signal(line, level);
}

bool DeviceSlot::wired(std::string_view line) const {
    for (const auto& d : machine->devices)
        if (d.get() != this && d->model->drives(line)) return true;
    return false;
}

bool DeviceSlot::program(std::uint32_t address, std::span<const std::uint8_t> bytes) {
    const MemoryRegion* r = region_at(machine->plan, address);
    if (!r || bytes.empty() || address - r->base + bytes.size() > r->size) return false;
    const std::uint32_t offset = address - r->base, end = static_cast<std::uint32_t>(offset + bytes.size());
    machine->uc.write_memory(address, bytes);
    machine->uc.remove_cache(address, address + static_cast<std::uint32_t>(bytes.size()));  // code there runs as written
    for (const MemoryRegion& m : machine->plan.memory)
        if (m.mirrors == r->name && end <= m.size) {
            machine->uc.write_memory(m.base + offset, bytes);
            machine->uc.remove_cache(m.base + offset, m.base + end);
        }
    return true;
}

bool DeviceSlot::bus_read(std::uint32_t address, unsigned width, std::uint32_t& value) {
    const MemoryRegion* r = region_at(machine->plan, address);
    if (!r && !machine->device_at(address)) return false;
    return target_read(*machine, address, width, value);
}

bool DeviceSlot::bus_write(std::uint32_t address, unsigned width, std::uint32_t value) {
    const MemoryRegion* r = region_at(machine->plan, address);
    if (r ? !(r->access & AccessWrite) : !machine->device_at(address)) return false;
    return target_write(*machine, address, width, value);
}

std::uint64_t on_mmio_read(uc_engine*, std::uint64_t offset, unsigned size, void* user) {
    auto& w = *static_cast<WindowSlot*>(user);
    detail::MachineState& m = *w.machine;
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
    detail::MachineState& m = *w.machine;
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

}  // namespace detail

detail::Service detail::MachineState::service(std::uint32_t pc) {
    if (reason) {
        uc.stop();
        return Service::Stopping;
    }
    process_timed_events(cycles());
    std::uint64_t limits_due = check_limits();
    if (reason) return Service::Stopping;
    if (debug && debug->poll_interrupt()) return Service::Stopping;
    if (take_pending(pc)) return Service::Redirected;
    if (reason) return Service::Stopping;
    next_check = std::min(limits_due, next_timed_event());
    return Service::Continue;
}

std::uint64_t detail::MachineState::check_limits() {
    const StopConfig& s = config.stop;
    if (s.max_instructions && counters.instructions >= s.max_instructions) {
        stop(StopReason::MaxInstructions, "executed the maximum of " + std::to_string(s.max_instructions) + " instructions");
        return 0;
    }
    if (const int signal = stop_signal()) {
        stop(StopReason::Interrupted, std::string("stopped by ") +
                                          (signal == SIGINT    ? "SIGINT"
                                           : signal == SIGTERM ? "SIGTERM"
                                                               : "a signal") +
                                          " at " + where(uc.reg(UC_ARM_REG_PC)));
        exit_code = signal;
        return 0;
    }
    if (s.wall_clock_seconds > 0 && cycles() > 0) {
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (elapsed >= s.wall_clock_seconds) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.3g", s.wall_clock_seconds);
            stop(StopReason::WallClock,
                 std::string("wall-clock limit of ") + buf + " s reached at " + where(uc.reg(UC_ARM_REG_PC)) + " (firmware running away?)");
            return 0;
        }
    }
    if (progress) progress(cycles(), counters.instructions);
    // Cycles grow at least as fast as instructions, so this is never late for the instruction limit.
    std::uint64_t due = cycles() + detail::kCheckInterval;
    if (s.max_instructions) due = std::min(due, cycles() + (s.max_instructions - counters.instructions));
    return due;
}

void detail::MachineState::on_flagged_block(const detail::BlockInfo& b) {
    if (b.flags & detail::BlockInfo::Unsupported) {
        detail::Violation v = blocks.violation(b.address);
        stop_fault(FaultKind::UnsupportedInstruction, v.pc, v.pc, false, v.message);
        return;
    }
    if (b.flags & detail::BlockInfo::MaskChange) next_check = 0;  // CPSIE/MSR may unmask a pending exception
    if (b.flags & detail::BlockInfo::Sleep) sleep_resume = b.address + b.size;
    // A branch-to-self the run is asked to stop at is reached, not hung in: the stop hook says so.
    const bool stops_here = stop_address && *stop_address >= b.address && *stop_address < b.address + b.size;
    // With a debugger attached a hang is for the debugger to interrupt, as on a board.
    const bool debugged = debug && debug->attached();
    if ((b.flags & detail::BlockInfo::SelfLoop) && config.stop.on_hang && !stops_here && !debugged && !interrupt_possible()) {
        bool primask = uc.reg(UC_ARM_REG_PRIMASK) & 1;
        stop(StopReason::Hang, "firmware hangs in a branch-to-self at " + where(b.address) +
                                   (primask ? " with interrupts disabled (PRIMASK=1)" : " and no interrupt can arrive"));
    }
}

detail::DeviceSlot* detail::MachineState::device_named(const std::string& name) {
    for (auto& d : devices)
        if (d->name == name) return d.get();
    return nullptr;
}

void detail::MachineState::push_marker(std::uint32_t id, std::uint32_t payload, bool from_function, std::uint64_t when) {
    if (want_markers) recorder.push({when, block_pc, id, payload, trace::EventKind::Marker, static_cast<std::uint8_t>(from_function ? 1 : 0), 0});
}

void detail::MachineState::push_watch(std::uint32_t address) {
    if (want_watches) recorder.push({cycles(), address, uc.reg(UC_ARM_REG_R0), uc.reg(UC_ARM_REG_R1), trace::EventKind::Watch, 0, 0});
}

void detail::MachineState::reach_watch(std::uint32_t address) {
    if (steering && steering->at_watch(address, control) == trace::WatchOutcome::Held) return;
    push_watch(address);
}

void detail::MachineState::pend_external(int n) {
    external_pending.set(static_cast<std::size_t>(n));
    scs->exceptions().set_pending(n, true);
    next_check = 0;
}

void detail::MachineState::push_branch(std::uint32_t target, std::uint64_t when) {
    // A conditional return or jump that failed its condition went on to the next instruction: no
    // branch happened (a taken one never lands there: the instruction after a return in an IT
    // block is no call's return address, and a jump to it would be a no-op).
    if ((pending_branch & BlockInfo::kConditionalExit) && target == fallthrough) return;
    if (want_branches)
        recorder.push({when, target, static_cast<std::uint32_t>(pending_branch & ~(BlockInfo::kConditionalExit | BlockInfo::kIndirectExit)),
                       fallthrough, trace::EventKind::Branch, static_cast<std::uint8_t>(pending_branch & BlockInfo::kIndirectExit ? 1 : 0), 0});
}

void detail::MachineState::raise_irq(int irq) {
    pend_external(nvic::kFirstIrq + irq);
}

void detail::MachineState::set_device_register(const std::string& device, const std::string& name, std::uint32_t value) {
    if (auto* d = device_named(device)) d->model->set_register(name, value);
}

void detail::MachineState::receive_bytes(const std::string& device, std::string_view data) {
    if (auto* d = device_named(device)) d->model->receive(data);
}

void detail::MachineState::reset_requested() {
    stop(StopReason::ResetRequested, "firmware requested a system reset (AIRCR.SYSRESETREQ) at " + where(uc.reg(UC_ARM_REG_PC)));
}

detail::DeviceSlot* detail::MachineState::device_at(std::uint32_t address) {
    auto it = std::upper_bound(devices.begin(), devices.end(), address, [](std::uint32_t a, const auto& d) { return a < d->base; });
    if (it == devices.begin()) return nullptr;
    detail::DeviceSlot* d = (--it)->get();
    return address - d->base < d->size ? d : nullptr;
}

std::uint32_t detail::MachineState::unclaimed_mmio(std::uint32_t address, bool is_write) {
    ++unclaimed_accesses;
    // Under the log policy an access already reported costs what a stub register's does: start-up
    // code polls status registers in loops, and decoding the block to find the instruction (below)
    // costs a hundred times the access.
    const bool report =
        config.unclaimed_mmio == UnclaimedMmio::Fault || (warned_unclaimed.size() <= kUnclaimedReports && !warned_unclaimed.contains(address));
    if (!report) return 0;
    std::uint32_t pc = uc.reg(UC_ARM_REG_PC);  // the block's start, here
    std::optional<std::uint32_t> at = faulting_instruction(pc, address);
    if (config.unclaimed_mmio == UnclaimedMmio::Fault) {
        stop_fault(FaultKind::UnclaimedMmio, address, at.value_or(pc), !at,
                   (at ? quoted_instruction(*at) + ", " : std::string()) + (is_write ? "a write" : "a read") +
                       " (set unclaimed_mmio: log to read 0 and go on)");
        return 0;
    }
    warned_unclaimed.insert(address);
    if (warned_unclaimed.size() > kUnclaimedReports)
        spdlog::warn("unclaimed MMIO: more than {} addresses; the others are not reported (the run's summary counts every access)",
                     kUnclaimedReports);
    else
        spdlog::warn("unclaimed MMIO {} at {:#010x} by {} ({}; policy: log)", is_write ? "write" : "read", address, where(at.value_or(pc)),
                     is_write ? "ignored" : "reads 0");
    return 0;
}

}  // namespace emutrace::emu
