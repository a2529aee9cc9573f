// End-to-end: `emutrace cfg`, `run --calltrace` and `wcet` on real compiler output (the newlib-nano
// and libgcc corpus of tests/firmware/libcalls.c, the conditional exits of cond_returns.c), as a
// user runs them: every bound trusted and at or above its longest run, and clear refusals.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;

TEST_CASE("cli: wcet --all on newlib and libgcc bounds every function that ran, cross-checked") {
    TempDir dir;
    Cli r = emutrace_cli("wcet " + firmware("libcalls") + " --all --json " + dir.file("all.json"));
    CHECK(r.status == 0);
    CHECK(r.out.find("__aeabi_") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("all.json")));
    CHECK(j["trusted"] == true);
    CHECK(j["cross_check"].get<std::string>().find("in 1 of 1 run") != std::string::npos);
    std::size_t bounded = 0;
    for (const auto& row : j["functions"]) {
        CAPTURE(row.dump());
        CHECK(row["trusted"] == true);
        if (!row.contains("bound_cycles")) continue;
        CHECK(row["bound_cycles"].get<std::uint64_t>() >= row["observed_max_cycles"].get<std::uint64_t>());
        ++bounded;
    }
    CHECK(bounded > 60);
    CHECK(emutrace_cli("wcet " + firmware("libcalls") + " --all -f main").status == 2);  // one or the other
}

TEST_CASE("cli: the call tracer matches every return of newlib and libgcc, and cfg reads them") {
    Cli run = emutrace_cli("run " + firmware("libcalls") + " --calltrace");
    CHECK(run.status == 0);
    CHECK(run.out.find("libcalls: ") != std::string::npos);
    CHECK((run.out + run.err).find("matched no call") == std::string::npos);
    CHECK(run.out.find("__aeabi_dmul") == std::string::npos);  // reported under one name: __muldf3
    Cli cfg = emutrace_cli("cfg " + firmware("libcalls") + " --function __aeabi_fsub");
    CHECK(cfg.status == 0);
    CHECK(cfg.out.find("runs on into __addsf3") != std::string::npos);
}

TEST_CASE("cli: a function that never ran is refused with the reason, a two-entry cycle is bounded per call") {
    Cli inlined = emutrace_cli("wcet " + firmware("libcalls") + " -f lc_scale");
    CHECK(inlined.status == 2);
    CHECK(inlined.err.find("lc_scale never ran in the measured runs: GCC inlined it into lc_scaled_sum (libcalls.c:") != std::string::npos);
    CHECK(std::count(inlined.err.begin(), inlined.err.end(), '\n') == 1);
    TempDir dir;
    Cli cycle = emutrace_cli("wcet " + firmware("cond_returns") + " -f cr_two_entries --stats-out " + dir.file("s.json"));
    CHECK(cycle.status == 0);
    CHECK(cycle.out.find("irreducible cycles: 2 blocks bounded by their most executions per call") != std::string::npos);
    CHECK(cycle.out.find("(cond_returns.c:") != std::string::npos);
    // Statistics without the per-call counts cannot bound it: said with the block and its line.
    auto s = nlohmann::json::parse(read_file(dir.file("s.json")));
    for (auto& b : s["blocks"]) b.erase("most_per_call");
    write_file(dir.file("old.json"), s.dump());
    Cli old = emutrace_cli("wcet " + firmware("cond_returns") + " -f cr_two_entries --no-run --stats-in " + dir.file("old.json"));
    CHECK(old.status == 2);
    CHECK(old.err.find("irreducible control flow") != std::string::npos);
    CHECK(old.err.find("cond_returns.c:") != std::string::npos);
}

