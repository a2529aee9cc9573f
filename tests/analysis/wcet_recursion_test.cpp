// Recursion bounded by its entries (docs/wcet.md, "Recursion"): the runs count, per call from
// outside a recursion, how often its head was entered; the IPET shares those entries among the
// recursion's calls. On tests/firmware/wcet_recursion.c: self-recursion (Fibonacci, quicksort,
// Hanoi), mutual recursion entered at one function (a recursive-descent parser), and a mutual
// recursion entered at two, which is refused.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <tuple>

#include "analysis/wcet/flow_facts.h"
#include "analysis/wcet/recursion.h"
#include "analysis/wcet/recursion_counter.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"
#include "support/wcet_run.h"

using namespace emutrace;
using namespace emutrace::analysis::wcet;
using namespace emutrace::test;

namespace {

const WcetRun& recursion_run() {
    static const WcetRun run("wcet_recursion", 1, kDefaultCallDepth, "k_fib");
    return run;
}

const char* const kRecursive[] = {"k_fib", "k_qsort", "k_hanoi", "k_expr"};

}  // namespace

TEST_CASE("wcet recursion: the counter keeps the most entries per outermost activation, per context, the open ones included") {
    RecursionCounter c(3);
    c.entered(0, 7);  // f in context 7: f -> f -> f
    c.entered(0, 8);
    c.entered(0, 8);
    c.left(0);
    c.left(0);
    c.entered(0, 8);  // a fourth entry in the same outermost activation
    c.left(0);
    c.left(0);
    c.entered(1, 9);  // g never recursed: nothing kept
    c.left(1);
    c.entered(0, 5);  // f -> g -> f, still open: counts as far as it got
    c.entered(1, 6);
    c.entered(0, 6);
    const auto most = c.most_by_context();
    CHECK(most.at(7) == 4);
    CHECK(!most.count(9));
    CHECK(most.at(5) == 2);
    c.left(2);  // a return of a function never entered is ignored
    CHECK(c.most_by_context().size() == 2);
}

TEST_CASE("wcet recursion: on a cycle of calls, each activation counts its cycle's entries and loop headers, one that never recursed too") {
    // Functions 0 and 1 call each other; loop 4 is function 1's.
    RecursionCycles cycles;
    cycles.cycle_of = {0, 0, -1};
    cycles.functions = {{0, 1}};
    cycles.loops = {{4}};
    RecursionCounter c(3, cycles);
    CHECK(c.counts_loop(4));
    CHECK(!c.counts_loop(3));
    c.entered(0, 10);  // 0 -> 1 (loop twice) -> 0 -> 1 (loop once)
    c.entered(1, 11);
    c.header(4);
    c.header(4);
    c.entered(0, 12);
    c.entered(1, 13);
    c.header(4);
    for (std::uint32_t f : {1u, 0u, 1u, 0u}) c.left(f);
    c.entered(0, 20);  // no recursion: 0 -> 1, its counts kept all the same
    c.entered(1, 21);
    c.left(1);
    c.left(0);
    std::map<std::tuple<std::uint32_t, bool, std::uint32_t>, std::uint64_t> got;
    for (const auto& k : c.cycle_counts()) got[{k.context, k.loop, k.which}] = k.most;
    CHECK(got.at({10, false, 0}) == 2);  // over 0's outermost activation entered in context 10
    CHECK(got.at({10, false, 1}) == 2);
    CHECK(got.at({10, true, 4}) == 3);
    CHECK(got.at({11, false, 1}) == 2);  // 1's outermost activation holds the nested 0 and 1
    CHECK(got.at({11, true, 4}) == 3);
    CHECK(got.at({20, false, 1}) == 1);
    CHECK(got.at({20, true, 4}) == 0);
    CHECK(!c.most_by_context().count(20));  // the entries alone are kept for activations that recursed
}

