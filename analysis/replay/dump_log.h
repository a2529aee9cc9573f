#pragma once
// The log a firmware-side recorder (firmware/replay/emutrace_replay.c) left in a device's memory:
// found in a dump by its header, checked, and linked (link_events) so that it replays like a log
// emutrace recorded.

#include <string>

#include "analysis/replay/event_log.h"
#include "decode/memory_dump.h"

namespace emutrace::analysis::replay {

/// Throws ConfigError "<name>: ..." when the dump holds no ring, or one whose header or records
/// are damaged (naming the address).
EventLog log_from_dump(const decode::MemoryDump& dump, const std::string& name);

}  // namespace emutrace::analysis::replay
