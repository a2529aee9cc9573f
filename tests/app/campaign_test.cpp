// Campaigns: many runs, one answer. A small campaign of the franking demo (two seeds x two clocks,
// and the slow variant) on two workers; its merged figures equal the cases' own results merged
// by hand; merging is associative and commutative on real results; --resume runs only what is
// missing; coverage, sampler and replay verdicts merge too; a bad campaign file is a one-line error.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>

#include "app/campaign/campaign_file.h"
#include "app/campaign/campaign_merge.h"
#include "support/cli.h"
#include "support/nightly_campaign.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

std::string campaign_text(const std::string& results) {
    return "name: franking-small\n"
           "runs:\n"
           "  - name: franking\n"
           "    firmware: franking\n"
           "    scenario: " +
           source("scenarios/franking/franking.yaml") +
           "\n"
           "    matrix: {seed: [1, 2], clock: [48MHz, 40MHz]}\n"
           "  - name: franking-slow\n"
           "    firmware: franking_slow\n"
           "    scenario: " +
           source("scenarios/franking/franking-slow.yaml") +
           "\n"
           "    matrix: {seed: [1, 2]}\n"
           "outputs: {results: " +
           results + ", json: merged.json, junit: merged.xml}\n";
}

struct CaseResult {
    std::string id;
    json result;
    int status;
};

// One case's results as the campaign merges them, through the built-in analyses' merges.
emutrace::app::MergedResults merged_case(const json& result, int status, const std::string& id) {
    static const emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    emutrace::CampaignCase c;
    c.id = c.label = id;
    c.status = status;
    if (result.is_object() && result.contains("firmware") && result["firmware"].is_string()) c.firmware = result["firmware"];
    return emutrace::app::case_results(registry, result, c);
}

std::vector<CaseResult> case_results(const std::string& results) {
    std::vector<CaseResult> out;
    for (int i = 0; i < 6; ++i) {
        char id[16];
        std::snprintf(id, sizeof id, "case-%04d", i);
        const std::string dir = results + "/" + id;
        out.push_back({id, json::parse(read_file(dir + "/result.json")), std::stoi(read_file(dir + "/status"))});
    }
    return out;
}

}  // namespace

