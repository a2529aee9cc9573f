// M-profile exception entry and return (ARMv7-M ARM B1.5.6-B1.5.8), done by the machine because
// Unicorn only reports SVC (interrupt 2) and EXC_RETURN branches (interrupt 8).
//
// Unicorn (QEMU) keeps the current stack pointer in R13 and the other one aside, chosen by handler
// mode and CONTROL.SPSEL. Writing IPSR swaps them as the mode changes, MSP and PSP read and write
// the banked registers by name, but a write to CONTROL.SPSEL in handler mode is ignored. So every
// mode change here writes IPSR (and, in thread mode, CONTROL) first and then both stack pointers
// by name.
//
// On a core with an FPU, CONTROL.FPCA says thread code has a floating-point context (Unicorn sets
// it at the first FP instruction, as FPCCR.ASPEN asks). An exception then stacks the extended
// frame: the 8 words, S0-S15, FPSCR and a reserved word (B1.5.7), and EXC_RETURN bit 4 is clear.
// The values are written with the rest of the frame even under lazy stacking (FPCCR.LSPEN): a
// handler that uses the FPU finds them there as it would on the core, and one that does not leaves
// the registers as they were, which is what the return restores. The cycles follow the core: under
// lazy stacking the entry writes the 8 words only; the 17 FP words are written when the handler
// first uses the FPU (charged at the next return, as the machine sees that use only then) and read
// back at the return only if they were written.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "config/little_endian.h"
#include "emu/detail/machine_impl.h"

