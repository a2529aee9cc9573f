// GdbStub's reverse execution (bs, bc, monitor reset): going back by bringing back a copy of the
// process kept earlier (debug/travel), and the copy's way on to where it was sent.
#include <unistd.h>

#include "debug/gdb/gdb_stub.h"

namespace emutrace::debug::gdb {

bool GdbStub::checkpoint(emu::DebugTarget& target) {
    if (!reverse_ || !no_reverse_.empty()) return false;
    static constexpr std::size_t kCopiesPerInterval = 32;  // then copies are kept twice as far apart
    static constexpr std::size_t kMostCopies = 256;        // each holds a pipe's descriptors in every later process
    if (copies_.kept() >= kMostCopies) return false;
    interval_ = kFirstInterval << std::min<std::size_t>(copies_.kept() / kCopiesPerInterval, 20);
    auto message = copies_.keep(target.position());
    if (!message) return false;
    travel_ = travel_plan_from_text(*message);
    if (!travel_) ::_exit(70);  // only this program writes them
    plan_applied_ = false;
    return true;
}

std::string GdbStub::reverse(emu::DebugTarget& target, bool to_a_hit) {
    if (!reverse_) return {};  // GDB says the target does not support it
    if (!no_reverse_.empty()) {
        console("emutrace: reverse execution is not available: " + no_reverse_ + "\n");
        return "E01";
    }
    const std::uint64_t at = target.position();
    if (at == 0) return "T05replaylog:begin;thread:" + hex_id(stop_thread_) + ";";
    TravelPlan plan;
    if (!to_a_hit) {  // reverse-stepi: the moment before the last instruction
        plan.until = at - 1;
        plan.stop.why = emu::DebugEvent::Why::Step;
        if (auto kept = copies_.kept_before(at - 1)) go_back(target, plan, *kept);
    } else {  // reverse-continue: the last hit before now, looked for from the copy before now
        plan.mode = TravelPlan::Mode::Scan;
        plan.until = at;
        if (auto kept = copies_.kept_strictly_before(at)) {
            plan.from = *kept;
            go_back(target, plan, *kept);
        }
    }
    console("emutrace: no moment of the run before this one was kept\n");
    return "E01";
}

void GdbStub::go_back(emu::DebugTarget&, TravelPlan plan, std::uint64_t kept) {
    plan.acks = acks_;
    plan.breakpoints.assign(breakpoints_.begin(), breakpoints_.end());
    plan.watches = watches_;
    copies_.bring_back(kept, to_text(plan));
}

std::optional<emu::DebugResume> GdbStub::travelling(emu::DebugTarget& target, emu::DebugEvent& event) {
    using Why = emu::DebugEvent::Why;
    TravelPlan& plan = *travel_;
    const std::uint64_t at = target.position();
    const std::uint32_t pc = static_cast<std::uint32_t>(target.read_register(emu::kDebugPc)) & ~1u;
    if (!plan_applied_) {  // just brought back: GDB's breakpoints and watchpoints as they are now
        for (std::uint32_t b : breakpoints_) target.set_breakpoint(b, false);
        for (const auto& w : watches_) target.set_watchpoint(w.address, w.length, w.kind, false);
        breakpoints_.clear();
        watches_.clear();
        for (std::uint32_t b : plan.breakpoints)
            if (target.set_breakpoint(b, true)) breakpoints_.insert(b);
        for (const auto& w : plan.watches)
            if (target.set_watchpoint(w.address, w.length, w.kind, true)) watches_.push_back(w);
        acks_ = plan.acks;
        plan_applied_ = true;
        // A breakpoint where the copy was kept is passed over as the run goes on from here.
        if (plan.mode == TravelPlan::Mode::Scan && at < plan.until && breakpoints_.count(pc))
            last_hit_ = Hit{at, {Why::Breakpoint, pc, 0, emu::WatchKind::Write, 0, {}}};
    } else if (plan.mode == TravelPlan::Mode::Scan) {
        if (event.why == Why::Breakpoint && at < plan.until) last_hit_ = Hit{at, event};
        if (event.why == Why::Watch && at > 0 && at - 1 < plan.until) last_hit_ = Hit{at - 1, event};  // before the access
    }
    const bool over = event.why == Why::Ended || event.why == Why::Fault || event.why == Why::Diverged;
    if (at < plan.until && !over) {
        target.stop_at_position(plan.until);
        return emu::DebugResume::Continue;
    }
    const TravelPlan done = std::move(plan);
    travel_.reset();
    if (done.mode == TravelPlan::Mode::Scan && !over) {
        const auto hit = last_hit_;
        last_hit_.reset();
        TravelPlan next;
        if (hit) {
            next.until = hit->position;
            next.stop = hit->event;
            go_back(target, next, *copies_.kept_before(hit->position));
        }
        if (auto earlier = copies_.kept_strictly_before(done.from)) {  // nothing since that copy: look before it
            next.mode = TravelPlan::Mode::Scan;
            next.until = done.from;
            next.from = *earlier;
            go_back(target, next, *earlier);
        }
        next.until = done.from;  // nothing at all: the start of the run
        next.at_beginning = true;
        go_back(target, next, done.from);
    }
    if (!over) {
        event.why = done.stop.why;
        event.address = done.stop.address;
        event.kind = done.stop.kind;
    }
    return std::nullopt;
}

}  // namespace emutrace::debug::gdb
