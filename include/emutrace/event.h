#pragma once
// The one event model: every source (emulator, capture decoders, replay logs) produces these and
// every sink (analyses, writers) consumes them. Events are plain 24-byte structs so a batch of
// thousands is one contiguous span and a sink costs one virtual call per batch.

#include <cstdint>
#include <span>
#include <string_view>

namespace emutrace::trace {

enum class EventKind : std::uint8_t {
    Block = 1,        ///< a translated block started executing
    MmioRead,         ///< a load from a peripheral register
    MmioWrite,        ///< a store to a peripheral register
    Output,           ///< text the firmware printed (semihosting or a UART)
    Stop,             ///< the run ended; always the last event
    ExceptionEntry,   ///< the core took an exception (stacked a frame, jumped to the handler)
    ExceptionReturn,  ///< a handler returned through EXC_RETURN
    ThreadSwitch,     ///< the firmware's current-thread pointer changed
    Marker,           ///< a user-defined event: a marker device write or a call of the hook function
    Branch,           ///< execution reached a block through a call, return, jump, exception vector or resume
    Gap,              ///< a decoded capture lost or restarted the trace here (no sync, trace on)
    Watch,            ///< execution reached a watch point an analysis asked for (a function's entry or return)
    Access,           ///< a load or store to RAM (for sinks that want memory accesses: slow, for replay)
    CoreSwitch,       ///< the events after it come from another core (a trace source of a multi-core capture)
    PcSample,         ///< the DWT sampled the program counter (DWT_CTRL.PCSAMPLENA), or a probe's capture holds a sample
    DataTrace,        ///< a DWT comparator matched a data access and traces it (DWT_FUNCTIONn), or a capture holds its packets
};

/// What a DataTrace event carries (Event::channel bits above the comparator's two and the write bit).
enum DataTraceParts : std::uint16_t {
    kDataTraceWrite = 1u << 2,   ///< the access was a store (else a load)
    kDataTracePc = 1u << 3,      ///< Event::extra holds the pc of the access
    kDataTraceOffset = 1u << 4,  ///< Event::address's low 16 bits are traced (the address offset packet)
    kDataTraceValue = 1u << 5,   ///< Event::value holds the data, Event::width bytes of it
};

/// How a Branch event's block was reached (Event::value).
enum class BranchKind : std::uint32_t {
    Call = 1,    ///< BL/BLX; Event::extra is the return address
    Return = 2,  ///< BX LR, POP/LDM/LDR pc, MOV pc,lr
    Jump = 3,    ///< unconditional B/BX: a tail call when it reaches a function's start
    Vector = 4,  ///< the first block of an exception handler
    Resume = 5,  ///< the first block after reset or after an exception return
};

/// How a Block's last instruction leaves it, as a PTM/PFT trace unit sees it (Event::width of a
/// Block): the waypoints of PFT 1.1, classified as OpenCSD's instruction decoder does.
enum class BlockEnd : std::uint8_t {
    Fallthrough = 0,  ///< not a waypoint: the block ended for another reason
    Direct = 1,       ///< B, B<cc>, BL, CBZ/CBNZ: an atom says taken or not
    Indirect = 2,     ///< BX, BLX reg, POP/LDM/LDR pc, MOV/ADD pc, TBB/TBH: an address when taken
    Barrier = 3,      ///< ISB: a waypoint that is always executed and does not branch
};

/// Why the run ended (Event::value of a Stop).
enum StopCode : std::uint32_t {
    kStopExited = 1,
    kStopSymbolReached = 2,
    kStopMaxInstructions = 3,
    kStopWallClock = 4,
    kStopHang = 5,
    kStopFault = 6,
    kStopResetRequested = 7,
    kStopSteered = 8,
    kStopInterrupted = 9,
};

/// Where Output text came from (Event::channel for EventKind::Output).
enum class OutputChannel : std::uint16_t { Stdout = 1, Stderr = 2, Device = 3 };

struct Event {
    /// Cycle stamp: cycles spent before this event (block start, access, print, stop), on the
    /// clock of the source that produced it (each core of a capture counts its own cycles).
    std::uint64_t cycle;
    /// Block: address of the first instruction. Mmio: absolute bus address.
    /// Output: 0. Stop: program counter at the stop. ExceptionEntry: the return address
    /// (stacked pc). ExceptionReturn: the pc execution resumes at. ThreadSwitch: the new thread's
    /// control block. Watch: the watch point. Access: the data address. CoreSwitch: its trace ID.
    /// PcSample: the pc sampled (emulated: the first instruction of the block executing then).
    /// DataTrace: the data address (a capture knows only its low 16 bits, and only with kDataTraceOffset).
    std::uint32_t address;
    /// Block: size in bytes. Mmio: the value read or written. Output and ThreadSwitch: offset of
    /// the text (output, thread name) in EventBatch::text. Stop: why the run ended, 1 the firmware
    /// exited, 2 it reached the stop symbol, 3 the instruction limit, 4 the wall-clock limit, 5 a
    /// hang, 6 a fault, 7 a reset request, 8 its steering stopped it (a replay that diverged), 9 a
    /// signal (kStop* below). ExceptionEntry/Return: the exception number in the profile of the core
    /// that took it (M-profile: 16 + n for IRQ n; A/R-profile PTM: PFT's exception encoding).
    /// Marker: the event id. Branch: the BranchKind. Gap: 1 trace on, 2 lost sync, 3 code not in memory.
    /// Watch: r0 there (a function's first argument at its entry, its result at its return).
    /// Access: the stack pointer then (to tell a thread's stack from shared data).
    /// CoreSwitch: the index of the core in RunInfo::cores. PcSample: 0. DataTrace: the data
    /// loaded or stored.
    std::uint32_t value;
    /// Block: number of instructions (IT-skipped ones included). Mmio: offset inside the device.
    /// Output: length of the text in bytes. Stop: fault address, or 0. ExceptionEntry: the stack
    /// pointer after stacking (0 from a capture, which does not see it). ExceptionReturn: the EXC_RETURN value. ThreadSwitch: the previous
    /// thread's control block. Marker: the payload. Branch: the fall-through address of the block
    /// that branched (a call's return address). Gap: the trace byte index where it happened.
    /// Watch: r1 there. Access: the pc of the load or store. DataTrace: the pc of the load or store.
    std::uint32_t extra;
    EventKind kind;
    /// Block: BlockEnd. Branch: 1 when it went through a register or a load (BX rN, POP pc), else 0.
    /// Mmio: access width in bytes (1, 2 or 4). ExceptionEntry: 1 when the frame went on the
    /// process stack (PSP), 0 for the main stack. Marker: 0 from a marker device, 1 from the hook
    /// function. Access and DataTrace: bytes (1, 2, 4). Otherwise 0.
    std::uint8_t width;
    /// Block: the block's cost in cycles (saturating at 65535; divides and wait states add to the
    /// next event's stamp). Mmio: index of the device in RunInfo::devices. Output: OutputChannel,
    /// or for OutputChannel::Device the device index + 0x100. ThreadSwitch: length of the name.
    /// ExceptionEntry: 1 when the outside world raised it (a stimulus; Steering::pend), 0 when the
    /// machine did (SysTick, SVC, a fault, a device on its own). Access: bit 0 a store (else a load), bit 1 interrupts masked then
    /// (PRIMASK or BASEPRI set). DataTrace: the comparator (bits 0-1) and DataTraceParts. Otherwise 0.
    std::uint16_t channel;
};
static_assert(sizeof(Event) == 24, "events are packed into 24 bytes");

/// One delivery: events in order, plus the bytes that Output events point into.
struct EventBatch {
    std::span<const Event> events;
    std::string_view text;

    /// The text of an Output event of this batch.
    std::string_view output_text(const Event& e) const { return text.substr(e.value, e.extra); }
    /// The thread name of a ThreadSwitch event of this batch.
    std::string_view thread_name(const Event& e) const { return text.substr(e.value, e.channel); }
};

}  // namespace emutrace::trace
