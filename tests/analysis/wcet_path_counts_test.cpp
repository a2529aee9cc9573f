// Path counts (analysis/wcet/path_counts.h, docs/wcet.md "Path counts"): each block held to its
// executions per run of its call string's outermost caller where every run agreed, on the
// TACLeBench-style kernels of tests/firmware/wcet_kernels.c: a soft-float routine keeps the run's
// mix of fast and slow paths, counts that differed between inputs are let go, a flow fact that
// raises a loop drops them, and they round-trip through the flow-facts file.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/wcet/flow_facts.h"
#include "analysis/wcet/wcet_session.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"
#include "support/wcet_run.h"

using namespace emutrace;
using namespace emutrace::analysis::wcet;
using namespace emutrace::test;

namespace {

const WcetRun& seed1() {
    static const WcetRun run("wcet_kernels", 1, kDefaultCallDepth, "k_stats");
    return run;
}

const char* const kSoftFloat[] = {"k_fir", "k_iir", "k_ludcmp", "k_stats"};

std::size_t observed_counts(const WcetResult& r) {
    std::size_t n = 0;
    for (const auto& u : r.path_counts) n += u.source == "observed";
    return n;
}

double ratio(std::uint64_t bound, std::uint64_t observed) {
    return static_cast<double>(bound) / static_cast<double>(observed);
}

}  // namespace

TEST_CASE("wcet path counts: one run counts each block per run of its call string's outermost caller") {
    const WcetRun& run = seed1();
    const auto& fns = run.session->program();
    const std::uint32_t divdf3 = fns.function("__divdf3")->start;
    // __divdf3 called by k_stats (from main): its contexts' scope is main's one run, so its entry
    // block's count there is every call of that context, seen in one run of the scope.
    std::uint64_t calls = 0, counted = 0;
    for (const auto& [key, c] : run.stats.contexts) {
        if (key.function != divdf3 || key.calls.empty()) continue;
        auto entry = c.blocks.find(divdf3);
        REQUIRE(entry != c.blocks.end());
        CHECK(entry->second.per_scope.scopes == 1);
        CHECK(entry->second.per_scope.most == entry->second.per_scope.least);
        calls += entry->second.context[0].count + entry->second.context[1].count;
        counted += entry->second.per_scope.most;
    }
    CHECK(calls > 10);
    CHECK(counted == calls);
    // Without call strings the scope is the function's own run: once per call.
    const WcetRun flat("wcet_kernels", 1, 0);
    bool found = false;
    for (const auto& [key, c] : flat.stats.contexts)
        if (key.function == divdf3) {
            const BlockRecord& b = c.blocks.at(divdf3);
            CHECK(b.per_scope.most == 1);
            CHECK(b.per_scope.scopes == b.context[0].count + b.context[1].count);
            found = true;
        }
    CHECK(found);
}

TEST_CASE("wcet path counts: the soft-float kernels keep the run's mix of fast and slow paths, and the any-mix bound is beside it") {
    const WcetRun& run = seed1();
    for (const char* k : kSoftFloat) {
        CAPTURE(k);
        WcetResult r = run.bound(k, kDefaultCallDepth), any = run.bound(k, kDefaultCallDepth, {}, false);
        CHECK(r.trusted());
        CHECK(r.bound_cycles >= r.observed_max_cycles);
        CHECK(observed_counts(r) > 0);
        CHECK(r.any_path_bound_cycles == any.bound_cycles);
        CHECK(r.bound_cycles < any.bound_cycles);
        CHECK(ratio(r.bound_cycles, r.observed_max_cycles) < 1.05);
        CHECK(ratio(any.bound_cycles, any.observed_max_cycles) > 1.08);
        CHECK(any.path_counts.empty());
        CHECK(!any.path_counts_unused.empty());
        // Some counts cut the worst path of any mix: a routine's slow path taken less often.
        bool cut = false;
        for (const auto& u : r.path_counts) cut = cut || u.binding;
        CHECK(cut);
    }
}

TEST_CASE("wcet path counts: counts that differed between inputs are let go, and the merged bound holds") {
    const WcetRun one("wcet_kernels", 1, kDefaultCallDepth), two("wcet_kernels", 2, kDefaultCallDepth);
    StatisticsTable merged = one.stats;
    merged.merge(two.stats);
    WcetResult single = one.bound("k_stats", kDefaultCallDepth);
    WcetResult both = one.session->bound(merged, {"k_stats", {}, {}, kDefaultCallDepth});
    CHECK(observed_counts(both) < observed_counts(single));
    CHECK(both.bound_cycles >= two.stats.functions.at(one.session->program().function("k_stats")->start).time.max);
    CHECK(both.bound_cycles >= single.observed_max_cycles);
}

