// The marker-sampling model (Thomas, Fischmeister, Kumar, LCTES 2011): the pair search against
// brute force, the paper's examples and counter-examples per scheme, and Theorems 1 and 2.
#include <doctest/doctest.h>

#include <random>

#include "analysis/sampler/cfg_generator.h"
#include "analysis/sampler/marker_planner.h"
#include "analysis/sampler/sampling_monitor.h"

using namespace emutrace::analysis::sampler;

namespace {

// Figure 1: A -> B | C -> A, every block one cycle.
SamplingGraph figure1() {
    SamplingGraph g;
    auto a = g.add("A", 1), b = g.add("B", 1), c = g.add("C", 1);
    g.edge(a, b), g.edge(a, c), g.edge(b, a), g.edge(c, a);
    return g;
}

IntersectingPair pair(std::vector<std::uint32_t> first, std::vector<std::uint32_t> second) {
    IntersectingPair p;
    p.first = std::move(first);
    p.second = std::move(second);
    return p;
}

// The smallest Δt by enumerating every pair of walks from every block, with every start offset:
// what the product search must find, on graphs small enough to enumerate.
std::uint64_t brute_force_delta_t(const SamplingGraph& g, const MarkerPlan& plan, std::uint64_t limit, bool stretch = false) {
    struct Walk {
        std::vector<std::uint32_t> blocks;  // after the first block
        std::int64_t start = 0;             // start of the last block, from the end of the first
    };
    std::uint64_t best = limit + 1;
    for (std::uint32_t v0 = 0; v0 < g.vertices.size(); ++v0) {
        std::vector<Walk> walks, frontier{{{}, 0}};
        while (!frontier.empty()) {
            Walk w = frontier.back();
            frontier.pop_back();
            std::uint32_t at = w.blocks.empty() ? v0 : w.blocks.back();
            std::int64_t next = w.blocks.empty() ? 0 : w.start + g.vertices[at].cost;
            if (next > static_cast<std::int64_t>(limit)) continue;
            for (auto s : g.vertices[at].successors) {
                Walk n = w;
                n.blocks.push_back(s);
                n.start = next;
                walks.push_back(n);
                frontier.push_back(n);
            }
        }
        // The empty walk: the second sample still in the first sample's block.
        walks.push_back({{}, 0});
        const std::int64_t c0 = g.vertices[v0].cost;
        auto last = [&](const Walk& w) { return w.blocks.empty() ? v0 : w.blocks.back(); };
        for (const auto& a : walks)
            for (const auto& b : walks) {
                if (a.blocks == b.blocks || last(a) != last(b)) continue;
                if (!(plan.after(a.blocks) == plan.after(b.blocks))) continue;
                const std::int64_t cu = g.vertices[last(a)].cost;
                // First sample x_i in (0, c0] cycles before v0 ends; the last block starts at t_i
                // after it (the empty walk: v0 itself, which started c0 - x_i before).
                for (std::int64_t x1 = 1; x1 <= c0; ++x1)
                    for (std::int64_t x2 = 1; x2 <= c0; ++x2) {
                        std::int64_t t1 = a.blocks.empty() ? x1 - c0 : x1 + a.start, t2 = b.blocks.empty() ? x2 - c0 : x2 + b.start;
                        std::int64_t dt = std::max(t1, t2);
                        // Stretched, a block may last until the other execution arrives.
                        bool overlap = stretch || std::abs(t1 - t2) < cu;
                        if (dt >= 1 && overlap && static_cast<std::uint64_t>(dt) < best) best = static_cast<std::uint64_t>(dt);
                    }
            }
    }
    return best;
}

SamplingGraph random_graph(std::mt19937& rng, unsigned n) {
    SamplingGraph g;
    for (unsigned i = 0; i < n; ++i) g.add(std::string(1, static_cast<char>('A' + i)), 1 + rng() % 3);
    for (unsigned i = 0; i < n; ++i) {
        unsigned out = 1 + rng() % 2;
        for (unsigned k = 0; k < out; ++k) {
            auto to = static_cast<std::uint32_t>(rng() % n);
            auto& s = g.vertices[i].successors;
            if (std::find(s.begin(), s.end(), to) == s.end()) g.edge(i, to);
        }
    }
    return g;
}

}  // namespace

TEST_CASE("sampler: Figure 1's sampling period is 2 without markers and 4 with C incrementing one") {
    SamplingGraph g = figure1();
    MarkerPlan plan(g.vertices.size());
    SearchOutcome none = find_intersecting_pair(g, plan);
    REQUIRE(none.pair);
    CHECK(none.pair->delta_t == 2);
    plan.counters = 1;
    plan.ops[2].push_back({MarkerOp::Kind::Increment, 0, 1});
    SearchOutcome marked = find_intersecting_pair(g, plan);
    REQUIRE(marked.pair);
    CHECK(marked.pair->delta_t == 4);
    // The witness: two different paths from A back to A, each passing C once.
    CHECK(marked.pair->first != marked.pair->second);
    CHECK(plan.after(marked.pair->first) == plan.after(marked.pair->second));
}

