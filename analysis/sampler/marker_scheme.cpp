#include "analysis/sampler/marker_scheme.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace emutrace::analysis::sampler {
namespace {

using Path = std::vector<std::uint32_t>;

std::map<std::uint32_t, int> counts(const Path& p) {
    std::map<std::uint32_t, int> c;
    for (auto v : p) ++c[v];
    return c;
}

std::map<std::uint32_t, int> last_occurrence(const Path& p) {
    std::map<std::uint32_t, int> l;
    for (std::size_t i = 0; i < p.size(); ++i) l[p[i]] = static_cast<int>(i);
    return l;
}

int locc(const std::map<std::uint32_t, int>& l, std::uint32_t v) {
    auto it = l.find(v);
    return it == l.end() ? -1 : it->second;
}

// Blocks passed a different number of times by the two paths (the paper's δ_freq), the largest
// difference first, then the cheapest block.
std::vector<std::uint32_t> frequency_difference(const SamplingGraph& g, const IntersectingPair& pair) {
    auto c1 = counts(pair.first), c2 = counts(pair.second);
    std::set<std::uint32_t> all;
    for (auto& [v, n] : c1) all.insert(v);
    for (auto& [v, n] : c2) all.insert(v);
    std::vector<std::uint32_t> out;
    for (auto v : all)
        if (c1[v] != c2[v]) out.push_back(v);
    std::stable_sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
        int da = std::abs(c1[a] - c2[a]), db = std::abs(c1[b] - c2[b]);
        if (da != db) return da > db;
        return g.vertices[a].cost < g.vertices[b].cost;
    });
    return out;
}

