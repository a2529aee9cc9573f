// The loop-context WCET analysis: the loop module's transitions on hand-made trace point
// sequences, merging of statistics, and end to end on tests/firmware/wcet.c.
#include <doctest/doctest.h>

#include <filesystem>

#include "analysis/wcet/loop_context.h"
#include "analysis/wcet/wcet_aggregator.h"
#include "analysis/wcet/wcet_bound.h"
#include "emutrace/config_error.h"
#include "support/run_firmware.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::analysis::wcet;
using namespace emutrace::test;

namespace {

TracePoint point(std::uint32_t first, std::uint8_t level, std::uint16_t distinctor, int loop, std::uint32_t function = 0) {
    TracePoint p;
    p.first = first;
    p.level = level;
    p.distinctor = distinctor;
    p.loop = loop;
    p.function = function;
    return p;
}

// main: A (0) -> outer loop {H1 (1), B1 (2), inner loop {H2 (3)}, C1 (4)} -> sibling loop {H3 (5)}
//       -> D (6), a call to f, R (7) where it returns, X (8);
// f:    F0 (9, entry), loop {FH (10)}, FX (11, exit).
TracePoints example() {
    std::vector<TracePoint> p{point(0x100, 0, 0, -1), point(0x104, 1, 1, 0),     point(0x108, 1, 1, 0),    point(0x10c, 2, 2, 1),
                              point(0x110, 1, 1, 0),  point(0x114, 1, 3, 2),     point(0x118, 0, 0, -1),   point(0x11c, 0, 0, -1),
                              point(0x120, 0, 0, -1), point(0x200, 0, 0, -1, 1), point(0x204, 1, 1, 3, 1), point(0x208, 0, 0, -1, 1)};
    p[0].entry = true;
    p[6].call = true;
    p[7].ret = true;
    p[8].exit = true;
    p[9].entry = true;
    p[11].exit = true;
    return TracePoints(p, {{0, 0, 1}, {0, 1, 3}, {0, 2, 5}, {1, 0, 10}});
}

struct Step {
    std::uint32_t id;
    unsigned index;
    std::size_t pointer;
};

void run_steps(LoopContextTracker& t, const std::vector<Step>& steps) {
    for (std::size_t k = 0; k < steps.size(); ++k) {
        CAPTURE(k);
        CAPTURE(steps[k].id);
        CHECK(t.step(steps[k].id) == steps[k].index);
        CHECK(t.pointer() == steps[k].pointer);
    }
}

}  // namespace

TEST_CASE("wcet loop module: nested loops, next iterations, a sibling loop, a call and its return") {
    TracePoints points = example();
    LoopContextTracker t(points);
    run_steps(t, {
                     {0, 0, 0},                                      // A
                     {1, 0, 1}, {2, 0, 1},                           // outer loop entered: first iteration
                     {3, 0, 2}, {3, 1, 2},  {3, 1, 2},               // inner loop: first, then later iterations
                     {4, 0, 1},                                      // down: still the outer loop's first iteration
                     {1, 1, 1}, {2, 1, 1},                           // the outer header again: later iteration
                     {3, 0, 2}, {3, 1, 2},                           // the inner loop starts over at its first iteration
                     {4, 1, 1}, {5, 0, 1},  {5, 1, 1},               // a sibling loop at the same level: new row (gamma)
                     {6, 0, 0},                                      // down to level 0
                     {9, 0, 1}, {10, 0, 2}, {10, 1, 2}, {11, 0, 1},  // alpha: f runs a row above; its loop above that
                     {7, 0, 0}, {8, 0, 0},                           // beta: back in main's row
                 });
    CHECK(t.last() == Transition::Stay);
    std::vector<std::uint32_t> most = t.max_iterations();
    CHECK(most == std::vector<std::uint32_t>{2, 3, 2, 2});  // the inner loop ran 3 times on its first entry, 2 on its second
    CHECK(t.saturations() == 0);
}

