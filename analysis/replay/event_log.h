#pragma once
// The record/replay event log (after P-Replayer, Song and Lee): the synchronisation and input
// events of a run, each with its global sequence number and the sequence number of the event
// that happened immediately before it, so that replay can enforce the same happens-before order.
// One binary layout for the log emutrace writes and for the ring a firmware-side recorder keeps
// in RAM (firmware/replay/emutrace_replay.h mirrors it):
//   header, 32 bytes: "EMUTRLOG", version (u16, 2), header size (u16, 32), record size (u16, 32),
//                     flags (u16), records (u32), records lost to a full ring (u32), timing (u32:
//                     which cycle model stamped the records, 0 unknown), capacity (u32: a
//                     firmware ring's records; 0 in a file)
//   record, 32 bytes: seq, before, thread, operation (u8), flags (u8), 2 reserved, object, value,
//                     cycle (u64)
// All little-endian. The cycle stamp serves the replay of interrupts (an emulated recording's
// interrupts are delivered again at their cycle) and the execution-time figures.

#include <cstdint>
#include <string>
#include <vector>

namespace emutrace::analysis::replay {

enum class Operation : std::uint8_t {
    Lock = 1,        ///< mutex or semaphore take; object: the mutex
    Unlock = 2,      ///< mutex or semaphore give
    Send = 3,        ///< queue send; object: the queue, value: the item
    Receive = 4,     ///< queue receive; value: the item received
    Create = 5,      ///< task create; object: the entry function
    Delete = 6,      ///< task delete
    Delay = 7,       ///< delay or sleep; value: ticks
    Yield = 8,       ///< yield
    Input = 9,       ///< a read of an input device; object: the register, value: what was read
    Interrupt = 10,  ///< an interrupt delivered; object: the exception number, value: the interrupted pc
};

/// "lock", "unlock", ...; "?" for a value outside the enum.
const char* operation_name(Operation op);

struct LogEvent {
    std::uint32_t seq = 0;     ///< 1, 2, 3, ... in the order the events ran
    std::uint32_t before = 0;  ///< the event that happened immediately before this one; 0: none
    std::uint32_t thread = 0;  ///< the thread (its control block's address; 0 before the scheduler runs)
    Operation op = Operation::Lock;
    std::uint8_t flags = 0;
    std::uint32_t object = 0;
    std::uint32_t value = 0;
    std::uint64_t cycle = 0;  ///< when it happened: emulated cycles, or a board's cycle counter
    bool operator==(const LogEvent&) const = default;
};

/// LogEvent::flags
enum EventFlags : std::uint8_t {
    kExternal = 1,  ///< an interrupt the outside world raised (a stimulus, a live input): replay delivers it
};

/// EventLog::flags
enum LogFlags : std::uint16_t {
    kEmulatedCycles = 1,  ///< cycle stamps are the emulator's: replay on the same scenario meets them exactly
    kComplete = 2,        ///< the recording lasted until the run ended: an event beyond the log is a divergence
    kUnlinked = 4,        ///< from a firmware-side recorder: `before` is 0, link_events() fills it in
};

/// Tells two cycle models apart (core, clock, timing mode): a replay on the same one meets the
/// recorded cycle stamps exactly; on another, interrupts can only be delivered in order.
std::uint32_t timing_fingerprint(const std::string& cpu, std::uint64_t clock_hz, const std::string& timing);

inline constexpr std::size_t kLogHeaderBytes = 32, kLogRecordBytes = 32;

struct EventLog {
    std::vector<LogEvent> events;
    std::uint32_t lost = 0;    ///< records a full ring dropped (a board's recorder)
    std::uint16_t flags = 0;   ///< LogFlags
    std::uint32_t timing = 0;  ///< timing_fingerprint() of the run that stamped the cycles; 0: unknown (a board)

    /// The file's bytes.
    std::vector<std::uint8_t> encode() const;
    /// Parses a log; throws ConfigError "<name>: byte N: <what>" for a bad magic or version, a
    /// truncated record, or an ordering that cannot be (seq not counting up, before not earlier).
    static EventLog decode(const std::vector<std::uint8_t>& bytes, const std::string& name);
    static EventLog load(const std::string& path);
    void save(const std::string& path) const;
};

/// The log's header and one record, as encode() lays them out (for a log written as it grows).
void encode_header(std::vector<std::uint8_t>& out, std::uint32_t records, std::uint16_t flags, std::uint32_t lost, std::uint32_t timing);
void encode_record(std::vector<std::uint8_t>& out, const LogEvent& e);

}  // namespace emutrace::analysis::replay
