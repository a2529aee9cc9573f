#pragma once
// Why and how a run ended.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "emutrace/event.h"

namespace emutrace::emu {

enum class StopReason : std::uint8_t {
    Exited = 1,       ///< semihosting SYS_EXIT / SYS_EXIT_EXTENDED
    SymbolReached,    ///< execution reached StopConfig::at_symbol
    MaxInstructions,  ///< StopConfig::max_instructions executed
    WallClock,        ///< StopConfig::wall_clock_seconds of host time passed
    Hang,             ///< branch-to-self or WFI that no interrupt can leave
    Fault,            ///< the firmware did something the machine cannot do; see Fault
    ResetRequested,   ///< the firmware wrote AIRCR.SYSRESETREQ
    Steered,          ///< the run's steering ended it (a replay that diverged); its analysis reports why
    Interrupted,      ///< a signal asked emutrace to stop (emu/stop_signal.h); exit_code holds it
};
// A Stop event carries these as its value: the public codes (trace::StopCode) must be these.
static_assert(static_cast<unsigned>(StopReason::Exited) == trace::kStopExited && static_cast<unsigned>(StopReason::Hang) == trace::kStopHang &&
              static_cast<unsigned>(StopReason::Fault) == trace::kStopFault && static_cast<unsigned>(StopReason::Steered) == trace::kStopSteered &&
              static_cast<unsigned>(StopReason::Interrupted) == trace::kStopInterrupted);

enum class FaultKind : std::uint8_t {
    UnmappedRead,
    UnmappedWrite,
    UnmappedFetch,
    WriteToReadOnly,
    ReadProtected,
    FetchNotExecutable,
    UndefinedInstruction,
    UnsupportedInstruction,  ///< valid Thumb, but not on the configured core
    UnclaimedMmio,
    UnhandledException,
    BadVectorTable,
    Lockup,  ///< a fault at HardFault priority or above, or a failed exception stacking
    Internal,
};

struct Fault {
    FaultKind kind = FaultKind::Internal;
    std::uint32_t address = 0;  ///< data address for memory faults, else the pc
    std::uint32_t pc = 0;
    /// Unicorn 2.0.1 reports data faults at the start of the translated block, not at the
    /// faulting instruction; true when `pc` is such a block start.
    bool pc_is_block_start = false;
    std::string function;  ///< symbol holding pc, "name+0x12"
    std::string detail;    ///< e.g. the disassembled instruction
};

struct RunResult {
    StopReason reason = StopReason::Fault;
    int exit_code = 0;               ///< firmware's exit code when reason == Exited; the signal when Interrupted
    std::uint64_t instructions = 0;  ///< executed, IT-skipped ones included
    std::uint64_t cycles = 0;
    double emulated_seconds = 0;      ///< at the core's clock as it was at each cycle (a clock model may change it)
    std::uint64_t core_clock_hz = 0;  ///< the core's clock at the end: the scenario's, or what the firmware set
    double host_seconds = 0;
    std::uint32_t pc = 0;  ///< where execution stopped
    std::optional<Fault> fault;
    std::string message;           ///< one line saying why the run stopped
    std::uint64_t exceptions = 0;  ///< exceptions taken
    std::uint64_t thread_switches = 0;
    std::uint64_t unclaimed_mmio_accesses = 0;  ///< reads and writes no device claimed (unclaimed_mmio: log)
    std::uint64_t sleep_cycles = 0;             ///< cycles spent asleep in WFI/WFE (part of `cycles`)
    std::uint64_t stall_cycles = 0;             ///< memory and device wait states (part of `cycles`)
    std::uint64_t exception_cycles = 0;         ///< exception entry/return overhead (part of `cycles`)
    /// With timing: pipeline, the block-cost cache: runs of instructions looked up, found, and
    /// the pipeline states saved (all 0 with the cache off); of those found, how many by following
    /// the run before rather than by a lookup.
    struct TimingCache {
        std::uint64_t lookups = 0, hits = 0, states = 0, clears = 0, followed = 0;
    } timing_cache;
    /// The flash caches' lookups (a block's lines; with the pipeline, data reads too) and their
    /// misses (all 0 on a board without one), and the cycles the core stalled for them beside the
    /// timing model (part of stall_cycles; 0 with the pipeline, which times them itself).
    struct FlashCache {
        std::uint64_t lookups = 0, misses = 0, stall_cycles = 0;
    } flash_cache;
};

std::string_view to_string(StopReason reason);
std::string_view to_string(FaultKind kind);
/// What the fault is, in words for messages: "write to read-only memory".
std::string_view describe(FaultKind kind);
/// True for faults whose Fault::address is a data or fetch address rather than the pc.
bool has_access_address(FaultKind kind);
/// The process exit status for a run: the firmware's code when it exited, 0 at the stop symbol,
/// 2 for a fault, 3 max instructions, 4 wall clock, 5 hang, 6 reset requested.
int exit_status(const RunResult& result);

}  // namespace emutrace::emu
