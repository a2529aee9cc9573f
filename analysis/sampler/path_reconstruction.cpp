#include "analysis/sampler/path_reconstruction.h"

#include <map>
#include <tuple>

namespace emutrace::analysis::sampler {
namespace {

struct Counter {
    const SamplingGraph& g;
    const MarkerPlan& plan;
    std::uint32_t from, to;
    const MarkerState& target;
    std::int64_t period;
    bool stretch;
    // (block, its best-case start, markers) -> completions, capped at 2.
    std::map<std::tuple<std::uint32_t, std::int64_t, std::uint64_t, std::uint16_t, std::array<std::uint16_t, kMaxCounters>>, int> memo;

    // The second sample at `period` can fall in block `v` started at best at `t`.
    bool ends_here(std::uint32_t v, std::int64_t t) const {
        if (v != to || t > period) return false;
        if (stretch) return true;
        // Exactly c(v): the first sample x in [1, c(from)] before `from` ended, so the block
        // runs from t + x - 1 at the latest; the sample must fall before it ends.
        return period <= t + static_cast<std::int64_t>(g.vertices[from].cost) - 1 + static_cast<std::int64_t>(g.vertices[v].cost) - 1;
    }

    int count(std::uint32_t v, std::int64_t t, const MarkerState& m) {
        auto key = std::make_tuple(v, t, m.bits, m.assigned, m.counters);
        if (auto it = memo.find(key); it != memo.end()) return it->second;
        int n = ends_here(v, t) && m == target ? 1 : 0;
        std::int64_t next = t + g.vertices[v].cost;
        if (next <= period)
            for (std::uint32_t w : g.vertices[v].successors) {
                if (n >= 2) break;
                MarkerState mw = m;
                plan.apply(w, mw);
                n = std::min(2, n + count(w, next, mw));
            }
        memo[key] = n;
        return n;
    }
};

}  // namespace

Reconstruction reconstruct(const SamplingGraph& g, const MarkerPlan& plan, std::uint32_t from, std::uint32_t to, const MarkerState& markers,
                           std::uint64_t period, bool stretch) {
    Counter c{g, plan, from, to, markers, static_cast<std::int64_t>(period), stretch, {}};
    Reconstruction r;
    // The second sample in the same run of `from`: nothing entered, markers still zero.
    bool same_instance = from == to && markers == MarkerState{} && (stretch || period < g.vertices[from].cost);
    int n = same_instance ? 1 : 0;
    // Entering the first successor at best 1 cycle after the first sample.
    for (std::uint32_t w : g.vertices[from].successors) {
        if (n >= 2) break;
        MarkerState m;
        plan.apply(w, m);
        n = std::min(2, n + c.count(w, 1, m));
    }
    r.candidates = static_cast<std::size_t>(n);
    if (n != 1 || same_instance) return r;
    // The unique path: follow the successors with a completion.
    std::uint32_t v = from;
    std::int64_t t = 1 - static_cast<std::int64_t>(g.vertices[from].cost);
    MarkerState m;
    for (bool first = true;; first = false) {
        if (!first && c.ends_here(v, t) && m == markers) break;
        std::int64_t next = first ? 1 : t + g.vertices[v].cost;
        bool moved = false;
        for (std::uint32_t w : g.vertices[v].successors) {
            MarkerState mw = m;
            plan.apply(w, mw);
            if (next <= c.period && c.count(w, next, mw) > 0) {
                r.path.push_back(w);
                v = w, t = next, m = mw;
                moved = true;
                break;
            }
        }
        if (!moved) break;
    }
    return r;
}

}  // namespace emutrace::analysis::sampler
