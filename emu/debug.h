#pragma once
// A debugger attached to the machine (a GDB stub, debug/gdb): the machine stops where the
// debugger asks (before the first instruction, at breakpoints and watchpoints, after a step, on
// an interrupt request, at the end of the run) and, while stopped, lets it read and write
// registers and memory and change its breakpoints. Stops happen between instructions, outside
// the emulator's own loop, so that being attached does not change what the cycle model counts.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace emutrace::emu {

enum class WatchKind : std::uint8_t { Write, Read, Access };

struct DebugEvent {
    enum class Why : std::uint8_t {
        Attached,    ///< before the reset handler's first instruction
        Breakpoint,  ///< at a breakpoint, before its instruction
        Step,        ///< one instruction done, or the position asked for reached (stop_at_position)
        Watch,       ///< after the instruction that accessed a watched range
        Interrupt,   ///< the debugger asked (Ctrl-C)
        Fault,       ///< the run stopped on a fault: a last look before it ends
        Diverged,    ///< the run's steering stopped it (a replay that left its log): a last look before it ends
        Ended,       ///< the firmware exited or a limit ended the run
    };
    Why why = Why::Attached;
    std::uint32_t pc = 0;
    std::uint32_t address = 0;  ///< Watch: the address accessed
    WatchKind kind = WatchKind::Write;
    int exit_code = 0;    ///< Ended: the firmware's exit code, or -1 when a limit ended it
    std::string message;  ///< Fault, Ended: why, one line
};

enum class DebugResume : std::uint8_t { Continue, Step, Detach, Kill };

/// The registers a debugger sees, in this order: r0-r12, sp, lr, pc, xpsr, then msp, psp, primask,
/// basepri, faultmask, control, and on a core with an FPU d0-d15 (8 bytes each) and fpscr.
enum DebugRegister : unsigned {
    kDebugSp = 13,
    kDebugPc = 15,
    kDebugXpsr = 16,
    kDebugMsp = 17,
    kDebugControl = 22,
    kDebugFirstD = 23,
    kDebugFpscr = 39,
};

/// A thread of the firmware's RTOS (rtos: in the scenario), by its control block's address.
struct DebugThread {
    std::uint32_t id = 0;  ///< the thread control block's address
    std::string name;
    bool running = false;  ///< the current thread: its registers are the core's
};

/// The machine while it is stopped, as a debugger sees it.
class DebugTarget {
public:
    virtual ~DebugTarget() = default;
    /// The RTOS's threads that have run so far, in the order they first ran; empty without one.
    virtual std::vector<DebugThread> threads() const { return {}; }
    /// Register `n` of a thread that is not running, as its context switch saved it on its stack
    /// (r0-r12, sp, lr, pc, xpsr; the rest are the core's); false when it cannot be known.
    virtual bool thread_register(std::uint32_t thread, unsigned n, std::uint64_t& value) {
        (void)thread, (void)n, (void)value;
        return false;
    }
    /// How many registers the core has (DebugRegister): 23, or 40 with an FPU.
    virtual unsigned registers() const = 0;
    /// 4 bytes, or 8 for d0-d15.
    virtual unsigned register_bytes(unsigned n) const { return n >= kDebugFirstD && n < kDebugFpscr ? 8 : 4; }
    virtual std::uint64_t read_register(unsigned n) const = 0;
    virtual void write_register(unsigned n, std::uint64_t value) = 0;
    /// Memory as the core sees it; a device register is read through its model, as the firmware's
    /// load would (its side effects included). False where nothing is mapped.
    virtual bool read_memory(std::uint32_t address, std::span<std::uint8_t> out) = 0;
    /// Writes memory, flash too (as a probe programs it), and forgets code translated from it.
    virtual bool write_memory(std::uint32_t address, std::span<const std::uint8_t> bytes) = 0;
    virtual bool set_breakpoint(std::uint32_t address, bool on) = 0;
    /// Watchpoints on plain memory; false for a device's registers or too many.
    virtual bool set_watchpoint(std::uint32_t address, std::uint32_t length, WatchKind kind, bool on) = 0;
    virtual std::uint64_t cycles() const = 0;
    virtual std::uint64_t instructions() const = 0;
    virtual double emulated_seconds() const = 0;

    // Positions, for a debugger that takes the run back (reverse execution) by running it again
    // from a kept moment: a run is deterministic, so a position names one moment of it.
    /// From now on every instruction is counted (a hook on each: slower), and the debugger's
    /// checkpoint() is called every checkpoint_interval() instructions.
    virtual void keep_positions() {}
    /// Instructions run since reset, exact at a stop, with keep_positions(); else 0.
    virtual std::uint64_t position() const { return 0; }
    /// With keep_positions(): the run stops (Why::Step) when it reaches `position`, unless a
    /// breakpoint or watchpoint stops it first.
    virtual void stop_at_position(std::uint64_t position) { (void)position; }
    /// "cortex-m3 at 24 MHz, pipeline timing": what `monitor` shows.
    virtual std::string describe() const = 0;
};

class Debugger {
public:
    virtual ~Debugger() = default;
    /// The machine stopped; the target is valid during the call, which returns how to go on.
    virtual DebugResume stopped(DebugTarget& target, const DebugEvent& event) = 0;
    /// Asked now and then while the machine runs: whether to stop it (Ctrl-C).
    virtual bool interrupt_requested() = 0;
    /// Instructions between checkpoints once the target keeps positions; 0: none.
    virtual std::uint64_t checkpoint_interval() const { return 0; }
    /// A moment to keep, between instructions, at target.position(). True when this is a kept
    /// moment brought back (reverse execution): the machine then stops here (Why::Step).
    virtual bool checkpoint(DebugTarget& target) {
        (void)target;
        return false;
    }
};

}  // namespace emutrace::emu