TEST_CASE("wcet loop module: an exception saves the context and its return restores it") {
    TracePoints points = example();
    LoopContextTracker t(points);
    run_steps(t, {{0, 0, 0}, {1, 0, 1}, {2, 0, 1}, {3, 0, 2}, {3, 1, 2}});
    t.exception_entry();
    run_steps(t, {{9, 0, 3}, {10, 0, 4}, {10, 1, 4}, {10, 1, 4}, {11, 0, 3}});  // the handler, above the interrupted rows
    t.exception_return();
    run_steps(t, {{3, 1, 2}, {4, 0, 1}});  // the inner loop goes on in its later iterations
    CHECK(t.max_iterations()[3] == 3);
}

TEST_CASE("wcet loop module: an inner loop left straight into a sibling loop's header opens the sibling's row") {
    // L1 (level 1: H1, B1) holds L2 (level 2: H2); L2's exit goes straight to L3's header (level 1).
    std::vector<TracePoint> p{point(0x100, 0, 0, -1), point(0x104, 1, 1, 0), point(0x108, 2, 2, 1), point(0x10c, 1, 3, 2), point(0x110, 0, 0, -1)};
    p[0].entry = true;
    TracePoints points(p, {{0, 0, 1}, {0, 1, 2}, {0, 2, 3}});
    LoopContextTracker t(points);
    run_steps(t, {{0, 0, 0},
                  {1, 0, 1},
                  {2, 0, 2},
                  {2, 1, 2},
                  {3, 0, 1},
                  {3, 1, 1},
                  {3, 1, 1},  // L3 runs in a row of its own: first, then later iterations
                  {4, 0, 0}});
    CHECK(t.max_iterations() == std::vector<std::uint32_t>{1, 2, 3});
}

TEST_CASE("wcet loop module: a call's return into a loop header enters the loop") {
    // main: M0 (entry, call) -> f -> H (return point, loop header at level 1) -> X
    std::vector<TracePoint> p{point(0x100, 0, 0, -1), point(0x104, 1, 1, 0), point(0x108, 0, 0, -1), point(0x200, 0, 0, -1, 1)};
    p[0].entry = p[0].call = true;
    p[1].ret = true;
    p[3].entry = p[3].exit = true;
    TracePoints points(p, {{0, 0, 1}});
    LoopContextTracker t(points);
    run_steps(t, {{0, 0, 0}, {3, 0, 1}, {1, 0, 1}, {1, 1, 1}, {1, 1, 1}, {2, 0, 0}});
    CHECK(t.max_iterations() == std::vector<std::uint32_t>{3});
}

TEST_CASE("wcet loop module: recursion deeper than the rows saturates and recovers") {
    // g calls itself: G0 (entry, call) -> G0 ... then GR (return point, exit) unwinds.
    std::vector<TracePoint> p{point(0x100, 0, 0, -1), point(0x104, 0, 0, -1)};
    p[0].entry = p[0].call = true;
    p[1].ret = p[1].exit = true;
    TracePoints points(p, {});
    LoopContextTracker t(points, 16);
    for (int k = 0; k < 100; ++k) t.step(0);
    CHECK(t.pointer() == 15);
    CHECK(t.saturations() > 0);
    for (int k = 0; k < 100; ++k) t.step(1);
    CHECK(t.pointer() == 0);
}

