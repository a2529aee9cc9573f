#include "emu/detail/debug_attachment.h"

#include <algorithm>
#include <cstdio>

#include "config/little_endian.h"
#include "emu/detail/machine_impl.h"

namespace emutrace::emu::detail {

namespace {

// The debugger's register numbers (emu/debug.h) as Unicorn's.
int unicorn_register(unsigned n) {
    static constexpr int kSystem[] = {UC_ARM_REG_XPSR,    UC_ARM_REG_MSP,       UC_ARM_REG_PSP,    UC_ARM_REG_PRIMASK,
                                      UC_ARM_REG_BASEPRI, UC_ARM_REG_FAULTMASK, UC_ARM_REG_CONTROL};
    if (n <= 12) return UC_ARM_REG_R0 + static_cast<int>(n);
    if (n == 13) return UC_ARM_REG_SP;
    if (n == 14) return UC_ARM_REG_LR;
    if (n == 15) return UC_ARM_REG_PC;
    if (n < kDebugFirstD) return kSystem[n - kDebugXpsr];
    if (n < kDebugFpscr) return UC_ARM_REG_D0 + static_cast<int>(n - kDebugFirstD);
    return UC_ARM_REG_FPSCR;
}

DebugAttachment& self(void* user) {
    return *static_cast<DebugAttachment*>(user);
}

// Execution left the emulator at `pc` for the debugger and goes on there, counted as if it had
// not (TimingFeed::leave_block_at). No branch led to `pc`.
void leave_block_at(MachineState& m, std::uint32_t pc) {
    m.feed.leave_block_at(pc, m.blocks);
    m.stream.forget_branch();
}

}  // namespace

DebugAttachment::~DebugAttachment() {
    if (attached()) detach();
    if (settle_hook_) m_.uc.remove_hook(*settle_hook_);
}

void DebugAttachment::detach() {
    for (const auto& [address, hook] : breakpoints_) m_.uc.remove_hook(hook);
    for (const auto& w : watches_) m_.uc.remove_hook(w.hook);
    breakpoints_.clear();
    watches_.clear();
    stepping_ = false;
    update_instruction_hook();
    debugger_ = nullptr;
    halt_.reset();
}

bool DebugAttachment::stopped(std::optional<DebugEvent> event) {
    if (!attached()) return true;
    DebugEvent e = event ? *event : *halt_;
    halt_.reset();
    watch_hit_.reset();
    e.pc = m_.uc.reg(UC_ARM_REG_PC);
    const DebugResume resume = debugger_->stopped(*this, e);
    // A stop in a hook on an instruction leaves its block there; one at a block's start (Ctrl-C,
    // served before the block is counted) and the first one leave nothing.
    const bool in_block = e.why == DebugEvent::Why::Breakpoint || e.why == DebugEvent::Why::Step || e.why == DebugEvent::Why::Watch;
    if (resume != DebugResume::Kill && in_block) leave_block_at(m_, m_.uc.reg(UC_ARM_REG_PC));
    switch (resume) {
        case DebugResume::Kill:  // as SIGKILL would end a process: status 137
            m_.exit_code = 9;
            m_.stop(StopReason::Interrupted, "killed by the debugger at " + m_.where(m_.uc.reg(UC_ARM_REG_PC)));
            return false;
        case DebugResume::Detach: detach(); break;
        case DebugResume::Step: stepping_ = true; break;
        case DebugResume::Continue: stepping_ = false; break;
    }
    resume_pc_ = m_.uc.reg(UC_ARM_REG_PC);
    first_instruction_ = true;
    settle_after_stop(in_block && resume_pc_ == e.pc);
    update_instruction_hook();
    if (translations_stale_) {  // hooks added or removed: code is translated again with them
        // Region by region: Unicorn 2.0.1's whole flush clears its code buffer, seconds a time.
        for (const auto& r : m_.bus.plan.memory)
            if (r.access & AccessExecute) m_.uc.remove_cache(r.base, r.base + (r.size - 1));
        translations_stale_ = false;
    }
    return true;
}

// A stop in a hook on the instruction execution resumes at came after the machine's own hooks
// there had run (they come first in Unicorn's list): they must not run again for it. The block
// hook that says when that instruction is behind is there only until it is, attached or not.
void DebugAttachment::settle_after_stop(bool in_hook) {
    stopped_in_hook_ = in_hook;
    blocks_since_stop_ = 0;
    if (in_hook && !settle_hook_) settle_hook_ = m_.uc.add_removable_hook(UC_HOOK_BLOCK, reinterpret_cast<void*>(on_block_after_stop), this);
}

// Blocks after a stop in a hook: the first is the one execution resumed in; at the second the
// resumed instruction is behind (every block is hooked already, so this needs no translation).
void DebugAttachment::on_block_after_stop(uc_engine*, std::uint64_t, std::uint32_t, void* user) {
    DebugAttachment& d = self(user);
    if (++d.blocks_since_stop_ < 2) return;
    d.stopped_in_hook_ = false;
    d.m_.uc.remove_hook(*d.settle_hook_);
    d.settle_hook_.reset();
}

bool DebugAttachment::poll_interrupt() {
    if (!attached() || halt_ || !debugger_->interrupt_requested()) return false;
    halt({DebugEvent::Why::Interrupt, 0, 0, WatchKind::Write, 0, {}});
    return true;
}

void DebugAttachment::halt(DebugEvent event) {
    halt_ = std::move(event);
    m_.uc.stop();
}

void DebugAttachment::update_instruction_hook() {
    const bool want = attached() && (stepping_ || counting_ || !watches_.empty());
    if (want == instruction_hook_.has_value()) return;
    if (want) {
        instruction_hook_ = m_.uc.add_removable_hook(UC_HOOK_CODE, reinterpret_cast<void*>(on_instruction), this);
    } else {
        m_.uc.remove_hook(*instruction_hook_);
        instruction_hook_.reset();
    }
    translations_stale_ = true;
}

// A breakpoint's address is reached, before its instruction runs: stop there, unless execution
// just resumed at it (the debugger continues from the breakpoint it stopped at).
void DebugAttachment::on_breakpoint(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    DebugAttachment& d = self(user);
    if (d.halt_ || d.counting_) return;  // counting: on_instruction checks breakpoints
    if (d.first_instruction_ && address == d.resume_pc_) {
        d.first_instruction_ = false;
        return;
    }
    d.first_instruction_ = false;
    d.halt({DebugEvent::Why::Breakpoint, static_cast<std::uint32_t>(address), 0, WatchKind::Write, 0, {}});
}

// Every instruction, while stepping, watching or counting: a step ends at the instruction after
// the one it resumed at (or wherever execution went first), a watched access at the instruction
// after it. An instruction that does not stop the machine here runs, and is counted.
void DebugAttachment::on_instruction(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    DebugAttachment& d = self(user);
    if (d.halt_) return;
    const bool resumed_here = d.first_instruction_ && address == d.resume_pc_;
    d.first_instruction_ = false;
    const auto pc = static_cast<std::uint32_t>(address);
    if (d.watch_hit_) {
        DebugEvent e = *d.watch_hit_;
        d.halt(std::move(e));
    } else if (d.stepping_ && !resumed_here) {
        d.halt({DebugEvent::Why::Step, pc, 0, WatchKind::Write, 0, {}});
    } else if (d.counting_) {
        if (!resumed_here && d.breakpoints_.count(pc)) return d.halt({DebugEvent::Why::Breakpoint, pc, 0, WatchKind::Write, 0, {}});
        if (d.stop_position_ && d.position_ >= *d.stop_position_) {
            d.stop_position_.reset();
            return d.halt({DebugEvent::Why::Step, pc, 0, WatchKind::Write, 0, {}});
        }
        if (d.position_ >= d.next_checkpoint_) {
            d.next_checkpoint_ = d.position_ + std::max<std::uint64_t>(d.debugger_->checkpoint_interval(), 1);
            if (d.debugger_->checkpoint(d)) return d.halt({DebugEvent::Why::Step, pc, 0, WatchKind::Write, 0, {}});  // brought back
        }
        ++d.position_;
    }
}

void DebugAttachment::keep_positions() {
    if (counting_ || !debugger_->checkpoint_interval()) return;
    counting_ = true;
    position_ = m_.feed.counters.instructions;
    next_checkpoint_ = position_;
    update_instruction_hook();
}

void DebugAttachment::on_access(uc_engine*, uc_mem_type type, std::uint64_t address, int size, std::int64_t, void* user) {
    DebugAttachment& d = self(user);
    if (d.watch_hit_ || d.halt_) return;
    const bool write = type == UC_MEM_WRITE;
    for (const auto& w : d.watches_) {
        const bool kind = w.kind == WatchKind::Access || (w.kind == WatchKind::Write) == write;
        if (kind && address < std::uint64_t{w.address} + w.length && address + static_cast<std::uint64_t>(size) > w.address) {
            d.watch_hit_ = DebugEvent{DebugEvent::Why::Watch, 0, static_cast<std::uint32_t>(address), w.kind, 0, {}};
            return;
        }
    }
}

std::vector<DebugThread> DebugAttachment::threads() const {
    std::vector<DebugThread> out;
    for (std::uint32_t tcb : m_.threads_seen) out.push_back({tcb, m_.thread_name(tcb), tcb == m_.current_thread});
    return out;
}

// A switched-out thread's context, from the stack pointer its control block holds: r4-r11 (with
// an FPU: EXC_RETURN after them, then s16-s31 if the frame is an FP one), then the frame the
// exception entry stacked (r0-r3, r12, lr, pc, xpsr; with an FP frame s0-s15, fpscr and a pad),
// as FreeRTOS's ARM_CM0/CM3/CM4F ports and the project's kernel save it.
bool DebugAttachment::thread_register(std::uint32_t thread, unsigned n, std::uint64_t& value) {
    const auto& rtos = m_.config.rtos;
    if (!rtos.stack_offset || thread == m_.current_thread || n > kDebugXpsr) return false;
    auto word = [&](std::uint32_t address, std::uint32_t& v) {
        std::uint8_t b[4];
        if (!m_.uc.read_memory(address, b)) return false;
        v = config::read_le32(b);
        return true;
    };
    std::uint32_t top = 0;
    if (!word(thread + *rtos.stack_offset, top)) return false;
    // An FPU port saves EXC_RETURN after r4-r11 (0xFFFFFFxx); a port without FPU support, run on
    // an M4F too, puts the stacked r0 there instead.
    std::uint32_t exc_return = 0;
    const bool fpu = (m_.config.core.isa & decode::IsaFpSingle) && word(top + 32, exc_return) && (exc_return >> 8) == 0xFFFFFFu;
    const bool fp_frame = fpu && !(exc_return & 0x10);
    const std::uint32_t frame = top + 32 + (fpu ? 4 : 0) + (fp_frame ? 64 : 0);
    static constexpr int kFrameSlot[] = {0, 1, 2, 3, -1, -1, -1, -1, -1, -1, -1, -1, 4, -1, 5, 6, 7};  // r0-r3, r12, lr, pc, xpsr
    std::uint32_t v = 0;
    if (n >= 4 && n <= 11) {
        if (!word(top + 4 * (n - 4), v)) return false;
    } else if (n == kDebugSp) {
        std::uint32_t xpsr = 0;
        if (!word(frame + 28, xpsr)) return false;
        v = frame + (fp_frame ? 104 : 32) + ((xpsr >> 9) & 1 ? 4 : 0);  // bit 9: the entry realigned the stack
    } else {
        if (!word(frame + 4 * static_cast<std::uint32_t>(kFrameSlot[n]), v)) return false;
    }
    value = v;
    return true;
}

unsigned DebugAttachment::registers() const {
    return (m_.config.core.isa & decode::IsaFpSingle) ? kDebugFpscr + 1 : kDebugFirstD;
}

std::uint64_t DebugAttachment::read_register(unsigned n) const {
    if (n >= registers()) return 0;
    if (n >= kDebugFirstD && n < kDebugFpscr) return m_.uc.reg64(unicorn_register(n));
    return m_.uc.reg(unicorn_register(n));
}

void DebugAttachment::write_register(unsigned n, std::uint64_t value) {
    if (n >= registers()) return;
    if (n == kDebugPc) value |= 1;  // an M-class core runs Thumb only (P3)
    if (n >= kDebugFirstD && n < kDebugFpscr)
        m_.uc.set_reg64(unicorn_register(n), value);
    else
        m_.uc.set_reg(unicorn_register(n), static_cast<std::uint32_t>(value));
}

bool DebugAttachment::read_memory(std::uint32_t address, std::span<std::uint8_t> out) {
    for (std::size_t i = 0; i < out.size();) {
        const std::uint32_t a = address + static_cast<std::uint32_t>(i);
        if (region_at(m_.bus.plan, a)) {
            if (!m_.uc.read_memory(a, out.subspan(i, 1))) return false;
            ++i;
            continue;
        }
        if (!m_.bus.at(a)) return false;
        // A device's register, read whole as the firmware's load would.
        const std::uint32_t word = a & ~3u;
        const std::uint32_t value = device_read(m_, word, 4);
        for (; i < out.size() && ((address + i) & ~3u) == word; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * ((address + i) & 3)));
    }
    return true;
}

