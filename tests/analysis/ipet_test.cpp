#include <doctest/doctest.h>

#include <stdexcept>

#include "analysis/wcet/ipet.h"

using namespace emutrace::analysis::wcet;

namespace {

// Small builders so each graph reads like its drawing.
IpetBlock block(double cost, bool may_exit = false) {
    IpetBlock b;
    b.first_cost = b.later_cost = cost;
    b.may_exit = may_exit;
    return b;
}

IpetBlock loop_block(int loop, double first_cost, double later_cost, bool may_exit = false) {
    IpetBlock b;
    b.first_cost = first_cost;
    b.later_cost = later_cost;
    b.loop = loop;
    b.may_exit = may_exit;
    return b;
}

IpetBlock unseen(IpetBlock b) {
    b.first_seen = b.later_seen = false;
    return b;
}

std::size_t edge(IpetProblem& p, std::size_t from, std::size_t to) {
    p.edges.push_back({from, to});
    return p.edges.size() - 1;
}

// preheader 0 -> header 1 -> body 2 -> (latch back to 1 | exit 3): a bottom-tested loop, so header
// and body each run `bound` times.
IpetProblem bottom_tested_loop(std::uint64_t bound) {
    IpetProblem p;
    p.blocks = {block(5), loop_block(0, 4, 3), loop_block(0, 20, 6), block(2, true)};
    const std::size_t enter = edge(p, 0, 1);
    edge(p, 1, 2);
    edge(p, 2, 1);
    edge(p, 2, 3);
    p.loops.push_back({1, {enter}, bound, "main loop 0 at 0x00000124"});
    return p;
}

// 0 -> header 1 -> {2, 3} -> latch 4 -> (1 | exit 5): a bounded loop around a diamond.
IpetProblem loop_around_diamond(IpetBlock left, IpetBlock right, std::uint64_t bound) {
    IpetProblem p;
    p.blocks = {block(1), loop_block(0, 2, 2), left, right, loop_block(0, 1, 1), block(1, true)};
    const std::size_t enter = edge(p, 0, 1);
    edge(p, 1, 2);
    edge(p, 1, 3);
    edge(p, 2, 4);
    edge(p, 3, 4);
    edge(p, 4, 1);
    edge(p, 4, 5);
    p.loops.push_back({1, {enter}, bound, "loop"});
    return p;
}

}  // namespace

TEST_CASE("ipet: a straight line runs every block once") {
    IpetProblem p;
    p.blocks = {block(5), block(7), block(11, true)};
    edge(p, 0, 1);
    edge(p, 1, 2);
    for (bool sensitive : {true, false}) {
        const IpetSolution s = solve_ipet(p, sensitive);
        CHECK(s.bound == 23);
        CHECK(s.first == std::vector<std::uint64_t>{1, 1, 1});
        CHECK(s.later == std::vector<std::uint64_t>{0, 0, 0});
        CHECK(s.edges == std::vector<std::uint64_t>{1, 1});
    }
}

TEST_CASE("ipet: a diamond takes its more expensive arm") {
    IpetProblem p;
    // 0 -> {1 (3 cycles), 2 (10 cycles)} -> 3; the expensive arm is the second one.
    p.blocks = {block(2), block(3), block(10), block(4, true)};
    const std::size_t to_cheap = edge(p, 0, 1);
    const std::size_t to_dear = edge(p, 0, 2);
    edge(p, 1, 3);
    edge(p, 2, 3);
    const IpetSolution s = solve_ipet(p);
    CHECK(s.bound == 16);
    CHECK(s.first[1] == 0);
    CHECK(s.first[2] == 1);
    CHECK(s.edges[to_cheap] == 0);
    CHECK(s.edges[to_dear] == 1);
}

