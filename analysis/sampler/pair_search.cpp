#include "analysis/sampler/pair_search.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <queue>
#include <unordered_set>

namespace emutrace::analysis::sampler {
namespace {

constexpr std::size_t kLead = 8;  // blocks the leading execution may be ahead before the two part

// A product state without its absolute time (the dynamics only depend on the difference). No
// implicit padding: states are hashed and compared as bytes.
struct Key {
    std::uint64_t bits1 = 0, bits2 = 0;
    std::array<std::int16_t, kMaxCounters> counter_diff{};  ///< first's counters minus second's
    std::array<std::uint16_t, kLead> lead{};                ///< blocks the first entered, the second not yet
    std::uint16_t u1 = 0, u2 = 0;                           ///< current blocks
    std::uint16_t assigned1 = 0, assigned2 = 0;
    std::int16_t d = 0;       ///< start of u1 minus start of u2
    std::uint8_t parted = 0;  ///< the paths differ
    std::uint8_t lead_len = 0;
    std::uint8_t parked = 0;  ///< stretched: execution 1 or 2 waits in its block for the other
    std::uint8_t pad = 0;
};
static_assert(sizeof(Key) == 16 + 2 * kMaxCounters + 2 * kLead + 8 + 2 + 1 + 1 + 1 + 1, "Key has no padding");

struct State {
    Key key;
    std::int64_t t1 = 0, t2 = 0;  ///< start times of u1 and u2 after the first sample
    std::int32_t parent = -1;
    std::uint8_t moved = 0;  ///< 1: the first execution entered key.u1, 2: the second key.u2
};

struct KeyHash {
    const std::vector<State>* states;
    std::size_t operator()(std::uint32_t i) const {
        const auto* p = reinterpret_cast<const unsigned char*>(&(*states)[i].key);
        std::uint64_t h = 0xcbf29ce484222325ull;
        for (std::size_t k = 0; k < sizeof(Key); ++k) h = (h ^ p[k]) * 0x100000001b3ull;
        return static_cast<std::size_t>(h);
    }
};
struct KeyEqual {
    const std::vector<State>* states;
    bool operator()(std::uint32_t a, std::uint32_t b) const { return std::memcmp(&(*states)[a].key, &(*states)[b].key, sizeof(Key)) == 0; }
};

void apply(const MarkerPlan& plan, std::uint32_t v, Key& k, bool first) {
    for (const MarkerOp& op : plan.ops[v]) {
        std::uint64_t& bits = first ? k.bits1 : k.bits2;
        switch (op.kind) {
            case MarkerOp::Kind::SetBit: bits |= std::uint64_t{1} << op.marker; break;
            case MarkerOp::Kind::ClearBit: bits &= ~(std::uint64_t{1} << op.marker); break;
            case MarkerOp::Kind::Increment:
                k.counter_diff[op.marker] = static_cast<std::int16_t>(k.counter_diff[op.marker] + (first ? op.value : -op.value));
                break;
            case MarkerOp::Kind::Assign: (first ? k.assigned1 : k.assigned2) = op.value; break;
        }
    }
}

// What the counters can still do, for a lower bound on the time at which they are equal again:
// counters only grow, so a difference closes only by the behind execution entering more blocks
// that increment that counter.
struct CounterReach {
    std::array<std::int64_t, kMaxCounters> min_cost{};  ///< cheapest block incrementing the counter
    std::array<std::int64_t, kMaxCounters> max_step{};  ///< largest increment one block makes
};

CounterReach counter_reach(const SamplingGraph& g, const MarkerPlan& plan) {
    CounterReach r;
    r.min_cost.fill(std::numeric_limits<std::int64_t>::max());
    for (std::uint32_t v = 0; v < plan.ops.size(); ++v) {
        std::array<std::int64_t, kMaxCounters> step{};
        for (const MarkerOp& op : plan.ops[v])
            if (op.kind == MarkerOp::Kind::Increment) step[op.marker] += op.value;
        for (unsigned c = 0; c < kMaxCounters; ++c) {
            if (!step[c]) continue;
            r.min_cost[c] = std::min<std::int64_t>(r.min_cost[c], g.vertices[v].cost);
            r.max_step[c] = std::max(r.max_step[c], step[c]);
        }
    }
    return r;
}

bool markers_equal(const Key& k) {
    if (k.bits1 != k.bits2 || k.assigned1 != k.assigned2) return false;
    for (auto c : k.counter_diff)
        if (c) return false;
    return true;
}

// The search over pairs of executions, best first: each state two executions' current blocks
// and their start times, ordered by the later start time raised to a lower bound on when the
// counters can be equal again (A*). The bound never overestimates, so the first state found is
// still the one with the smallest Δt; it keeps the search away from executions whose counters
// have drifted far apart, which otherwise multiply the product states.
class PairSearch {
public:
    PairSearch(const SamplingGraph& g, const MarkerPlan& plan, const SearchLimits& limits)
        : g_(g), plan_(plan), limits_(limits), seen_(1 << 16, KeyHash{&states_}, KeyEqual{&states_}), reach_(counter_reach(g, plan)) {
        states_.reserve(1 << 16);
    }

