// The core's hooks other than the block hook: interrupts (BKPT, SVC, exception return), invalid
// memory accesses, the stop address, watch points, the user event function, and the hooks a sink
// or the pipeline asks for on every instruction or access. Each brings the pipeline up to where it
// is called first (settle_pipeline), so that what it does is stamped at its own cycle.

#include <array>

#include "emu/detail/machine_impl.h"

namespace emutrace::emu::detail {
namespace {

constexpr std::uint16_t kBkptSemihosting = 0xBEAB;  // bkpt 0xab

MachineState& machine(void* user) {
    return *static_cast<MachineState*>(user);
}

}  // namespace

void on_interrupt(uc_engine*, std::uint32_t intno, void* user) {
    MachineState& m = machine(user);
    std::uint32_t pc = m.uc.reg(UC_ARM_REG_PC);
    if (intno == 8 && m.feed.pipeline_feed) m.feed.block_ended(pc | 1);  // the block ended with the branch to EXC_RETURN
    m.settle_pipeline(pc, intno == 7);                                   // BKPT: pc at it; SVC: past it
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
    MachineState& m = machine(user);
    // A store to flash that a flash controller programs: it writes the memory itself, and the
    // store is done (Unicorn skips the instruction's own write when the hook returns true).
    if (type == UC_MEM_WRITE_PROT &&
        m.bus.store_to_rom(static_cast<std::uint32_t>(address), static_cast<unsigned>(size), static_cast<std::uint32_t>(value)))
        return true;
    m.settle_pipeline(~0u, false);  // where in the block is not known (P7): all of it
    if (!m.memory_fault) m.memory_fault = MachineState::MemoryFault{type, static_cast<std::uint32_t>(address), m.uc.reg(UC_ARM_REG_PC)};
    return false;
}

void on_stop_address(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    MachineState& m = machine(user);
    m.settle_pipeline(static_cast<std::uint32_t>(address), false);
    std::string what = m.config.stop.at_symbol.empty() ? "the stop address" : m.config.stop.at_symbol;
    m.stop(StopReason::SymbolReached, "reached " + what + " at " + m.where(static_cast<std::uint32_t>(address)));
}

// ARMv7-M's stack pointers are word-aligned, bits [1:0] zero whatever is written to them; Unicorn
// 2.0.1 keeps what was written. Only instructions that may write an unaligned value are hooked.
void on_stack_site(uc_engine*, std::uint64_t, std::uint32_t, void* user) {
    MachineState& m = machine(user);
    if (std::uint32_t sp = m.uc.reg(UC_ARM_REG_SP); sp & 3u) m.uc.set_reg(UC_ARM_REG_SP, sp & ~3u);
}

void on_banked_stack_site(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user) {
    MachineState& m = machine(user);
    for (int r : {UC_ARM_REG_MSP, UC_ARM_REG_PSP})
        if (std::uint32_t sp = m.uc.reg(r); sp & 3u) m.uc.set_reg(r, sp & ~3u);
    on_stack_site(uc, address, size, user);
}

void MachineState::hook_stack_sites(std::uint32_t address, std::uint32_t size) {
    for (std::uint32_t site : blocks.stack_sites(address)) {
        const std::uint32_t at = site & ~1u;
        if (!stack_sites_hooked.insert(site).second) continue;  // also in a block translated before
        uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>((site & 1u) ? on_banked_stack_site : on_stack_site), this, at, at);
        if (at >= address + size) uc.remove_cache(at, at + 2);  // the next block's first instruction: translated again too
    }
    blocks.stack_sites_hooked(address, size);
    uc.remove_cache(address, address + size);
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
    m.stream.push_ram_access(m.cycles(), static_cast<std::uint32_t>(address), m.uc.reg(UC_ARM_REG_SP), m.instruction_pc, static_cast<unsigned>(size),
                             type == UC_MEM_WRITE, masked);
}

void on_user_event_function(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    MachineState& m = machine(user);
    if (m.debug && m.debug->hooks_ran_at(static_cast<std::uint32_t>(address))) return;  // once per run of it
    m.settle_pipeline(static_cast<std::uint32_t>(address), false);
    m.push_marker(m.uc.reg(UC_ARM_REG_R0), m.uc.reg(UC_ARM_REG_R1), true, m.cycles());
}

void on_pipeline_instruction(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    MachineState& m = machine(user);
    m.feed.pipeline_feed->executes(static_cast<std::uint32_t>(address));  // runs when a hook needs the counts
}

// Every load and store to memory on a hooked board: it calls nothing, so needs no frame.
void on_pipeline_data_access(uc_engine*, uc_mem_type, std::uint64_t address, int size, std::int64_t, void* user) {
    machine(user).feed.pipeline_feed->memory_access(static_cast<std::uint32_t>(address), static_cast<unsigned>(size));
}

// The same on a board with a flash cache: a read is looked up in the cache first.
void on_pipeline_data_access_through_flash_caches(uc_engine*, uc_mem_type type, std::uint64_t address, int size, std::int64_t, void* user) {
    MachineState& m = machine(user);
    if (type == UC_MEM_READ) m.feed.pipeline_reads_through_flash_caches(static_cast<std::uint32_t>(address));
    m.feed.pipeline_feed->memory_access(static_cast<std::uint32_t>(address), static_cast<unsigned>(size));
}

}  // namespace emutrace::emu::detail
