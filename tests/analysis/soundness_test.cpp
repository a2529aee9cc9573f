// The pieces that keep a WCET bound honest on real code, each on a hand-made case: the call
// tracer's function times (CallTimes) with tail calls and interrupts, the soundness check's
// verdicts, and the IPET's conditional calls, indirect-call alternatives and loop totals. The
// loop module's tail calls and totals are in wcet_test.cpp with its other transitions.
#include <doctest/doctest.h>

#include "analysis/wcet/call_times.h"
#include "analysis/wcet/ipet.h"
#include "analysis/wcet/soundness_check.h"

using namespace emutrace::analysis;
using namespace emutrace::analysis::wcet;

namespace {

CallEvent entry(std::uint64_t cycle, std::uint32_t function, std::uint32_t depth, bool tail = false) {
    CallEvent e;
    e.kind = CallEvent::Kind::Entry;
    e.cycle = cycle;
    e.function = function;
    e.depth = depth;
    e.tail = tail;
    return e;
}

CallEvent exit_of(std::uint64_t cycle, std::uint32_t function, std::uint32_t depth, bool tail = false) {
    CallEvent e = entry(cycle, function, depth, tail);
    e.kind = CallEvent::Kind::Exit;
    return e;
}

CallEvent exception(CallEvent::Kind kind, std::uint64_t cycle) {
    CallEvent e;
    e.kind = kind;
    e.cycle = cycle;
    return e;
}

}  // namespace

TEST_CASE("call times: a tail-called function's time is in the function it replaced, interrupts are not") {
    CallTimes t;
    t.on_call_event(entry(0, 0x100, 0));           // the context's base frame: no run
    t.on_call_event(entry(10, 0x200, 1));          // f called
    t.on_call_event(exception(CallEvent::Kind::ExceptionEntry, 15));
    t.on_call_event(exception(CallEvent::Kind::ExceptionReturn, 19));  // 4 cycles of handler
    t.on_call_event(exit_of(20, 0x200, 1, true));  // f tail-calls g
    t.on_call_event(entry(20, 0x300, 1, true));
    t.on_call_event(exit_of(50, 0x300, 1));        // g returns to f's caller
    t.on_call_event(exit_of(60, 0x100, 0, false));
    REQUIRE(t.times().count(0x200));
    REQUIRE(t.times().count(0x300));
    CHECK(t.times().at(0x200).max == 50 - 10 - 4);
    CHECK(t.times().at(0x300).max == 50 - 20);
    CHECK_FALSE(t.times().count(0x100));  // the base frame was no call
    CallEvent late = exit_of(70, 0x400, 1);
    late.at_end = true;
    t.on_call_event(entry(65, 0x400, 1));
    t.on_call_event(late);
    CHECK_FALSE(t.times().count(0x400));  // cut off by the end of the run: no run, as in the aggregator
}

TEST_CASE("soundness check: equal times pass, any difference names the function, threads are not checked") {
    emutrace::decode::Program program;
    StatisticsTable table;
    CallTimes calls;
    calls.on_call_event(entry(0, 0x100, 0));
    calls.on_call_event(entry(10, 0x200, 1));
    calls.on_call_event(exit_of(30, 0x200, 1));
    table.functions[0x200].time.add(20);
    SoundnessReport ok = check_soundness(program, table, calls, 0, 0);
    CHECK(ok.passed());

    StatisticsTable longer = table;
    longer.functions[0x200].time = {};
    longer.functions[0x200].time.add(21);
    SoundnessReport off = check_soundness(program, longer, calls, 0, 0);
    REQUIRE(off.disagreements.size() == 1);
    CHECK(off.disagreements[0].find("0x00000200") != std::string::npos);
    CHECK(off.disagreements[0].find("21 cycles from the CFG") != std::string::npos);
    CHECK(check_soundness(program, longer, calls, 0, 0, 1).passed());  // within a granularity of 1 cycle

    StatisticsTable more = table;
    more.functions[0x300].time.add(5);  // a run the branch events never saw
    CHECK(check_soundness(program, more, calls, 0, 0).disagreements.size() == 1);
    CHECK(check_soundness(program, table, calls, 3, 0).disagreements.size() == 1);  // unmatched returns

    CallEvent sw;
    sw.kind = CallEvent::Kind::ThreadSwitch;
    calls.on_call_event(sw);
    SoundnessReport threads = check_soundness(program, table, calls, 0, 0);
    CHECK_FALSE(threads.checked);
    CHECK_FALSE(threads.passed());
    CHECK(threads.why_not.find("threads") != std::string::npos);
}

TEST_CASE("ipet: a conditional call happens at most once per execution, and a group of alternatives once together") {
    // 0 calls (conditionally) 2 or 3; 1 exits. Callees: 2 (cost 50), 3 (cost 80), each returning.
    IpetProblem p;
    auto blk = [](double cost, bool exit) {
        IpetBlock b;
        b.first_cost = b.later_cost = cost;
        b.may_exit = exit;
        return b;
    };
    p.blocks = {blk(1, false), blk(1, true), blk(50, true), blk(80, true)};
    p.edges.push_back({0, 1});
    p.calls.push_back({0, 2, true, 0});
    p.calls.push_back({0, 3, true, 0});
    CHECK(solve_ipet(p).bound == 1 + 1 + 80);  // one of the two alternatives: the dearer
    p.calls[1].group = 1;  // two independent conditional calls: both may happen
    CHECK(solve_ipet(p).bound == 1 + 1 + 50 + 80);
    p.calls[0].conditional = p.calls[1].conditional = false;  // unconditional calls must happen
    p.blocks[2].first_seen = false;
    CHECK_THROWS(solve_ipet(p));
    p.calls[0].conditional = true;  // a conditional call of a callee that never ran may not happen
    CHECK(solve_ipet(p).bound == 1 + 1 + 80);
}

TEST_CASE("ipet: a nested loop's total per entry of its enclosing loop caps its header's executions") {
    // 0 -> outer header 1 -> inner header 2 (self loop) -> 1 | exit 3
    IpetProblem p;
    auto lb = [](int loop, double cost, bool exit = false) {
        IpetBlock b;
        b.first_cost = b.later_cost = cost;
        b.loop = loop;
        b.may_exit = exit;
        return b;
    };
    p.blocks = {lb(-1, 1), lb(0, 1), lb(1, 10), lb(-1, 1, true)};
    p.edges = {{0, 1}, {1, 2}, {2, 2}, {2, 1}, {1, 3}};
    p.loops.push_back({1, {0}, 5, "outer"});
    p.loops.push_back({2, {1}, 4, "inner"});
    double square = solve_ipet(p).bound;
    p.loops[1].parent = 0;
    p.loops[1].total = 10;  // 4 + 3 + 2 + 1 over the outer loop's iterations
    double triangle = solve_ipet(p).bound;
    CHECK(triangle < square);
    CHECK(triangle == 1 + 5 * 1 + 10 * 10 + 1);
}