TEST_CASE("wcet loop module: a tail call leaves the replaced function's rows and returns to the caller") {
    // main: M0 (0, entry), M1 (1, call), M2 (2, return point), loop {MH (3)}
    // f:    F0 (4, entry), F1 (5, tail call to g)
    // g:    G0 (6, entry), loop {GH (7)}, G2 (8, exit)
    std::vector<TracePoint> p{point(0x100, 0, 0, -1, 0), point(0x104, 0, 0, -1, 0), point(0x108, 0, 0, -1, 0),
                              point(0x10c, 1, 1, 0, 0),  point(0x200, 0, 0, -1, 1), point(0x204, 0, 0, -1, 1),
                              point(0x300, 0, 0, -1, 2), point(0x304, 1, 1, 1, 2),  point(0x308, 0, 0, -1, 2)};
    p[0].entry = p[4].entry = p[6].entry = true;
    p[1].call = true;
    p[2].ret = true;
    p[5].exit = p[8].exit = true;
    TracePoints points(p, {{0, 0, 3, -1}, {2, 0, 7, -1}});
    LoopContextTracker t(points);
    t.step(0);
    t.step(1);
    t.step(4);
    CHECK(t.last() == Transition::Call);
    std::size_t in_f = t.pointer();
    t.step(5);
    t.step(6);
    CHECK(t.last() == Transition::TailCall);
    CHECK(t.pointer() == in_f);  // g's rows start where f's were
    t.step(7);
    t.step(7);
    CHECK(t.last() == Transition::NextIteration);
    t.step(8);
    t.step(2);
    CHECK(t.last() == Transition::Return);
    CHECK(t.saturations() == 0);
    t.step(3);
    CHECK(t.max_iterations()[1] == 2);
}

TEST_CASE("wcet loop module: a nested loop's header executions are summed over each entry of its enclosing loop") {
    // One function: A (0), outer loop {OH (1), inner loop {IH (2)}, OL (3)}, X (4).
    std::vector<TracePoint> p{point(0x100, 0, 0, -1, 0), point(0x104, 1, 1, 0, 0), point(0x108, 2, 2, 1, 0), point(0x10c, 1, 1, 0, 0),
                              point(0x110, 0, 0, -1, 0)};
    p[0].entry = true;
    TracePoints points(p, {{0, 0, 1, -1}, {0, 1, 2, 0}});
    LoopContextTracker t(points);
    t.step(0);
    for (unsigned outer = 0; outer < 4; ++outer) {  // a triangle: the inner header runs 4, 3, 2, 1 times
        t.step(1);
        for (unsigned inner = 0; inner < 4 - outer; ++inner) t.step(2);
        t.step(3);
    }
    t.step(4);
    CHECK(t.max_iterations()[0] == 4);
    CHECK(t.max_iterations()[1] == 4);
    CHECK(t.max_totals()[1] == 4 + 3 + 2 + 1);
    CHECK(t.max_totals()[0] == 0);  // outermost: no sum
}

