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
                           std::uint64_t period, bool stretch, bool from_entry) {
    Counter c{g, plan, from, to, markers, static_cast<std::int64_t>(period), stretch, {}};
    Reconstruction r;
    // After the first sample: inside `from`, which leaves at best 1 cycle later; or at its
    // entry, which then runs in full with its operations.
    MarkerState start;
    if (from_entry) plan.apply(from, start);
    const std::int64_t first_step = from_entry ? static_cast<std::int64_t>(g.vertices[from].cost) : 1;
    // The second sample in the same run of `from`: nothing else entered.
    bool same_instance = from == to && markers == start && (stretch || period < g.vertices[from].cost);
    int n = same_instance ? 1 : 0;
    for (std::uint32_t w : g.vertices[from].successors) {
        if (n >= 2) break;
        if (first_step > c.period) break;
        MarkerState m = start;
        plan.apply(w, m);
        n = std::min(2, n + c.count(w, first_step, m));
    }
    r.candidates = static_cast<std::size_t>(n);
    if (n != 1 || same_instance) return r;
    // The unique path: follow the successors with a completion.
    std::uint32_t v = from;
    std::int64_t t = from_entry ? 0 : 1 - static_cast<std::int64_t>(g.vertices[from].cost);
    MarkerState m = start;
    for (bool first = true;; first = false) {
        if (!first && c.ends_here(v, t) && m == markers) break;
        std::int64_t next = first ? first_step : t + g.vertices[v].cost;
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
