// WCET bounds per call-string context and per edge (docs/wcet.md, "Call-site context"), on the
// TACLeBench-style kernels of tests/firmware/wcet_kernels.c: contexts and edge times tighten the
// bound and never put it below a run, the gap to the longest run adds up, flow facts round-trip
// through their file, and bounds from some inputs hold for inputs held aside.
#include <doctest/doctest.h>

#include <map>
#include <memory>

#include "analysis/wcet/call_context.h"
#include "analysis/wcet/flow_facts.h"
#include "analysis/wcet/wcet_session.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"
#include "support/wcet_run.h"

using namespace emutrace;
using namespace emutrace::analysis::wcet;
using namespace emutrace::test;

namespace {

// One run of wcet_kernels.elf with the statistics of a call-string length, profiling `profiled`.
struct KernelRun : WcetRun {
    KernelRun(unsigned seed, unsigned call_depth, const std::string& profiled = "") : WcetRun("wcet_kernels", seed, call_depth, profiled) {}
};

const KernelRun& kernels() {
    static const KernelRun run(1, kDefaultCallDepth, "k_stats");
    return run;
}

const char* const kKernels[] = {"k_bsort", "k_insertsort", "k_matmul", "k_countneg", "k_tri3", "k_fir", "k_iir", "k_ludcmp", "k_stats"};

}  // namespace

TEST_CASE("wcet contexts: a call string keeps its last k sites, a tail call keeps the string, too many fold into none") {
    CallContexts k1(1);
    const std::uint32_t main_ctx = k1.root(0);
    const std::uint32_t a = k1.call(main_ctx, 10, 1), b = k1.call(main_ctx, 11, 1);
    CHECK(a != b);                                  // one callee from two sites: two contexts
    CHECK(k1.call(main_ctx, 10, 1) == a);           // interned
    CHECK(k1.call(a, 20, 2) == k1.call(b, 20, 2));  // k = 1: only the last site tells them apart
    CHECK(k1.at(k1.call(a, 20, 2)).sites == std::vector<std::uint32_t>{20});
    CHECK(k1.at(k1.tail(a, 3)).sites == std::vector<std::uint32_t>{10});
    CHECK(k1.at(k1.tail(a, 3)).function == 3);

    CallContexts k2(2);
    const std::uint32_t r = k2.root(0);
    CHECK(k2.call(k2.call(r, 10, 1), 20, 2) != k2.call(k2.call(r, 11, 1), 20, 2));

    CallContexts none(0);
    CHECK(none.call(none.root(0), 10, 1) == none.call(none.root(0), 11, 1));

    CallContexts small(4, 16);  // the table is bounded: past it, contexts fold into the function's own
    std::uint32_t c = small.root(0);
    for (std::uint32_t site = 0; site < 64; ++site) small.call(c, site, 1);
    CHECK(small.overflowed());
    CHECK(small.size() <= 17);
}

TEST_CASE("wcet contexts: per call site and per edge, every kernel's bound is tighter or equal, trusted and above its run") {
    const KernelRun& run = kernels();
    for (const char* k : kKernels) {
        CAPTURE(k);
        WcetResult with = run.bound(k, 2), without = run.bound(k, 0);
        CHECK(with.trusted());
        CHECK(without.trusted());
        CHECK(with.bound_cycles >= with.observed_max_cycles);
        CHECK(with.bound_cycles <= without.bound_cycles);
        CHECK(with.coverage.call_depth == 2);
    }
    // The soft-float kernels call one routine from several sites: contexts pay off there.
    CHECK(run.bound("k_stats", 2).bound_cycles < run.bound("k_stats", 0).bound_cycles);
    CHECK(run.bound("k_stats", 2).coverage.contexts > run.bound("k_stats", 0).coverage.contexts);
}

TEST_CASE("wcet contexts: an edge's own time lets the other edge of a branch be charged less") {
    const KernelRun& run = kernels();
    StatisticsTable no_exits = run.stats;
    for (auto& [address, b] : no_exits.blocks) b.exits.clear();
    for (auto& [key, c] : no_exits.contexts)
        for (auto& [address, b] : c.blocks) b.exits.clear();
    WcetResult with = run.bound("k_insertsort", 2, {}, false);  // the edges alone, without the path counts that also hold them
    WcetResult without = run.session->bound(no_exits, {"k_insertsort", {}, {}, 2, false});
    CHECK(with.bound_cycles < without.bound_cycles);
    CHECK(with.bound_cycles >= with.observed_max_cycles);
}

TEST_CASE("wcet contexts: a called routine's loop is totalled over the caller's loop around the call") {
    const KernelRun& run = kernels();
    WcetResult r = run.bound("k_stats", 2);
    bool found = false;
    for (const auto& l : r.loops) {
        if (l.function != "__divdf3" || l.total == 0) continue;
        found = true;
        CHECK(l.total_over.find("k_stats loop") == 0);
        CHECK(l.total_source == "observed");
        CHECK(l.context_calls.size() == 1);
    }
    CHECK(found);
}