    SearchOutcome run() {
        SearchOutcome out;
        seed();
        while (!queue_.empty()) {
            auto [priority, index] = queue_.top();
            queue_.pop();
            if (*seen_.find(index) != index) continue;  // a later, earlier-timed state of the same key replaced it
            if (static_cast<std::uint64_t>(std::max<std::int64_t>(priority, 0)) > limits_.max_delta_t) break;
            if (++out.explored > limits_.max_states) {
                out.exhausted = true;
                out.lower_bound = static_cast<std::uint64_t>(std::max<std::int64_t>(priority, 1));
                return out;
            }
            if (intersects(states_[index])) {
                out.pair = pair_ending_at(index);
                out.lower_bound = out.pair->delta_t;
                return out;
            }
            expand(index);
        }
        out.lower_bound = limits_.max_delta_t + 1;
        return out;
    }

private:
    using Entry = std::pair<std::int64_t, std::uint32_t>;
    static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

    std::int64_t cost(std::uint32_t v) const { return static_cast<std::int64_t>(g_.vertices[v].cost); }

    // The earliest the two can show the same markers again from `s`.
    std::int64_t bound(const State& s) const {
        std::int64_t at = std::max(s.t1, s.t2);
        for (unsigned c = 0; c < kMaxCounters; ++c) {
            const std::int64_t diff = s.key.counter_diff[c];
            if (!diff || !reach_.max_step[c]) continue;
            // The execution behind must enter ceil(|diff| / max_step) incrementing blocks: the
            // first after its current block ends, the others at least min_cost apart.
            const bool second_behind = diff > 0;
            if (s.key.parked == (second_behind ? 2 : 1)) return kNever;  // waits for good: never catches up
            const std::uint32_t u = second_behind ? s.key.u2 : s.key.u1;
            const std::int64_t t = second_behind ? s.t2 : s.t1;
            const std::int64_t entries = (std::abs(diff) + reach_.max_step[c] - 1) / reach_.max_step[c];
            at = std::max(at, t + cost(u) + (entries - 1) * reach_.min_cost[c]);
        }
        return at;
    }

    // The best (earliest) state of each key; a key reached again earlier replaces it, and the
    // queue's entry of the replaced one is skipped when it comes up.
    void push(const State& s) {
        states_.push_back(s);
        auto index = static_cast<std::uint32_t>(states_.size() - 1);
        auto [it, inserted] = seen_.insert(index);
        if (!inserted) {
            const State& known = states_[*it];
            if (std::max(known.t1, known.t2) <= std::max(s.t1, s.t2)) {
                states_.pop_back();
                return;
            }
            seen_.erase(it);
            seen_.insert(index);
        }
        const std::int64_t f = bound(s);
        if (f == kNever) return;
        queue_.emplace(f, index);
    }

    // The first sample falls in block v0, at an offset neither execution shows: the first
    // execution leaves v0 one cycle after the sample, the second up to c(v0) - 1 cycles later.
    void seed() {
        for (std::uint32_t v0 = 0; v0 < g_.vertices.size(); ++v0) {
            for (std::int64_t k = 0; k < (limits_.stretch ? 1 : cost(v0)); ++k) {
                State s;
                s.key.u1 = s.key.u2 = static_cast<std::uint16_t>(v0);
                s.t1 = 1 - cost(v0);
                s.t2 = 1 + k - cost(v0);
                s.key.d = static_cast<std::int16_t>(s.t1 - s.t2);
                push(s);
            }
        }
    }