TEST_CASE("wcet recursion: a recursion's head is where every call into it and every cycle passes") {
    const std::vector<std::string> names{"main", "expr", "term", "factor", "even", "odd", "fib"};
    // main -> expr -> term -> factor -> expr, main -> fib -> fib
    std::vector<CallEdge> edges{{0, 1, true}, {1, 2, true}, {2, 3, true}, {3, 1, true}, {0, 6, true}, {6, 6, true}};
    std::vector<Recursion> found = find_recursions(0, edges, names);
    REQUIRE(found.size() == 2);
    std::map<std::size_t, std::vector<std::size_t>> by_head;
    for (const auto& r : found) by_head[r.head] = r.functions;
    CHECK(by_head.at(1) == std::vector<std::size_t>{1, 2, 3});
    CHECK(by_head.at(6) == std::vector<std::size_t>{6});
    // Entered at both even and odd: no head.
    edges = {{0, 4, true}, {0, 5, true}, {4, 5, true}, {5, 4, true}};
    CHECK_THROWS_WITH_AS(find_recursions(0, edges, names), doctest::Contains("recursion among even, odd has no single function"), ConfigError);
    // Entered at one, but a branch into the head's middle closes a cycle: no head either.
    edges = {{0, 4, true}, {4, 5, true}, {5, 4, false}};
    CHECK_THROWS_AS(find_recursions(0, edges, names), ConfigError);
    // No cycle: no recursion.
    CHECK(find_recursions(0, {{0, 1, true}, {1, 2, true}}, names).empty());
}

TEST_CASE("wcet recursion: every recursive kernel is bounded, trusted and at or above its run, its entries counted") {
    const WcetRun& run = recursion_run();
    for (const char* k : kRecursive) {
        CAPTURE(k);
        WcetResult r = run.bound(k, kDefaultCallDepth);
        CHECK(r.trusted());
        CHECK(r.bound_cycles >= r.observed_max_cycles);
        REQUIRE(!r.recursions.empty());
        CHECK(r.recursions.front().source == "observed");
        CHECK(r.recursions.front().entries > 1);
        // Contexts tell depths apart but never lose the entries' budget.
        WcetResult flat = run.bound(k, 0);
        CHECK(flat.trusted());
        CHECK(flat.bound_cycles >= flat.observed_max_cycles);
    }
    // The entries the counter kept are those the profile of the longest k_fib run saw fib make.
    WcetResult fib = run.bound("k_fib", kDefaultCallDepth);
    REQUIRE(fib.recursions.size() == 1);
    CHECK(fib.recursions[0].function == "fib");
    for (const auto& f : fib.functions)
        if (f.name == "fib") {
            CHECK(f.observed_entries == fib.recursions[0].entries);
            CHECK(f.entries == fib.recursions[0].entries);  // the worst path spends every entry
        }
    // Mutual recursion is bounded at its head.
    WcetResult expr = run.bound("k_expr", kDefaultCallDepth);
    REQUIRE(expr.recursions.size() == 1);
    CHECK(expr.recursions[0].function == "parse_expr");
    CHECK(expr.recursions[0].cycle.size() == 3);
}

TEST_CASE("wcet recursion: what each activation did inside the recursion tightens the bound, never below the run") {
    const WcetRun& run = recursion_run();
    StatisticsTable entries_only = run.stats;
    for (auto& [key, c] : entries_only.contexts) {
        c.recursion_entries.clear();
        c.recursion_headers.clear();
        c.recursion_blocks.clear();
    }
    for (const char* k : {"k_qsort", "k_expr"}) {
        CAPTURE(k);
        WcetResult tight = run.bound(k, kDefaultCallDepth);
        WcetResult loose = run.session->bound(entries_only, {k, {}, {}, kDefaultCallDepth});
        CHECK(tight.bound_cycles < loose.bound_cycles);
        CHECK(tight.bound_cycles >= tight.observed_max_cycles);
        CHECK(loose.trusted());
    }
}

TEST_CASE("wcet recursion: a block every activation ran as often holds the call tree's shape, leaves against inner calls") {
    const WcetRun& run = recursion_run();
    StatisticsTable shapeless = run.stats;
    for (auto& [key, c] : shapeless.contexts) c.recursion_blocks.clear();
    for (const char* k : {"k_fib", "k_hanoi"}) {
        CAPTURE(k);
        WcetResult shaped = run.bound(k, kDefaultCallDepth);
        WcetResult chain = run.session->bound(shapeless, {k, {}, {}, kDefaultCallDepth});
        CHECK(shaped.trusted());
        CHECK(shaped.bound_cycles >= shaped.observed_max_cycles);
        // Without the blocks' counts every activation but the last may recurse: a chain, 1.2 times the run.
        CHECK(static_cast<double>(chain.bound_cycles) > 1.15 * static_cast<double>(chain.observed_max_cycles));
        CHECK(static_cast<double>(shaped.bound_cycles) <= 1.05 * static_cast<double>(shaped.observed_max_cycles));
    }
    // Each activation from outside is one entry of k_fib's fib: one activation, its counts agree.
    const std::uint32_t fib = run.session->program().function("fib")->start;
    bool counted = false;
    for (const auto& [key, c] : run.stats.contexts)
        if (key.function == fib)
            for (const auto& [address, count] : c.recursion_blocks) {
                counted = true;
                CHECK(count.scopes == 1);
                CHECK(count.least == count.most);
            }
    CHECK(counted);
}