TEST_CASE("sampler: the product search finds the smallest Δt that enumerating every pair of paths finds") {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        SamplingGraph g = random_graph(rng, 3 + rng() % 3);
        MarkerPlan plan(g.vertices.size());
        // Random markers of every kind.
        for (std::uint32_t v = 0; v < g.vertices.size(); ++v) {
            switch (rng() % 5) {
                case 0: plan.ops[v].push_back({MarkerOp::Kind::SetBit, static_cast<std::uint8_t>(rng() % 2), 1}); break;
                case 1: plan.ops[v].push_back({MarkerOp::Kind::ClearBit, static_cast<std::uint8_t>(rng() % 2), 1}); break;
                case 2:  // by 1 or 2: the A* bound divides a difference by the largest step
                    plan.ops[v].push_back(
                        {MarkerOp::Kind::Increment, static_cast<std::uint8_t>(rng() % 2), static_cast<std::uint16_t>(1 + rng() % 2)});
                    break;
                case 3: plan.ops[v].push_back({MarkerOp::Kind::Assign, 0, static_cast<std::uint16_t>(1 + rng() % 2)}); break;
                default: break;
            }
        }
        const std::uint64_t limit = 9;
        const bool stretch = round % 2 == 1;  // every other round with blocks that may run longer
        SearchOutcome found = find_intersecting_pair(g, plan, {limit, 1'000'000, stretch});
        std::uint64_t expected = brute_force_delta_t(g, plan, limit, stretch);
        INFO("round " << round << (stretch ? ", stretched" : ", exact"));
        if (expected > limit) {
            CHECK(!found.pair);
        } else {
            REQUIRE(found.pair);
            CHECK(found.pair->delta_t == expected);
        }
    }
}

TEST_CASE("sampler: a self loop needs history, increments have it, assignment and bit vectors do not (Figure 2)") {
    // A -> B, B -> B, B -> C: the paths B C and B B C.
    SamplingGraph g;
    g.add("A", 1), g.add("B", 1), g.add("C", 4);
    IntersectingPair p = pair({1, 2}, {1, 1, 2});
    for (const char* name : {"single", "multi", "bitvec+"}) {
        MarkerPlan plan(3);
        StepResult r = make_scheme(name)->instrument(g, p, plan);
        INFO(name);
        CHECK(r.instrumented);
        CHECK(!(plan.after(p.first) == plan.after(p.second)));
    }
    for (const char* name : {"assign", "bitvec"}) {
        MarkerPlan plan(3);
        StepResult r = make_scheme(name)->instrument(g, p, plan);
        INFO(name);
        CHECK(!r.instrumented);
    }
    MarkerPlan plan(3);
    CHECK(make_scheme("bitvec")->instrument(g, p, plan).reason.starts_with("Theorem 1"));
}

TEST_CASE("sampler: a permutation defeats increments, assignment and bit vectors tell it apart (Figure 6)") {
    SamplingGraph g;
    for (const char* v : {"A", "B", "C", "D"}) g.add(v, 1);
    IntersectingPair p = pair({1, 2, 3}, {2, 1, 3});  // B C D against C B D
    for (const char* name : {"single", "multi:25"}) {
        MarkerPlan plan(4);
        StepResult r = make_scheme(name)->instrument(g, p, plan);
        INFO(name);
        CHECK(!r.instrumented);
        CHECK(r.reason.find("permutation") != std::string::npos);
    }
    for (const char* name : {"assign", "bitvec", "bitvec+"}) {
        MarkerPlan plan(4);
        StepResult r = make_scheme(name)->instrument(g, p, plan);
        INFO(name);
        REQUIRE(r.instrumented);
        CHECK(!(plan.after(p.first) == plan.after(p.second)));
    }
    // BITVEC needs a set and a clear here: no block is on one path only.
    MarkerPlan plan(4);
    StepResult r = make_scheme("bitvec")->instrument(g, p, plan);
    CHECK(r.added.size() == 2);
}

TEST_CASE("sampler: Theorem 1 and Theorem 2 hold on hand-made pairs") {
    SamplingGraph g;
    for (const char* v : {"A", "B", "C", "D"}) g.add(v, 1);
    // Theorem 1's conditions: the same blocks, and every two blocks' last passes in the same order.
    IntersectingPair same_order = pair({1, 1, 2}, {1, 2});  // B B C against B C (Figure 8)
    MarkerPlan p1(4);
    CHECK(!make_scheme("bitvec")->instrument(g, same_order, p1).instrumented);
    MarkerPlan p1plus(4);
    CHECK(make_scheme("bitvec+")->instrument(g, same_order, p1plus).instrumented);  // B's count differs
    // Theorem 2's: equal counts too (Figure 9's kind): B C B D against C B B D.
    IntersectingPair counted = pair({1, 2, 1, 3}, {2, 1, 1, 3});
    MarkerPlan p2(4);
    StepResult r = make_scheme("bitvec+")->instrument(g, counted, p2);
    CHECK(!r.instrumented);
    CHECK(r.reason.starts_with("Theorem 2"));
    // A block on one path only: one set bit suffices.
    IntersectingPair exclusive = pair({1, 3}, {2, 3});
    MarkerPlan p3(4);
    StepResult one = make_scheme("bitvec")->instrument(g, exclusive, p3);
    REQUIRE(one.instrumented);
    CHECK(one.added.size() == 1);
    CHECK(one.added[0].op.kind == MarkerOp::Kind::SetBit);
}