TEST_CASE("campaign: the merged figures are the cases' own merged by hand, and a case is the run a user would make") {
    TempDir dir;
    std::ofstream(dir.file("c.yaml")) << campaign_text(dir.file("results"));
    Cli run = emutrace_cli("campaign " + dir.file("c.yaml") + " -j 2 --report " + dir.file("c.html"));
    CHECK(run.status == 1);  // the slow variant misses its deadline, and 40 MHz is too slow for it too
    CHECK(run.out.find("cases         6:") != std::string::npos);
    const json merged = json::parse(read_file(dir.file("merged.json")));
    // The page draws the merged result: a row per run entry and per constraint, every case not passed.
    const std::string page = read_file(dir.file("c.html"));
    auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto at = page.find(what); at != std::string::npos; at = page.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(count("<tr class=\"run-entry\">") == merged["runs"].size());
    CHECK(count("<tr class=\"constraint ") == merged["overall"]["constraints"].size());
    CHECK(page.find("verdict fail") != std::string::npos);
    for (const auto& id : merged["overall"]["not_passed"])
        CHECK(page.find("<li><code>" + id.get<std::string>() + "</code></li>") != std::string::npos);
    const std::vector<CaseResult> cases = case_results(dir.file("results"));

    // By hand: counts add, the extremes are the extremes, the mean is the total over the count.
    std::uint64_t occurrences = 0, violations = 0, max = 0, total = 0, not_passed = 0;
    std::string max_case;
    std::map<std::string, std::uint64_t> calls;
    for (const auto& c : cases) {
        const json& k = c.result["calltrace"]["constraints"][0];
        occurrences += k["occurrences"].get<std::uint64_t>();
        violations += k["violation_count"].get<std::uint64_t>();
        total += static_cast<std::uint64_t>(std::llround(k["mean_cycles"].get<double>() * k["occurrences"].get<double>()));
        if (k["max_cycles"].get<std::uint64_t>() > max) max = k["max_cycles"], max_case = c.id;
        for (const auto& f : c.result["calltrace"]["functions"])
            calls[c.result["firmware"].get<std::string>() + " " + f["function"].get<std::string>()] += f["calls"].get<std::uint64_t>();
        not_passed += c.status != 0;
    }
    const json& k = merged["overall"]["constraints"][0];
    CHECK(k["name"] == "print_image_in_time");
    CHECK(k["occurrences"] == occurrences);
    CHECK(occurrences == 6 * 8);  // eight letters per run
    CHECK(k["violation_count"] == violations);
    CHECK(violations > 0);
    CHECK(k["max_cycles"] == max);
    CHECK(k["max_case"] == max_case);
    CHECK(k["mean_cycles"].get<double>() == doctest::Approx(static_cast<double>(total) / static_cast<double>(occurrences)));
    // A function is its firmware's: the two builds' mains are two rows, named with their ELF.
    std::size_t mains = 0;
    for (const auto& f : merged["overall"]["functions"]) {
        CHECK(calls[f["firmware"].get<std::string>() + " " + f["function"].get<std::string>()] == f["calls"]);
        mains += f["function"] == "main";
    }
    CHECK(mains == 2);
    CHECK(calls.size() == merged["overall"]["functions"].size());
    CHECK(run.out.find("(franking_slow.elf)") != std::string::npos);
    CHECK(merged["overall"]["not_passed"].size() == not_passed);
    CHECK(merged["runs"]["franking"]["cases"] == 4);
    CHECK(merged["runs"]["franking-slow"]["cases"] == 2);

    // A case is exactly `emutrace run` with the matrix's values set: the same run gives the same result.
    Cli alone = emutrace_cli("run " + firmware("franking") + " -s " + source("scenarios/franking/franking.yaml") +
                             " --set seed=2 --set clock=40MHz -q --exit-status emutrace --json " + dir.file("alone.json"));
    const json one = json::parse(read_file(dir.file("alone.json")));
    CHECK(alone.status == cases[3].status);
    CHECK(one["cycles"] == cases[3].result["cycles"]);
    CHECK(one["calltrace"]["constraints"] == cases[3].result["calltrace"]["constraints"]);

    // Each case runs in its own directory: the scenario's own outputs (franking.yaml writes a
    // Perfetto trace by a relative path) are the case's, not one file all cases write at once.
    for (const auto& c : cases) CHECK(std::filesystem::exists(dir.file("results/" + c.id + "/franking.perfetto.json")));

    // One JUnit test case per case and constraint.
    const std::string junit = read_file(dir.file("merged.xml"));
    std::size_t testcases = 0;
    for (std::size_t at = 0; (at = junit.find("<testcase ", at)) != std::string::npos; ++at) ++testcases;
    CHECK(testcases == 6);
    Cli lint = run_shell("xmllint --noout " + dir.file("merged.xml"));
    CHECK_MESSAGE(lint.status == 0, lint.err);
}

TEST_CASE("campaign: merging real results is associative and commutative") {
    TempDir dir;
    std::ofstream(dir.file("c.yaml")) << campaign_text(dir.file("results"));
    REQUIRE(emutrace_cli("campaign " + dir.file("c.yaml") + " -j 2 -q").status == 1);
    std::vector<emutrace::app::MergedResults> parts;
    for (const auto& c : case_results(dir.file("results"))) parts.push_back(merged_case(c.result, c.status, c.id));
    using emutrace::app::merge;
    const auto& a = parts[0];
    const auto& b = parts[3];
    const auto& c = parts[5];
    CHECK(merge(a, merge(b, c)) == merge(merge(a, b), c));
    CHECK(merge(a, b) == merge(b, a));
    // Any order of all six, folded left or in pairs, gives one answer.
    emutrace::app::MergedResults in_order;
    for (const auto& p : parts) in_order = merge(in_order, p);
    std::mt19937 shuffle(7);
    for (int round = 0; round < 5; ++round) {
        std::vector<emutrace::app::MergedResults> shuffled = parts;
        std::shuffle(shuffled.begin(), shuffled.end(), shuffle);
        emutrace::app::MergedResults left, pairs;
        for (const auto& p : shuffled) left = merge(left, p);
        for (std::size_t i = 0; i < shuffled.size(); i += 2) pairs = merge(merge(shuffled[i], shuffled[i + 1]), pairs);
        CHECK(left == in_order);
        CHECK(pairs == in_order);
    }
    CHECK(in_order.cases == 6);
}

