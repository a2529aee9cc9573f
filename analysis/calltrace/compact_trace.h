#pragma once
// The paper's compact trace: 21-byte binary records of function entry/exit, user events and
// exceptions in a circular buffer that keeps the most recent ones (default 512 KiB = 24,966
// records), written to a file that `emutrace dump` prints.
//
// Record (little-endian, packed, 21 bytes):
//   0  u8   kind: 0 entry, 1 exit, 2 user event, 3 exception entry, 4 exception return
//   1  u32  function start address | user event id | exception number
//   5  u16  thread index (0 main, 1 exception handlers, 2.. RTOS threads; names in the trailer)
//   7  u64  cycle stamp
//  15  u32  entry/exit: stack depth | user event: payload | exception: 0
//  19  u16  reserved, 0
// File: header "EMUTRACE" u16 version=1 u16 record size=21 u64 clock_hz u32 capacity
// u32 records u64 records seen; then the records, oldest first; then the thread names:
// u16 count, and per name u16 length + bytes.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/calltrace/call_tracer.h"

namespace emutrace::analysis {

constexpr std::size_t kCompactRecordSize = 21;
constexpr std::size_t kDefaultCompactBytes = 512 * 1024;

struct CompactRecord {
    std::uint8_t kind = 0;
    std::uint32_t value = 0;
    std::uint16_t thread = 0;
    std::uint64_t cycle = 0;
    std::uint32_t payload = 0;
};

class CompactTraceWriter final : public CallListener {
public:
    /// `capacity_bytes` / 21 records are kept; `selected` says which functions' entries and exits
    /// are recorded (user events and exceptions always are).
    CompactTraceWriter(std::size_t capacity_bytes, std::function<bool(std::uint32_t)> selected);
    void on_call_event(const CallEvent& e) override;
    /// Writes the buffer; throws ConfigError when it cannot.
    void write(const std::string& path, std::uint64_t clock_hz, const std::vector<std::string>& threads) const;
    std::uint64_t seen() const { return seen_; }
    std::size_t capacity() const { return capacity_; }

private:
    std::vector<std::array<std::uint8_t, kCompactRecordSize>> ring_;
    std::size_t capacity_, next_ = 0;
    std::uint64_t seen_ = 0;
    std::function<bool(std::uint32_t)> selected_;
};

struct CompactTrace {
    std::uint64_t clock_hz = 0;
    std::uint32_t capacity = 0;
    std::uint64_t seen = 0;
    std::vector<CompactRecord> records;
    std::vector<std::string> threads;
};

/// Reads a compact trace file; a corrupt or truncated file throws ConfigError naming it and
/// the byte offset.
CompactTrace read_compact_trace(const std::string& path);

}  // namespace emutrace::analysis
