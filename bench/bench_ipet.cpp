// IPET solve time on a synthetic 1,000-block function: a chain of segments, each an outer loop
// (bound 8-20) whose body holds a diamond and one to three inner loops, with a straight-line
// diamond between segments; costs are random but seeded, first_cost >= later_cost, every block
// seen. Both modes are solved five times and the best time is kept. Target: well under 1 s.
// The second problem is what call-string contexts make (docs/wcet.md): the same 1,000 blocks, but
// each outer loop also calls a routine whose copy for that call site (its context) has a loop
// totalled over the caller's loop, and the diamonds' edges carry their own, cheaper, times in each
// iteration context (the split edge columns). The third is what the runs' path counts add
// (analysis/wcet/path_counts.h): the second with every executed block held to a count per run,
// each its count on the second's worst path, the dearer arm of each diamond to half of it and the
// other arm's cycles below its cost, which the longest path then has to go around.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <utility>

#include "analysis/wcet/ipet.h"

using namespace emutrace::analysis::wcet;

namespace {

constexpr std::size_t kBlocks = 1000;

class Generator {
public:
    explicit Generator(bool contexts) : contexts_(contexts) {}
    IpetProblem build() {
        tail_ = add(-1);  // the entry
        // Stop while a whole segment (at most 9 + 4 blocks) still fits, then pad with a straight line.
        while (problem_.blocks.size() + (contexts_ ? 18 : 13) < kBlocks) {
            segment();
            diamond(-1);
        }
        while (problem_.blocks.size() < kBlocks) link(add(-1));
        problem_.blocks[tail_].may_exit = true;
        return std::move(problem_);
    }
    /// The two arms of every diamond built.
    const std::vector<std::pair<std::size_t, std::size_t>>& arms() const { return arms_; }

private:
    std::size_t add(int loop) {
        IpetBlock b;
        b.first_cost = static_cast<double>(pick(5, 60));
        // A later iteration is at most as slow as the first (warm caches, no one-off work).
        b.later_cost = loop < 0 ? b.first_cost : b.first_cost - static_cast<double>(pick(0, static_cast<int>(b.first_cost) / 2));
        b.loop = loop;
        problem_.blocks.push_back(b);
        return problem_.blocks.size() - 1;
    }

    std::size_t edge(std::size_t from, std::size_t to) {
        problem_.edges.push_back({from, to});
        return problem_.edges.size() - 1;
    }

    /// Continues the chain at `b`; returns the edge into it.
    std::size_t link(std::size_t b) {
        const std::size_t e = edge(tail_, b);
        tail_ = b;
        return e;
    }

    /// Bottom-tested loop: header -> ... -> latch -> (header | on). `body` builds the inside.
    template <class Body>
    void loop(int lo, int hi, Body body) {
        const int index = static_cast<int>(problem_.loops.size());
        problem_.loops.push_back({});
        const std::size_t header = add(index);
        const std::size_t enter = link(header);
        body(index);
        const std::size_t latch = add(index);
        link(latch);
        edge(latch, header);
        IpetLoop& l = problem_.loops[static_cast<std::size_t>(index)];
        l.header = header;
        l.entries = {enter};
        l.bound = static_cast<std::uint64_t>(pick(lo, hi));
        l.name = "loop " + std::to_string(index);
    }

    void diamond(int loop) {
        const std::size_t split = add(loop);
        link(split);
        const std::size_t a = add(loop), b = add(loop), join = add(loop);
        arms_.push_back({a, b});
        const std::size_t to_a = edge(split, a), to_b = edge(split, b);
        if (contexts_)  // the fall-through is cheaper than the taken branch, in either iteration context
            for (std::size_t e : {to_a, to_b}) {
                const IpetBlock& from = problem_.blocks[split];
                problem_.edges[e].first_exit_cost = from.first_cost - static_cast<double>(pick(0, 3));
                problem_.edges[e].later_exit_cost = from.later_cost - static_cast<double>(pick(0, 2));
            }
        edge(a, join);
        edge(b, join);
        tail_ = join;
    }

    void segment() {
        loop(8, 20, [this](int outer) {
            diamond(outer);
            if (contexts_) call(outer);
            const int inner = pick(1, 3);
            for (int i = 0; i < inner; ++i) loop(2, 12, [](int) {});
        });
    }

