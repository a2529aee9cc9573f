#include "analysis/wcet/call_times.h"

namespace emutrace::analysis::wcet {

void CallTimes::on_call_event(const CallEvent& e) {
    switch (e.kind) {
        case CallEvent::Kind::Entry: {
            auto& stack = open_[e.context];
            // The tracer's first frame of a context is where it started, not a call: not a run.
            if (e.depth == 0 && !e.tail) {
                stack.assign(1, Open{kNoRun, e.cycle, exception_cycles_});
                return;
            }
            stack.push_back({e.function, e.cycle, exception_cycles_, false});
            break;
        }
        case CallEvent::Kind::Exit: {
            auto& stack = open_[e.context];
            if (stack.empty() || e.at_end) return;
            if (e.tail) {  // the callee's Entry follows; this run ends when the callee returns
                stack.back().replaced = true;
                return;
            }
            // The returning function, and the ones it replaced by tail calls, end here.
            for (bool more = true; more && !stack.empty();) {
                const Open o = stack.back();
                stack.pop_back();
                if (o.function != kNoRun) times_[o.function].add(e.cycle - o.start - (exception_cycles_ - o.excluded_at_start));
                more = !stack.empty() && stack.back().replaced;
            }
            break;
        }
        case CallEvent::Kind::ExceptionEntry:
            if (exception_depth_++ == 0) exception_start_ = e.cycle;
            break;
        case CallEvent::Kind::ExceptionReturn:
            if (exception_depth_ > 0 && --exception_depth_ == 0) exception_cycles_ += e.cycle - exception_start_;
            break;
        case CallEvent::Kind::ThreadSwitch: switched_threads_ = true; break;
        case CallEvent::Kind::Marker: break;
    }
}

void CallTimes::on_finish(std::uint64_t) {
    // Runs still open when the firmware stopped never completed: the aggregator does not count them either.
    open_.clear();
}

}  // namespace emutrace::analysis::wcet
