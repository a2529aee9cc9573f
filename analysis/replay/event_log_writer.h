#pragma once
// An event log written as the run goes (--record): each record is appended as it is made and the
// header, whose count and flags are known only at the end, is written last. A recording of days
// costs the memory of its write buffer, not of its events. The file is created by the first
// record (or by finish()), so a run that never starts leaves an earlier log in place; a file that
// cannot seek (a pipe, /dev/stdout) gets the whole log at the end, as before.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/replay/event_log.h"

namespace emutrace::analysis::replay {

class EventLogWriter {
public:
    explicit EventLogWriter(std::string path) : path_(std::move(path)) {}
    ~EventLogWriter();
    EventLogWriter(const EventLogWriter&) = delete;
    EventLogWriter& operator=(const EventLogWriter&) = delete;

    /// Throws ConfigError naming the file when it cannot be created.
    void append(const LogEvent& e);
    /// Writes what is buffered and the header; throws ConfigError naming the file when a write
    /// failed (a full disk), now or earlier.
    void finish(std::uint16_t flags, std::uint32_t timing);
    std::uint32_t records() const { return records_; }

private:
    void open();
    void flush();
    std::string path_;
    std::FILE* file_ = nullptr;
    bool seekable_ = false;  ///< else every record stays in buffer_ until finish()
    std::vector<std::uint8_t> buffer_;
    std::uint32_t records_ = 0;
    bool failed_ = false;
};

}  // namespace emutrace::analysis::replay