    // Both in one block, in it at one instant, on different paths (parted, or one a longer prefix
    // of the other's blocks), with the same markers: a second sample then shows the same for both.
    bool intersects(const State& s) const {
        const Key& k = s.key;
        return (k.parted || k.lead_len > 0) && k.u1 == k.u2 && (limits_.stretch || std::abs(s.t1 - s.t2) < cost(k.u1)) && markers_equal(k);
    }

    IntersectingPair pair_ending_at(std::uint32_t index) const {
        const State& s = states_[index];
        IntersectingPair pair;
        pair.delta_t = static_cast<std::uint64_t>(std::max(s.t1, s.t2));
        for (std::int32_t i = static_cast<std::int32_t>(index); states_[i].parent >= 0; i = states_[i].parent) {
            if (states_[i].moved == 1)
                pair.first.push_back(states_[i].key.u1);
            else
                pair.second.push_back(states_[i].key.u2);
        }
        std::int32_t root = static_cast<std::int32_t>(index);
        while (states_[root].parent >= 0) root = states_[root].parent;
        pair.start = states_[root].key.u1;
        std::reverse(pair.first.begin(), pair.first.end());
        std::reverse(pair.second.begin(), pair.second.end());
        return pair;
    }

    // The execution whose block ends first moves on (the first on a tie). With stretched
    // durations, the one whose block started first: each may wait in its block for the other.
    void expand(std::uint32_t index) {
        const State s = states_[index];
        const Key& k = s.key;
        const std::int64_t end1 = s.t1 + cost(k.u1), end2 = s.t2 + cost(k.u2);
        const bool first = k.parked ? k.parked == 2 : limits_.stretch ? s.t1 <= s.t2 : end1 <= end2;
        if (limits_.stretch && !k.parked) {
            // A stretched block may last until the other execution catches up: the one that would
            // move may instead stay where it is for good. The time difference then no longer
            // matters, only the other's moves.
            State n = s;
            n.parent = static_cast<std::int32_t>(index);
            n.moved = 0;
            n.key.parked = first ? 1 : 2;
            n.key.d = 0;
            push(n);
        }
        for (std::uint32_t w : g_.vertices[first ? k.u1 : k.u2].successors) push(moved(s, index, w, first, first ? end1 : end2));
    }

    // `s` with one execution (the first or the second) entering block `w` at `at`.
    State moved(const State& s, std::uint32_t parent, std::uint32_t w, bool first, std::int64_t at) const {
        State n = s;
        n.parent = static_cast<std::int32_t>(parent);
        n.moved = first ? 1 : 2;
        Key& nk = n.key;
        if (first) {
            nk.u1 = static_cast<std::uint16_t>(w);
            n.t1 = at;
            if (!nk.parted) {  // the second must follow, or part
                if (nk.lead_len == kLead)
                    nk.parted = 1;  // too far ahead to follow: counted as parted (Δt only lower)
                else
                    nk.lead[nk.lead_len++] = static_cast<std::uint16_t>(w);
            }
        } else {
            nk.u2 = static_cast<std::uint16_t>(w);
            n.t2 = at;
            if (!nk.parted) {
                if (nk.lead_len > 0 && nk.lead[0] == w) {
                    std::copy(nk.lead.begin() + 1, nk.lead.begin() + nk.lead_len, nk.lead.begin());
                    nk.lead[--nk.lead_len] = 0;
                } else {
                    nk.parted = 1;
                }
            }
        }
        if (nk.parted) {
            nk.lead.fill(0);
            nk.lead_len = 0;
        }
        apply(plan_, w, nk, first);
        nk.d = nk.parked ? 0 : static_cast<std::int16_t>(n.t1 - n.t2);
        return n;
    }

    const SamplingGraph& g_;
    const MarkerPlan& plan_;
    const SearchLimits& limits_;
    std::vector<State> states_;
    std::unordered_set<std::uint32_t, KeyHash, KeyEqual> seen_;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
    const CounterReach reach_;
};

}  // namespace

SearchOutcome find_intersecting_pair(const SamplingGraph& g, const MarkerPlan& plan, const SearchLimits& limits) {
    return PairSearch(g, plan, limits).run();
}

}  // namespace emutrace::analysis::sampler