TEST_CASE("wcet contexts: a loop three deep in a triangle is held to its total over the outermost loop's entry") {
    const KernelRun& run = kernels();
    WcetResult r = run.bound("k_tri3", 2, {}, false);  // the loops alone, without the path counts that also hold them
    REQUIRE(r.loops.size() == 3);
    const LoopBoundUsed& inner = r.loops[2];
    REQUIRE(inner.outer_totals.size() == 1);
    CHECK(inner.outer_totals[0].first == "k_tri3 loop 0");
    // Over the outermost loop's entry the innermost ran sum (n-k-1)^2 times, well under bound x the parent's total.
    CHECK(inner.outer_totals[0].second < inner.total * r.loops[0].bound / 2);
    StatisticsTable without = run.stats;
    for (auto& [key, c] : without.contexts) c.loop_totals_over.clear();
    WcetResult looser = run.session->bound(without, {"k_tri3", {}, {}, 2, false});
    CHECK(r.bound_cycles < looser.bound_cycles);
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(r.trusted());
}

TEST_CASE("wcet contexts: the gap to the longest run adds up to bound minus run, block by block") {
    const KernelRun& run = kernels();
    WcetResult r = run.bound("k_stats", 2);
    REQUIRE(!r.gap.empty());
    CHECK(r.profiled_cycles == r.observed_max_cycles);
    std::uint64_t bound = 0, observed = 0;
    for (const auto& g : r.gap) {
        bound += g.bound_cycles;
        observed += g.observed_cycles;
    }
    CHECK(observed == r.observed_max_cycles);
    CHECK(bound >= r.bound_cycles - r.gap.size());  // each block's share is rounded
    CHECK(bound <= r.bound_cycles + r.gap.size());
    CHECK(r.gap.front().gap() >= r.gap.back().gap());
    // Coverage is said beside it: some blocks of the soft-float routines never ran.
    CHECK(r.coverage.blocks_seen < r.coverage.blocks);
    CHECK(r.coverage.edges_seen <= r.coverage.edges);
    CHECK(r.never_executed.size() == r.coverage.blocks - r.coverage.blocks_seen);
    // A function not profiled has no gap to tell.
    CHECK(run.bound("k_fir", 2).gap.empty());
}

TEST_CASE("wcet contexts: flow facts written from a bound read back to the same bound, raised they loosen it, lowered they are refused") {
    const KernelRun& run = kernels();
    TempDir dir;
    WcetResult r = run.bound("k_stats", 2);
    write_flow_facts(dir.file("facts.yaml"), r, "wcet_kernels.elf");
    std::vector<FlowFact> facts = read_flow_facts(dir.file("facts.yaml"));
    REQUIRE(!facts.empty());
    CHECK(run.bound("k_stats", 2, facts).bound_cycles == r.bound_cycles);
    bool raised = false;
    for (auto& f : facts)
        if (f.function == "__divdf3" && f.total) {
            f.total += 50;
            raised = true;
        }
    REQUIRE(raised);
    CHECK(run.bound("k_stats", 2, facts).bound_cycles > r.bound_cycles);
    for (auto& f : facts)
        if (f.function == "__divdf3" && f.total) f.total = 1;
    CHECK_THROWS_WITH_AS(run.bound("k_stats", 2, facts), doctest::Contains("below what a run did"), ConfigError);
    CHECK_THROWS_WITH_AS(run.bound("k_stats", 2, facts), doctest::Contains("facts.yaml:"), ConfigError);
}

TEST_CASE("wcet contexts: a triangle three deep keeps its total over the outermost loop through the flow-facts file") {
    const KernelRun& run = kernels();
    TempDir dir;
    WcetResult r = run.bound("k_tri3", 2);
    write_flow_facts(dir.file("facts.yaml"), r, "wcet_kernels.elf");
    CHECK(read_file(dir.file("facts.yaml")).find("totals_over: {0: ") != std::string::npos);
    std::vector<FlowFact> facts = read_flow_facts(dir.file("facts.yaml"));
    WcetResult back = run.bound("k_tri3", 2, facts);
    CHECK(back.bound_cycles == r.bound_cycles);
    REQUIRE(back.loops.size() == 3);
    CHECK(back.loops[2].outer_totals_source == "flow fact");
    for (auto& f : facts)
        for (auto& [outer, total] : f.totals_over) total = 1;  // below what the runs did
    CHECK_THROWS_WITH_AS(run.bound("k_tri3", 2, facts), doctest::Contains("over loop 0 is below what a run did"), ConfigError);
    for (auto& f : facts)
        for (auto& [outer, total] : f.totals_over) outer = 1, total = 1000;  // loop 1 is the parent: `total`'s
    CHECK_THROWS_WITH_AS(run.bound("k_tri3", 2, facts), doctest::Contains("which is not a loop around"), ConfigError);
}