TEST_CASE("campaign: a case passes only with a result that says so, and counts near 2^64 stay at the top instead of wrapping") {
    using emutrace::app::merge;
    // Missing (null), not a result, mistyped: each was counted as passed with exit status 0.
    for (const json& result : {json(), json::parse("[1, 2]"), json{{"status", "0"}}, json{{"instructions", 5}}}) {
        CAPTURE(result.dump());
        CHECK(merged_case(result, 0, "case-0000").not_passed.count("case-0000") == 1);
    }
    CHECK(merged_case(json{{"status", 0}}, 0, "case-0000").not_passed.empty());
    // Two cases whose cycles add past 2^64 (merged cycles were 120,975).
    const json huge = {{"status", 0}, {"cycles", UINT64_MAX - 60000}, {"instructions", UINT64_MAX}};
    const auto both = merge(merged_case(huge, 0, "case-0000"), merged_case(huge, 0, "case-0001"));
    CHECK(both.cycles == UINT64_MAX);
    CHECK(both.instructions == UINT64_MAX);
    CHECK(both.cases == 2);
}

TEST_CASE("campaign: outputs naming one file are refused before any case runs") {
    TempDir dir;
    std::ofstream(dir.file("same.yaml")) << "runs:\n  - firmware: kernels\noutputs: {json: out.xml, junit: out.xml}\n";
    Cli same = emutrace_cli("campaign " + dir.file("same.yaml"));
    CHECK(same.status == 2);
    CHECK(same.err.find("outputs.json and outputs.junit both name") != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("same.results")));  // nothing ran
    Cli flag = emutrace_cli("campaign " + dir.file("same.yaml") + " --junit " + dir.file("j.xml") + " --report " + dir.file("j.xml"));
    CHECK(flag.status == 2);
    CHECK(flag.err.find("outputs.junit and outputs.report both name") != std::string::npos);
}

TEST_CASE("campaign: --resume runs only the cases not complete, and the answer is the same") {
    TempDir dir;
    std::ofstream(dir.file("c.yaml")) << campaign_text(dir.file("results"));
    REQUIRE(emutrace_cli("campaign " + dir.file("c.yaml") + " -j 2 -q").status == 1);
    const json before = json::parse(read_file(dir.file("merged.json")))["overall"];
    std::filesystem::remove(dir.file("results/case-0002/status"));  // as if killed while it ran
    std::filesystem::remove(dir.file("merged.json"));
    Cli resumed = emutrace_cli("campaign " + dir.file("c.yaml") + " -j 2 --resume");
    CHECK(resumed.err.find("1/1 done") != std::string::npos);
    CHECK(resumed.out.find("6 cases (5 from an earlier invocation)") != std::string::npos);
    CHECK(json::parse(read_file(dir.file("merged.json")))["overall"] == before);
}

