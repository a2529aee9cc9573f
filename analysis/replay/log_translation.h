#pragma once
// A log recorded on one build of the firmware replayed on another (the board's build with the
// recorder wrapped in, the emulator's without; or the other way): every address in it that a
// symbol of the recording build holds (a mutex, a queue, a thread's control block, an entry
// function) becomes the same symbol and offset in the replaying build.

#include <string>

#include "analysis/replay/event_log.h"
#include "decode/symbol_table.h"

namespace emutrace::analysis::replay {

/// Throws ConfigError "<from_name>: ..." for an address whose symbol the other build lacks or
/// names more than once (two static variables of one name): the object cannot be told.
EventLog translate_log(const EventLog& log, const decode::SymbolTable& from, const decode::SymbolTable& to, const std::string& from_name);

}  // namespace emutrace::analysis::replay