TEST_CASE("wcet statistics: merging is associative and survives a save and a load") {
    auto table = [](std::uint64_t a, std::uint64_t b, std::uint64_t bound) {
        StatisticsTable t;
        t.firmware = "fw.elf";
        t.runs = 1;
        t.blocks[0x100].context[0].add(a);
        t.blocks[0x100].context[1].add(b);
        t.blocks[0x100 + 4 * static_cast<std::uint32_t>(a)].context[0].add(b);
        t.loop_bounds[0x200] = bound;
        t.functions[0x300].time.add(a + b);
        return t;
    };
    StatisticsTable x = table(5, 9, 3), y = table(7, 2, 8), z = table(6, 4, 1);
    StatisticsTable left = x, right = y;
    left.merge(y);
    left.merge(z);
    right.merge(z);
    StatisticsTable right_all = x;
    right_all.merge(right);
    TempDir dir;
    left.save(dir.file("left.json"));
    right_all.save(dir.file("right.json"));
    CHECK(read_file(dir.file("left.json")) == read_file(dir.file("right.json")));
    StatisticsTable loaded = StatisticsTable::load(dir.file("left.json"));
    CHECK(loaded.runs == 3);
    CHECK(loaded.blocks.at(0x100).context[0].min == 5);
    CHECK(loaded.blocks.at(0x100).context[0].max == 7);
    CHECK(loaded.blocks.at(0x100).context[0].total == 18);
    CHECK(loaded.blocks.at(0x100).context[1].count == 3);
    CHECK(loaded.blocks.size() == 4);
    CHECK(loaded.loop_bounds.at(0x200) == 8);
    CHECK(loaded.functions.at(0x300).time.max == 14);

    write_file(dir.file("negative.json"),
               "{\"format\": \"emutrace-wcet-statistics\", \"version\": 1, \"firmware\": \"x\", \"runs\": -1, "
               "\"blocks\": [], \"loops\": [], \"functions\": []}");
    CHECK_THROWS_WITH_AS(StatisticsTable::load(dir.file("negative.json")), doctest::Contains("at runs: -1 is not an unsigned integer"), ConfigError);
    // A version that is a float beyond int was cast to int (undefined behaviour) before it was compared.
    write_file(dir.file("version.json"), "{\"format\": \"emutrace-wcet-statistics\", \"version\": 1e30, \"firmware\": \"x\"}");
    CHECK_THROWS_WITH_AS(StatisticsTable::load(dir.file("version.json")), doctest::Contains("version 1e+30 is not supported"), ConfigError);
    write_file(dir.file("bad.json"),
               "{\"format\": \"emutrace-wcet-statistics\", \"version\": 1, \"firmware\": \"x\", \"runs\": 1, \"blocks\": [{\"address\": 4}]}");
    CHECK_THROWS_WITH_AS(StatisticsTable::load(dir.file("bad.json")), doctest::Contains("bad.json: bad WCET statistics at blocks[0].first: missing"),
                         ConfigError);
    // Past 64 MiB it is refused unread: 184 MB of statistics peaked at 1.9 GB.
    std::filesystem::resize_file((write_file(dir.file("huge.json"), "{"), dir.file("huge.json")), std::uintmax_t{65} << 20);
    CHECK_THROWS_WITH_AS(StatisticsTable::load(dir.file("huge.json")),
                         doctest::Contains("huge.json: the WCET statistics is larger than 64 MiB: refused"), ConfigError);
    // Each error names the JSON path of the value at fault, not nlohmann's internal message.
    const std::string head = "{\"format\": \"emutrace-wcet-statistics\", \"version\": 1, \"firmware\": \"x\", \"runs\": 1, ";
    const std::string stat = "{\"min\": 1, \"max\": 2, \"total\": 3, \"count\": 2}";
    struct Case {
        std::string body, says;
    };
    for (const Case& c :
         {Case{"\"blocks\": 3, \"loops\": [], \"functions\": []}", "at blocks: expected a list, not number"},
          Case{"\"blocks\": [{\"address\": 4, \"first\": " + stat + ", \"later\": {\"min\": \"a\"}}], \"loops\": [], \"functions\": []}",
               "at blocks[0].later.min: \"a\" is not an unsigned integer"},
          Case{"\"blocks\": [], \"loops\": [{\"header\": 8}], \"functions\": []}", "at loops[0].max_iterations: missing"},
          Case{"\"blocks\": [], \"loops\": [], \"functions\": [7]}", "at functions[0].expected an object, not number"},
          Case{"\"blocks\": [], \"loops\": [], \"functions\": [], \"indirect_calls\": [{\"block\": 4, \"targets\": [{\"target\": 8, "
               "\"within\": [-1]}]}]}",
               "at indirect_calls[0].targets[0].within[0].-1 is not a 32-bit address"},
          // Version 2's call contexts: a call string longer than its k, an address that is not one.
          Case{"\"blocks\": [], \"loops\": [], \"functions\": [], \"call_depth\": 1, \"contexts\": [{\"calls\": [4, 8], \"function\": 4, "
               "\"blocks\": [], \"loops\": []}]}",
               "at contexts[0].calls: more call sites than call_depth"},
          Case{"\"blocks\": [], \"loops\": [], \"functions\": [], \"call_depth\": 99, \"contexts\": []}", "call_depth: 99 is more than 16"},
          Case{"\"blocks\": [], \"loops\": [], \"functions\": [], \"call_depth\": 2, \"contexts\": [{\"calls\": [-4], \"function\": 4, "
               "\"blocks\": [], \"loops\": []}]}",
               "at contexts[0].calls[0].-4 is not a 32-bit address"},
          Case{"\"blocks\": [], \"loops\": [], \"functions\": [], \"longest_run\": {\"function\": 4, \"cycles\": 9, \"blocks\": [{\"calls\": "
               "[], \"function\": 4, \"address\": 4, \"first\": [1], \"later\": [0, 0]}]}}",
               "at longest_run.blocks[0]: expected [count, cycles]"}}) {
        CAPTURE(c.body);
        write_file(dir.file("c.json"), head + c.body);
        CHECK_THROWS_WITH_AS(StatisticsTable::load(dir.file("c.json")), doctest::Contains(c.says.c_str()), ConfigError);
    }
}