TEST_CASE("cli: the held-out corpus and other builds: every bound trusted") {
    // Not used to build the analyses: libcalls_holdout.c for ARMv6-M and ARMv7-M, libcalls.c for ARMv6-M.
    for (const char* fw : {"libcalls_holdout", "libcalls_holdout_m3", "libcalls_m0"}) {
        CAPTURE(fw);
        TempDir dir;
        Cli r = emutrace_cli("wcet " + firmware(fw) + " --all --json " + dir.file("all.json"));
        CHECK(r.status == 0);
        auto j = nlohmann::json::parse(read_file(dir.file("all.json")));
        CHECK(j["trusted"] == true);
        for (const auto& row : j["functions"])
            if (row.contains("bound_cycles")) CHECK(row["bound_cycles"].get<std::uint64_t>() >= row["observed_max_cycles"].get<std::uint64_t>());
        Cli run = emutrace_cli("run " + firmware(fw) + " --calltrace");
        CHECK(run.status == 0);
        CHECK((run.out + run.err).find("matched no call") == std::string::npos);
    }
}

TEST_CASE("cli: a flow fact states a triangular loop's sum, on an outermost loop it is refused") {
    TempDir dir;
    auto scenario = [&](const std::string& name, const std::string& facts) {
        write_file(dir.file(name),
                   "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\n"
                   "  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\n"
                   "wcet:\n  function: lc_bubble_sort\n  flow_facts:\n" +
                       facts);
        return dir.file(name);
    };
    Cli observed = emutrace_cli("wcet " + firmware("libcalls") + " -f lc_bubble_sort --json " + dir.file("o.json"));
    REQUIRE(observed.status == 0);
    auto o = nlohmann::json::parse(read_file(dir.file("o.json")));
    REQUIRE(o["loops"].size() == 2);
    CHECK(o["loops"][1]["total_source"] == "observed");
    CHECK(o["loops"][1]["line"].get<std::string>().find("libcalls.c:") == 0);
    std::uint64_t total = o["loops"][1]["total"].get<std::uint64_t>();
    Cli fact = emutrace_cli("wcet " + firmware("libcalls") + " -s " +
                            scenario("t.yaml", "    - {function: lc_bubble_sort, loop: 1, bound: 16, total: " + std::to_string(total + 40) + "}\n") +
                            " --json " + dir.file("f.json"));
    CHECK(fact.status == 0);
    auto f = nlohmann::json::parse(read_file(dir.file("f.json")));
    CHECK(f["loops"][1]["total_source"] == "flow fact");
    CHECK(f["bound_cycles"].get<std::uint64_t>() > o["bound_cycles"].get<std::uint64_t>());
    Cli outer = emutrace_cli("wcet " + firmware("libcalls") + " -s " + scenario("bad.yaml", "    - {function: lc_bubble_sort, loop: 0, total: 9}\n"));
    CHECK(outer.status == 2);
    CHECK(outer.err.find("outermost") != std::string::npos);
    Cli neither = emutrace_cli("wcet " + firmware("libcalls") + " -s " + scenario("none.yaml", "    - {function: lc_bubble_sort, loop: 1}\n"));
    CHECK(neither.status == 2);
    CHECK(neither.err.find("none.yaml:7") != std::string::npos);
}

TEST_CASE("cli: statistics remember how many runs were cross-checked") {
    TempDir dir;
    Cli first = emutrace_cli("wcet " + firmware("libcalls") + " -f lc_div64 --stats-out " + dir.file("s.json"));
    REQUIRE(first.status == 0);
    auto s = nlohmann::json::parse(read_file(dir.file("s.json")));
    CHECK(s["checked_runs"] == 1);
    Cli merged = emutrace_cli("wcet " + firmware("libcalls") + " -f lc_div64 --stats-in " + dir.file("s.json"));
    CHECK(merged.status == 0);
    CHECK(merged.out.find("in 2 of 2 runs") != std::string::npos);
    s.erase("checked_runs");  // statistics of an emutrace that did not check
    write_file(dir.file("old.json"), s.dump());
    Cli old = emutrace_cli("wcet " + firmware("libcalls") + " -f lc_div64 --no-run --stats-in " + dir.file("old.json"));
    CHECK(old.status == 0);
    CHECK(old.out.find("1 of the merged runs did not pass the cross-check") != std::string::npos);
}

