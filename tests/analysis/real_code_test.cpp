// The call tracer and the WCET analysis on real compiler output: the hand-fixed conditional exits of
// tests/firmware/cond_returns.c and the newlib-nano + libgcc corpus of tests/firmware/libcalls.c. The
// two analyses share no classification (CFG trace points against the emulator's branch events), so
// agreeing function times and zero unmatched returns are the check that both are right.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/calltrace/profile.h"
#include "analysis/wcet/call_times.h"
#include "analysis/wcet/soundness_check.h"
#include "analysis/wcet/wcet_aggregator.h"
#include "analysis/wcet/wcet_bound.h"
#include "emu/machine.h"
#include "emutrace/config_error.h"
#include "session/scenario.h"
#include "support/paths.h"

using namespace emutrace;
using namespace emutrace::analysis::wcet;
using namespace emutrace::test;

namespace {

struct RealRun {
    decode::ElfImage image;
    decode::Program program;
    TracePoints points;
    WcetAggregator aggregator;
    analysis::CallTracer tracer;
    analysis::Profile profile;
    CallTimes call_times;
    emu::RunResult result;

    explicit RealRun(const std::string& elf)
        : image(decode::ElfImage::load(firmware(elf))), program(decode::Program::build(image)), points(program), aggregator(program, points),
          tracer(image) {
        session::Scenario sc = session::default_scenario();
        sc.machine.echo_output = false;
        sc.machine.trace_points = points.addresses();
        emu::Machine m(std::move(sc.machine), image);
        tracer.add_listener(profile);
        tracer.add_listener(call_times);
        m.add_sink(aggregator);
        m.add_sink(tracer);
        result = m.run();
    }
    std::uint64_t calls(const std::string& name) const {
        for (const auto& [fn, stats] : profile.overall())
            if (tracer.function_name(fn) == name) return stats.calls;
        return 0;
    }
    std::uint64_t runs(const std::string& name) const {
        const decode::Function* f = program.function(name);
        REQUIRE(f);
        StatisticsTable t = aggregator.table();
        auto it = t.functions.find(f->start);
        return it == t.functions.end() ? 0 : it->second.time.count;
    }
    SoundnessReport soundness() const {
        return check_soundness(program, aggregator.table(), call_times, tracer.unmatched_returns(), aggregator.tracker().saturations());
    }
};

const RealRun& cond_run() {
    static const RealRun run("cond_returns");
    return run;
}

const RealRun& libcalls_run() {
    static const RealRun run("libcalls");
    return run;
}

// Every function that completed a run: bounded at or above its longest run, or refused for a
// reason the message names. Returns how many were bounded.
std::size_t check_every_bound(const RealRun& run, const std::string& allowed_refusal) {
    std::size_t bounded = 0;
    StatisticsTable t = run.aggregator.table();
    for (const auto& f : run.program.functions()) {
        if (!t.functions.count(f.start)) continue;
        CAPTURE(f.name);
        try {
            WcetResult r = compute_wcet(run.program, t, {f.name, {}, {}});
            CHECK(r.trusted());
            CHECK(r.bound_cycles >= r.observed_max_cycles);
            ++bounded;
        } catch (const ConfigError& e) {
            CHECK(std::string(e.what()).find(allowed_refusal) != std::string::npos);
        }
    }
    return bounded;
}

}  // namespace

TEST_CASE("real code: conditional returns that fail their condition are no returns") {
    const RealRun& run = cond_run();
    REQUIRE(run.result.reason == emu::StopReason::Exited);
    CHECK(run.tracer.unmatched_returns() == 0);
    // Each shape is called once per value of the driver: x in -2..4, 50 rounds.
    CHECK(run.calls("cr_it_pop") == 350);
    CHECK(run.calls("cr_it_ldr_pc") == 350);
    CHECK(run.calls("cr_ite_bx") == 350);
    CHECK(run.calls("cr_driver") == 50);
    // cr_it_bx: called directly, and entered by cr_b_tail always, cr_it_tail when x != 3 and
    // cr_it_bx_reg when x is odd (the round adds 0..3 to x).
    std::uint64_t expected = 0;
    for (std::uint32_t round = 0; round < 50; ++round)
        for (std::int32_t x = -2; x <= 4; ++x) {
            std::uint32_t v = static_cast<std::uint32_t>(x) + (round & 3u);
            expected += 2 + (v != 3) + (v & 1u);
        }
    CHECK(run.calls("cr_it_bx") == expected);
}

TEST_CASE("real code: tail-called functions are runs of their own in the WCET statistics, as in the call tracer") {
    const RealRun& run = cond_run();
    CHECK(run.runs("cr_it_bx") == run.calls("cr_it_bx"));
    CHECK(run.runs("cr_b_tail") == 350);  // its run ends when cr_it_bx returns for it
    SoundnessReport s = run.soundness();
    CHECK(s.passed());
    CHECK(check_every_bound(run, "no refusal expected") > 10);
}

