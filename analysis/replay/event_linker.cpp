#include "analysis/replay/event_linker.h"

#include <algorithm>

namespace emutrace::analysis::replay {

const LogEvent& EventLinker::record(Operation op, std::uint32_t object, std::uint32_t value, std::uint32_t partner, std::uint32_t thread,
                                    std::uint64_t cycle, std::uint8_t flags) {
    auto [it, first] = last_of_thread_.try_emplace(thread, 0);
    // A thread's first event happens after the create that made it (handlers are not created).
    if (first && !creates_.empty() && thread < kHandlerThread) {
        partner = std::max(partner, creates_.front());
        creates_.pop_front();
    }
    LogEvent e;
    e.seq = ++count_;
    e.before = partner ? partner : it->second;
    e.thread = thread;
    e.op = op;
    e.flags = flags;
    e.object = object;
    e.value = value;
    e.cycle = cycle;
    ++operations_[op];
    it->second = e.seq;
    switch (op) {
        case Operation::Unlock:
            last_release_[object] = e.seq;
            holder_.erase(object);
            break;
        case Operation::Lock: holder_[object] = thread; break;
        case Operation::Send: sends_[object].push_back(e.seq); break;
        case Operation::Create: creates_.push_back(e.seq); break;
        default: break;
    }
    if (!keep_) return last_ = e;
    log_.events.push_back(e);
    return log_.events.back();
}

const LogEvent* EventLinker::call(const WatchedCall& call, std::uint32_t r0, std::uint32_t r1, std::uint32_t thread, std::uint64_t cycle) {
    auto& depth = depth_[thread];
    if (call.at_return) {
        if (depth == 0 || --depth) return nullptr;  // its entry unseen (recording began inside it), or a call inside another
        if (!is_acquisition(call.op)) return nullptr;
    } else {
        const bool outermost = depth == 0;
        if (call.ends_watched()) ++depth;
        if (!outermost) return nullptr;
    }
    const Operation op = call.at_return ? call.op : call.operation(r1);
    if (!is_acquisition(op) && !is_acquisition(call.op)) {
        // Entry: r0 the object, r1 the item of a send; a delay's r0 is its ticks. Other operations
        // have no argument worth logging (a create's name is an address of this build only).
        std::uint32_t object = call.object(r0, thread), value = op == Operation::Send ? r1 : 0;
        if (op == Operation::Delay) object = 0, value = r0;
        return &record(op, object, value, 0, thread, cycle);
    }
    if (!call.at_return) {  // entered: the object is the first argument; it happens at the return
        pending_[thread] = {op, call.object(r0, thread)};
        return nullptr;
    }
    const Pending p = pending_[thread];
    std::uint32_t partner = 0;
    if (p.op == Operation::Lock) {
        auto r = last_release_.find(p.object);
        if (r != last_release_.end()) partner = r->second;
    } else {
        auto& q = sends_[p.object];
        if (!q.empty()) partner = q.front(), q.pop_front();
    }
    return &record(p.op, p.object, p.op == Operation::Receive ? r0 : 0, partner, thread, cycle);
}

const LogEvent& EventLinker::interrupt(unsigned n, std::uint32_t pc, bool external, std::uint32_t thread, std::uint64_t cycle) {
    return record(Operation::Interrupt, n, pc, 0, thread, cycle, external ? kExternal : 0);
}

const LogEvent& EventLinker::input(std::uint32_t address, std::uint32_t value, std::uint32_t thread, std::uint64_t cycle) {
    return record(Operation::Input, address, value, 0, thread, cycle);
}

EventLog link_events(const EventLog& unlinked) {
    EventLinker linker;
    for (const LogEvent& e : unlinked.events) {
        switch (e.op) {
            case Operation::Interrupt: linker.interrupt(e.object, e.value, e.flags & kExternal, e.thread, e.cycle); break;
            case Operation::Input: linker.input(e.object, e.value, e.thread, e.cycle); break;
            case Operation::Lock:
            case Operation::Receive:  // the entry with its object, then the return with what it took
                linker.call({.op = e.op}, e.object, 0, e.thread, e.cycle);
                linker.call({.op = e.op, .at_return = true}, e.value, 0, e.thread, e.cycle);
                break;
            case Operation::Delay: linker.call({.op = e.op}, e.value, 0, e.thread, e.cycle); break;
            default: linker.call({.op = e.op}, e.object, e.value, e.thread, e.cycle); break;
        }
    }
    EventLog out = std::move(linker.log());
    out.flags = static_cast<std::uint16_t>(unlinked.flags & ~kUnlinked);
    out.lost = unlinked.lost;
    out.timing = unlinked.timing;
    return out;
}

}  // namespace emutrace::analysis::replay