TEST_CASE("cli: a loop without a bound names its header, its line and the flow fact to add") {
    TempDir dir;
    REQUIRE(emutrace_cli("wcet " + firmware("libcalls") + " -f lc_bubble_sort --stats-out " + dir.file("s.json")).status == 0);
    auto s = nlohmann::json::parse(read_file(dir.file("s.json")));
    s["loops"] = nlohmann::json::array();  // statistics that never saw the loops iterate, in any call context
    for (auto& c : s["contexts"]) c["loops"] = nlohmann::json::array();
    write_file(dir.file("none.json"), s.dump());
    Cli r = emutrace_cli("wcet " + firmware("libcalls") + " -f lc_bubble_sort --no-run --stats-in " + dir.file("none.json"));
    CHECK(r.status == 2);
    CHECK(r.err.find("lc_bubble_sort loop 0 at 0x") != std::string::npos);
    CHECK(r.err.find("(libcalls.c:") != std::string::npos);
    CHECK(r.err.find("{function: lc_bubble_sort, loop: 0, bound: N}") != std::string::npos);
}

TEST_CASE("cli: on an RTOS, functions that block are refused and the others keep their bound") {
    TempDir dir;
    Cli r =
        emutrace_cli("wcet " + firmware("franking") + " -s " + source("scenarios/franking/franking.yaml") + " --all --json " + dir.file("all.json"));
    CHECK(r.status == 1);  // some bounds are not to be trusted
    auto j = nlohmann::json::parse(read_file(dir.file("all.json")));
    std::map<std::string, nlohmann::json> rows;
    for (const auto& row : j["functions"]) rows[row["function"].get<std::string>()] = row;
    // task_sleep waits while other tasks run: its time is not its own.
    REQUIRE(rows.count("task_sleep"));
    CHECK(rows["task_sleep"]["trusted"] == false);
    CHECK(rows["task_sleep"]["errors"][0].get<std::string>().find("cross-check") != std::string::npos);
    // The postage computation never blocks: cross-checked and bounded.
    REQUIRE(rows.count("compute_postage"));
    CHECK(rows["compute_postage"]["trusted"] == true);
    CHECK(rows["compute_postage"]["bound_cycles"].get<std::uint64_t>() >= rows["compute_postage"]["observed_max_cycles"].get<std::uint64_t>());
}

