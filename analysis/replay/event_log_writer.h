#pragma once
// An event log written as the run goes (--record): each record is appended as it is made and the
// header, whose count and flags are known only at the end, is written last. A recording of days
// costs the memory of its write buffer, not of its events.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/replay/event_log.h"

namespace emutrace::analysis::replay {

class EventLogWriter {
public:
    /// Creates `path`; throws ConfigError naming it when it cannot.
    explicit EventLogWriter(std::string path);
    ~EventLogWriter();
    EventLogWriter(const EventLogWriter&) = delete;
    EventLogWriter& operator=(const EventLogWriter&) = delete;

    void append(const LogEvent& e);
    /// Writes what is buffered and the header; throws ConfigError naming the file when a write
    /// failed (a full disk), now or earlier.
    void finish(std::uint16_t flags, std::uint32_t timing);
    std::uint32_t records() const { return records_; }

private:
    void flush();
    std::string path_;
    std::FILE* file_ = nullptr;
    std::vector<std::uint8_t> buffer_;
    std::uint32_t records_ = 0;
    bool failed_ = false;
};

}  // namespace emutrace::analysis::replay