TEST_CASE("wcet recursion: the entries go through the flow-facts file, raised they loosen the bound, lowered they are refused") {
    const WcetRun& run = recursion_run();
    TempDir dir;
    WcetResult r = run.bound("k_qsort", kDefaultCallDepth);
    write_flow_facts(dir.file("facts.yaml"), r, "wcet_recursion.elf");
    CHECK(read_file(dir.file("facts.yaml")).find("{function: quicksort, recursion: " + std::to_string(r.recursions.at(0).entries) + "}") !=
          std::string::npos);
    std::vector<FlowFact> facts = read_flow_facts(dir.file("facts.yaml"));
    WcetResult back = run.bound("k_qsort", kDefaultCallDepth, facts);
    CHECK(back.bound_cycles == r.bound_cycles);
    REQUIRE(back.recursions.size() == 1);
    CHECK(back.recursions[0].source == "flow fact");
    // Raised, it stands for inputs the runs did not have: what the runs' activations did inside
    // the recursion no longer holds it.
    for (auto& f : facts)
        if (f.recursion) f.recursion += 10;
    CHECK(run.bound("k_qsort", kDefaultCallDepth, facts).bound_cycles > r.bound_cycles);
    for (auto& f : facts)
        if (f.recursion) f.recursion = 2;
    CHECK_THROWS_WITH_AS(run.bound("k_qsort", kDefaultCallDepth, facts), doctest::Contains("recursion fact 2 for quicksort is below what a run did"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(run.bound("k_qsort", kDefaultCallDepth, facts), doctest::Contains("facts.yaml:"), ConfigError);
    // A fact for a function that does not exist is refused, not ignored.
    FlowFact typo;
    typo.function = "quicksrot";
    typo.recursion = 40;
    CHECK_THROWS_WITH_AS(run.bound("k_qsort", kDefaultCallDepth, {typo}), doctest::Contains("quicksrot: no function of that name"), ConfigError);
}

TEST_CASE("wcet recursion: a recursion entered at two functions is refused naming them") {
    CHECK_THROWS_WITH_AS(recursion_run().bound("k_parity", kDefaultCallDepth), doctest::Contains("k_parity: recursion among"), ConfigError);
    CHECK_THROWS_WITH_AS(recursion_run().bound("k_parity", kDefaultCallDepth), doctest::Contains("is_even"), ConfigError);
    // Below it, one function alone is entered at one place: bounded.
    WcetResult even = recursion_run().bound("is_even", kDefaultCallDepth);
    CHECK(even.trusted());
    CHECK(even.bound_cycles >= even.observed_max_cycles);
}

TEST_CASE("wcet recursion: the counts survive the statistics file, and a file from before them is refused with the reason") {
    const WcetRun& run = recursion_run();
    TempDir dir;
    run.stats.save(dir.file("s.json"));
    StatisticsTable back = StatisticsTable::load(dir.file("s.json"));
    CHECK(back.counts_recursion);
    CHECK(run.session->bound(back, {"k_hanoi", {}, {}, kDefaultCallDepth}).bound_cycles == run.bound("k_hanoi", kDefaultCallDepth).bound_cycles);
    auto j = nlohmann::json::parse(read_file(dir.file("s.json")));
    CHECK(j["version"] == 3);
    j["version"] = 2;  // as an emutrace before the counts wrote it
    for (auto& c : j["contexts"]) c.erase("recursion");
    write_file(dir.file("v2.json"), j.dump());
    StatisticsTable old = StatisticsTable::load(dir.file("v2.json"));
    CHECK(!old.counts_recursion);
    CHECK_THROWS_WITH_AS(run.session->bound(old, {"k_hanoi", {}, {}, kDefaultCallDepth}), doctest::Contains("did not count recursion"), ConfigError);
}

TEST_CASE("wcet recursion: bounds from three inputs hold for five inputs held aside") {
    check_held_aside("wcet_recursion", {std::begin(kRecursive), std::end(kRecursive)});
}