TEST_CASE("real code: a cycle with two entries is bounded by its blocks' executions per call") {
    const RealRun& run = cond_run();
    WcetResult r = compute_wcet(run.program, run.aggregator.table(), {"cr_two_entries", {}, {}});
    CHECK(r.loops.empty());  // no natural loop
    REQUIRE(r.cycles.size() == 2);
    // Entered at 1: (x odd) it runs r1 = 3, 6, 9 and leaves at 12: 4 times each block.
    for (const auto& c : r.cycles) CHECK(c.most_per_call == 4);
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(r.trusted());
}

TEST_CASE("real code: newlib-nano and libgcc run with no unmatched return, and the two analyses agree") {
    const RealRun& run = libcalls_run();
    REQUIRE(run.result.reason == emu::StopReason::Exited);
    CHECK(run.tracer.unmatched_returns() == 0);
    CHECK(run.aggregator.tracker().saturations() == 0);
    SoundnessReport s = run.soundness();
    for (const auto& d : s.disagreements) CAPTURE(d.text);
    CHECK(s.passed());
    // Every library function that ran gets a bound at or above its longest run.
    CHECK(check_every_bound(run, "recursion") > 60);
}

TEST_CASE("real code: a CRC routine entered by a tail call counts every run") {
    const RealRun& run = libcalls_run();
    // lc_crc_dispatch enters one of two CRC routines by b.w, alternately over six rounds.
    CHECK(run.runs("lc_crc_dispatch") == 6);
    CHECK(run.runs("lc_crc_bitwise") == 3);
    CHECK(run.runs("lc_crc_nibble") == 3);
    WcetResult r = compute_wcet(run.program, run.aggregator.table(), {"lc_crc_dispatch", {}, {}});
    CHECK(r.bound_cycles >= r.observed_max_cycles);
}

TEST_CASE("real code: soft-float loops count their iterations across the library calls in them") {
    const RealRun& run = libcalls_run();
    WcetResult r = compute_wcet(run.program, run.aggregator.table(), {"lc_fir_float", {}, {}});
    // The inner loop runs the 8 taps, the outer one n - 7 times for n up to 32.
    bool inner = false, outer = false;
    for (const auto& l : r.loops) {
        if (l.function != "lc_fir_float") continue;
        inner = inner || l.bound == 8;
        outer = outer || l.bound == 32 - 8 + 1;
    }
    CHECK(inner);
    CHECK(outer);
    CHECK(r.observed_max_cycles > 10000);  // 200 soft-float multiply-adds, not the 89 cycles of a lost return
    CHECK(r.bound_cycles >= r.observed_max_cycles);
}

TEST_CASE("real code: a triangular loop nest is bounded by its sum, not by a square") {
    const RealRun& run = libcalls_run();
    WcetResult r = compute_wcet(run.program, run.aggregator.table(), {"lc_bubble_sort", {}, {}});
    REQUIRE(r.loops.size() == 2);
    const LoopBoundUsed& inner = r.loops[1].total ? r.loops[1] : r.loops[0];
    const LoopBoundUsed& outer = r.loops[1].total ? r.loops[0] : r.loops[1];
    CHECK(inner.total_source == "observed");
    CHECK(inner.total < inner.bound * outer.bound);  // n(n-1)/2-ish against (n-1)^2
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(static_cast<double>(r.bound_cycles) < 1.5 * static_cast<double>(r.observed_max_cycles));
    // A flow fact may state the sum: a larger one gives a larger bound, and one below what the run
    // did is refused, as a bound from it would be below that run.
    FlowFact fact;
    fact.function = "lc_bubble_sort";
    fact.loop = static_cast<int>(&inner - &r.loops[0]);
    fact.total = inner.total + 20;
    WcetResult looser = compute_wcet(run.program, run.aggregator.table(), {"lc_bubble_sort", {fact}, {}});
    CHECK(looser.bound_cycles > r.bound_cycles);
    fact.total = inner.total / 2;
    CHECK_THROWS_WITH_AS(compute_wcet(run.program, run.aggregator.table(), {"lc_bubble_sort", {fact}, {}}),
                         doctest::Contains(("is below what a run did (" + std::to_string(inner.total)).c_str()), ConfigError);
}

TEST_CASE("real code: snprintf's output callback is followed to the targets seen under it, not printf's") {
    const RealRun& run = libcalls_run();
    WcetResult format = compute_wcet(run.program, run.aggregator.table(), {"lc_format", {}, {}});
    WcetResult print = compute_wcet(run.program, run.aggregator.table(), {"printf", {}, {}});
    auto has = [](const WcetResult& r, const std::string& name) {
        return std::any_of(r.functions.begin(), r.functions.end(), [&](const FunctionShare& f) { return f.name == name; });
    };
    CHECK(has(format, "__ssputs_r"));        // the string sink snprintf uses
    CHECK_FALSE(has(format, "__sfputs_r"));  // the FILE sink is printf's
    CHECK(has(print, "__sfputs_r"));
    CHECK(format.bound_cycles >= format.observed_max_cycles);
    CHECK(print.bound_cycles >= print.observed_max_cycles);
}
