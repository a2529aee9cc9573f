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
                if (o.function == kNoRun) continue;
                times_[o.function].add(e.cycle - o.start - (exception_cycles_ - o.excluded_at_start));
                if (o.switched) switched_out_.insert(o.function);
                more = !stack.empty() && stack.back().replaced;
            }
            break;
        }
        // Handler time, left out of the functions' times as the aggregator leaves it out, runs from
        // the entry to the resumed code's first block: the return's own cycles are the handler's,
        // and a tail-chained handler continues the stretch.
        case CallEvent::Kind::ExceptionEntry:
            if (exception_depth_++ == 0 && !resuming_) exception_start_ = e.cycle;
            resuming_ = false;
            break;
        case CallEvent::Kind::ExceptionReturn:
            if (exception_depth_ > 0 && --exception_depth_ == 0) resuming_ = true;
            break;
        case CallEvent::Kind::Resume:
            if (resuming_) exception_cycles_ += e.cycle - exception_start_;
            resuming_ = false;
            break;
        case CallEvent::Kind::ThreadSwitch:
            // Every run open in a thread now waits while another thread runs.
            for (auto& [context, stack] : open_)
                if (context < kExceptionContext)
                    for (Open& o : stack) o.switched = true;
            break;
        case CallEvent::Kind::Marker: break;
    }
}

void CallTimes::on_finish(std::uint64_t) {
    // Runs still open when the firmware stopped never completed: the aggregator does not count them either.
    open_.clear();
}

}  // namespace emutrace::analysis::wcet
