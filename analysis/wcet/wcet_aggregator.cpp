#include "analysis/wcet/wcet_aggregator.h"

#include <algorithm>
#include <tuple>

namespace emutrace::analysis::wcet {

WcetAggregator::WcetAggregator(const decode::Program& program, const TracePoints& points, unsigned call_depth)
    : program_(program), points_(points), tracker_(points, 1024, call_depth), successors_(points.points().size(), {kNoSuccessor, kNoSuccessor}),
      first_point_(program.functions().size() + 1, static_cast<std::uint32_t>(points.points().size())), function_times_(program.functions().size()),
      recursion_(program.functions().size(), RecursionCycles::of(program, points)), counted_(points.points().size(), 0),
      counts_(points.points().size(), 0), most_per_call_(points.points().size(), 0), counted_of_(program.functions().size()) {
    for (std::uint32_t id = points.points().size(); id-- > 0;) first_point_[points.points()[id].function] = id;
    for (std::size_t f = program.functions().size(); f-- > 0;)  // functions without points start where the next does
        first_point_[f] = std::min(first_point_[f], first_point_[f + 1]);
    for (std::uint32_t id = 0; id < points.points().size(); ++id) {
        const TracePoint& p = points.points()[id];
        if (p.function >= program.functions().size()) continue;  // a hand-made graph
        const decode::Function& fn = program.functions()[p.function];
        unsigned k = 0;
        for (const auto& e : fn.edges)
            if (e.from == p.block && k < 2) successors_[id][k++] = first_point_[p.function] + static_cast<std::uint32_t>(e.to);
    }
    for (std::uint32_t id = 0; id < points.points().size(); ++id)
        if (points.points()[id].counted) {
            counted_[id] = kCountedPerCall;
            counted_of_[points.points()[id].function].push_back(id);
        }
    for (const LoopRef& l : points.loops())
        if (l.header < counted_.size() && recursion_.counts_loop(static_cast<std::uint32_t>(&l - points.loops().data())))
            counted_[l.header] |= kCountedInRecursion;
    for (std::uint32_t id = 0; id < points.points().size(); ++id)
        if (recursion_.counts_block(id)) counted_[id] |= kCountedInCycle;
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

// A context seen for the first time gets records for its function's trace points.
void WcetAggregator::switch_context(std::uint32_t context) {
    while (context_records_.size() <= context) {
        const std::uint32_t f = tracker_.contexts().at(static_cast<std::uint32_t>(context_records_.size())).function;
        ContextRecords c{static_cast<std::uint32_t>(records_.size()), 0, 0};
        if (f + 1 < first_point_.size()) c = {c.base, first_point_[f], first_point_[f + 1] - first_point_[f]};
        if (records_.size() + c.size > kMostRecords) {
            // Memory stays bounded whatever the code does: past the budget, a new context shares
            // its function's records of last resort, and the bound uses no contexts (folded_).
            folded_ = true;
            auto [it, added] = folded_records_.try_emplace(f, static_cast<std::uint32_t>(records_.size()));
            if (added) records_.resize(records_.size() + c.size);
            c.base = it->second;
            c.folded = true;
        } else {
            records_.resize(records_.size() + c.size);
        }
        context_records_.push_back(c);
    }
    context_ = context;
    context_base_ = context_records_[context].base;
    context_first_ = context_records_[context].first;
    context_size_ = context_records_[context].size;
}

// Code of another function run without a call (a branch into libgcc's shared code).
std::uint32_t WcetAggregator::foreign_record(std::uint32_t point) {
    std::uint64_t key = std::uint64_t{context_} << 32 | point;
    if (records_.size() >= kMostRecords && !foreign_.count(key)) {  // past the budget: one per point, no context
        folded_ = true;
        key = std::uint64_t{kFoldedContext} << 32 | point;
    }
    auto [it, added] = foreign_.try_emplace(key, static_cast<std::uint32_t>(records_.size()));
    if (added) records_.emplace_back();
    return it->second;
}

inline void WcetAggregator::close(std::uint64_t cycle, std::uint32_t next) {
    if (current_ < 0) return;
    const std::uint64_t t = cycle >= current_start_ ? cycle - current_start_ : 0;
    Record& r = records_[current_record_];
    r.time[current_index_].add(t);
    r.count_in(tracker_.scope(), t);  // the tracker still has the block's scope: it steps after this
    if (profiling_) [[unlikely]]
        add_to_profile(t);
    const auto& s = successors_[static_cast<std::size_t>(current_)];
    if (next == s[0])
        r.exit[current_index_][0].add(t);
    else if (next == s[1])
        r.exit[current_index_][1].add(t);
    current_ = -1;
}

inline void WcetAggregator::on_block(const trace::Event& e) {
    if (resume_) [[unlikely]] {
        // Back from an exception: the interrupted block goes on, without the handler's time.
        current_ = resume_->block;
        current_record_ = resume_->record;
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
    close(cycle, next);
    current_index_ = tracker_.step(next);
    current_ = static_cast<std::int64_t>(next);
    current_record_ = record_of(next);
    current_start_ = cycle;
    switch (tracker_.last()) {
        case Transition::Start:  // a function entered from nowhere (reset, an exception handler): an activation too
            recursion_.entered(points_.points()[next].function, tracker_.context());
            roots_.push_back(points_.points()[next].function);
            break;
        case Transition::Call:
        case Transition::TailCall:
            calls_.push_back({points_.points()[next].function, cycle, exception_cycles_, tracker_.last() == Transition::TailCall});
            recursion_.entered(points_.points()[next].function, tracker_.context());
            if (points_.points()[next].function == profiled_ && !profiling_) [[unlikely]] {
                profiling_ = true;
                profiled_call_ = calls_.size() - 1;
            }
            if (from >= 0 && points_.points()[static_cast<std::size_t>(from)].indirect) [[unlikely]]
                record_indirect_call(static_cast<std::uint32_t>(from), address);
            break;
        case Transition::Return:
            while (!calls_.empty()) {
                const Call c = calls_.back();
                function_times_[c.function].add(cycle - c.start - (exception_cycles_ - c.excluded_at_start));
                if (profiling_ && calls_.size() - 1 == profiled_call_) [[unlikely]]
                    finish_profile(cycle - c.start - (exception_cycles_ - c.excluded_at_start));
                if (!counted_of_[c.function].empty()) [[unlikely]]
                    fold_counts(c.function);
                pop_call();
                if (!c.tail) break;
            }
            break;
        default: break;
    }
    // Counted after the call or return: the block belongs to the run (of its function, of the
    // recursion) it starts or goes on with, not to the one that just ended.
    if (counted_[next]) [[unlikely]] {
        if (counted_[next] & kCountedPerCall) ++counts_[next];
        if (counted_[next] & kCountedInRecursion) recursion_.header(static_cast<std::uint32_t>(points_.points()[next].loop));
        if (counted_[next] & kCountedInCycle) recursion_.block(next);
    }
}

void WcetAggregator::pop_call() {
    recursion_.left(calls_.back().function);
    calls_.pop_back();
}

void WcetAggregator::add_to_profile(std::uint64_t t) {
    if (exception_depth_ > 0) return;  // handlers are not part of the run
    const std::size_t k = std::size_t{current_record_} * 2 + current_index_;
    if (k >= profile_.size()) profile_.resize(records_.size() * 2 + 64);
    Executions& e = profile_[k];
    if (e.count == 0) touched_.push_back(static_cast<std::uint32_t>(k));
    ++e.count;
    e.cycles += t;
}

// A run of the profiled function ended: kept if it is the longest, then cleared.
void WcetAggregator::finish_profile(std::uint64_t run_cycles) {
    if (run_cycles > 0 && (!have_longest_ || run_cycles > longest_cycles_)) {
        longest_.clear();
        for (std::uint32_t k : touched_) longest_.push_back({k, profile_[k]});
        longest_cycles_ = run_cycles;
        have_longest_ = true;
    }
    for (std::uint32_t k : touched_) profile_[k] = {};
    touched_.clear();
    profiling_ = false;
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
        s = {current_,      current_record_, current_index_, current_ >= 0 && e.cycle > current_start_ ? e.cycle - current_start_ : 0,
             calls_.size(), roots_.size()};
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
        while (calls_.size() > resume_->calls) pop_call();
        while (roots_.size() > resume_->roots) {  // the handler's own activation ends
            recursion_.left(roots_.back());
            roots_.pop_back();
        }
        if (profiling_ && profiled_call_ >= calls_.size()) finish_profile(0);  // a call the handler cut: not a run
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
    add_contexts(t);
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
        if ((counted_[id] & kCountedPerCall) && std::max<std::uint64_t>(most_per_call_[id], counts_[id]) > 0)
            t.most_per_call[points[id].first] = std::max<std::uint64_t>(most_per_call_[id], counts_[id]);
    return t;
}

// The records by context and address, and their union over contexts.
void WcetAggregator::add_contexts(StatisticsTable& t) const {
    const auto& points = points_.points();
    const auto& functions = program_.functions();
    const CallContexts& contexts = tracker_.contexts();
    t.call_depth = contexts.depth();
    t.contexts_folded = contexts.overflowed() || folded_;
    std::vector<ContextKey> keys(context_records_.size());
    for (std::uint32_t c = 0; c < context_records_.size(); ++c) {
        const CallContext& cc = contexts.at(c);
        for (std::uint32_t site : cc.sites) keys[c].calls.push_back(points[site].first);
        keys[c].function = cc.function < functions.size() ? functions[cc.function].start : 0;
    }
    auto add = [&](std::uint32_t c, std::uint32_t point, const Record& r) {
        if (!r.time[0].seen() && !r.time[1].seen()) return;
        BlockRecord b;
        for (int k = 0; k < 2; ++k) {
            b.context[k] = r.time[k];
            for (int s = 0; s < 2; ++s)
                if (r.exit[k][s].seen())
                    b.exits[points[successors_[point][static_cast<std::size_t>(s)]].first][static_cast<std::size_t>(k)] = r.exit[k][s];
        }
        t.blocks[points[point].first].merge(b);
        if (c >= keys.size()) return;
        // Records a folded context shares count the runs of several scopes as one: no path counts.
        if (!t.contexts_folded) std::tie(b.per_scope, b.cycles_per_scope) = r.scope_counts();
        t.contexts[keys[c]].blocks[points[point].first].merge(b);
    };
    std::set<std::uint32_t> folded_done;  // a function's records of last resort, added once
    for (std::uint32_t c = 0; c < context_records_.size(); ++c) {
        const ContextRecords& cr = context_records_[c];
        if (cr.folded && !folded_done.insert(cr.base).second) continue;
        for (std::uint32_t k = 0; k < cr.size; ++k) add(c, cr.first + k, records_[cr.base + k]);
    }
    for (const auto& [key, index] : foreign_) add(static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), records_[index]);
    for (const auto& [key, most] : tracker_.max_iterations_by_context()) {
        auto c = static_cast<std::uint32_t>(key >> 32);
        if (c >= keys.size() || most == 0) continue;
        t.contexts[keys[c]].loop_bounds[points[points_.loops()[static_cast<std::uint32_t>(key)].header].first] = most;
    }
    for (const auto& [key, total] : tracker_.max_totals_by_context()) {
        auto c = static_cast<std::uint32_t>(key >> 32);
        if (c >= keys.size() || total == 0) continue;
        t.contexts[keys[c]].loop_totals[points[points_.loops()[static_cast<std::uint32_t>(key)].header].first] = total;
    }
    for (const auto& [key, total] : tracker_.max_totals_over_outer()) {
        if (key.context >= keys.size() || total == 0) continue;
        t.contexts[keys[key.context]]
            .loop_totals_over[{points[points_.loops()[key.loop].header].first, points[points_.loops()[key.outer].header].first}] = total;
    }
    for (const auto& [c, most] : recursion_.most_by_context())
        if (c < keys.size()) t.contexts[keys[c]].recursion = most;
    for (const auto& b : recursion_.block_counts())
        if (b.context < keys.size() && !t.contexts_folded) t.contexts[keys[b.context]].recursion_blocks[points[b.point].first].merge(b.count);
    for (const auto& count : recursion_.cycle_counts()) {
        if (count.context >= keys.size()) continue;
        ContextRecord& record = t.contexts[keys[count.context]];
        if (count.loop)
            record.recursion_headers[points[points_.loops()[count.which].header].first] = count.most;
        else
            record.recursion_entries[functions[count.which].start] = count.most;
    }
    if (!have_longest_ || profiled_ >= functions.size()) return;
    // Which context and trace point each record is.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> owner(records_.size(), {UINT32_MAX, 0});
    for (std::uint32_t c = 0; c < context_records_.size(); ++c)
        for (std::uint32_t k = 0; k < context_records_[c].size; ++k) owner[context_records_[c].base + k] = {c, context_records_[c].first + k};
    for (const auto& [key, index] : foreign_) owner[index] = {static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key)};
    RunProfile run;
    run.function = functions[profiled_].start;
    run.cycles = longest_cycles_;
    for (const Profiled& p : longest_) {
        auto [c, point] = owner[p.entry / 2];
        if (c == UINT32_MAX) continue;
        run.blocks[{keys[c], points[point].first}][p.entry % 2] = {p.e.count, p.e.cycles};
    }
    t.longest_run = std::move(run);
}

}  // namespace emutrace::analysis::wcet
