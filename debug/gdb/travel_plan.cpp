#include "debug/gdb/travel_plan.h"

#include <sstream>

namespace emutrace::debug::gdb {

std::string to_text(const TravelPlan& plan) {
    std::ostringstream o;
    o << "plan " << static_cast<unsigned>(plan.mode) << ' ' << plan.until << ' ' << plan.from << ' ' << static_cast<unsigned>(plan.stop.why) << ' '
      << plan.stop.address << ' ' << static_cast<unsigned>(plan.stop.kind) << ' ' << plan.at_beginning << ' ' << plan.reset << ' ' << plan.acks << ' '
      << plan.breakpoints.size() << ' ' << plan.watches.size();
    for (std::uint32_t b : plan.breakpoints) o << ' ' << b;
    for (const auto& w : plan.watches) o << ' ' << w.address << ' ' << w.length << ' ' << static_cast<unsigned>(w.kind);
    return o.str();
}

std::optional<TravelPlan> travel_plan_from_text(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    unsigned mode = 0, why = 0, kind = 0;
    std::size_t breakpoints = 0, watches = 0;
    TravelPlan p;
    if (!(in >> word) || word != "plan") return std::nullopt;
    if (!(in >> mode >> p.until >> p.from >> why >> p.stop.address >> kind >> p.at_beginning >> p.reset >> p.acks >> breakpoints >> watches))
        return std::nullopt;
    if (mode > 1 || why > static_cast<unsigned>(emu::DebugEvent::Why::Diverged) || kind > 2 || breakpoints > 4096 || watches > 64)
        return std::nullopt;
    p.mode = static_cast<TravelPlan::Mode>(mode);
    p.stop.why = static_cast<emu::DebugEvent::Why>(why);
    p.stop.kind = static_cast<emu::WatchKind>(kind);
    p.breakpoints.resize(breakpoints);
    for (auto& b : p.breakpoints)
        if (!(in >> b)) return std::nullopt;
    p.watches.resize(watches);
    for (auto& w : p.watches) {
        if (!(in >> w.address >> w.length >> kind) || kind > 2) return std::nullopt;
        w.kind = static_cast<emu::WatchKind>(kind);
    }
    return p;
}

}  // namespace emutrace::debug::gdb
