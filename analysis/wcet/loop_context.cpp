#include "analysis/wcet/loop_context.h"

#include <algorithm>

namespace emutrace::analysis::wcet {

LoopContextTracker::LoopContextTracker(const TracePoints& points, std::size_t rows)
    : points_(points), rows_(std::max<std::size_t>(rows, 4)), max_iterations_(points.loops().size(), 0) {
    shape_.reserve(points.points().size());
    for (const auto& p : points.points())
        shape_.push_back(std::uint32_t{p.distinctor} | std::uint32_t{p.level} << 16 | (p.call ? kCall : 0) | (p.entry ? kEntry : 0) |
                         (p.exit ? kExit : 0) | (p.ret ? kRet : 0));
}

// A row being overwritten or cleared: if it counted a loop's iterations, keep the maximum.
void LoopContextTracker::retire(const LoopRow& r) {
    if (!r.valid) return;
    const TracePoint& p = points_.points()[r.id];
    if (p.loop >= 0 && points_.loops()[static_cast<std::size_t>(p.loop)].header == r.id) {
        auto& m = max_iterations_[static_cast<std::size_t>(p.loop)];
        m = std::max(m, r.iterations);
    }
}

void LoopContextTracker::up(std::size_t m, LoopRow r) {
    if (p_ + m >= rows_.size()) {  // deeper than the rows: stay on the top row
        ++saturations_;
        m = rows_.size() - 1 - p_;
    }
    p_ += m;
    retire(rows_[p_]);
    r.iterations = 1;
    rows_[p_] = r;
}

void LoopContextTracker::down(std::size_t m, LoopRow r) {
    m = std::min(m, p_);
    for (std::size_t k = p_ - m + 1; k <= p_; ++k) {
        retire(rows_[k]);
        rows_[k] = LoopRow{};
    }
    p_ -= m;
    if (!rows_[p_].valid) {
        retire(rows_[p_]);
        r.iterations = 1;
        rows_[p_] = r;
    }
}

unsigned LoopContextTracker::step_slow(std::uint32_t next) {
    const TracePoint& n = points_.points()[next];
    LoopRow fresh{true, next, 0, 1};
    if (previous_ < 0) {
        // A context's first block (reset, or an exception handler): a routine entered from nowhere.
        up(rows_[p_].valid ? n.level + 1u : n.level, fresh);
        last_ = Transition::Start;
    } else {
        const TracePoint& c = points_.points()[static_cast<std::size_t>(previous_)];
        bool alpha = c.call && n.entry;
        bool beta = c.exit && n.ret;
        bool gamma = n.distinctor != c.distinctor;
        if (alpha) {
            if (frames_.size() < kMostFrames) frames_.push_back(p_);
            else ++saturations_;
            up(n.level + 1u, fresh);
            last_ = Transition::Call;
        } else if (beta) {
            std::size_t m = c.level + 1u;
            if (!frames_.empty()) {
                m = p_ >= frames_.back() ? p_ - frames_.back() : 0;
                frames_.pop_back();
            } else {
                ++saturations_;
            }
            down(m, fresh);
            last_ = Transition::Return;
        } else if (n.level > c.level) {
            up(n.level - c.level, fresh);
            last_ = Transition::Up;
        } else if (n.level < c.level) {
            down(c.level - n.level, fresh);
            last_ = Transition::Down;
        } else if (gamma) {
            up(0, fresh);
            last_ = Transition::Sibling;
        } else if (rows_[p_].valid && rows_[p_].id == next) {
            std::uint32_t iterations = rows_[p_].iterations + 1;
            rows_[p_] = LoopRow{true, next, 1, iterations};
            last_ = Transition::NextIteration;
        } else {
            last_ = Transition::Stay;
        }
    }
    previous_ = next;
    return rows_[p_].index;
}

void LoopContextTracker::exception_entry() {
    saved_.push_back({p_, previous_, frames_.size()});
    previous_ = -1;
}

void LoopContextTracker::exception_return() {
    if (saved_.empty()) return;
    Saved s = saved_.back();
    saved_.pop_back();
    for (std::size_t k = s.p + 1; k < rows_.size() && k <= p_; ++k) {
        retire(rows_[k]);
        rows_[k] = LoopRow{};
    }
    p_ = s.p;
    previous_ = s.previous;
    frames_.resize(std::min(frames_.size(), s.frames));
}

std::vector<std::uint32_t> LoopContextTracker::max_iterations() const {
    std::vector<std::uint32_t> out = max_iterations_;
    for (std::size_t k = 0; k <= p_ && k < rows_.size(); ++k) {
        const LoopRow& r = rows_[k];
        if (!r.valid) continue;
        const TracePoint& p = points_.points()[r.id];
        if (p.loop >= 0 && points_.loops()[static_cast<std::size_t>(p.loop)].header == r.id)
            out[static_cast<std::size_t>(p.loop)] = std::max(out[static_cast<std::size_t>(p.loop)], r.iterations);
    }
    return out;
}

}  // namespace emutrace::analysis::wcet
