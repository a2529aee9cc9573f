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
    t.on_call_event(entry(0, 0x100, 0));   // the context's base frame: no run
    t.on_call_event(entry(10, 0x200, 1));  // f called
    t.on_call_event(exception(CallEvent::Kind::ExceptionEntry, 15));
    t.on_call_event(exception(CallEvent::Kind::ExceptionReturn, 19));
    t.on_call_event(exception(CallEvent::Kind::Resume, 21));  // 6 cycles of handler, the return's included
    t.on_call_event(exit_of(20, 0x200, 1, true));             // f tail-calls g
    t.on_call_event(entry(20, 0x300, 1, true));
    t.on_call_event(exit_of(50, 0x300, 1));  // g returns to f's caller
    t.on_call_event(exit_of(60, 0x100, 0, false));
    REQUIRE(t.times().count(0x200));
    REQUIRE(t.times().count(0x300));
    CHECK(t.times().at(0x200).max == 50 - 10 - 6);
    CHECK(t.times().at(0x300).max == 50 - 20);
    CHECK_FALSE(t.times().count(0x100));  // the base frame was no call
    CallEvent late = exit_of(70, 0x400, 1);
    late.at_end = true;
    t.on_call_event(entry(65, 0x400, 1));
    t.on_call_event(late);
    CHECK_FALSE(t.times().count(0x400));  // cut off by the end of the run: no run, as in the aggregator
}

TEST_CASE("soundness check: equal times pass, any difference names the function, a blocked run is marked") {
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
    CHECK(off.disagreements[0].function == 0x200);
    CHECK(off.disagreements[0].text.find("0x00000200") != std::string::npos);
    CHECK(off.disagreements[0].text.find("21 cycles from the CFG") != std::string::npos);
    CHECK(check_soundness(program, longer, calls, 0, 0, 1).passed());  // within a granularity of 1 cycle

    StatisticsTable more = table;
    more.functions[0x300].time.add(5);  // a run the branch events never saw
    CHECK(check_soundness(program, more, calls, 0, 0).disagreements.size() == 1);
    SoundnessReport lost = check_soundness(program, table, calls, 3, 0);  // unmatched returns concern the whole run
    REQUIRE(lost.disagreements.size() == 1);
    CHECK(lost.disagreements[0].function == 0);

    // A run during which its thread was switched out includes the other threads' time.
    calls.on_call_event(entry(40, 0x300, 1));
    CallEvent sw;
    sw.kind = CallEvent::Kind::ThreadSwitch;
    sw.cycle = 50;
    calls.on_call_event(sw);
    calls.on_call_event(exit_of(90, 0x300, 1));
    table.functions[0x300].time.add(50);
    SoundnessReport blocked = check_soundness(program, table, calls, 0, 0);
    CHECK(blocked.disagreements.empty());
    CHECK(blocked.switched_out.count(0x300) == 1);
    CHECK(blocked.switched_out.count(0x200) == 0);
    CHECK_FALSE(blocked.passed());
}

TEST_CASE("call times: handler time ends where the interrupted code resumes, the return's cycles included") {
    CallTimes t;
    t.on_call_event(entry(0, 0x100, 0));
    t.on_call_event(entry(10, 0x200, 1));
    t.on_call_event(exception(CallEvent::Kind::ExceptionEntry, 20));
    t.on_call_event(exception(CallEvent::Kind::ExceptionReturn, 30));
    t.on_call_event(exception(CallEvent::Kind::ExceptionEntry, 32));  // tail-chained: one stretch
    t.on_call_event(exception(CallEvent::Kind::ExceptionReturn, 40));
    t.on_call_event(exception(CallEvent::Kind::Resume, 52));  // after the unstacking
    t.on_call_event(exit_of(60, 0x200, 1));
    CHECK(t.times().at(0x200).max == 60 - 10 - (52 - 20));
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
    p.calls[1].group = 1;                      // two independent conditional calls: both may happen
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