TEST_CASE("wcet path counts: a flow fact that lets a loop run more than the runs did drops the runs' counts") {
    const WcetRun& run = seed1();
    WcetResult r = run.bound("k_fir", kDefaultCallDepth);
    REQUIRE(!r.loops.empty());
    FlowFact raise;
    raise.function = "k_fir";
    raise.loop = r.loops.front().loop;
    raise.bound = r.loops.front().bound + 4;
    WcetResult raised = run.bound("k_fir", kDefaultCallDepth, {raise});
    CHECK(observed_counts(raised) == 0);
    CHECK(raised.path_counts_unused.find("flow fact") != std::string::npos);
    CHECK(raised.bound_cycles > r.any_path_bound_cycles);
    raise.bound = r.loops.front().bound;  // the run's own bound: the counts stay
    CHECK(observed_counts(run.bound("k_fir", kDefaultCallDepth, {raise})) == observed_counts(r));
}

TEST_CASE("wcet path counts: the counts that cut the worst path round-trip through the flow-facts file, and wrong ones are refused") {
    const WcetRun& run = seed1();
    WcetResult r = run.bound("k_stats", kDefaultCallDepth);
    TempDir dir;
    write_flow_facts(dir.file("facts.yaml"), r, "wcet_kernels.elf");
    const std::string text = read_file(dir.file("facts.yaml"));
    CHECK(text.find(", block: 0x") != std::string::npos);
    CHECK(text.find("count: ") != std::string::npos);
    std::vector<FlowFact> facts = read_flow_facts(dir.file("facts.yaml"));
    std::size_t counts = 0;
    for (const auto& f : facts) counts += f.block.has_value();
    CHECK(counts > 0);
    WcetResult back = run.bound("k_stats", kDefaultCallDepth, facts);
    CHECK(back.bound_cycles == r.bound_cycles);
    // With the runs' counts off, the file's still hold: the bound stays below the any-mix one.
    WcetResult facts_only = run.bound("k_stats", kDefaultCallDepth, facts, false);
    CHECK(facts_only.bound_cycles < r.any_path_bound_cycles);
    CHECK(facts_only.bound_cycles >= r.observed_max_cycles);

    // Below a run, it is refused (k_stats ran once in the run its counts are per).
    auto lowered = facts;
    bool lowered_one = false;
    for (auto& f : lowered)
        if (f.block && f.count > 0) {
            f.count -= 1;
            lowered_one = true;
            break;
        }
    REQUIRE(lowered_one);
    CHECK_THROWS_WITH_AS(run.bound("k_stats", kDefaultCallDepth, lowered), doctest::Contains("is below what a run did"), ConfigError);
    auto nowhere = facts;
    for (auto& f : nowhere)
        if (f.block) {
            f.per = "k_bsort";
            break;
        }
    CHECK_THROWS_WITH_AS(run.bound("k_stats", kDefaultCallDepth, nowhere), doctest::Contains("does not run in this bound"), ConfigError);
    auto missing = facts;
    for (auto& f : missing)
        if (f.block) {
            *f.block += 1;
            break;
        }
    CHECK_THROWS_WITH_AS(run.bound("k_stats", kDefaultCallDepth, missing), doctest::Contains("no basic block"), ConfigError);
}

TEST_CASE("wcet path counts: a block whose time depends on data is held to the cycles the run spent in it") {
    // k_bsort's inner block stores under an IT condition: 10 or 12 cycles, by the data.
    const WcetRun run("wcet_kernels", 1, kDefaultCallDepth, "k_bsort");
    WcetResult r = run.bound("k_bsort", kDefaultCallDepth), any = run.bound("k_bsort", kDefaultCallDepth, {}, false);
    CHECK(r.trusted());
    CHECK(r.bound_cycles >= r.observed_max_cycles);
    CHECK(ratio(r.bound_cycles, r.observed_max_cycles) < 1.01);
    CHECK(ratio(any.bound_cycles, any.observed_max_cycles) > 1.05);
    bool timed = false;
    for (const auto& u : r.path_counts) timed = timed || (u.cycles > 0 && u.binding);
    CHECK(timed);
    // The gap still adds up block by block: each block's share is its held cycles.
    REQUIRE(!r.gap.empty());
    std::uint64_t bound = 0;
    for (const auto& g : r.gap) bound += g.bound_cycles;
    CHECK(bound == doctest::Approx(static_cast<double>(r.bound_cycles)).epsilon(0.001));
}

TEST_CASE("wcet path counts: the statistics keep the counts per scope through their file, and refuse ones that make no sense") {
    const WcetRun& run = seed1();
    TempDir dir;
    run.stats.save(dir.file("s.json"));
    StatisticsTable back = StatisticsTable::load(dir.file("s.json"));
    CHECK(run.bound("k_stats", kDefaultCallDepth).bound_cycles == run.session->bound(back, {"k_stats", {}, {}, kDefaultCallDepth}).bound_cycles);
    std::string text = read_file(dir.file("s.json"));
    const auto at = text.find("\"per_scope\"");
    REQUIRE(at != std::string::npos);
    const auto least = text.find("\"least\"", at);
    REQUIRE(least != std::string::npos);
    text.replace(least, 7, "\"lest\"");  // a key misspelt: the field it names is missing
    write_file(dir.file("bad.json"), text);
    CHECK_THROWS_WITH_AS(StatisticsTable::load(dir.file("bad.json")), doctest::Contains("per_scope.least: missing"), ConfigError);
}