    /// A call site in loop `outer`, and the callee's copy for it: entry, a loop of its own totalled
    /// over `outer`'s entry, exit.
    void call(int outer) {
        const std::size_t site = add(outer);
        link(site);
        const std::size_t resume = tail_;
        const std::size_t entry = add(-1);
        tail_ = entry;
        const int index = static_cast<int>(problem_.loops.size());
        problem_.loops.push_back({});
        const std::size_t header = add(index);
        const std::size_t enter = link(header);
        const std::size_t latch = add(index);
        link(latch);
        edge(latch, header);
        link(add(-1));
        problem_.blocks[tail_].may_exit = true;
        IpetLoop& l = problem_.loops[static_cast<std::size_t>(index)];
        l.header = header;
        l.entries = {enter};
        l.bound = static_cast<std::uint64_t>(pick(2, 12));
        l.parent = outer;
        l.total = l.bound * static_cast<std::uint64_t>(pick(4, 12));
        l.name = "called loop " + std::to_string(index);
        problem_.calls.push_back({site, entry});
        tail_ = resume;
    }

    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

    bool contexts_;
    IpetProblem problem_;
    std::vector<std::pair<std::size_t, std::size_t>> arms_;
    std::size_t tail_ = 0;
    std::mt19937 rng_{20240611};
};

// Every block on the worst path held to its count there per run (scopes: none); of every diamond,
// the arm the path took most to half of that, the other arm to the rest, and its cycles to 90% of
// what its executions cost at their first-iteration price.
void hold_to_path_counts(IpetProblem& p, const std::vector<std::pair<std::size_t, std::size_t>>& arms) {
    const IpetSolution s = solve_ipet(p, true);
    auto count = [&](std::size_t b) { return s.first[b] + s.later[b]; };
    std::vector<bool> arm(p.blocks.size(), false);
    for (auto [a, b] : arms) {
        if (count(a) < count(b)) std::swap(a, b);
        p.caps.push_back({a, count(a) / 2, {}});
        p.caps.push_back({b, count(a) - count(a) / 2 + count(b), {}});
        const auto most = static_cast<double>(count(a) - count(a) / 2 + count(b)) * p.blocks[b].first_cost;
        p.cycle_caps.push_back({b, static_cast<std::uint64_t>(0.9 * most), {}});
        arm[a] = arm[b] = true;
    }
    for (std::size_t b = 0; b < p.blocks.size(); ++b)
        if (!arm[b] && count(b) > 0) p.caps.push_back({b, count(b), {}});
}

struct Timed {
    double ms = 0;
    double bound = 0;
};

Timed best_of_5(const IpetProblem& p, bool sensitive) {
    Timed t{1e300, 0};
    for (int i = 0; i < 5; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const IpetSolution s = solve_ipet(p, sensitive);
        const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        t.ms = std::min(t.ms, took.count());
        t.bound = s.bound;
    }
    return t;
}

}  // namespace

int main() {
    try {
        bool ok = true;
        for (int mode = 0; mode < 3; ++mode) {
            const bool contexts = mode > 0;
            Generator generator(contexts);
            IpetProblem p = generator.build();
            if (mode == 2) hold_to_path_counts(p, generator.arms());
            const Timed sensitive = best_of_5(p, true);
            const Timed insensitive = best_of_5(p, false);
            std::printf(
                "bench_ipet: %s: %zu blocks, %zu edges, %zu loops, %zu calls: context-sensitive solve %.1f ms (bound %.0f cycles), "
                "insensitive %.1f ms (bound %.0f cycles); target < 1 s\n",
                mode == 2  ? "with contexts, edge times and path counts"
                : contexts ? "with call contexts and edge times"
                           : "one function",
                p.blocks.size(), p.edges.size(), p.loops.size(), p.calls.size(), sensitive.ms, sensitive.bound, insensitive.ms, insensitive.bound);
            // Charging every execution its larger cost can only raise the bound.
            const bool ordered = sensitive.bound <= insensitive.bound;
            std::printf("bench_ipet: sensitive bound <= insensitive bound: %s (%.1f%% tighter)\n", ordered ? "yes" : "NO",
                        100.0 * (1.0 - sensitive.bound / insensitive.bound));
            ok = ok && ordered && p.blocks.size() == kBlocks;
        }
        return ok ? EXIT_SUCCESS : EXIT_FAILURE;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_ipet: %s\n", e.what());
        return EXIT_FAILURE;
    }
}