TEST_CASE("ipet: a loop runs its bound, with the first iteration charged separately") {
    const IpetProblem p = bottom_tested_loop(10);
    SUBCASE("context-sensitive: body 20 cycles once, then 6 cycles nine times") {
        const IpetSolution s = solve_ipet(p, true);
        // 5 + (4 + 9*3) + (20 + 9*6) + 2
        CHECK(s.bound == 112);
        CHECK(s.first[1] == 1);
        CHECK(s.later[1] == 9);
        CHECK(s.first[2] == 1);
        CHECK(s.later[2] == 9);
        CHECK(s.edges == std::vector<std::uint64_t>{1, 10, 9, 1});
    }
    SUBCASE("a header slower in later iterations still runs exactly one first iteration per entry") {
        IpetProblem slow = p;
        slow.blocks[1].first_cost = 3;
        slow.blocks[1].later_cost = 4;
        const IpetSolution s = solve_ipet(slow, true);
        // 5 + (3 + 9*4) + (20 + 9*6) + 2
        CHECK(s.bound == 120);
        CHECK(s.first[1] == 1);
        CHECK(s.later[1] == 9);
    }
    SUBCASE("insensitive: every iteration at the larger cost") {
        const IpetSolution s = solve_ipet(p, false);
        // 5 + 10*4 + 10*20 + 2
        CHECK(s.bound == 247);
        CHECK(s.first[2] + s.later[2] == 10);
    }
}

TEST_CASE("ipet: virtual unrolling keeps a first-iteration-only arm out of later iterations") {
    // 0 -> header 1 -> {then 2 (50 cycles, seen only in the first iteration), else 3 (5 cycles)}
    //   -> latch 4 -> (1 | exit 5); bound 10.
    IpetBlock then_arm = loop_block(0, 50, 50);
    then_arm.later_seen = false;
    IpetProblem p = loop_around_diamond(then_arm, loop_block(0, 5, 5), 10);

    const IpetSolution sensitive = solve_ipet(p, true);
    // 1 + 10*2 + 1*50 + 9*5 + 10*1 + 1
    CHECK(sensitive.bound == 127);
    CHECK(sensitive.first[2] == 1);
    CHECK(sensitive.later[2] == 0);
    CHECK(sensitive.first[3] + sensitive.later[3] == 9);

    const IpetSolution insensitive = solve_ipet(p, false);
    // 1 + 10*2 + 10*50 + 10*1 + 1: the then arm is allowed in every iteration
    CHECK(insensitive.bound == 532);
    CHECK(insensitive.first[2] + insensitive.later[2] == 10);
    CHECK(insensitive.first[3] + insensitive.later[3] == 0);
}

TEST_CASE("ipet: a block seen only in later iterations is allowed everywhere by the insensitive bound") {
    // 0 -> header 1 -> {2 (5 cycles, seen only in first iterations), 3 (50 cycles first, 30 later,
    // seen only in later iterations)} -> latch 4 -> (1 | exit 5); bound 10.
    IpetBlock first_only = loop_block(0, 5, 5), later_only = loop_block(0, 50, 30);
    first_only.later_seen = false;
    later_only.first_seen = false;
    IpetProblem p = loop_around_diamond(first_only, later_only, 10);

    const IpetSolution sensitive = solve_ipet(p, true);
    // First-iteration counts are only bounded from above, so the later-only arm may stand in for the
    // first iteration too (safe, if not tight): 1 + 10*2 + 10*30 + 10*1 + 1.
    CHECK(sensitive.bound == 332);
    CHECK(sensitive.first[3] == 0);
    CHECK(sensitive.later[3] == 10);

    const IpetSolution insensitive = solve_ipet(p, false);
    // 1 + 10*2 + 10*50 + 10*1 + 1: the arm is allowed in every iteration at its larger cost
    CHECK(insensitive.bound == 532);
    CHECK(insensitive.first[3] + insensitive.later[3] == 10);
}

TEST_CASE("ipet: nested loops multiply their bounds") {
    // 0 -> outer header 1 -> inner header 2 -> inner body 3 -> (2 | outer latch 4) -> (1 | exit 5)
    // Outer bound 3, inner bound 4 per entry.
    IpetProblem p;
    p.blocks = {block(1), loop_block(0, 10, 2), loop_block(1, 7, 3), loop_block(1, 20, 5), loop_block(0, 4, 4), block(1, true)};
    const std::size_t enter_outer = edge(p, 0, 1);
    const std::size_t enter_inner = edge(p, 1, 2);
    edge(p, 2, 3);
    edge(p, 3, 2);
    edge(p, 3, 4);
    edge(p, 4, 1);
    edge(p, 4, 5);
    p.loops.push_back({1, {enter_outer}, 3, "outer"});
    p.loops.push_back({2, {enter_inner}, 4, "inner"});

    const IpetSolution s = solve_ipet(p, true);
    // 1 + (10 + 2*2) + (3*7 + 9*3) + (3*20 + 9*5) + 3*4 + 1: the inner loop is entered 3 times,
    // so its blocks have 3 first iterations and 9 later ones.
    CHECK(s.bound == 181);
    CHECK(s.first[1] == 1);
    CHECK(s.later[1] == 2);
    CHECK(s.first[2] == 3);
    CHECK(s.later[2] == 9);
    CHECK(s.first[3] == 3);
    CHECK(s.later[3] == 9);
    CHECK(s.edges[enter_inner] == 3);

    const IpetSolution flat = solve_ipet(p, false);
    // 1 + 3*10 + 12*7 + 12*20 + 3*4 + 1
    CHECK(flat.bound == 368);
    CHECK(flat.first[2] + flat.later[2] == 12);
}