namespace emutrace::emu {
namespace {

using detail::MachineState;
namespace nv = nvic;

constexpr std::uint32_t kThumb = 1u << 24;       // xPSR.T
constexpr std::uint32_t kFramePadded = 1u << 9;  // xPSR bit 9: the frame was realigned to 8 bytes
constexpr std::uint32_t kSpsel = 1u << 1, kNpriv = 1u << 0, kFpca = 1u << 2;
constexpr std::uint32_t kExcReturnBasicFrame = 1u << 4;      // EXC_RETURN bit 4: clear for an extended frame
constexpr std::size_t kBasicWords = 8, kExtendedWords = 26;  // 0x20 and 0x68 bytes
constexpr std::array<int, 8> kFrameRegs{UC_ARM_REG_R0,  UC_ARM_REG_R1, UC_ARM_REG_R2, UC_ARM_REG_R3,
                                        UC_ARM_REG_R12, UC_ARM_REG_LR, UC_ARM_REG_PC, UC_ARM_REG_XPSR};

std::string exception_name(int n) {
    return trace::exception_name(trace::ExceptionModel::MProfile, static_cast<std::uint32_t>(n));
}

std::array<std::uint8_t, 4 * kExtendedWords> pack(const std::array<std::uint32_t, kExtendedWords>& words) {
    std::array<std::uint8_t, 4 * kExtendedWords> b{};
    for (std::size_t i = 0; i < words.size(); ++i) config::write_le32(&b[4 * i], words[i]);
    return b;
}

}  // namespace

int MachineState::execution_priority(bool ignore_primask) const {
    bool primask = !ignore_primask && (uc.reg(UC_ARM_REG_PRIMASK) & 1);
    bool faultmask = uc.reg(UC_ARM_REG_FAULTMASK) & 1;
    auto basepri = static_cast<std::uint8_t>(uc.reg(UC_ARM_REG_BASEPRI));
    return scs->exceptions().execution_priority(primask, faultmask, basepri);
}

void MachineState::steer_due_before_tail_chain() {
    // A replay's logged interrupt due by now tail-chained when it was recorded: its stimulus had
    // pended it while the handler ran. Pended here, it tail-chains again, rather than waiting for
    // the next block boundary after the return and arriving a few cycles late.
    if (steering && steering->next_time() <= cycles()) steering->at_time(control);
}

void MachineState::process_timed_events(std::uint64_t now) {
    if (scs->systick().update(now)) {
        scs->exceptions().set_pending(nv::kSysTick, true);
        next_check = 0;
    }
    if (stimuli.next_time() <= now) {
        in_stimulus = true;
        stimuli.fire_due(now, *this);
        in_stimulus = false;
        next_check = 0;
    }
    if (steering && steering->next_time() <= now) {
        steering->at_time(control);
        next_check = 0;
    }
    if (bus.next_wake <= now) {
        bus.wake_due(now);
        next_check = 0;
    }
}

std::uint64_t MachineState::next_timed_event() const {
    std::uint64_t next = stimuli.next_time();
    if (steering) next = std::min(next, steering->next_time());
    next = std::min(next, bus.next_wake);
    if (auto t = scs->systick().next_expiry(); t && scs->systick().interrupt_enabled()) next = std::min(next, *t);
    return next;
}

bool MachineState::interrupt_possible() const {
    // The cheap question first: an idle loop waiting for a timer asks it once per iteration.
    if (next_timed_event() != StimulusSchedule::kNever && !(uc.reg(UC_ARM_REG_PRIMASK) & 1)) return true;
    return scs->exceptions().preempting(execution_priority(true)) != 0;
}

bool MachineState::take_pending(std::uint32_t return_address, bool tail_chain) {
    int n = scs->exceptions().preempting(execution_priority());
    if (!n) return false;
    return enter_exception(n, return_address, tail_chain);
}

bool MachineState::take_synchronous(int n, std::uint32_t return_address) {
    auto& state = scs->exceptions();
    int exec = execution_priority();
    if (n != nv::kHardFault && !(state.enabled(n) && state.group_priority(n) < exec)) {
        scs->record_hard_fault(nv::kHfsrForced);  // escalation: disabled, or not urgent enough to preempt
        n = nv::kHardFault;
    }
    if (state.group_priority(n) >= exec) {
        std::uint32_t pc = return_address & ~1u;
        stop_fault(FaultKind::Lockup, pc, pc, false,
                   "a fault at HardFault priority or above (execution priority " + std::to_string(exec) + "): the core locks up");
        return false;
    }
    state.set_pending(n, true);
    return enter_exception(n, return_address);
}

// Long on purpose: the ARM ARM's ExceptionEntry pseudocode (PushStack, then ExceptionTaken) step
// by step, so it can be read against the manual line for line.
bool MachineState::enter_exception(int n, std::uint32_t return_address, bool tail_chain_entry) {
    std::uint32_t xpsr = uc.reg(UC_ARM_REG_XPSR);
    std::uint32_t control = uc.reg(UC_ARM_REG_CONTROL);
    std::uint32_t ipsr = xpsr & 0x1FF;
    bool from_psp = ipsr == 0 && (control & kSpsel);
    const bool fp_frame = scs->has_fpu() && (control & kFpca);
    const std::size_t words = fp_frame ? kExtendedWords : kBasicWords;
    note_fp_use(control);
    const bool fp_stacked_now = fp_frame && !scs->lazy_fp_stacking();

    std::array<std::uint32_t, kExtendedWords> frame{};  // the reserved last word stays 0
    for (std::size_t i = 0; i < 6; ++i) frame[i] = uc.reg(kFrameRegs[i]);
    frame[6] = return_address & ~1u;
    if (fp_frame) {
        for (std::size_t i = 0; i < 16; ++i) frame[8 + i] = uc.reg(UC_ARM_REG_S0 + static_cast<int>(i));
        frame[24] = uc.reg(UC_ARM_REG_FPSCR);
    }

    uc.set_reg(UC_ARM_REG_XPSR, static_cast<std::uint32_t>(n) | kThumb);  // handler mode, privileged, from here on
    std::uint32_t msp = uc.reg(UC_ARM_REG_MSP), psp = uc.reg(UC_ARM_REG_PSP);
    std::uint32_t sp = from_psp ? psp : msp;
    std::uint32_t frame_at = (sp - 4 * static_cast<std::uint32_t>(words)) & ~7u;
    frame[7] = (xpsr & ~kFramePadded) | ((sp & 4) ? kFramePadded : 0);
    const auto bytes = pack(frame);
    if (!write_guest(frame_at, std::span(bytes).first(4 * words))) {
        stop_fault(FaultKind::Lockup, frame_at, frame[6], false,
                   "stacking the frame for " + exception_name(n) + " on the " + (from_psp ? "process" : "main") + " stack at " + where(frame_at) +
                       " failed (stack overflow?)");
        return false;
    }
    (from_psp ? psp : msp) = frame_at;
    uc.set_reg(UC_ARM_REG_MSP, msp);
    uc.set_reg(UC_ARM_REG_PSP, psp);
    if (fp_frame) {  // the handler starts without a floating-point context of its own
        scs->set_fp_context_address(frame_at + 4 * kBasicWords);
        uc.set_reg(UC_ARM_REG_CONTROL, control & ~kFpca);
        fp.set_pending(!fp_stacked_now);
    }

    std::array<std::uint8_t, 4> v{};
    std::uint32_t slot = scs->vtor() + 4u * static_cast<std::uint32_t>(n);
    std::uint32_t vector = 0;
    if (uc.read_memory(slot, v)) vector = config::read_le32(v.data());
    const MemoryRegion* code = region_at(bus.plan, vector & ~1u);
    if (!(vector & 1) || !code || !(code->access & AccessExecute)) {
        stop_fault(FaultKind::BadVectorTable, slot, frame[6], false,
                   "the vector for " + exception_name(n) + " at " + where(slot) + " is " + std::to_string(vector) +
                       ", not a Thumb address in executable memory");
        return false;
    }
    std::uint32_t exc_return = ipsr != 0 ? 0xFFFFFFF1u : from_psp ? 0xFFFFFFFDu : 0xFFFFFFF9u;
    uc.set_reg(UC_ARM_REG_LR, fp_frame ? exc_return & ~kExcReturnBasicFrame : exc_return);
    uc.set_reg(UC_ARM_REG_PC, vector | 1);
    scs->exceptions().activate(n);
    ++exceptions_taken;
    // A call, return or jump whose target block the exception pre-empted still happened: the
    // target is where execution resumes.
    if (stream.pending_branch) stream.push_branch(frame[6], cycles(), feed.fallthrough());
    const bool external = external_pending.test(static_cast<std::size_t>(n));
    external_pending.reset(static_cast<std::size_t>(n));
    feed.forget_block_exit();  // the interrupted block's branch outcome no longer applies
    stream.resumes(trace::BranchKind::Vector);
    stream.push_exception_entry(cycles(), static_cast<unsigned>(n), frame[6], frame_at, from_psp, external);
    if (steering) steering->at_exception(static_cast<unsigned>(n), frame[6], external, this->control);
    stream.flush_deferred_block(cycles());
    feed.exception_entry(frame_at, slot, vector & ~1u, tail_chain_entry, fp_stacked_now);
    return true;
}

void MachineState::note_fp_use(std::uint32_t control) {
    if (!fp.pending || !(control & kFpca)) return;
    fp.set_pending(false);
    fp.preserved_uncharged = true;
}

void MachineState::preserve_fp_lazily() {
    fp.set_pending(false);
    stream.flush_deferred_block(cycles());
    feed.lazy_fp_preservation(scs->fp_context_address() - 4 * kBasicWords);
}

// Long on purpose: the ARM ARM's ExceptionReturn and PopStack pseudocode step by step, so it can
// be read against the manual line for line.
void MachineState::return_from_exception(std::uint32_t exc_return) {
    int n = static_cast<int>(current_exception());
    bool to_thread = exc_return & 8, use_psp = exc_return & 4;
    const bool fp_frame = !(exc_return & kExcReturnBasicFrame);
    if ((exc_return | 0x1C) != 0xFFFFFFFDu || (use_psp && !to_thread) || (exc_return & 2) || (fp_frame && !scs->has_fpu())) {
        stop_fault(FaultKind::UnhandledException, exc_return, exc_return, false,
                   "EXC_RETURN " + std::to_string(exc_return) + " from " + exception_name(n) + " is not one of 0xFFFFFFF1/9/D" +
                       (scs->has_fpu() ? " or 0xFFFFFFE1/9/D" : " (0xFFFFFFE1/9/D need a core with an FPU)"));
        return;
    }
    const std::size_t words = fp_frame ? kExtendedWords : kBasicWords;
    std::uint32_t msp = uc.reg(UC_ARM_REG_MSP), psp = uc.reg(UC_ARM_REG_PSP);
    std::uint32_t frame_at = use_psp ? psp : msp;
    std::array<std::uint8_t, 4 * kExtendedWords> raw{};
    if (!uc.read_memory(frame_at, std::span(raw).first(4 * words))) {
        stop_fault(FaultKind::Lockup, frame_at, frame_at, false,
                   "unstacking the frame of " + exception_name(n) + " at " + where(frame_at) + " failed");
        return;
    }
    std::array<std::uint32_t, kExtendedWords> frame{};
    for (std::size_t i = 0; i < words; ++i) frame[i] = config::read_le32(&raw[4 * i]);
    scs->exceptions().deactivate(n);
    // What the core's FP words cost here: the lazy preservation's writes if they happened since the
    // last return, and the reads unless the area was never written (LSPACT still set: skipped).
    note_fp_use(uc.reg(UC_ARM_REG_CONTROL));
    const models::FloatingReturn fp_cost{.unstacked = fp_frame && !fp.pending, .preserved = fp.preserved_uncharged};
    if (fp_frame) fp.set_pending(false);
    std::uint32_t after = frame_at + 4 * static_cast<std::uint32_t>(words) + ((frame[7] & kFramePadded) ? 4 : 0);
    (use_psp ? psp : msp) = after;

    std::uint32_t xpsr = frame[7] & ~kFramePadded;
    // CONTROL.FPCA becomes NOT EXC_RETURN[4]: the code returned to has a floating-point context
    // exactly when its frame held one.
    std::uint32_t control = uc.reg(UC_ARM_REG_CONTROL);
    if (scs->has_fpu()) control = fp_frame ? control | kFpca : control & ~kFpca;
    if (to_thread) {
        uc.set_reg(UC_ARM_REG_CONTROL, control & ~kNpriv);  // stay privileged until both SPs are written
        uc.set_reg(UC_ARM_REG_XPSR, xpsr & ~0x1FFu);
        uc.set_reg(UC_ARM_REG_CONTROL, (control & ~(kSpsel | kNpriv)) | (use_psp ? kSpsel : 0));
        uc.set_reg(UC_ARM_REG_MSP, msp);
        uc.set_reg(UC_ARM_REG_PSP, psp);
        if (control & kNpriv) uc.set_reg(UC_ARM_REG_CONTROL, (control & ~kSpsel) | (use_psp ? kSpsel : 0));
    } else {
        if (scs->has_fpu()) uc.set_reg(UC_ARM_REG_CONTROL, control);
        uc.set_reg(UC_ARM_REG_XPSR, xpsr);
        uc.set_reg(UC_ARM_REG_MSP, msp);
        uc.set_reg(UC_ARM_REG_PSP, psp);
    }
    if (fp_frame) {
        for (std::size_t i = 0; i < 16; ++i) uc.set_reg(UC_ARM_REG_S0 + static_cast<int>(i), frame[8 + i]);
        uc.set_reg(UC_ARM_REG_FPSCR, frame[24]);
    }
    for (std::size_t i = 0; i < 6; ++i) uc.set_reg(kFrameRegs[i], frame[i]);
    uc.set_reg(UC_ARM_REG_PC, frame[6] | 1);
    stream.push_exception_return(cycles(), static_cast<unsigned>(n), frame[6] & ~1u, exc_return);
    check_thread();
    feed.forget_block_exit();
    stream.resumes(trace::BranchKind::Resume);
    // Tail-chaining: a pending exception runs before the code returned to, costing the tail-chain
    // overhead instead of a return and an entry (and the unstacking's bus transfers).
    stream.flush_deferred_block(cycles());
    steer_due_before_tail_chain();
    if (take_pending(frame[6], /*tail_chain=*/true)) return;  // a preservation's writes wait for the next return
    fp.preserved_uncharged = false;
    feed.exception_return(frame_at, frame[6] & ~1u, fp_cost);
}

bool MachineState::deliver_fault(uc_err err) {
    std::uint32_t pc = uc.reg(UC_ARM_REG_PC);
    std::uint32_t address = memory_fault ? memory_fault->address : pc;
    memory_fault.reset();
    int n = 0;
    switch (err) {
        case UC_ERR_READ_UNMAPPED:
        case UC_ERR_WRITE_UNMAPPED:
        case UC_ERR_WRITE_PROT:
        case UC_ERR_READ_PROT:
            scs->record_fault(nv::kPreciserr | nv::kBfarvalid, address);
            n = nv::kBusFault;
            break;
        case UC_ERR_FETCH_UNMAPPED:
            scs->record_fault(nv::kIbuserr, 0);
            n = nv::kBusFault;
            break;
        case UC_ERR_FETCH_PROT:
            scs->record_fault(nv::kIaccviol, 0);
            n = nv::kMemManage;
            break;
        case UC_ERR_INSN_INVALID:
            scs->record_fault(nv::kUndefinstr, 0);
            n = nv::kUsageFault;
            break;
        default: return false;
    }
    // Data faults: stack the faulting instruction, as the core does, not the block's start.
    if (n == nv::kBusFault && (err != UC_ERR_FETCH_UNMAPPED))
        if (auto at = faulting_instruction(pc, address)) pc = *at;
    spdlog::debug("fault delivered to the firmware: {} at {:#010x}, pc {}", exception_name(n), address, where(pc));
    return take_synchronous(n, pc);
}

bool MachineState::sleep(std::uint32_t pc) {
    for (;;) {
        process_timed_events(cycles());
        if (scs->exceptions().preempting(execution_priority(true))) break;  // WFI wakes even when PRIMASK masks it
        std::uint64_t next = next_timed_event();
        if (next == StimulusSchedule::kNever) {
            stop(StopReason::Hang, "firmware sleeps in WFI/WFE at " + where(pc - 2) + " and nothing can wake it");
            return false;
        }
        if (next > cycles()) add_idle_cycles(next - cycles(), feed.counters.sleep);
        check_limits();
        if (reason) return false;
    }
    if (!take_pending(pc)) uc.set_reg(UC_ARM_REG_PC, pc | 1);
    return !reason;
}

std::string MachineState::thread_name(std::uint32_t tcb) const {
    std::string name;
    if (!config.rtos.name_offset || !tcb) return name;
    std::uint8_t c = 0;
    for (std::uint32_t i = 0; i < config.rtos.name_length; ++i) {
        if (!uc.read_memory(tcb + *config.rtos.name_offset + i, std::span(&c, 1)) || c == 0) break;
        name.push_back(static_cast<char>(c));
    }
    return name;
}

void MachineState::check_thread() {
    if (!thread_variable) return;
    std::array<std::uint8_t, 4> b{};
    if (!uc.read_memory(*thread_variable, b)) return;
    std::uint32_t now = config::read_le32(b.data());
    if (now == current_thread) return;
    const std::string name = thread_name(now);
    if (now && std::find(threads_seen.begin(), threads_seen.end(), now) == threads_seen.end() && threads_seen.size() < kMostThreadsSeen)
        threads_seen.push_back(now);
    ++thread_switches;
    stream.push_thread_switch(cycles(), now, current_thread, name);
    current_thread = now;
}

}  // namespace emutrace::emu