namespace {

struct WcetRun {
    decode::ElfImage image;
    decode::Program program;
    TracePoints points;
    WcetAggregator aggregator;
    emu::RunResult result;
    CollectingSink sink;
    explicit WcetRun(bool split = true)
        : image(decode::ElfImage::load(firmware("wcet"))), program(decode::Program::build(image)), points(program), aggregator(program, points) {
        session::Scenario sc = session::default_scenario();
        sc.machine.echo_output = false;
        if (split) sc.machine.trace_points = points.addresses();
        emu::Machine m(std::move(sc.machine), image);
        m.add_sink(aggregator);
        m.add_sink(sink);
        result = m.run();
    }
    WcetResult bound(const std::string& function, std::vector<FlowFact> facts = {}) const {
        return compute_wcet(program, aggregator.table(), {function, std::move(facts), {}});
    }
};

const WcetRun& wcet_run() {
    static const WcetRun run;
    return run;
}

}  // namespace

TEST_CASE("wcet: trace points split translated blocks without changing the run") {
    const WcetRun& split = wcet_run();
    WcetRun whole(false);
    REQUIRE(split.result.reason == emu::StopReason::Exited);
    CHECK(split.sink.text == "wcet: " + whole.sink.text.substr(6));
    CHECK(split.result.cycles == whole.result.cycles);
    CHECK(split.result.instructions == whole.result.instructions);
    CHECK(split.sink.block_instructions == whole.sink.block_instructions);
    CHECK(split.sink.block_cycles == whole.sink.block_cycles);
    CHECK(split.sink.block_costs_consistent);
    CHECK(split.sink.blocks > whole.sink.blocks);  // loop headers reached by falling through now start events
}

TEST_CASE("wcet: a single-path function's bound is its measured time, exactly") {
    WcetResult r = wcet_run().bound("wcet_single_path");
    CHECK(r.observed_runs == 5);
    CHECK(r.observed_max_cycles > 5);
    CHECK(r.bound_cycles == r.observed_max_cycles);
    CHECK(r.insensitive_bound_cycles == r.bound_cycles);
    CHECK(r.never_executed.empty());
}

TEST_CASE("wcet: a loop with data-dependent trips is bounded from above, within 10% of its longest run") {
    WcetResult r = wcet_run().bound("wcet_scan");
    CHECK(r.observed_runs == 5);
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(static_cast<double>(r.bound_cycles) <= 1.10 * static_cast<double>(r.observed_max_cycles));
    REQUIRE(r.loops.size() == 1);
    CHECK(r.loops[0].bound == 16);
    CHECK(r.loops[0].source == "observed");
    // A flow fact overrides the observation: 20 iterations cost four more of the loop's block.
    WcetResult more = wcet_run().bound("wcet_scan", {FlowFact{"wcet_scan", 0, std::nullopt, 20}});
    CHECK(more.loops[0].source == "flow fact");
    CHECK(more.bound_cycles > r.bound_cycles);
}