TEST_CASE("ipet: a callee is counted once per call") {
    // main: 0 -> 1 -> 2 (exit), blocks 0 and 1 call f.
    // f: 3 -> {4 (8 cycles), 5 (2 cycles)} -> 6 (return).
    IpetProblem p;
    p.blocks = {block(2), block(3), block(1, true), block(10), block(8), block(2), block(4, true)};
    edge(p, 0, 1);
    edge(p, 1, 2);
    edge(p, 3, 4);
    edge(p, 3, 5);
    edge(p, 4, 6);
    edge(p, 5, 6);
    p.calls = {{0, 3}, {1, 3}};
    const IpetSolution s = solve_ipet(p);
    // (2 + 3 + 1) + 2 * (10 + 8 + 4)
    CHECK(s.bound == 50);
    CHECK(s.first[3] == 2);
    CHECK(s.first[4] == 2);
    CHECK(s.first[5] == 0);
    CHECK(s.first[6] == 2);
}

TEST_CASE("ipet: the same call listed twice from one block enters the callee twice") {
    // main: 0 (exit) calls f twice; f: 1 (return). The repeated (row, column) pair must be summed.
    IpetProblem p;
    p.blocks = {block(2, true), block(10, true)};
    p.calls = {{0, 1}, {0, 1}};
    const IpetSolution s = solve_ipet(p);
    CHECK(s.bound == 22);
    CHECK(s.first[1] == 2);
}

TEST_CASE("ipet: a call from inside a loop enters the callee once per iteration") {
    IpetProblem p = bottom_tested_loop(10);
    p.blocks.push_back(block(100, true));  // 4: a leaf function called from the body
    p.calls = {{2, 4}};
    const IpetSolution s = solve_ipet(p);
    CHECK(s.bound == 112 + 10 * 100);
    CHECK(s.first[4] == 10);
}

TEST_CASE("ipet: a block never measured is never chosen, however expensive") {
    IpetProblem p;
    // 0 -> {1 (never seen), 2, 4 (outside loops, first_seen false; later_seen keeps its default,
    // which means nothing outside a loop)} -> 3
    IpetBlock outside_unseen = block(500);
    outside_unseen.first_seen = false;
    p.blocks = {block(2), unseen(block(1000)), block(7), block(4, true), outside_unseen};
    edge(p, 0, 1);
    edge(p, 0, 2);
    edge(p, 1, 3);
    edge(p, 2, 3);
    edge(p, 0, 4);
    edge(p, 4, 3);
    for (bool sensitive : {true, false}) {
        const IpetSolution s = solve_ipet(p, sensitive);
        CHECK(s.bound == 13);
        CHECK(s.first[1] == 0);
        CHECK(s.first[2] == 1);
        CHECK(s.first[4] == 0);
    }
}

TEST_CASE("ipet: a seen loop without a bound is an error naming the loop") {
    const IpetProblem p = bottom_tested_loop(0);
    CHECK_THROWS_WITH_AS(solve_ipet(p, true), doctest::Contains("main loop 0 at 0x00000124"), std::runtime_error);
    CHECK_THROWS_WITH_AS(solve_ipet(p, false), doctest::Contains("no loop bound"), std::runtime_error);
}

TEST_CASE("ipet: an unbounded loop whose header was never seen is simply not taken") {
    // 0 -> {loop header 1 (never measured, bound 0, self loop), 2} -> 3
    IpetProblem p;
    p.blocks = {block(2), unseen(loop_block(0, 50, 50)), block(7), block(4, true)};
    const std::size_t enter = edge(p, 0, 1);
    edge(p, 1, 1);
    edge(p, 0, 2);
    edge(p, 1, 3);
    edge(p, 2, 3);
    p.loops.push_back({1, {enter}, 0, "dead loop"});
    const IpetSolution s = solve_ipet(p);
    CHECK(s.bound == 13);
    CHECK(s.first[1] + s.later[1] == 0);
}