TEST_CASE("cli: wcet writes its flow facts per call context, reads them back from the command line or the scenario, and refuses bad ones") {
    TempDir dir;
    const std::string elf = firmware("wcet_kernels");
    Cli out = emutrace_cli("wcet " + elf + " -f k_stats --flow-facts-out " + dir.file("f.yaml") + " --json " + dir.file("a.json") + " --report " +
                           dir.file("a.html"));
    REQUIRE(out.status == 0);
    CHECK(out.out.find("where the bound parts from the longest run") != std::string::npos);
    CHECK(out.out.find("meaning: a measurement-based bound") != std::string::npos);
    // The runs' path counts hold the bound; the bound over any mix is beside it, in the text, the JSON and the page.
    CHECK(out.out.find("  path counts: ") != std::string::npos);
    CHECK(out.out.find("  bound, any path mix") != std::string::npos);
    CHECK(read_file(dir.file("a.html")).find("<p>Path counts: ") != std::string::npos);
    const std::string facts = read_file(dir.file("f.yaml"));
    CHECK(facts.find("context: [0x") != std::string::npos);
    Cli back = emutrace_cli("wcet " + elf + " -f k_stats --flow-facts " + dir.file("f.yaml") + " --json " + dir.file("b.json"));
    REQUIRE(back.status == 0);
    auto a = nlohmann::json::parse(read_file(dir.file("a.json"))), b = nlohmann::json::parse(read_file(dir.file("b.json")));
    CHECK(a["bound_cycles"] == b["bound_cycles"]);
    CHECK(b["loops"][0]["source"] == "flow fact");
    CHECK(a["coverage"]["call_depth"] == 2);
    CHECK(facts.find(", block: 0x") != std::string::npos);
    CHECK(std::any_of(b["path_counts"]["blocks"].begin(), b["path_counts"]["blocks"].end(),
                      [](const nlohmann::json& u) { return u["source"] == "flow fact"; }));
    const auto any_mix = a["path_counts"]["any_path_bound_cycles"].get<std::uint64_t>();
    CHECK(any_mix > a["bound_cycles"].get<std::uint64_t>());
    Cli any = emutrace_cli("wcet " + elf + " -f k_stats --path-counts any --json " + dir.file("d.json"));
    REQUIRE(any.status == 0);
    CHECK(nlohmann::json::parse(read_file(dir.file("d.json")))["bound_cycles"].get<std::uint64_t>() == any_mix);
    CHECK(any.out.find("path counts: none from the runs: not asked for") != std::string::npos);
    CHECK(emutrace_cli("wcet " + elf + " -f k_stats --path-counts some").status == 2);

    // The same file from a scenario, with no call contexts: one bound per function, looser.
    write_file(dir.file("s.yaml"),
               "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\n  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\n"
               "wcet:\n  function: k_stats\n  call_context: 0\n  path_counts: any\n  flow_facts_file: f.yaml\n");
    Cli flat = emutrace_cli("wcet " + elf + " -s " + dir.file("s.yaml") + " --json " + dir.file("c.json"));
    CHECK(flat.status == 0);
    auto c = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(c["coverage"]["call_depth"] == 0);
    CHECK(c["bound_cycles"].get<std::uint64_t>() > a["bound_cycles"].get<std::uint64_t>());

    write_file(dir.file("bad.yaml"), "format: emutrace-flow-facts\nversion: 1\nflow_facts:\n  - {function: k_stats, loop: 0, bond: 4}\n");
    Cli bad = emutrace_cli("wcet " + elf + " -f k_stats --flow-facts " + dir.file("bad.yaml"));
    CHECK(bad.status == 2);
    CHECK(bad.err.find("bad.yaml:4") != std::string::npos);
    write_file(dir.file("other.yaml"), "wcet: {function: k_stats}\n");
    CHECK(emutrace_cli("wcet " + elf + " -f k_stats --flow-facts " + dir.file("other.yaml")).status == 2);
    Cli deep = emutrace_cli("wcet " + elf + " -f k_stats --call-context 9");
    CHECK(deep.status == 2);
    CHECK(deep.err.find("--call-context 9") != std::string::npos);
}

TEST_CASE("cli: a recursion is bounded by its entries per call from outside, one entered at two functions is refused in one line") {
    TempDir dir;
    Cli qsort = emutrace_cli("wcet " + firmware("wcet_recursion") + " -f k_qsort --json " + dir.file("q.json"));
    CHECK(qsort.status == 0);
    CHECK(qsort.out.find("recursion: quicksort: ") != std::string::npos);
    CHECK(qsort.out.find(" entries per call from outside (observed)") != std::string::npos);
    auto j = nlohmann::json::parse(read_file(dir.file("q.json")));
    REQUIRE(j["recursions"].size() == 1);
    CHECK(j["recursions"][0]["function"] == "quicksort");
    CHECK(j["bound_cycles"].get<std::uint64_t>() >= j["observed_max_cycles"].get<std::uint64_t>());
    Cli parity = emutrace_cli("wcet " + firmware("wcet_recursion") + " -f k_parity");
    CHECK(parity.status == 2);
    CHECK(parity.err.find("k_parity: recursion among is_odd, is_even has no single function") != std::string::npos);
    CHECK(std::count(parity.err.begin(), parity.err.end(), '\n') == 1);
}
