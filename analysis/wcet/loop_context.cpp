#include "analysis/wcet/loop_context.h"

#include <algorithm>

namespace emutrace::analysis::wcet {

LoopContextTracker::LoopContextTracker(const TracePoints& points, std::size_t rows, unsigned call_depth)
    : points_(points), rows_(std::max<std::size_t>(rows, 4)), children_(points.loops().size()), running_total_(points.loops().size(), 0),
      totals_over_(rows_.size()), contexts_(call_depth) {
    for (std::size_t l = 0; l < points.loops().size(); ++l)
        if (int parent = points.loops()[l].parent; parent >= 0) children_[static_cast<std::size_t>(parent)].push_back(static_cast<std::uint32_t>(l));
    shape_.reserve(points.points().size());
    for (const auto& p : points.points())
        shape_.push_back(std::uint32_t{p.distinctor} | std::uint32_t{p.level} << 16 | (p.call ? kCall : 0) | (p.entry ? kEntry : 0) |
                         (p.exit ? kExit : 0) | (p.ret ? kRet : 0));
}

// A row being overwritten or cleared: if it counted a loop's iterations, keep the maximum, add
// them to the loop's total in this entry of its parent, and close its children's totals (the
// rows above it, its inner loops, were retired first).
void LoopContextTracker::retire(std::size_t row) {
    const LoopRow& r = rows_[row];
    if (!r.valid) return;
    const TracePoint& p = points_.points()[r.id];
    if (p.loop >= 0 && points_.loops()[static_cast<std::size_t>(p.loop)].header == r.id) {
        auto l = static_cast<std::size_t>(p.loop);
        if (points_.loops()[l].parent < 0)
            add_to_caller_loop(row, l);
        else if (points_.loops()[static_cast<std::size_t>(points_.loops()[l].parent)].parent >= 0)
            add_to_outer_loops(row, l);
        // The totals over this entry of this loop (of loops further in, or called from inside it) end with it.
        for (const NestedKey& key : totals_over_[row]) {
            std::uint64_t& running = running_over_[key];
            std::uint64_t& most = key.outer == kCallerLoop ? max_total_by_context_[std::uint64_t{key.context} << 32 | key.loop] : max_outer_[key];
            most = std::max(most, running);
            running = 0;
        }
        totals_over_[row].clear();
        const std::uint64_t in_context = std::uint64_t{r.context} << 32;
        std::uint32_t& most = max_iterations_by_context_[in_context | l];
        most = std::max(most, r.iterations);
        running_total_[l] += r.iterations;
        for (std::uint32_t child : children_[l]) {
            if (running_total_[child] > 0) {
                std::uint64_t& total = max_total_by_context_[in_context | child];
                total = std::max(total, running_total_[child]);
            }
            running_total_[child] = 0;
        }
    }
}

// An outermost loop of a function leaves a row: its iterations add to its total over the entry
// of the nearest loop below it in the call chain (a loop of a caller), as a nested loop's do,
// and to its totals over the loops below that one (up to kOuterLevels), as a loop three deep's do.
void LoopContextTracker::add_to_caller_loop(std::size_t row, std::size_t l) {
    const LoopRow& r = rows_[row];
    const std::uint32_t function = points_.loops()[l].function;
    unsigned level = 0;
    for (std::size_t k = std::min(row, rows_.size()); k-- > 0 && level <= kOuterLevels;) {
        const LoopRow& o = rows_[k];
        if (!o.valid || (level == 0 && o.context == r.context)) continue;
        const TracePoint& op = points_.points()[o.id];
        if (op.loop < 0 || points_.loops()[static_cast<std::size_t>(op.loop)].header != o.id) continue;
        if (level++ == 0) {
            add_over(k, {r.context, static_cast<std::uint32_t>(l), kCallerLoop}, r.iterations);
        } else if (points_.loops()[static_cast<std::size_t>(op.loop)].function != function) {  // not an outer activation's own loop
            add_over(k, {r.context, static_cast<std::uint32_t>(l), static_cast<std::uint32_t>(op.loop)}, r.iterations);
        }
    }
}

// A loop nested two or more levels deep leaves a row: its iterations add to its totals over the
// entries of the loops around its parent, whose rows are below it in the same function's run.
void LoopContextTracker::add_to_outer_loops(std::size_t row, std::size_t l) {
    const LoopRow& r = rows_[row];
    unsigned level = 0;
    for (std::size_t k = std::min(row, rows_.size()); k-- > 0 && level <= kOuterLevels;) {
        const LoopRow& o = rows_[k];
        if (!o.valid) continue;
        if (o.context != r.context) return;  // the function's rows end here
        const TracePoint& op = points_.points()[o.id];
        if (op.loop < 0 || points_.loops()[static_cast<std::size_t>(op.loop)].header != o.id) continue;
        if (++level == 1) continue;  // the parent: running_total_ counts that one
        add_over(k, {r.context, static_cast<std::uint32_t>(l), static_cast<std::uint32_t>(op.loop)}, r.iterations);
    }
}

// Adds to a total over the current entry of the loop on row k, which closes it when it retires.
void LoopContextTracker::add_over(std::size_t k, const NestedKey& key, std::uint32_t iterations) {
    std::uint64_t& running = running_over_[key];
    if (running == 0) totals_over_[k].push_back(key);
    running += iterations;
}

void LoopContextTracker::up(std::size_t m, LoopRow r) {
    if (p_ + m >= rows_.size()) {  // deeper than the rows: stay on the top row
        ++saturations_;
        m = rows_.size() - 1 - p_;
    }
    p_ += m;
    retire(p_);
    r.iterations = 1;
    r.context = context_;
    rows_[p_] = r;
}

void LoopContextTracker::down(std::size_t m) {
    m = std::min(m, p_);
    for (std::size_t k = p_; k > p_ - m; --k) {  // innermost first
        retire(k);
        rows_[k] = LoopRow{};
    }
    p_ -= m;
}

// After moving down onto a row: the paper keeps it when valid (f(r_old, r_new)). Beyond the
// paper, a row of another loop (an inner loop left straight into a sibling's header) gives way
// to a fresh one, and arriving at the row's own header is its next iteration.
void LoopContextTracker::land(std::uint32_t next) {
    LoopRow& r = rows_[p_];
    if (r.valid && (shape_[r.id] & kDistinctor) == (shape_[next] & kDistinctor)) {
        if (r.id == next) {
            r.index = 1;
            ++r.iterations;
        }
        return;
    }
    retire(p_);
    r = LoopRow{true, next, 0, 1, context_};
}

// The transitions without a call or return, from `from` to `next`.
void LoopContextTracker::move(std::uint32_t from, std::uint32_t next) {
    std::uint32_t c = shape_[from], n = shape_[next];
    unsigned from_level = (c >> 16) & 0xFF, next_level = (n >> 16) & 0xFF;
    LoopRow fresh{true, next, 0, 1, context_};
    if (next_level > from_level) {
        up(next_level - from_level, fresh);
        last_ = Transition::Up;
    } else if (next_level < from_level) {
        down(from_level - next_level);
        land(next);
        last_ = Transition::Down;
    } else if ((c & kDistinctor) != (n & kDistinctor)) {
        up(0, fresh);
        last_ = Transition::Sibling;
    } else {
        stay_in_row(next);
    }
}

unsigned LoopContextTracker::step_slow(std::uint32_t next) {
    const TracePoint& n = points_.points()[next];
    if (previous_ < 0) {
        // A context's first block (reset, or an exception handler): a routine entered from nowhere.
        context_ = contexts_.root(n.function);
        root_ = ++activations_;
        update_scope();
        up(rows_[p_].valid ? n.level + 1u : n.level, LoopRow{true, next, 0, 1});
        last_ = Transition::Start;
    } else {
        auto from = static_cast<std::uint32_t>(previous_);
        std::uint32_t c = shape_[from], shape = shape_[next];
        if ((c & kCall) && (shape & kEntry)) {  // alpha
            if (frames_.size() < kMostFrames)
                frames_.push_back({p_, from, context_, ++activations_});
            else
                ++saturations_;
            context_ = contexts_.call(context_, from, n.function);
            update_scope();
            up(n.level + 1u, LoopRow{true, next, 0, 1});
            last_ = Transition::Call;
        } else if ((c & kExit) && (shape & kEntry)) {
            // A tail call: the replaced function's rows go, the callee's start where they began
            // (above the caller's row); the open call now returns from the callee.
            std::size_t caller_row = frames_.empty() ? 0 : frames_.back().p;
            down(p_ > caller_row ? p_ - caller_row : 0);
            context_ = contexts_.tail(context_, n.function);
            up(rows_[p_].valid ? n.level + 1u : n.level, LoopRow{true, next, 0, 1});
            last_ = Transition::TailCall;
        } else if ((c & kExit) && (shape & kRet)) {  // beta
            if (!frames_.empty()) {
                // Back to the caller's row, then on from the call block as if the call had been one
                // instruction: the return block may be a loop header, or in another loop.
                Frame f = frames_.back();
                frames_.pop_back();
                down(p_ >= f.p ? p_ - f.p : 0);
                context_ = f.context;
                update_scope();
                if (!rows_[p_].valid) rows_[p_] = LoopRow{true, f.caller, 0, 1, context_};
                move(f.caller, next);
            } else {
                ++saturations_;
                down(((c >> 16) & 0xFF) + 1u);
                context_ = contexts_.root(n.function);
                land(next);
            }
            last_ = Transition::Return;
        } else {
            move(from, next);
        }
    }
    previous_ = next;
    return rows_[p_].index;
}

// The activation at the bottom of the call string: k calls below the running function's, when
// the calls open since the context's root activation are more than k (a tail call opens none and
// keeps the string). Saturated frames keep an older, larger scope: counts per it only grow.
void LoopContextTracker::update_scope() {
    const std::size_t base = saved_.empty() ? 0 : std::min(saved_.back().frames, frames_.size());
    const std::size_t open = frames_.size() - base, k = contexts_.depth();
    scope_ = open > k ? frames_[frames_.size() - k - 1].activation : root_;
}

void LoopContextTracker::exception_entry() {
    saved_.push_back({p_, previous_, frames_.size(), context_, root_, scope_});
    previous_ = -1;
}

void LoopContextTracker::exception_return() {
    if (saved_.empty()) return;
    Saved s = saved_.back();
    saved_.pop_back();
    for (std::size_t k = std::min(p_, rows_.size() - 1); k > s.p; --k) {  // innermost first
        retire(k);
        rows_[k] = LoopRow{};
    }
    p_ = s.p;
    previous_ = s.previous;
    context_ = s.context;
    frames_.resize(std::min(frames_.size(), s.frames));
    root_ = s.root;
    scope_ = s.scope;
}

// Over every context: the largest of the loop's figures in each.
std::vector<std::uint64_t> LoopContextTracker::max_totals() const {
    std::vector<std::uint64_t> out(points_.loops().size(), 0);
    for (const auto& [key, total] : max_totals_by_context()) {
        const auto l = static_cast<std::uint32_t>(key);
        if (points_.loops()[l].parent >= 0) out[l] = std::max(out[l], total);  // an outermost loop's is over a caller's loop
    }
    return out;
}

std::vector<std::uint32_t> LoopContextTracker::max_iterations() const {
    std::vector<std::uint32_t> out(points_.loops().size(), 0);
    for (const auto& [key, most] : max_iterations_by_context()) {
        const auto l = static_cast<std::uint32_t>(key);
        out[l] = std::max(out[l], most);
    }
    return out;
}

// The rows still open count as far as they got.
std::unordered_map<std::uint64_t, std::uint32_t> LoopContextTracker::max_iterations_by_context() const {
    auto out = max_iterations_by_context_;
    for (std::size_t k = 0; k <= p_ && k < rows_.size(); ++k) {
        const LoopRow& r = rows_[k];
        if (!r.valid) continue;
        const TracePoint& p = points_.points()[r.id];
        if (p.loop >= 0 && points_.loops()[static_cast<std::size_t>(p.loop)].header == r.id) {
            std::uint32_t& most = out[std::uint64_t{r.context} << 32 | static_cast<std::uint32_t>(p.loop)];
            most = std::max(most, r.iterations);
        }
    }
    return out;
}

std::unordered_map<std::uint64_t, std::uint64_t> LoopContextTracker::max_totals_by_context() const {
    auto out = max_total_by_context_;
    std::vector<std::uint64_t> open = running_total_;
    std::vector<std::uint32_t> context_of(open.size(), 0);
    for (std::size_t k = 0; k <= p_ && k < rows_.size(); ++k) {
        const LoopRow& r = rows_[k];
        if (!r.valid) continue;
        const TracePoint& p = points_.points()[r.id];
        if (p.loop >= 0 && points_.loops()[static_cast<std::size_t>(p.loop)].header == r.id) {
            open[static_cast<std::size_t>(p.loop)] += r.iterations;
            context_of[static_cast<std::size_t>(p.loop)] = r.context;
        }
    }
    for (const auto& [key, running] : running_over_) {  // called loops' totals in entries still open
        if (key.outer != kCallerLoop) continue;
        std::uint64_t& total = out[std::uint64_t{key.context} << 32 | key.loop];
        total = std::max(total, running);
    }
    for (std::size_t l = 0; l < open.size(); ++l) {
        int parent = points_.loops()[l].parent;
        if (parent < 0 || open[l] == 0) continue;
        // An open total belongs to the open row of its parent, in that row's context.
        std::uint64_t& total = out[std::uint64_t{context_of[static_cast<std::size_t>(parent)]} << 32 | l];
        total = std::max(total, open[l]);
    }
    return out;
}

std::unordered_map<LoopContextTracker::NestedKey, std::uint64_t, LoopContextTracker::NestedKeyHash> LoopContextTracker::max_totals_over_outer()
    const {
    auto out = max_outer_;
    for (const auto& [key, running] : running_over_) {  // entries still open, as far as they got
        if (key.outer == kCallerLoop) continue;
        std::uint64_t& most = out[key];
        most = std::max(most, running);
    }
    return out;
}

}  // namespace emutrace::analysis::wcet