TEST_CASE("ipet: a loop heading a function is entered from outside the graph") {
    // The entry block is itself a loop header (a function that starts with its loop): 0 -> 1 -> (0 | exit 2).
    IpetProblem p;
    p.blocks = {loop_block(0, 9, 1), loop_block(0, 3, 3), block(1, true)};
    edge(p, 0, 1);
    edge(p, 1, 0);
    edge(p, 1, 2);
    p.loops.push_back({0, {}, 5, "loop at function entry"});
    const IpetSolution s = solve_ipet(p);
    // (9 + 4*1) + 5*3 + 1
    CHECK(s.bound == 29);
    CHECK(s.first[0] == 1);
    CHECK(s.later[0] == 4);
}

TEST_CASE("ipet: no measured path from the entry to an exit is an error") {
    IpetProblem p;
    p.blocks = {block(2), unseen(block(3)), block(4, true)};
    edge(p, 0, 1);
    edge(p, 1, 2);
    CHECK_THROWS_WITH_AS(solve_ipet(p), doctest::Contains("no path from the entry"), std::runtime_error);
}

TEST_CASE("ipet: a cycle that is not a declared loop is reported as unbounded") {
    IpetProblem p;
    p.blocks = {block(2), block(3), block(4, true)};
    edge(p, 0, 1);
    edge(p, 1, 1);
    edge(p, 1, 2);
    CHECK_THROWS_WITH_AS(solve_ipet(p), doctest::Contains("unbounded"), std::runtime_error);
}

TEST_CASE("ipet: a path count holds a block per run of its scope, the runs being the flow into any of the scope's copies") {
    // Entry 0 calls copy A (blocks 1-3) twice, copy B (blocks 4-6) once; each copy is a diamond
    // whose dear arm (2, 5: 100 cycles) is held to one run in two of the scope {A, B}.
    IpetProblem p;
    p.blocks = {block(1), block(1), block(100, true), block(1, true), block(1), block(100, true), block(1, true), block(1, true)};
    p.edges = {{0, 7}, {1, 2}, {1, 3}, {4, 5}, {4, 6}};
    p.calls = {{0, 1}, {0, 1}, {0, 4}};
    CHECK(solve_ipet(p).bound == 1 + 1 + 3 * (1 + 100));  // any mix: every call takes the dear arm
    p.caps.push_back({2, 1, {{1, 4}, {4, 7}}});
    p.caps.push_back({5, 1, {{1, 4}, {4, 7}}});
    CHECK(solve_ipet(p).bound == 1 + 1 + 3 * (1 + 100));  // one per run of the scope: three runs, three dear arms
    p.caps[0].most = p.caps[1].most = 0;
    CHECK(solve_ipet(p).bound == 1 + 1 + 3 * (1 + 1));
    p.caps = {{2, 1, {}}, {5, 1, {}}};  // no ranges: per the problem's one run
    CHECK(solve_ipet(p).bound == 1 + 1 + 2 * (1 + 100) + (1 + 1));
}

TEST_CASE("ipet: a cycle cap holds a block's cycles per run of its scope, and the bound says each block's share") {
    // 0 -> loop header 1 (5 executions per entry) -> body 2 (cost 10) -> 1 | exit 3.
    IpetProblem p;
    p.blocks = {block(1), loop_block(0, 1, 1), loop_block(0, 10, 10), block(1, true)};
    p.edges = {{0, 1}, {1, 2}, {2, 1}, {1, 3}};
    p.loops.push_back({1, {0}, 5, "loop"});
    const IpetSolution any = solve_ipet(p);
    CHECK(any.bound == 1 + 5 * 1 + 4 * 10 + 1);
    p.cycle_caps.push_back({2, 32, {}});  // the runs spent 32 cycles in block 2, not 4 x 10
    const IpetSolution held = solve_ipet(p);
    CHECK(held.bound == 1 + 5 * 1 + 32 + 1);
    CHECK(held.cycles[2] == doctest::Approx(32));
    CHECK(held.cycles[1] == doctest::Approx(5));
    CHECK(held.first[2] + held.later[2] == 4);  // the count is the loop's: only the cycles are held
    p.cycle_caps.push_back({2, 40, {}});        // one cap per block
    CHECK_THROWS_AS(solve_ipet(p), std::invalid_argument);
}