bool DebugAttachment::write_memory(std::uint32_t address, std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return true;
    if (region_at(m_.bus.plan, address) && region_at(m_.bus.plan, address + static_cast<std::uint32_t>(bytes.size()) - 1)) {
        m_.uc.write_memory(address, bytes);
        m_.uc.remove_cache(address, address + static_cast<std::uint32_t>(bytes.size()));  // code written: translated again
        return true;
    }
    if (!m_.bus.at(address)) return false;
    const unsigned width = (bytes.size() == 4 && !(address & 3)) ? 4 : (bytes.size() == 2 && !(address & 1)) ? 2 : 1;
    for (std::size_t i = 0; i < bytes.size(); i += width) {
        std::uint32_t v = 0;
        for (unsigned b = 0; b < width; ++b) v |= static_cast<std::uint32_t>(bytes[i + b]) << (8 * b);
        if (!m_.bus.at(address + static_cast<std::uint32_t>(i))) return false;
        device_write(m_, address + static_cast<std::uint32_t>(i), width, v);
    }
    return true;
}

bool DebugAttachment::set_breakpoint(std::uint32_t address, bool on) {
    address &= ~1u;
    auto it = breakpoints_.find(address);
    if (on == (it != breakpoints_.end())) return true;
    if (on) {
        breakpoints_[address] = m_.uc.add_removable_hook(UC_HOOK_CODE, reinterpret_cast<void*>(on_breakpoint), this, address, address);
    } else {
        m_.uc.remove_hook(it->second);
        breakpoints_.erase(it);
    }
    m_.uc.remove_cache(address, address + 2);  // the block holding it is translated again, with or without the hook
    return true;
}