TEST_CASE("campaign: a bad campaign file is a one-line error naming file, line and key") {
    TempDir dir;
    std::ofstream(dir.file("bad.yaml")) << "runs:\n  - firmware: franking\n    matrx: {seed: [1, 2]}\n";
    Cli bad = emutrace_cli("campaign " + dir.file("bad.yaml"));
    CHECK(bad.status == 2);
    CHECK(bad.err.find("bad.yaml:3:5: runs[0].matrx: unknown key") != std::string::npos);
    std::ofstream(dir.file("empty.yaml")) << "runs:\n  - firmware: franking\n    matrix: {seed: []}\n";
    Cli empty = emutrace_cli("campaign " + dir.file("empty.yaml"));
    CHECK(empty.status == 2);
    CHECK(empty.err.find("an empty list makes no case") != std::string::npos);
    std::ofstream(dir.file("unbuilt.yaml")) << "runs:\n  - firmware: no_such_firmware\n";
    Cli unbuilt = emutrace_cli("campaign " + dir.file("unbuilt.yaml"));
    CHECK(unbuilt.status == 2);
    // Seven keys of ten values would be ten million cases: refused before one is made.
    std::string keys;
    for (char k = 'a'; k < 'h'; ++k) keys += std::string(keys.empty() ? "" : ", ") + k + ": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";
    std::ofstream(dir.file("huge.yaml")) << "runs:\n  - firmware: franking\n    matrix: {" << keys << "}\n";
    Cli huge = emutrace_cli("campaign " + dir.file("huge.yaml"));
    CHECK(huge.status == 2);
    CHECK(huge.err.find("huge.yaml:3:13: runs[0].matrix: the matrix makes more than the 100000 cases") != std::string::npos);
    CHECK(std::count(huge.err.begin(), huge.err.end(), '\n') == 1);
    // A short file of long values (a YAML anchor) multiplying out to gigabytes of settings.
    std::ofstream(dir.file("long.yaml")) << "runs:\n  - firmware: franking\n    matrix:\n      a: [&v " << std::string(4000, 'x')
                                         << ", *v, *v, *v, *v, *v, *v, *v, *v, *v]\n"
                                         << "      b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n      c: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
                                         << "      d: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n      e: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
    Cli long_values = emutrace_cli("campaign " + dir.file("long.yaml"));
    CHECK(long_values.status == 2);
    CHECK(long_values.err.find("runs[0].matrix: the matrix's 100000 cases would hold more than 256 MiB of settings") != std::string::npos);
    CHECK(unbuilt.err.find("firmware 'no_such_firmware' is not built") != std::string::npos);
}

TEST_CASE("campaign: one WCET bound over every case's runs, from their merged loop-context statistics") {
    TempDir dir;
    std::ofstream(dir.file("w.yaml")) << "runs:\n  - name: soak\n    firmware: soak\n    scenario: " << source("bench/soak.yaml")
                                      << "\n    matrix: {seed: [1, 2, 3], \"semihosting.cmdline\": [\"120\"]}\n"
                                      << "outputs: {results: " << dir.file("results") << ", json: w.json}\n";
    REQUIRE(emutrace_cli("campaign " + dir.file("w.yaml") + " -j 2 -q").status == 0);
    const json all = json::parse(read_file(dir.file("w.json")))["runs"]["soak"]["wcet_all_runs"];
    REQUIRE(all.is_object());
    CHECK(all["status"] == 0);
    std::uint64_t runs = 0, largest_bound = 0, longest = 0;
    for (int i = 0; i < 3; ++i) {
        const json w = json::parse(read_file(dir.file("results/case-000" + std::to_string(i) + "/result.json")))["wcet"];
        runs += w["observed_runs"].get<std::uint64_t>();
        largest_bound = std::max(largest_bound, w["bound_cycles"].get<std::uint64_t>());
        longest = std::max(longest, w["observed_max_cycles"].get<std::uint64_t>());
    }
    CHECK(runs == 3 * 120);
    CHECK(all["observed_runs"] == runs);                               // every case's runs in one table
    CHECK(all["observed_max_cycles"] == longest);                      // the longest of them all
    CHECK(all["bound_cycles"].get<std::uint64_t>() >= largest_bound);  // the maxima of all runs bound at least what each did
}

