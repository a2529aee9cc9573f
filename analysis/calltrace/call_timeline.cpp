#include "analysis/calltrace/call_timeline.h"

#include <algorithm>
#include <map>

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
    scratch_.clear();
    for (const Kept& s : spans_) scratch_.push_back(s.end - s.begin);
    std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(scratch_.size() / 2), scratch_.end());
    min_cycles_ = std::max(scratch_[scratch_.size() / 2] + 1, min_cycles_ * 2);
    std::erase_if(spans_, [&](const Kept& s) { return s.end - s.begin < min_cycles_; });
}

void CallTimeline::ran(std::uint32_t thread, std::uint64_t begin, std::uint64_t end) {
    if (end <= begin) return;
    if (running_.size() <= thread) running_.resize(thread + 1);
    auto& r = running_[thread];
    if (!r.empty() && begin - r.back().second < min_gap_) {
        r.back().second = end;  // too close to draw apart
        return;
    }
    r.emplace_back(begin, end);
    if (++running_slices_ <= kMaxSpans) return;
    // Too many to draw: close every gap under the median gap (and at least twice the last bar).
    scratch_.clear();
    for (const auto& slices : running_)
        for (std::size_t i = 1; i < slices.size(); ++i) scratch_.push_back(slices[i].first - slices[i - 1].second);
    if (scratch_.empty()) return;
    std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(scratch_.size() / 2), scratch_.end());
    min_gap_ = std::max(scratch_[scratch_.size() / 2] + 1, min_gap_ * 2);
    running_slices_ = 0;
    for (auto& slices : running_) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
        for (const auto& s : slices)
            if (!merged.empty() && s.first - merged.back().second < min_gap_)
                merged.back().second = s.second;
            else
                merged.push_back(s);
        running_slices_ += merged.size();
        slices = std::move(merged);
    }
}

void CallTimeline::on_call_event(const CallEvent& e) {
    end_cycle_ = std::max(end_cycle_, e.cycle);
    switch (e.kind) {
        case CallEvent::Kind::Entry: open_[e.context].push_back({e.function, e.cycle}); break;
        case CallEvent::Kind::Exit: {
            // Popped as the profile does, not by the event's depth (which also counts the frames
            // of a BL into a function's own body).
            auto& s = open_[e.context];
            if (s.empty()) break;
            auto depth = static_cast<std::uint32_t>(s.size() - 1);
            if (depth < kMaxDepth) keep({lane_of(e.context, e.thread), s.back().function, depth, s.back().begin, e.cycle});
            s.pop_back();
            break;
        }
        case CallEvent::Kind::ThreadSwitch:
            ran(current_thread_, running_since_, e.cycle);
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
    if (switched_) ran(current_thread_, running_since_, end_cycle_);
}

std::vector<report::Lane> CallTimeline::lanes() const {
    // By lane in one pass; the busiest kMaxLanes (by time run and calls kept) are drawn.
    std::map<std::uint32_t, report::Lane> by_id;
    std::map<std::uint32_t, std::uint64_t> activity;
    const auto& threads = tracer_.threads();
    auto lane = [&](std::uint32_t id) -> report::Lane& {
        report::Lane& l = by_id[id];
        if (l.name.empty()) l.name = id == kHandlersLane ? "exceptions" : id < threads.size() ? threads[id] : std::to_string(id);
        return l;
    };
    for (const Kept& s : spans_) {
        lane(s.lane).spans.push_back({s.begin, s.end, s.depth, tracer_.function_name(s.function)});
        activity[s.lane] += s.end - s.begin;
    }
    for (std::uint32_t t = 0; t < running_.size(); ++t) {
        if (running_[t].empty()) continue;
        lane(t).running = running_[t];
        for (const auto& [b, e] : running_[t]) activity[t] += e - b;
    }
    std::vector<std::uint32_t> ids;
    for (const auto& [id, l] : by_id) ids.push_back(id);
    if (ids.size() > kMaxLanes) {
        std::stable_sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) { return activity[a] > activity[b]; });
        ids.resize(kMaxLanes);
        std::sort(ids.begin(), ids.end());
    }
    std::vector<report::Lane> out;  // threads in order, the handlers' lane (the largest id) last
    for (std::uint32_t id : ids) out.push_back(std::move(by_id[id]));
    return out;
}

}  // namespace emutrace::analysis