bool DebugAttachment::set_watchpoint(std::uint32_t address, std::uint32_t length, WatchKind kind, bool on) {
    auto it =
        std::find_if(watches_.begin(), watches_.end(), [&](const Watch& w) { return w.address == address && w.length == length && w.kind == kind; });
    if (!on) {
        if (it == watches_.end()) return true;
        m_.uc.remove_hook(it->hook);
        watches_.erase(it);
    } else {
        if (it != watches_.end()) return true;
        const MemoryRegion* r = region_at(m_.bus.plan, address);
        if (!length || watches_.size() >= kMostWatches || !r || static_cast<std::uint64_t>(address) + length > std::uint64_t{r->base} + r->size)
            return false;
        const int type = kind == WatchKind::Write  ? UC_HOOK_MEM_WRITE
                         : kind == WatchKind::Read ? UC_HOOK_MEM_READ
                                                   : UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE;
        watches_.push_back(
            {address, length, kind, m_.uc.add_removable_hook(type, reinterpret_cast<void*>(on_access), this, address, address + length - 1)});
    }
    update_instruction_hook();
    translations_stale_ = true;
    return true;
}

std::uint64_t DebugAttachment::cycles() const {
    return m_.cycles();
}

std::uint64_t DebugAttachment::instructions() const {
    return m_.feed.counters.instructions;
}

double DebugAttachment::emulated_seconds() const {
    return m_.emulated_seconds();
}

std::string DebugAttachment::describe() const {
    char line[160];
    std::snprintf(line, sizeof line, "%s at %.6g MHz, %s timing", std::string(m_.config.core.name).c_str(),
                  static_cast<double>(m_.bus.clocks.core_hz()) / 1e6, std::string(to_string(m_.config.timing)).c_str());
    return line;
}

}  // namespace emutrace::emu::detail
