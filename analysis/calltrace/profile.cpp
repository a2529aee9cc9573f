#include "analysis/calltrace/profile.h"

#include <algorithm>

namespace emutrace::analysis {

void FunctionStats::add(std::uint64_t incl, std::uint64_t excl) {
    ++calls;
    inclusive += incl;
    inclusive_min = std::min(inclusive_min, incl);
    inclusive_max = std::max(inclusive_max, incl);
    exclusive += excl;
    exclusive_min = std::min(exclusive_min, excl);
    exclusive_max = std::max(exclusive_max, excl);
}

void Profile::on_call_event(const CallEvent& e) {
    auto exclude_from_top = [&](std::uint32_t context, std::uint64_t cycles) {
        auto& stack = stacks_[context];
        if (!stack.empty()) stack.back().excluded += cycles;
    };
    switch (e.kind) {
        case CallEvent::Kind::Entry: stacks_[e.context].push_back({e.function, e.cycle}); break;
        case CallEvent::Kind::Exit: {
            auto& stack = stacks_[e.context];
            if (stack.empty()) break;
            // A frame closed while its thread is switched out (the run ended there) excludes the
            // time since the switch.
            if (auto it = switched_out_.find(e.context); it != switched_out_.end()) {
                stack.back().excluded += e.cycle - it->second;
                it->second = e.cycle;
            }
            Open f = stack.back();
            stack.pop_back();
            std::uint64_t incl = e.cycle - f.entry;
            std::uint64_t excl = incl > f.excluded ? incl - f.excluded : 0;
            if (!stack.empty()) stack.back().excluded += incl;
            overall_[f.function].add(incl, excl);
            by_thread_[{f.function, e.thread}].add(incl, excl);
            break;
        }
        case CallEvent::Kind::ExceptionEntry: preempted_.emplace_back(e.context, e.cycle); break;
        case CallEvent::Kind::ExceptionReturn: {
            // The entry that interrupted the context this return resumes: the last one on one
            // core; on a capture of several, another core's may have come since.
            auto it = std::find_if(preempted_.rbegin(), preempted_.rend(), [&](const auto& p) { return p.first == e.context; });
            if (it == preempted_.rend()) break;
            std::uint64_t since = it->second;
            preempted_.erase(std::next(it).base());
            exclude_from_top(e.context, e.cycle - since);
            break;
        }
        case CallEvent::Kind::ThreadSwitch:
            switched_out_[current_thread_] = e.cycle;
            current_thread_ = e.thread;
            if (auto it = switched_out_.find(e.thread); it != switched_out_.end()) {
                exclude_from_top(e.thread, e.cycle - it->second);
                switched_out_.erase(it);
            }
            break;
        case CallEvent::Kind::Marker:
        case CallEvent::Kind::Resume: break;
    }
}

}  // namespace emutrace::analysis
