// The run's control: services at block boundaries (timers, stimuli, limits, pending exceptions),
// flagged blocks, requests from outside the core (stimuli, a steering, the SCS), and how a run
// stops: by a reason, or by a fault described at the instruction that made it.

#include <spdlog/spdlog.h>

#include <array>
#include <csignal>
#include <cstdio>

#include "config/little_endian.h"
#include "config/units.h"
#include "emu/detail/machine_impl.h"
#include "emu/stop_signal.h"

namespace emutrace::emu::detail {
namespace {

constexpr std::uint64_t kCheckInterval = 1u << 20;  // cycles between wall-clock checks

}  // namespace

Service MachineState::service(std::uint32_t pc) {
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

std::uint64_t MachineState::check_limits() {
    const StopConfig& s = config.stop;
    if (s.max_instructions && feed.counters.instructions >= s.max_instructions) {
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
    if (progress) progress(cycles(), feed.counters.instructions);
    // Cycles grow at least as fast as instructions, so this is never late for the instruction limit.
    std::uint64_t due = cycles() + kCheckInterval;
    if (s.max_instructions) due = std::min(due, cycles() + (s.max_instructions - feed.counters.instructions));
    return due;
}

void MachineState::on_flagged_block(const BlockInfo& b) {
    if (b.flags & BlockInfo::Unsupported) {
        Violation v = blocks.violation(b.address);
        stop_fault(FaultKind::UnsupportedInstruction, v.pc, v.pc, false, v.message);
        return;
    }
    if (b.flags & BlockInfo::MaskChange) next_check = 0;  // CPSIE/MSR may unmask a pending exception
    if (b.flags & BlockInfo::Sleep) sleep_resume = b.address + b.size;
    // A branch-to-self the run is asked to stop at is reached, not hung in: the stop hook says so.
    const bool stops_here = stop_address && *stop_address >= b.address && *stop_address < b.address + b.size;
    // With a debugger attached a hang is for the debugger to interrupt, as on a board.
    const bool debugged = debug && debug->attached();
    if ((b.flags & BlockInfo::SelfLoop) && config.stop.on_hang && !stops_here && !debugged && !interrupt_possible()) {
        bool primask = uc.reg(UC_ARM_REG_PRIMASK) & 1;
        stop(StopReason::Hang, "firmware hangs in a branch-to-self at " + where(b.address) +
                                   (primask ? " with interrupts disabled (PRIMASK=1)" : " and no interrupt can arrive"));
    }
}

void MachineState::reach_watch(std::uint32_t address) {
    if (steering && steering->at_watch(address, control) == trace::WatchOutcome::Held) return;
    stream.push_watch(cycles(), address, uc.reg(UC_ARM_REG_R0), uc.reg(UC_ARM_REG_R1));
}

void MachineState::pend_external(int n) {
    external_pending.set(static_cast<std::size_t>(n));
    scs->exceptions().set_pending(n, true);
    next_check = 0;
}

void MachineState::raise_irq(int irq) {
    pend_external(nvic::kFirstIrq + irq);
}

void MachineState::set_device_register(const std::string& device, const std::string& name, std::uint32_t value) {
    if (auto* d = bus.named(device)) d->model->set_register(name, value);
}

void MachineState::receive_bytes(const std::string& device, std::string_view data) {
    if (auto* d = bus.named(device)) d->model->receive(data);
}

void MachineState::reset_requested() {
    stop(StopReason::ResetRequested, "firmware requested a system reset (AIRCR.SYSRESETREQ) at " + where(uc.reg(UC_ARM_REG_PC)));
}

std::string MachineState::where(std::uint32_t pc) const {
    return config::hex32(pc) + " (" + image.symbols().describe(pc) + ")";
}

std::string MachineState::quoted_instruction(std::uint32_t pc) const {
    std::array<std::uint8_t, 4> code{};
    std::size_t n = uc.read_memory(pc, code) ? 4 : uc.read_memory(pc, std::span(code.data(), 2)) ? 2 : 0;
    if (n == 0) return "(unreadable code)";
    std::string text = "'";
    text += blocks.decoder().decode_one(std::span(code.data(), n), pc).text;
    text += '\'';
    return text;
}

void MachineState::stop(StopReason why, std::string text) {
    if (reason) return;
    reason = why;
    message = std::move(text);
    uc.stop();
    next_check = 0;  // Unicorn drops the stop if this hook also wrote pc; service() repeats it
}

void MachineState::stop_fault(FaultKind kind, std::uint32_t address, std::uint32_t pc, bool pc_is_block_start, std::string detail) {
    if (reason) return;
    Fault f{kind, address, pc, pc_is_block_start, image.symbols().describe(pc), std::move(detail)};
    std::string text(describe(kind));
    if (has_access_address(kind)) text += " at " + config::hex32(address);
    text += pc_is_block_start ? ", in the block starting at " : ", pc ";
    text += where(pc);
    if (!f.detail.empty()) text += ": " + f.detail;
    fault = std::move(f);
    stop(StopReason::Fault, std::move(text));
}

bool MachineState::reset(std::uint32_t& pc) {
    std::uint32_t vtor = config.vector_table.value_or(image.lowest_load_address());
    std::array<std::uint8_t, 8> v{};
    if (!uc.read_memory(vtor, v)) {
        stop_fault(FaultKind::BadVectorTable, vtor, vtor, false, "the vector table is not in mapped memory");
        return false;
    }
    std::uint32_t sp = config::read_le32(v.data());
    pc = v[4] | v[5] << 8 | v[6] << 16 | static_cast<std::uint32_t>(v[7]) << 24;
    if (config.entry) pc = *config.entry | 1u;
    const MemoryRegion* code = region_at(bus.plan, pc & ~1u);
    if (!(pc & 1) || !code || !(code->access & AccessExecute)) {
        stop_fault(FaultKind::BadVectorTable, vtor + 4, pc & ~1u, false,
                   "reset vector " + config::hex32(pc) + (!(pc & 1) ? " lacks the Thumb bit" : " is not in executable memory"));
        return false;
    }
    const MemoryRegion* stack = region_at(bus.plan, sp - 4);
    if ((sp & 3) || !stack || !(stack->access & AccessWrite)) {
        stop_fault(FaultKind::BadVectorTable, vtor, pc & ~1u, false, "initial stack pointer " + config::hex32(sp) + " is not in writable memory");
        return false;
    }
    uc.set_reg(UC_ARM_REG_SP, sp);
    scs->set_vtor(vtor);  // where this image's vector table is, also when it is not at 0
    scs->set_trace_enabled(config.trace_enabled);
    return true;
}

std::optional<std::uint32_t> MachineState::faulting_instruction(std::uint32_t block_start, std::uint32_t address) const {
    std::array<std::uint8_t, 128> code{};
    std::size_t n = code.size();
    while (n >= 2 && !uc.read_memory(block_start, std::span(code.data(), n))) n /= 2;
    if (n < 2) return std::nullopt;
    for (const auto& insn : blocks.decoder().decode(std::span(code.data(), n), block_start)) {
        if (insn.memory.mode != decode::MemoryAccess::Mode::None && access_covers(insn.memory, insn.address, address)) return insn.address;
        if (insn.is_jump) break;  // the translated block ends here
    }
    return std::nullopt;
}

void MachineState::fault_from_error(uc_err err) {
    std::uint32_t pc = uc.reg(UC_ARM_REG_PC);
    auto mf = memory_fault;
    auto data_fault = [&](FaultKind kind) {
        std::uint32_t address = mf ? mf->address : 0;
        if (auto at = faulting_instruction(pc, address))
            stop_fault(kind, address, *at, false, quoted_instruction(*at));
        else
            stop_fault(kind, address, pc, true, "");
    };
    switch (err) {
        case UC_ERR_READ_UNMAPPED: data_fault(FaultKind::UnmappedRead); break;
        case UC_ERR_WRITE_UNMAPPED: data_fault(FaultKind::UnmappedWrite); break;
        case UC_ERR_FETCH_UNMAPPED: stop_fault(FaultKind::UnmappedFetch, mf ? mf->address : pc, pc, false, ""); break;
        case UC_ERR_WRITE_PROT: data_fault(FaultKind::WriteToReadOnly); break;
        case UC_ERR_READ_PROT: data_fault(FaultKind::ReadProtected); break;
        case UC_ERR_FETCH_PROT: stop_fault(FaultKind::FetchNotExecutable, mf ? mf->address : pc, pc, false, ""); break;
        case UC_ERR_INSN_INVALID: stop_fault(FaultKind::UndefinedInstruction, pc, pc, false, quoted_instruction(pc)); break;
        case UC_ERR_EXCEPTION: stop_fault(FaultKind::UnhandledException, pc, pc, false, "CPU exception"); break;
        default: stop_fault(FaultKind::Internal, pc, pc, false, std::string("Unicorn: ") + uc_strerror(err)); break;
    }
}

}  // namespace emutrace::emu::detail
