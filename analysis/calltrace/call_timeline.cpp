#include "analysis/calltrace/call_timeline.h"

#include <algorithm>

namespace emutrace::analysis {
namespace {
constexpr std::uint32_t kHandlersLane = 0xFFFF'FFFFu;
}

std::uint32_t CallTimeline::lane_of(std::uint32_t context, std::uint32_t thread) const {
    return context >= kExceptionContext ? kHandlersLane : thread;
}

void CallTimeline::keep(const Kept& k) {
    if (k.end - k.begin < min_cycles_) return;
    spans_.push_back(k);
    if (spans_.size() <= kMaxSpans) return;
    // Too many to draw: raise the bar to the median duration and drop what falls under it.
    std::vector<std::uint64_t> lengths;
    lengths.reserve(spans_.size());
    for (const Kept& s : spans_) lengths.push_back(s.end - s.begin);
    std::nth_element(lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2), lengths.end());
    min_cycles_ = std::max(lengths[lengths.size() / 2] + 1, min_cycles_ * 2);
    std::erase_if(spans_, [&](const Kept& s) { return s.end - s.begin < min_cycles_; });
}

void CallTimeline::on_call_event(const CallEvent& e) {
    end_cycle_ = std::max(end_cycle_, e.cycle);
    switch (e.kind) {
        case CallEvent::Kind::Entry: {
            auto& s = open_[e.context];
            s.resize(std::min<std::size_t>(s.size(), e.depth));
            s.push_back({e.function, e.cycle});
            break;
        }
        case CallEvent::Kind::Exit: {
            auto& s = open_[e.context];
            if (s.size() <= e.depth) break;
            if (e.depth < kMaxDepth) keep({lane_of(e.context, e.thread), s[e.depth].function, e.depth, s[e.depth].begin, e.cycle});
            s.resize(e.depth);
            break;
        }
        case CallEvent::Kind::ThreadSwitch:
            if (running_.size() <= std::max(current_thread_, e.thread)) running_.resize(std::max(current_thread_, e.thread) + 1);
            if (e.cycle > running_since_) {
                auto& r = running_[current_thread_];
                if (r.size() < kMaxSpans) r.emplace_back(running_since_, e.cycle);
            }
            current_thread_ = e.thread;
            running_since_ = e.cycle;
            switched_ = true;
            break;
        default: break;
    }
}

void CallTimeline::on_finish(std::uint64_t end_cycle) {
    end_cycle_ = std::max(end_cycle_, end_cycle);
    // Calls still open at the end run to the end.
    for (auto& [context, s] : open_)
        for (std::uint32_t d = 0; d < s.size() && d < kMaxDepth; ++d)
            keep({lane_of(context, context < kExceptionContext ? context : 0), s[d].function, d, s[d].begin, end_cycle_});
    open_.clear();
    if (switched_ && end_cycle_ > running_since_) {
        if (running_.size() <= current_thread_) running_.resize(current_thread_ + 1);
        running_[current_thread_].emplace_back(running_since_, end_cycle_);
    }
}

std::vector<report::Lane> CallTimeline::lanes() const {
    std::vector<std::uint32_t> ids;
    for (const Kept& s : spans_) ids.push_back(s.lane);
    for (std::uint32_t t = 0; t < running_.size(); ++t)
        if (!running_[t].empty()) ids.push_back(t);
    std::sort(ids.begin(), ids.end());  // threads in order, the handlers' lane (the largest id) last
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<report::Lane> out;
    for (std::uint32_t id : ids) {
        report::Lane lane;
        const auto& threads = tracer_.threads();
        lane.name = id == kHandlersLane ? "exceptions" : id < threads.size() ? threads[id] : std::to_string(id);
        for (const Kept& s : spans_)
            if (s.lane == id) lane.spans.push_back({s.begin, s.end, s.depth, tracer_.function_name(s.function)});
        if (id < running_.size()) lane.running = running_[id];
        out.push_back(std::move(lane));
    }
    return out;
}

}  // namespace emutrace::analysis