TEST_CASE("sampler: BITVEC never lowers Δt, every step raises it on Figure 1") {
    SamplingGraph g = figure1();
    auto scheme = make_scheme("bitvec");
    MarkerPlanResult r = plan_markers(g, *scheme, 10, {1000, 1'000'000});
    REQUIRE(r.delta_t.size() >= 2);
    CHECK(r.interference() == 0);
    CHECK(r.delta_t.front() == 2);
    CHECK(r.achieved() > 2);
}

TEST_CASE("sampler: generated graphs are seeded, connected, and as dense as the options ask") {
    auto reachable = [](const SamplingGraph& g) {
        std::vector<bool> seen(g.vertices.size());
        std::vector<std::uint32_t> stack{0};
        seen[0] = true;
        std::size_t n = 1;
        while (!stack.empty()) {
            std::uint32_t v = stack.back();
            stack.pop_back();
            for (std::uint32_t w : g.vertices[v].successors)
                if (!seen[w]) seen[w] = true, ++n, stack.push_back(w);
        }
        return n;
    };
    double sparse_edges = 0, dense_edges = 0, blocks = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        SamplingGraph sparse = generate_structured_cfg(seed), dense = generate_structured_cfg(seed, paper_density_options());
        CHECK(generate_structured_cfg(seed, paper_density_options()).edges() == dense.edges());
        for (const SamplingGraph* g : {&sparse, &dense}) {
            CHECK(reachable(*g) == g->vertices.size());
            for (const auto& v : g->vertices) CHECK(!v.successors.empty());  // inside an endless main loop
        }
        sparse_edges += static_cast<double>(sparse.edges()) / static_cast<double>(sparse.vertices.size());
        dense_edges += static_cast<double>(dense.edges()) / static_cast<double>(dense.vertices.size());
        blocks += static_cast<double>(dense.vertices.size());
    }
    CHECK(sparse_edges / 20 < 1.4);
    CHECK(dense_edges / 20 > 1.75);  // the paper's graphs: 218 edges on 114 blocks, 1.91
    CHECK(blocks / 20 == doctest::Approx(114).epsilon(0.1));
}

TEST_CASE("sampler: the monitor splits an emulated block that runs through several of the function's blocks, each at its time") {
    // A loop A -> B -> C -> A laid out one after the other, with D branching off A, so that the
    // emulator runs A, B and C as one block (no branch between them) and stamps only its start.
    SamplingGraph g;
    const std::uint32_t costs[] = {2, 3, 5, 1};
    for (std::uint32_t i = 0; i < 4; ++i) {
        std::uint32_t v = g.add(std::string(1, static_cast<char>('A' + i)), costs[i]);
        g.vertices[v].address = 0x100 + 4 * i;
        g.vertices[v].size = 4;
    }
    g.edge(0, 1), g.edge(0, 3), g.edge(1, 2), g.edge(2, 0), g.edge(3, 0);
    MarkerPlan plan(g.vertices.size());
    std::vector<emutrace::trace::Event> events;
    std::uint64_t cycle = 0;
    for (int round = 0; round < 40; ++round) {
        emutrace::trace::Event e{};
        e.kind = emutrace::trace::EventKind::Block;
        e.cycle = cycle;
        e.address = 0x100;
        e.value = 12;  // A, B and C
        e.extra = 6;
        events.push_back(e);
        cycle += 2 + 3 + 5 + (round % 3);  // sometimes longer than the best case, as wait states make it
    }
    emutrace::trace::Event stop{};
    stop.kind = emutrace::trace::EventKind::Block;
    stop.cycle = cycle;
    stop.address = 0x900;  // other code
    events.push_back(stop);
    // Any of the three entered before the one ahead of it had its best case makes some interval
    // impossible (no walk that fits) or wrong; at every period, none may be.
    for (std::uint64_t period : {1, 3, 5, 7}) {
        SamplingMonitor monitor(g, plan, period, 0, 1, true);
        monitor.on_batch({events, {}});
        const MonitorCounts& c = monitor.counts();
        INFO("period " << period);
        CHECK(c.checked > 20);
        CHECK(c.impossible == 0);
        CHECK(c.wrong == 0);
        CHECK(c.correct > 0);
        CHECK(c.blocks_run == 41);
    }
}
