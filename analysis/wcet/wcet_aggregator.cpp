#include "analysis/wcet/wcet_aggregator.h"

#include <algorithm>

namespace emutrace::analysis::wcet {

WcetAggregator::WcetAggregator(const decode::Program& program, const TracePoints& points)
    : program_(program), points_(points), tracker_(points), records_(points.points().size()), function_times_(program.functions().size()),
      counted_(points.points().size(), 0), counts_(points.points().size(), 0), most_per_call_(points.points().size(), 0),
      counted_of_(program.functions().size()) {
    for (std::uint32_t id = 0; id < points.points().size(); ++id)
        if (points.points()[id].counted) {
            counted_[id] = 1;
            counted_of_[points.points()[id].function].push_back(id);
        }
}

void WcetAggregator::fold_counts(std::uint32_t f) {
    for (std::uint32_t id : counted_of_[f]) {
        most_per_call_[id] = std::max<std::uint64_t>(most_per_call_[id], counts_[id]);
        counts_[id] = 0;
    }
}

void WcetAggregator::on_start(const trace::RunInfo& info) {
    firmware_ = info.firmware;
}

inline void WcetAggregator::close(std::uint64_t cycle) {
    if (current_ < 0) return;
    records_[static_cast<std::size_t>(current_)].context[current_index_].add(cycle >= current_start_ ? cycle - current_start_ : 0);
    current_ = -1;
}

inline void WcetAggregator::on_block(const trace::Event& e) {
    if (resume_) [[unlikely]] {
        // Back from an exception: the interrupted block goes on, without the handler's time.
        current_ = resume_->block;
        current_index_ = resume_->index;
        current_start_ = e.cycle - resume_->elapsed;
        resume_.reset();
    }
    if (resuming_) [[unlikely]] {  // handler time runs from the exception's entry to the resumed block
        exception_cycles_ += e.cycle - exception_start_;
        resuming_ = false;
    }
    int id = points_.id_at(e.address);
    if (id < 0) [[unlikely]] {
        // The rest of the block being measured (a translated block cut at a page boundary or at
        // Unicorn's instruction limit) goes on; other code outside the program is not measured.
        const TracePoint* c = current_ >= 0 ? &points_.points()[static_cast<std::size_t>(current_)] : nullptr;
        if (c && e.address > c->first && e.address < c->end) return;
        close(e.cycle);
        return;
    }
    enter(static_cast<std::uint32_t>(id), e.address, e.cycle);
    if (points_.points()[static_cast<std::size_t>(id)].end < e.address + e.value) [[unlikely]]
        step_through(static_cast<std::uint32_t>(id), e.address + e.value, e.cycle);
}

// A source that reports straight-line runs through block starts (a PTM capture: ranges go from
// waypoint to waypoint, so a loop entered by falling into its header has no range starting
// there) still steps through every block; the blocks after the first start at the same stamp,
// so the last one carries the run's time. Each block's worst case then still covers the time of
// every path through it. The emulator splits its blocks at the trace points: its blocks end there.
void WcetAggregator::step_through(std::uint32_t id, std::uint32_t range_end, std::uint64_t cycle) {
    for (std::uint32_t end = points_.points()[id].end; end < range_end;) {
        int later = points_.id_at(end);
        if (later < 0) return;
        enter(static_cast<std::uint32_t>(later), end, cycle);
        end = points_.points()[static_cast<std::size_t>(later)].end;
    }
}

inline void WcetAggregator::enter(std::uint32_t next, std::uint32_t address, std::uint64_t cycle) {
    const std::int64_t from = current_;
    close(cycle);
    current_index_ = tracker_.step(next);
    current_ = static_cast<std::int64_t>(next);
    current_start_ = cycle;
    if (counted_[next]) [[unlikely]]
        ++counts_[next];
    switch (tracker_.last()) {
        case Transition::Call:
        case Transition::TailCall:
            calls_.push_back({points_.points()[next].function, cycle, exception_cycles_, tracker_.last() == Transition::TailCall});
            if (from >= 0 && points_.points()[static_cast<std::size_t>(from)].indirect) [[unlikely]]
                record_indirect_call(static_cast<std::uint32_t>(from), address);
            break;
        case Transition::Return:
            while (!calls_.empty()) {
                const Call c = calls_.back();
                function_times_[c.function].add(cycle - c.start - (exception_cycles_ - c.excluded_at_start));
                if (!counted_of_[c.function].empty()) [[unlikely]]
                    fold_counts(c.function);
                calls_.pop_back();
                if (!c.tail) break;
            }
            break;
        default: break;
    }
}

// Rare (a callback, a function pointer): the call stack's functions are kept with the target.
void WcetAggregator::record_indirect_call(std::uint32_t from, std::uint32_t target) {
    const auto& functions = program_.functions();
    const TracePoint& site = points_.points()[from];
    auto& within = indirect_targets_[site.first][target];
    within.insert(functions[site.function].start);
    // The last is the callee. Below a tail call, the functions it replaced are running too.
    for (std::size_t k = 0; k + 1 < calls_.size(); ++k) within.insert(functions[calls_[k].function].start);
}

void WcetAggregator::on_exception_entry(const trace::Event& e) {
    Suspended s;
    if (resume_) {
        s = *resume_;  // tail-chained: the interrupted block still waits, the previous handler is closed
        resume_.reset();
    } else {
        s = {current_, current_index_, current_ >= 0 && e.cycle > current_start_ ? e.cycle - current_start_ : 0, calls_.size()};
    }
    current_ = -1;
    suspended_.push_back(s);
    if (exception_depth_++ == 0 && !resuming_) exception_start_ = e.cycle;
    resuming_ = false;  // a tail-chained handler: still one stretch of handler time
    tracker_.exception_entry();
}

void WcetAggregator::on_exception_return(const trace::Event& e) {
    close(e.cycle);
    tracker_.exception_return();
    if (!suspended_.empty()) {
        resume_ = suspended_.back();
        suspended_.pop_back();
        calls_.resize(std::min(calls_.size(), resume_->calls));
    }
    // Handler time, left out of the functions' times, runs from the entry to the resumed block,
    // the return's own cycles included (CallTimes measures the same stretch from the call
    // tracer's events).
    if (exception_depth_ > 0 && --exception_depth_ == 0) resuming_ = true;
}

void WcetAggregator::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        if (e.kind == trace::EventKind::Block) [[likely]] {
            on_block(e);
            continue;
        }
        switch (e.kind) {
            case trace::EventKind::ExceptionEntry: on_exception_entry(e); break;
            case trace::EventKind::ExceptionReturn: on_exception_return(e); break;
            case trace::EventKind::Stop: close(e.cycle); break;
            default: break;
        }
    }
}