TEST_CASE("wcet: in nested loops the loop context gives a strictly lower bound than one maximum per block") {
    WcetResult r = wcet_run().bound("wcet_nested");
    CHECK(r.observed_runs == 3);
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(r.bound_cycles < r.insensitive_bound_cycles);
    CHECK(static_cast<double>(r.bound_cycles) <= 1.10 * static_cast<double>(r.observed_max_cycles));
    REQUIRE(r.loops.size() == 2);
    // The slow start runs once per inner loop entry: first iterations only.
    bool slow_start_first_only = false;
    for (const auto& b : r.path)
        if (b.first_cost > 20 && b.later_count == 0 && b.first_count > 0) slow_start_first_only = true;
    CHECK(slow_start_first_only);
    // m == 0 and n == 0 never happen in main's calls: reported, as untested paths.
    CHECK(!r.never_executed.empty());
    for (const auto& b : r.never_executed) CHECK(b.reachable);
}

TEST_CASE("wcet: a loop entered straight from a call's return is counted and bounded") {
    WcetResult r = wcet_run().bound("wcet_after_call");
    CHECK(r.observed_runs == 2);
    REQUIRE(r.loops.size() == 1);
    CHECK(r.loops[0].bound == 9);
    CHECK(r.loops[0].source == "observed");
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(static_cast<double>(r.bound_cycles) <= 1.10 * static_cast<double>(r.observed_max_cycles));
    CHECK(r.warnings.empty());
    REQUIRE(r.functions.size() == 2);
    CHECK(r.functions[1].name == "wcet_seed");
    CHECK(r.functions[1].entries == 1);
}

TEST_CASE("wcet: a block longer than a translated block is measured whole") {
    // The emulator does report the block in parts, the second starting inside it.
    const decode::Function* f = wcet_run().program.function("wcet_long_block");
    REQUIRE(f);
    struct InsideBlocks final : trace::TraceSink {
        std::uint32_t from = 0, to = 0;
        int count = 0;
        std::uint32_t wants() const override { return trace::WantBlocks; }
        void on_batch(const trace::EventBatch& b) override {
            for (const auto& e : b.events) count += e.kind == trace::EventKind::Block && e.address > from && e.address < to;
        }
    } inside;
    inside.from = f->start;
    inside.to = f->blocks[0].end;
    session::Scenario sc = session::default_scenario();
    sc.machine.echo_output = false;
    emu::Machine m(std::move(sc.machine), wcet_run().image);
    m.add_sink(inside);
    m.run();
    CHECK(inside.count == 2);

    WcetResult r = wcet_run().bound("wcet_long_block");
    CHECK(r.observed_runs == 2);
    CHECK(r.observed_max_cycles >= 600);
    CHECK(r.bound_cycles == r.observed_max_cycles);
}

TEST_CASE("wcet: callees are part of the bound, and errors name what is wrong") {
    WcetResult r = wcet_run().bound("main");
    CHECK(r.functions.size() >= 4);
    CHECK(r.functions[0].name == "main");
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK_THROWS_WITH_AS(wcet_run().bound("no_such_function"), doctest::Contains("no_such_function"), ConfigError);
    CHECK_THROWS_WITH_AS(wcet_run().bound("wcet_scan", {FlowFact{"wcet_scan", 7, std::nullopt, 3}}), doctest::Contains("wcet_scan loop 7"),
                         ConfigError);
}

TEST_CASE("wcet: interrupts do not corrupt the loop context") {
    session::Scenario sc = session::load_scenario_file(source("tests/scenarios/irq.yaml"));
    sc.machine.echo_output = false;
    sc.machine.semihosting.cmdline = "nested";
    decode::ElfImage image = decode::ElfImage::load(firmware("irq_tests"));
    decode::Program program = decode::Program::build(image);
    TracePoints points(program);
    WcetAggregator aggregator(program, points);
    sc.machine.trace_points = points.addresses();
    emu::Machine m(std::move(sc.machine), image);
    m.add_sink(aggregator);
    REQUIRE(m.run().reason == emu::StopReason::Exited);
    CHECK(aggregator.tracker().saturations() == 0);
    StatisticsTable t = aggregator.table();
    CHECK(t.blocks.size() > 20);
    WcetResult r = compute_wcet(program, t, {"main", {}, {}});
    CHECK(r.bound_cycles >= r.observed_max_cycles);
}