TEST_CASE("campaign: coverage, sampler verdicts and replay verdicts merge as unions and sums, in any order") {
    TempDir dir;
    REQUIRE(
        emutrace_cli("run " + firmware("rtos") + " -s " + source("tests/scenarios/rtos_replay.yaml") + " --record " + dir.file("rtos.log") + " -q")
            .status == 0);
    std::ofstream(dir.file("a.yaml")) << "runs:\n"
                                         "  - name: sampled\n"
                                         "    firmware: sampled\n"
                                         "    scenario: "
                                      << source("tests/scenarios/sampled.yaml")
                                      << "\n"
                                         "    matrix: {clock: [25MHz, 16MHz]}\n"
                                         "    args: [--coverage]\n"
                                         "  - name: replay\n"
                                         "    firmware: rtos\n"
                                         "    scenario: "
                                      << source("tests/scenarios/rtos_replay.yaml")
                                      << "\n"
                                         "    matrix: {clock: [25MHz, 20MHz]}\n"
                                         "    args: [--replay, "
                                      << dir.file("rtos.log")
                                      << ", --coverage]\n"
                                         "outputs: {results: "
                                      << dir.file("results") << ", json: merged.json}\n";
    Cli run = emutrace_cli("campaign " + dir.file("a.yaml") + " -j 2 -q --report " + dir.file("a.html"));
    REQUIRE_MESSAGE(run.status == 0, run.err);
    const json merged = json::parse(read_file(dir.file("merged.json")))["overall"];

    // By hand from the four cases' own results: sampler counts add, coverage is what ran in any case.
    std::uint64_t checked = 0, correct = 0, replays = 0, events = 0;
    std::map<std::string, std::set<std::string>> functions_run;
    std::map<std::string, std::set<std::uint32_t>> blocks_run;
    std::vector<emutrace::app::MergedResults> parts;
    for (int i = 0; i < 4; ++i) {
        char id[16];
        std::snprintf(id, sizeof id, "case-%04d", i);
        const json r = json::parse(read_file(dir.file(std::string("results/") + id + "/result.json")));
        parts.push_back(merged_case(r, 0, id));
        const json& c = r["coverage"];
        for (const auto& f : c["functions_executed"]) functions_run[c["firmware"]].insert(f.get<std::string>());
        for (const auto& b : c["blocks_executed"]) blocks_run[c["firmware"]].insert(b.get<std::uint32_t>());
        CHECK(c["blocks_executed"].size() <= c["blocks_defined"].get<std::size_t>());
        if (r.contains("sampler"))
            checked += r["sampler"]["intervals_checked"].get<std::uint64_t>(), correct += r["sampler"]["correct"].get<std::uint64_t>();
        if (r.contains("replay")) ++replays, events += r["replay"]["events"].get<std::uint64_t>();
    }
    REQUIRE(merged["sampler"].size() == 1);
    CHECK(merged["sampler"][0]["cases"] == 2);
    CHECK(merged["sampler"][0]["intervals_checked"] == checked);
    CHECK(merged["sampler"][0]["correct"] == correct);
    CHECK(checked > 1000);
    CHECK(merged["replay"]["replays"] == replays);
    CHECK(merged["replay"]["reproduced"] == 2);
    CHECK(merged["replay"]["events"] == events);
    CHECK(merged["replay"]["diverged_cases"].empty());
    REQUIRE(merged["coverage"].size() == 2);
    for (const auto& c : merged["coverage"]) {
        const std::string elf = c["firmware"];
        CAPTURE(elf);
        CHECK(c["functions_executed"] == functions_run[elf].size());
        CHECK(c["blocks_executed"] == blocks_run[elf].size());
        CHECK(c["functions_executed"].get<std::size_t>() + c["functions_never_executed"].size() == c["functions_defined"].get<std::size_t>());
        for (const auto& never : c["functions_never_executed"]) CHECK(functions_run[elf].count(never.get<std::string>()) == 0);
        CHECK(c["functions_executed"].get<std::size_t>() > 5);
    }
    // The algebra on these results too.
    using emutrace::app::merge;
    CHECK(merge(parts[0], merge(parts[1], parts[2])) == merge(merge(parts[0], parts[1]), parts[2]));
    CHECK(merge(parts[3], parts[0]) == merge(parts[0], parts[3]));
    CHECK(merge(merge(parts[2], parts[0]), merge(parts[3], parts[1])) == merge(merge(parts[0], parts[1]), merge(parts[2], parts[3])));
    // And the page shows them.
    const std::string page = read_file(dir.file("a.html"));
    CHECK(page.find("<section id=\"coverage\"") != std::string::npos);
    CHECK(page.find("<section id=\"sampler\"") != std::string::npos);
    CHECK(page.find("<section id=\"replay\"") != std::string::npos);
}