StatisticsTable WcetAggregator::table() const {
    StatisticsTable t;
    t.firmware = firmware_;
    t.runs = 1;
    const auto& points = points_.points();
    for (std::size_t id = 0; id < points.size(); ++id)
        if (records_[id].context[0].seen() || records_[id].context[1].seen()) t.blocks[points[id].first] = records_[id];
    std::vector<std::uint32_t> iterations = tracker_.max_iterations();
    std::vector<std::uint64_t> totals = tracker_.max_totals();
    for (std::size_t l = 0; l < iterations.size(); ++l) {
        if (iterations[l] == 0) continue;
        t.loop_bounds[points[points_.loops()[l].header].first] = iterations[l];
        if (totals[l] > 0) t.loop_totals[points[points_.loops()[l].header].first] = totals[l];
    }
    const auto& functions = program_.functions();
    for (std::size_t f = 0; f < functions.size(); ++f)
        if (function_times_[f].seen()) t.functions[functions[f].start].time = function_times_[f];
    t.indirect_targets = indirect_targets_;
    for (std::size_t id = 0; id < points.size(); ++id)  // runs still open count as far as they got
        if (counted_[id] && std::max<std::uint64_t>(most_per_call_[id], counts_[id]) > 0)
            t.most_per_call[points[id].first] = std::max<std::uint64_t>(most_per_call_[id], counts_[id]);
    return t;
}

}  // namespace emutrace::analysis::wcet
