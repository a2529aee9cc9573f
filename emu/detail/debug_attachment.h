#pragma once
// The machine's side of an attached debugger (emu/debug.h): breakpoints as code hooks on their
// addresses only (a run without any costs nothing), a hook on every instruction only while
// stepping or watching, watchpoints as memory hooks on their ranges. A hook that wants a stop
// asks for one and ends the emulator's loop; the run loop then calls stopped(), between
// instructions, and starts the emulator again where the debugger left the pc.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "emu/debug.h"
#include "emu/detail/unicorn_core.h"

namespace emutrace::emu::detail {

struct MachineState;

class DebugAttachment final : public DebugTarget {
public:
    DebugAttachment(MachineState& machine, Debugger& debugger) : m_(machine), debugger_(&debugger) {}
    ~DebugAttachment() override;

    bool attached() const { return debugger_ != nullptr; }
    /// A hook asked for a stop: the run loop calls stopped() once the emulator has returned.
    bool halt_pending() const { return halt_.has_value(); }
    /// Tells the debugger why the machine stopped (the pending halt's reason when `event` is
    /// empty) and does what it answers. False: the debugger killed the run.
    bool stopped(std::optional<DebugEvent> event = std::nullopt);
    /// From the machine's periodic service: a stop the debugger asked for (Ctrl-C).
    bool poll_interrupt();
    /// Whether the machine's own hooks at `pc` ran already, before a stop there: its hooks come
    /// first in Unicorn's list, and run again when execution resumes at the instruction.
    bool hooks_ran_at(std::uint32_t pc) const { return stopped_in_hook_ && blocks_since_stop_ <= 1 && pc == (resume_pc_ & ~1u); }

    // DebugTarget
    std::vector<DebugThread> threads() const override;
    bool thread_register(std::uint32_t thread, unsigned n, std::uint64_t& value) override;
    unsigned registers() const override;
    std::uint64_t read_register(unsigned n) const override;
    void write_register(unsigned n, std::uint64_t value) override;
    bool read_memory(std::uint32_t address, std::span<std::uint8_t> out) override;
    bool write_memory(std::uint32_t address, std::span<const std::uint8_t> bytes) override;
    bool set_breakpoint(std::uint32_t address, bool on) override;
    bool set_watchpoint(std::uint32_t address, std::uint32_t length, WatchKind kind, bool on) override;
    std::uint64_t cycles() const override;
    std::uint64_t instructions() const override;
    double emulated_seconds() const override;
    std::string describe() const override;
    void keep_positions() override;
    std::uint64_t position() const override { return counting_ ? position_ : 0; }
    void stop_at_position(std::uint64_t position) override { stop_position_ = position; }

private:
    static void on_breakpoint(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
    static void on_instruction(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
    static void on_access(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);
    static void on_block_after_stop(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
    void settle_after_stop(bool in_hook);
    void halt(DebugEvent event);
    /// The hook on every instruction exactly while stepping, watching or counting.
    void update_instruction_hook();
    void detach();

    struct Watch {
        std::uint32_t address, length;
        WatchKind kind;
        uc_hook hook;
    };
    static constexpr std::size_t kMostWatches = 16;

    MachineState& m_;
    Debugger* debugger_;
    std::map<std::uint32_t, uc_hook> breakpoints_;
    std::vector<Watch> watches_;
    std::optional<uc_hook> instruction_hook_;
    bool stepping_ = false;
    std::uint32_t resume_pc_ = 0;
    bool first_instruction_ = false;  ///< the next instruction hook is the one execution resumed at
    bool stopped_in_hook_ = false;    ///< the last stop was in a hook on the instruction it resumed at
    unsigned blocks_since_stop_ = 0;  ///< while stopped_in_hook_: blocks started since the resume
    std::optional<uc_hook> settle_hook_;
    std::optional<DebugEvent> watch_hit_;
    std::optional<DebugEvent> halt_;
    bool translations_stale_ = false;  ///< hooks changed: the translated code goes before the next start
    // keep_positions(): every instruction counted; breakpoints then checked in on_instruction,
    // so that whichever hook Unicorn calls first, an instruction is counted once, when it runs.
    bool counting_ = false;
    std::uint64_t position_ = 0;
    std::optional<std::uint64_t> stop_position_;
    std::uint64_t next_checkpoint_ = 0;
};

}  // namespace emutrace::emu::detail
