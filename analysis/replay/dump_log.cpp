#include "analysis/replay/dump_log.h"

#include <cstring>

#include "analysis/replay/event_linker.h"
#include "config/little_endian.h"
#include "config/units.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::replay {
EventLog log_from_dump(const decode::MemoryDump& dump, const std::string& name) {
    std::string rejected;  // why the last header that looked like one was not
    std::size_t searched = 0;
    for (const decode::DumpSegment& seg : dump.segments()) {
        const std::vector<std::uint8_t>& b = seg.bytes;
        searched += b.size();
        for (std::size_t at = 0; at + kLogHeaderBytes <= b.size(); at += 4) {
            if (std::memcmp(b.data() + at, "EMUTRLOG", 8) != 0) continue;
            const std::string where = name + " at " + config::hex32(seg.base + static_cast<std::uint32_t>(at));
            const std::uint32_t records = config::read_le32(b.data() + at + 16), capacity = config::read_le32(b.data() + at + 28);
            if (capacity && records > capacity) {
                rejected = where + ": the ring's header counts " + std::to_string(records) + " records in a ring of " + std::to_string(capacity);
                continue;
            }
            // The header and the records it counts; a ring cut by the dump's end is reported by decode.
            const std::size_t end = std::min(b.size(), at + kLogHeaderBytes + static_cast<std::size_t>(records) * kLogRecordBytes);
            EventLog log = EventLog::decode(
                std::vector<std::uint8_t>(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(end)), where);
            return log.flags & kUnlinked ? link_events(log) : log;
        }
    }
    if (!rejected.empty()) throw ConfigError(rejected);
    throw ConfigError(name + ": no replay ring (EMUTRLOG header) in " + std::to_string(searched) + " bytes of " + dump.format() +
                      ": was the firmware built with firmware/replay/emutrace_replay.c, and er_init() called before the dump?");
}

}  // namespace emutrace::analysis::replay