TEST_CASE("campaign: the nightly campaign's cases merge to what their own results give merged by hand") {
    TempDir dir;
    const NightlyCampaign nightly = nightly_campaign(dir.path().string());
    std::ofstream(dir.file("nightly.yaml")) << nightly.text;
    Cli run = emutrace_cli("campaign " + dir.file("nightly.yaml") + " -j 2 -q");
    CHECK(run.status == 1);  // the slow variant misses its deadline, as it should
    const json merged = json::parse(read_file(dir.file("nightly.json")));
    REQUIRE(merged["overall"]["cases"] == nightly.cases);
    CHECK(merged["incomplete"] == 0);

    // By hand: each constraint's counts add, its maximum is the largest with the first case that
    // had it; each WCET function's largest bound and longest run; the statuses.
    struct Hand {
        std::uint64_t occurrences = 0, violations = 0, max = 0;
        std::string max_case;
    };
    std::map<std::string, Hand> constraints;
    std::uint64_t bound = 0, longest = 0, passed = 0, wcet_runs = 0;
    std::string stats_in;
    for (int i = 0; i < nightly.cases; ++i) {
        char id[16];
        std::snprintf(id, sizeof id, "case-%04d", i);
        const std::string cdir = dir.file(std::string("results/") + id);
        passed += std::stoi(read_file(cdir + "/status")) == 0;
        const json r = json::parse(read_file(cdir + "/result.json"));
        for (const auto& k : r["calltrace"]["constraints"]) {
            Hand& h = constraints[k["name"]];
            h.occurrences += k["occurrences"].get<std::uint64_t>();
            h.violations += k["violation_count"].get<std::uint64_t>();
            if (k["max_cycles"].get<std::uint64_t>() > h.max) h.max = k["max_cycles"], h.max_case = id;
        }
        if (r.contains("wcet")) {
            bound = std::max(bound, r["wcet"]["bound_cycles"].get<std::uint64_t>());
            longest = std::max(longest, r["wcet"]["observed_max_cycles"].get<std::uint64_t>());
            wcet_runs += r["wcet"]["observed_runs"].get<std::uint64_t>();
            stats_in += " --stats-in " + cdir + "/wcet_stats.json";
        }
    }
    const json& overall = merged["overall"];
    CHECK(overall["statuses"]["0"] == passed);
    REQUIRE(overall["constraints"].size() == constraints.size());
    for (const auto& k : overall["constraints"]) {
        const Hand& h = constraints[k["name"]];
        CAPTURE(k["name"].get<std::string>());
        CHECK(k["occurrences"] == h.occurrences);
        CHECK(k["violation_count"] == h.violations);
        CHECK(k["max_cycles"] == h.max);
        CHECK(k["max_case"] == h.max_case);
    }
    REQUIRE(overall["wcet"].size() == 1);
    CHECK(overall["wcet"][0]["bound_max_cycles"] == bound);
    CHECK(overall["wcet"][0]["observed_max_cycles"] == longest);
    CHECK(overall["wcet"][0]["runs"] == wcet_runs);
    // One bound over the soak cases' runs, as `emutrace wcet --stats-in` gives it by hand.
    const json& all = merged["runs"]["soak-wcet"]["wcet_all_runs"];
    Cli by_hand = emutrace_cli("wcet " + firmware("soak") + " -f " + all["function"].get<std::string>() + " -s " + source("bench/soak.yaml") +
                               " --no-run --json " + dir.file("hand.json") + stats_in);
    REQUIRE_MESSAGE(by_hand.status == 0, by_hand.err);
    const json hand = json::parse(read_file(dir.file("hand.json")));
    CHECK(all["runs_of_cases"] == nightly.soak_cases);
    CHECK(all["bound_cycles"] == hand["bound_cycles"]);
    CHECK(all["observed_runs"] == wcet_runs);
    CHECK(all["bound_cycles"].get<std::uint64_t>() >= longest);
}