// Blocks on exactly one of the paths (the paper's δ = (V(p1) ∪ V(p2)) - (V(p1) ∩ V(p2))), in order.
std::vector<std::uint32_t> exclusive(const IntersectingPair& pair) {
    std::set<std::uint32_t> a(pair.first.begin(), pair.first.end()), b(pair.second.begin(), pair.second.end());
    std::vector<std::uint32_t> out;
    std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

void add(MarkerPlan& plan, StepResult& r, std::uint32_t v, MarkerOp op) {
    plan.ops[v].push_back(op);
    r.added.push_back({v, op});
    r.instrumented = true;
}

// One more increment of `counter` in block `v`: folded into the block's increment of that
// counter when it has one (multiple increment), else a new operation.
void increment(MarkerPlan& plan, StepResult& r, std::uint32_t v, std::uint8_t counter) {
    plan.counters = std::max<unsigned>(plan.counters, counter + 1u);
    for (auto& op : plan.ops[v])
        if (op.kind == MarkerOp::Kind::Increment && op.marker == counter) {
            ++op.value;
            r.added.push_back({v, {MarkerOp::Kind::Increment, counter, 1}});
            r.instrumented = true;
            return;
        }
    add(plan, r, v, {MarkerOp::Kind::Increment, counter, 1});
}

const char* kFrequencyTheorem =
    "the two paths pass every block equally often (a permutation): no increment tells them apart (Fischmeister and Ba, "
    "path pair termination)";

// No markers: the plan stays empty, and Δt is the bare function's (the baseline of the others).
class NoMarkers final : public MarkerScheme {
public:
    std::string name() const override { return "none"; }
    StepResult instrument(const SamplingGraph&, const IntersectingPair&, MarkerPlan&) override {
        return {false, {}, "no markers (scheme none): the bare function's Δt"};
    }
};

class SingleIncrement final : public MarkerScheme {
public:
    std::string name() const override { return "single"; }
    StepResult instrument(const SamplingGraph& g, const IntersectingPair& pair, MarkerPlan& plan) override {
        StepResult r;
        auto candidates = frequency_difference(g, pair);
        if (candidates.empty()) return {false, {}, kFrequencyTheorem};
        plan.counters = 1;
        for (auto v : candidates) {  // one increment per block at most
            if (!plan.ops[v].empty()) continue;
            add(plan, r, v, {MarkerOp::Kind::Increment, 0, 1});
            return r;
        }
        r.reason = "every block the paths pass unequally often already increments the single marker";
        return r;
    }
};

class MultipleIncrement final : public MarkerScheme {
public:
    explicit MultipleIncrement(unsigned markers) : markers_(markers) {}
    std::string name() const override { return "multi:" + std::to_string(markers_); }
    StepResult instrument(const SamplingGraph& g, const IntersectingPair& pair, MarkerPlan& plan) override {
        StepResult r;
        auto candidates = frequency_difference(g, pair);
        if (candidates.empty()) return {false, {}, kFrequencyTheorem};
        // Steps take the counters in turn, so that one step's increments disturb fewer earlier ones.
        increment(plan, r, candidates.front(), static_cast<std::uint8_t>(step_++ % markers_));
        return r;
    }

private:
    unsigned markers_;
    unsigned step_ = 0;
};

class Assignment final : public MarkerScheme {
public:
    std::string name() const override { return "assign"; }
    StepResult instrument(const SamplingGraph&, const IntersectingPair& pair, MarkerPlan& plan) override {
        StepResult r;
        // Blocks on one path only first, then the rest; later in the path first (less overwritten).
        std::vector<std::uint32_t> order = exclusive(pair);
        for (const Path* p : {&pair.first, &pair.second})
            for (auto it = p->rbegin(); it != p->rend(); ++it)
                if (std::find(order.begin(), order.end(), *it) == order.end()) order.push_back(*it);
        plan.assignment = true;
        for (auto v : order) {
            MarkerOp op{MarkerOp::Kind::Assign, 0, plan.next_value};
            plan.ops[v].push_back(op);
            if (plan.after(pair.first).assigned != plan.after(pair.second).assigned) {
                plan.ops[v].pop_back();
                ++plan.next_value;
                add(plan, r, v, op);
                return r;
            }
            plan.ops[v].pop_back();
        }
        // Two blocks, each assigning a value of its own: the one each path passes last decides.
        for (auto a : order)
            for (auto b : order) {
                if (a == b) continue;
                MarkerOp first{MarkerOp::Kind::Assign, 0, plan.next_value},
                    second{MarkerOp::Kind::Assign, 0, static_cast<std::uint16_t>(plan.next_value + 1)};
                plan.ops[a].push_back(first);
                plan.ops[b].push_back(second);
                bool apart = plan.after(pair.first).assigned != plan.after(pair.second).assigned;
                plan.ops[a].pop_back();
                plan.ops[b].pop_back();
                if (!apart) continue;
                plan.next_value = static_cast<std::uint16_t>(plan.next_value + 2);
                add(plan, r, a, first);
                add(plan, r, b, second);
                return r;
            }
        r.reason = "every assignment that would tell the paths apart is overwritten by one both paths make (assignment keeps no history)";
        return r;
    }
};

// BITVEC (Function 1): a fresh bit, set in a block on one path only, or set and cleared in two
// blocks whose last passes come in different orders on the two paths.
class BitVector : public MarkerScheme {
public:
    std::string name() const override { return "bitvec"; }
    StepResult instrument(const SamplingGraph& g, const IntersectingPair& pair, MarkerPlan& plan) override {
        StepResult r;
        if (plan.bits >= kMaxBits) return {false, {}, "the 64-bit marker word is full"};
        auto bit = static_cast<std::uint8_t>(plan.bits);
        std::vector<std::uint32_t> delta = exclusive(pair);
        if (!delta.empty()) {
            std::uint32_t v = *std::min_element(delta.begin(), delta.end(), [&](auto a, auto b) { return g.vertices[a].cost < g.vertices[b].cost; });
            ++plan.bits;
            add(plan, r, v, {MarkerOp::Kind::SetBit, bit, 1});
            return r;
        }
        if (auto sc = set_and_clear(pair)) {
            ++plan.bits;
            add(plan, r, sc->first, {MarkerOp::Kind::SetBit, bit, 1});
            add(plan, r, sc->second, {MarkerOp::Kind::ClearBit, bit, 1});
            return r;
        }
        return fallback(g, pair, plan);
    }

protected:
    virtual StepResult fallback(const SamplingGraph&, const IntersectingPair&, MarkerPlan&) {
        return {false, {}, "Theorem 1: both paths pass the same blocks, and no two of them have their last passes in different orders"};
    }

    // The paper's choice first: walking both paths back from their ends, the first position where
    // they differ. Then any pair whose last passes are ordered differently.
    static std::optional<std::pair<std::uint32_t, std::uint32_t>> set_and_clear(const IntersectingPair& pair) {
        auto l1 = last_occurrence(pair.first), l2 = last_occurrence(pair.second);
        auto tells_apart = [&](std::uint32_t set, std::uint32_t clear) {
            return (locc(l1, set) > locc(l1, clear)) != (locc(l2, set) > locc(l2, clear));
        };
        for (std::size_t i = 0; i < std::min(pair.first.size(), pair.second.size()); ++i) {
            std::uint32_t a = pair.first[pair.first.size() - 1 - i], b = pair.second[pair.second.size() - 1 - i];
            if (a == b) continue;
            if (tells_apart(a, b)) return std::pair{a, b};
            if (tells_apart(b, a)) return std::pair{b, a};
            break;
        }
        for (auto& [a, la] : l1)
            for (auto& [b, lb] : l1)
                if (a != b && tells_apart(a, b)) return std::pair{a, b};
        return std::nullopt;
    }
};

// BITVEC+ (Function 2): BITVEC, and an increment marker where BITVEC cannot.
class BitVectorPlus final : public BitVector {
public:
    std::string name() const override { return "bitvec+"; }

protected:
    StepResult fallback(const SamplingGraph& g, const IntersectingPair& pair, MarkerPlan& plan) override {
        StepResult r;
        auto candidates = frequency_difference(g, pair);
        if (candidates.empty())
            return {false, {}, "Theorem 2: the paths pass every block equally often, and no two have their last passes in different orders"};
        increment(plan, r, candidates.front(), 0);
        return r;
    }
};

}  // namespace

std::unique_ptr<MarkerScheme> make_scheme(std::string_view name) {
    if (name == "none") return std::make_unique<NoMarkers>();
    if (name == "single") return std::make_unique<SingleIncrement>();
    if (name == "assign") return std::make_unique<Assignment>();
    if (name == "bitvec") return std::make_unique<BitVector>();
    if (name == "bitvec+") return std::make_unique<BitVectorPlus>();
    if (name == "multi") return std::make_unique<MultipleIncrement>(10);
    if (name.starts_with("multi:")) {
        int k = std::atoi(std::string(name.substr(6)).c_str());
        if (k >= 1 && k <= static_cast<int>(kMaxCounters)) return std::make_unique<MultipleIncrement>(static_cast<unsigned>(k));
    }
    return nullptr;
}

std::string scheme_names() {
    return "none, single, multi (10 counters), multi:K (K = 1..25), assign, bitvec, bitvec+";
}

}  // namespace emutrace::analysis::sampler
