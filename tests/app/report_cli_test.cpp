// `--report FILE.html`: one self-contained page per run, through the emutrace command as a user
// runs it. What a browser makes of the page is tests/browser's.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <regex>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

/// 1234567 as "1,234,567", as the page writes counts.
std::string grouped(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) out += (i && (digits.size() - i) % 3 == 0 ? "," : "") + digits.substr(i, 1);
    return out;
}

/// An emutrace command with --report and --json into a fresh directory: its status, page and result.
struct Reported {
    TempDir dir;
    Cli cli;
    std::string page;
    json result;
    explicit Reported(const std::string& command) {
        cli = emutrace_cli(command + " --report " + dir.file("r.html") + " --json " + dir.file("r.json"));
        page = read_file(dir.file("r.html"));
        result = json::parse(read_file(dir.file("r.json")), nullptr, false);
    }
};

}  // namespace

TEST_CASE("report: the slow franking job's page shows the violated constraint with each violation's call stack") {
    const Reported run("run --scenario " + source("scenarios/franking/franking-slow.yaml"));
    const Cli& r = run.cli;
    CHECK(r.status == 1);  // the page is written when the run fails, too
    // The summary's last line is the status the shell sees, after the analyses' verdicts.
    CHECK(r.err.size() > 14);
    CHECK(r.err.substr(r.err.size() - 14) == "exit status 1\n");
    const std::string& page = run.page;
    const json& result = run.result;
    for (const char* id : {"summary", "constraints", "timeline", "profile", "flamegraph", "frequency"})
        CHECK(page.find("<section id=\"" + std::string(id) + "\"") != std::string::npos);
    CHECK(page.find("verdict fail") != std::string::npos);
    const json& constraint = result["calltrace"]["constraints"][0];
    CHECK(count(page, "<tr class=\"constraint fail\">") == 1);
    CHECK(count(page, "<div class=\"violation\">") == constraint["violation_count"].get<std::size_t>());
    for (const auto& v : constraint["violations"]) {
        std::string stack;
        for (const auto& f : v["stack"]) stack += (stack.empty() ? "" : " &gt; ") + f.get<std::string>();
        CHECK(page.find("call stack: " + stack + "</pre>") != std::string::npos);
    }
    // Self-contained: nothing is fetched when the page is viewed (the one link is to the Perfetto UI).
    CHECK(page.find(" src=") == std::string::npos);
    CHECK(page.find("<link") == std::string::npos);
    CHECK(page.find("url(") == std::string::npos);
    CHECK(page.find("@import") == std::string::npos);
    std::regex link("href=\"([^\"#][^\"]*)\"");
    for (auto it = std::sregex_iterator(page.begin(), page.end(), link); it != std::sregex_iterator(); ++it)
        CHECK((*it)[1].str() == "https://ui.perfetto.dev");
}

TEST_CASE("report: the plain franking job passes and its profile has a bar for each busy function") {
    const Reported run("run --scenario " + source("scenarios/franking/franking.yaml"));
    REQUIRE(run.cli.status == 0);
    const std::string& page = run.page;
    const json& result = run.result;
    CHECK(page.find("verdict pass") != std::string::npos);
    std::size_t busy = 0, called = 0;
    for (const auto& f : result["calltrace"]["functions"]) {
        busy += f["exclusive_cycles"].get<std::uint64_t>() > 0;
        called += f["calls"].get<std::uint64_t>() > 0;
    }
    auto section = [&](const std::string& id) {
        auto at = page.find("<section id=\"" + id + "\"");
        return page.substr(at, page.find("</section>", at) - at);
    };
    CHECK(count(section("profile"), "<rect class=\"bar\"") == std::min<std::size_t>(busy, 25));
    CHECK(count(section("frequency"), "<rect class=\"bar\"") == std::min<std::size_t>(called, 25));
    CHECK(section("summary").find("<span class=\"instructions\">" + grouped(result["instructions"]) + "</span>") != std::string::npos);
}

TEST_CASE("report: a run with nothing to judge is reported as not checked, not as passed") {
    TempDir dir;
    Cli plain = emutrace_cli("run " + firmware("compute") + " --report " + dir.file("plain.html") + " -q");
    REQUIRE(plain.status == 0);
    const std::string page = read_file(dir.file("plain.html"));
    CHECK(page.find("verdict none") != std::string::npos);
    CHECK(page.find("NOT CHECKED: the run was observed, not judged") != std::string::npos);
    CHECK(page.find("PASSED") == std::string::npos);
    // A WCET bound is a check: the same firmware's page passes on it, and names it.
    Cli bounded = emutrace_cli("run " + firmware("wcet") + " --wcet wcet_scan --report " + dir.file("wcet.html") + " -q");
    REQUIRE(bounded.status == 0);
    const std::string judged = read_file(dir.file("wcet.html"));
    CHECK(judged.find("PASSED: 1 check held (WCET of wcet_scan trusted)") != std::string::npos);
}

TEST_CASE("report: a long run with many calls keeps its page small") {
    // A compute-bound kernel for 10^7 instructions, hundreds of thousands of calls and returns.
    TempDir dir;
    Cli r = emutrace_cli("run " + firmware("bench_compute") + " --max-instructions 1e7 --report " + dir.file("r.html") + " --json " +
                         dir.file("r.json") + " -q");
    CHECK(r.status == 3);  // stopped at the instruction limit: still reported
    const std::string page = read_file(dir.file("r.html"));
    CHECK(page.find("max_instructions") != std::string::npos);
    CHECK(page.size() < 1'000'000);
    CHECK(count(page, "class=\"span\"") <= 4'000);
}

TEST_CASE("report: a report that cannot be written is a one-line error naming the file") {
    Cli r = emutrace_cli("run --scenario " + source("scenarios/franking/franking.yaml") + " --report /nonexistent-dir/r.html -q");
    CHECK(r.status == 2);
    CHECK(r.err.find("/nonexistent-dir/r.html") != std::string::npos);
    CHECK(count(r.err, "\n") == 1);
}

TEST_CASE("report: wcet --report draws the worst path on the function's CFG, each of its blocks once") {
    const Reported run("wcet " + firmware("wcet") + " --function wcet_scan");
    REQUIRE(run.cli.status == 0);
    const std::string& page = run.page;
    const json& result = run.result;
    CHECK(page.find("<section id=\"wcet\"") != std::string::npos);
    CHECK(count(page, "<rect class=\"block worst\"") == result["path"].size());
    CHECK(count(page, "<tr class=\"path-block\">") == result["path"].size());
    // The bound and the longest run, side by side.
    CHECK(page.find(">" + grouped(result["bound_cycles"]) + " cycles") != std::string::npos);
    CHECK(page.find(">" + grouped(result["observed_max_cycles"]) + " cycles") != std::string::npos);
}

TEST_CASE("report: markers --report charts the sampling period after each step and lists every marker") {
    const Reported run("markers " + firmware("kernels") + " -f kernel_sort --scheme bitvec");
    REQUIRE(run.cli.status == 0);
    const std::string& page = run.page;
    const json& result = run.result;
    CHECK(page.find("<section id=\"markers\"") != std::string::npos);
    CHECK(count(page, "<rect class=\"bar\"") == result["delta_t"].size());  // one column per step, and one before any
    CHECK(count(page, "<tr class=\"marker\">") == result["plan"].size());
    CHECK(result["plan"].size() > 0);
    for (const auto& d : result["delta_t"]) CHECK(page.find(">" + grouped(d) + "</text>") != std::string::npos);
}