TEST_CASE("wcet contexts: statistics keep their contexts through a file, and tables of two call-string lengths merge at the shorter") {
    const KernelRun& run = kernels();
    TempDir dir;
    run.stats.save(dir.file("s.json"));
    StatisticsTable back = StatisticsTable::load(dir.file("s.json"));
    CHECK(back.call_depth == 2);
    CHECK(back.contexts.size() == run.stats.contexts.size());
    REQUIRE(back.longest_run);
    CHECK(back.longest_run->cycles == run.stats.longest_run->cycles);
    CHECK(run.session->bound(back, {"k_stats", {}, {}, 2}).bound_cycles == run.bound("k_stats", 2).bound_cycles);

    KernelRun shallow(2, 1);
    StatisticsTable merged = run.stats;
    merged.merge(shallow.stats);
    CHECK(merged.call_depth == 1);
    for (const auto& [key, c] : merged.contexts) CHECK(key.calls.size() <= 1);
    WcetResult r = run.session->bound(merged, {"k_fir", {}, {}, 2});
    CHECK(r.coverage.call_depth == 1);
    CHECK(r.trusted());
}

TEST_CASE("wcet contexts: bounds from three inputs hold for five inputs held aside") {
    check_held_aside("wcet_kernels", {std::begin(kKernels), std::end(kKernels)});
}

TEST_CASE("wcet contexts: libgcc's BL into its own special-case code is bounded in every context, either path") {
    // Found by the validation corpus: in a context where only __aeabi_dmul's special case ran (a
    // zero operand), the code after the BL never ran, and the contexts' problem had no way out.
    decode::ElfImage image = decode::ElfImage::load(firmware("libcalls_holdout_m3"));
    WcetSession session(image, kDefaultCallDepth);
    session::Scenario sc = session::default_scenario();
    sc.machine.echo_output = false;
    sc.machine.trace_points = session.trace_points();
    emu::Machine m(std::move(sc.machine), image);
    for (trace::TraceSink* sink : session.sinks()) m.add_sink(*sink);
    REQUIRE(m.run().reason == emu::StopReason::Exited);
    const StatisticsTable stats = session.statistics({}, true);
    WcetResult r = session.bound(stats, {"__ieee754_pow", {}, {}, kDefaultCallDepth});
    CHECK(r.trusted());
    CHECK(r.coverage.call_depth == kDefaultCallDepth);
    for (const auto& w : r.warnings) CHECK(w.find("admitted no path") == std::string::npos);
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(r.bound_cycles <= session.bound(stats, {"__ieee754_pow", {}, {}, 0}).bound_cycles);
}

TEST_CASE("wcet contexts: a called routine's loop is also held over the callers' loops beyond the one around the call") {
    // k_minver's pivot division: __divdf3's loop in a column loop inside the pivot loop.
    const WcetRun run("wcet_kernels_holdout", 1, kDefaultCallDepth);
    WcetResult r = run.bound("k_minver", 2);
    std::size_t held = 0;
    for (const auto& l : r.loops)
        if (l.function == "__divdf3" && !l.outer_totals.empty()) {
            ++held;
            CHECK(l.outer_total_loops.empty());  // not loops of __divdf3
            CHECK(l.outer_totals[0].first.find("k_minver loop ") == 0);
            CHECK(l.outer_totals[0].second > l.total);
        }
    REQUIRE(held > 0);
    StatisticsTable nearest_only = run.stats;
    const std::uint32_t divdf3 = run.session->program().function("__divdf3")->start;
    const std::uint32_t divdf3_end = run.session->program().function("__divdf3")->end;
    for (auto& [key, c] : nearest_only.contexts)
        std::erase_if(c.loop_totals_over, [&](const auto& t) { return t.first.first >= divdf3 && t.first.first < divdf3_end; });
    // The loops alone, without the path counts that also hold them.
    WcetResult loops_only = run.bound("k_minver", 2, {}, false);
    WcetResult looser = run.session->bound(nearest_only, {"k_minver", {}, {}, 2, false});
    CHECK(loops_only.bound_cycles < looser.bound_cycles);
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(r.trusted());

    // Through the flow-facts file: the same bound back; a total below the run's, or over a loop
    // that is not around the call, is refused.
    TempDir dir;
    write_flow_facts(dir.file("facts.yaml"), r, "wcet_kernels_holdout.elf");
    CHECK(read_file(dir.file("facts.yaml")).find("totals_over_callers: {\"k_minver loop ") != std::string::npos);
    std::vector<FlowFact> facts = read_flow_facts(dir.file("facts.yaml"));
    CHECK(run.bound("k_minver", 2, facts).bound_cycles == r.bound_cycles);
    auto lowered = facts;
    for (auto& f : lowered)
        for (auto& [name, total] : f.totals_over_callers) total = 1;
    CHECK_THROWS_WITH_AS(run.bound("k_minver", 2, lowered), doctest::Contains("is below what a run did"), ConfigError);
    for (auto& f : facts)
        for (auto& [name, total] : f.totals_over_callers) name = "k_minver loop 99";
    CHECK_THROWS_WITH_AS(run.bound("k_minver", 2, facts), doctest::Contains("which is not a caller's loop around the call"), ConfigError);
}
