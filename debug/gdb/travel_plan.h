#pragma once
// What a process going back in a run tells the copy it brings back (debug/travel): where to
// stop, what to look for on the way, and the debugger's state that the copy, kept earlier, does
// not have (breakpoints, watchpoints, the protocol's acknowledgement mode).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emu/debug.h"

namespace emutrace::debug::gdb {

struct WatchSpec {
    std::uint32_t address = 0, length = 0;
    emu::WatchKind kind = emu::WatchKind::Write;
    bool operator==(const WatchSpec&) const = default;
};

struct TravelPlan {
    enum class Mode : std::uint8_t {
        Seek,  ///< run on to `until` and stop there, reporting `stop`
        Scan,  ///< run on to `until` noting breakpoint and watchpoint hits: the last one before it is the stop (reverse-continue)
    };
    Mode mode = Mode::Seek;
    std::uint64_t until = 0;
    std::uint64_t from = 0;                            ///< Scan: the kept position it starts at
    emu::DebugEvent stop{emu::DebugEvent::Why::Step};  ///< Seek: the stop to report (why, address, kind)
    bool at_beginning = false;                         ///< Seek: the stop is the start of the recorded history
    bool reset = false;                                ///< Seek: `monitor reset` asked for it: the answer is its reply, not a stop
    bool acks = true;
    std::vector<std::uint32_t> breakpoints;
    std::vector<WatchSpec> watches;
};

std::string to_text(const TravelPlan& plan);
/// Null when `text` is not a plan to_text wrote.
std::optional<TravelPlan> travel_plan_from_text(const std::string& text);

}  // namespace emutrace::debug::gdb
