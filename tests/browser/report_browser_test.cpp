// The HTML report in a real browser: emutrace runs the franking demo (plain, and the slow variant
// that misses its deadline) with --report and --json; headless Chromium opens each report as a
// file:// URL and, through the DevTools protocol (tests/support/devtools_pipe.h), the test checks
// that no console error or uncaught exception occurred, that every section is there, and that the
// charts have as many bars, rows and slices as the run's JSON says. A full-page screenshot of each
// report is saved as a test artifact (build/tests/artifacts/). Without a chromium binary the test
// is skipped (exit 77, which CTest reports as skipped) with the reason; scripts/install-deps
// installs chromium, so CI never skips it.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support/cli.h"
#include "support/devtools_pipe.h"
#include "support/doctest_query.h"
#include "support/doctest_run.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kArtifacts = EMUTRACE_ARTIFACT_DIR;

DevtoolsBrowser& browser() {
    static std::unique_ptr<DevtoolsBrowser> b = std::make_unique<DevtoolsBrowser>();
    return *b;
}

struct Report {
    int status = -1;
    std::string err;
    fs::path html;
    json result;
};

/// Runs a franking scenario with --report and --json into the artifacts directory.
Report run_report(const std::string& scenario, const std::string& name) {
    fs::create_directories(kArtifacts);
    Report r;
    r.html = kArtifacts / (name + ".html");
    const fs::path json_file = kArtifacts / (name + ".json");
    fs::remove(r.html);
    fs::remove(json_file);
    Cli cli = emutrace_cli("run --scenario " + source(scenario) + " --report " + r.html.string() + " --json " + json_file.string());
    r.status = cli.status;
    r.err = cli.err;
    if (fs::exists(json_file)) r.result = json::parse(read_file(json_file.string()), nullptr, false);
    return r;
}

bool identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}

/// Whether `text` starts with `name` as a whole word (a title "render_indicia: 1,219,131 cycles").
bool starts_with_word(const std::string& text, const std::string& name) {
    return !name.empty() && text.compare(0, name.size(), name) == 0 && (text.size() == name.size() || !identifier_char(text[name.size()]));
}

/// Whether `text` holds `name` as a whole word somewhere.
bool contains_word(const std::string& text, const std::string& name) {
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
        bool before = at == 0 || !identifier_char(text[at - 1]);
        bool after = at + name.size() == text.size() || !identifier_char(text[at + name.size()]);
        if (before && after) return true;
    }
    return false;
}

/// The numbers of a text as their digits, and whether they were written in groups of three
/// ("1,272,325", "1 272 325" with a space or a no-break space, "1.272.325", "1'272'325").
std::vector<std::pair<std::string, bool>> numbers_in(const std::string& text) {
    auto digit = [&](size_t i) { return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); };
    auto separator = [&](size_t i) -> size_t {  // the separator's length at i, 0 if none
        for (const char* s : {",", ".", "'", " ", "\xC2\xA0", "\xE2\x80\xAF", "\xE2\x80\x89"})
            if (text.compare(i, std::strlen(s), s) == 0) return std::strlen(s);
        return 0;
    };
    std::vector<std::pair<std::string, bool>> out;
    for (size_t i = 0; i < text.size();) {
        if (!digit(i) || (i > 0 && digit(i - 1))) {
            ++i;
            continue;
        }
        std::string digits;
        while (digit(i)) digits += text[i++];
        bool grouped = false;
        for (size_t sep; digits.size() <= 3 || grouped;) {
            sep = separator(i);
            if (!sep || !digit(i + sep) || !digit(i + sep + 1) || !digit(i + sep + 2) || digit(i + sep + 3)) break;
            digits += text.substr(i + sep, 3);
            i += sep + 3;
            grouped = true;
        }
        out.emplace_back(digits, grouped);
    }
    return out;
}

int count(const std::string& selector) {
    return browser().evaluate("document.querySelectorAll(" + json(selector).dump() + ").length").get<int>();
}

std::vector<std::string> texts(const std::string& js_array_of_strings) {
    json v = browser().evaluate(js_array_of_strings);
    std::vector<std::string> out;
    for (const json& t : v) out.push_back(t.is_string() ? t.get<std::string>() : std::string());
    return out;
}

std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += "  " + l + "\n";
    return out;
}

/// Everything the browser must show for one run; `slow` is the variant with violations.
void check_report(const Report& report, const std::string& png_name, bool slow) {
    const std::string err_tail = report.err.size() > 1500 ? "..." + report.err.substr(report.err.size() - 1500) : report.err;
    INFO("report ", report.html.string(), " (emutrace exit status ", report.status, "), its stderr:\n", err_tail);
    REQUIRE(fs::exists(report.html));
    REQUIRE(report.result.is_object());
    const json& ct = report.result.at("calltrace");
    const json& functions = ct.at("functions");
    std::set<std::string> names;
    for (const json& f : functions) names.insert(f.at("function").get<std::string>());
    REQUIRE(!names.empty());

    DevtoolsBrowser& b = browser();
    const double seconds = b.open(file_url(report.html));
    std::printf("%s: %ju bytes, loaded in %.0f ms\n", report.html.filename().c_str(), static_cast<std::uintmax_t>(fs::file_size(report.html)),
                seconds * 1000);

    // Nothing went wrong on the page.
    CHECK_MESSAGE(b.errors().empty(), "console errors or uncaught exceptions:\n", join(b.errors()));

    // Self-contained: nothing fetched from anywhere (no script, style sheet or image by URL).
    CHECK(b.evaluate("performance.getEntriesByType('resource').map(e => e.name)") == json::array());
    CHECK(count("script[src], link[rel=stylesheet], img[src]:not([src^='data:']), iframe") == 0);

    // Every section, each with its heading.
    for (const char* id : {"summary", "constraints", "timeline", "profile", "flamegraph", "frequency"}) {
        INFO("section#", id);
        CHECK(count(std::string("section#") + id) == 1);
        CHECK(count(std::string("section#") + id + " h2") >= 1);
        CHECK(!b.evaluate(std::string("(document.querySelector('section#") + id + " h2') || {}).textContent || ''").get<std::string>().empty());
    }

    // The profile: one bar per function with exclusive cycles, at most 25.
    int with_cycles = 0, with_calls = 0;
    for (const json& f : functions) {
        with_cycles += f.value("exclusive_cycles", 0ull) > 0;
        with_calls += f.value("calls", 0ull) > 0;
    }
    CHECK(count("#profile svg.bar-chart rect.bar") == std::min(with_cycles, 25));
    // The execution-frequency histogram: one bar per function called, at most 25.
    CHECK(count("#frequency svg.bar-chart rect.bar") == std::min(with_calls, 25));
    // The constraint table: one row per constraint.
    CHECK(count("#constraints tr.constraint") == static_cast<int>(ct.at("constraints").size()));

    // The flame graph: slices named after functions of the run; besides, the root ("all"), one
    // group per thread of the run ("thread franker") and the group of exception handlers
    // ("exceptions", only when the run took exceptions).
    std::set<std::string> threads;
    for (const json& t : ct.value("threads", json::array())) threads.insert(t.get<std::string>());
    const bool took_exceptions = report.result.value("exceptions", 0ull) > 0;
    const auto titles = texts(
        "Array.from(document.querySelectorAll('#flamegraph svg.flame-graph rect.slice')).map(r => {"
        " const t = r.querySelector('title') || (r.parentNode && r.parentNode.querySelector(':scope > title'));"
        " return t ? t.textContent.trim() : ''; })");
    CHECK(!titles.empty());
    for (const std::string& title : titles) {
        auto named = [&](const std::set<std::string>& set, const std::string& prefix) {
            return std::any_of(set.begin(), set.end(), [&](const std::string& n) { return starts_with_word(title, prefix + n); });
        };
        bool known = starts_with_word(title, "all") || named(names, "") || named(threads, "thread ") ||
                     (took_exceptions && starts_with_word(title, "exceptions"));
        CHECK_MESSAGE(known, "flame-graph slice titled '", title, "' names no function or thread of the run");
    }
    // The timeline: at least one span.
    CHECK(count("#timeline svg.timeline rect.span") >= 1);

    // The summary's instruction count, with thousands separators, equals the JSON's.
    const auto instructions = report.result.at("instructions").get<unsigned long long>();
    const std::string summary = b.evaluate("document.querySelector('section#summary').innerText").get<std::string>();
    bool found = false;
    for (const auto& [digits, grouped] : numbers_in(summary))
        found = found || (digits == std::to_string(instructions) && (instructions < 1000 || grouped));
    CHECK_MESSAGE(found, "the summary does not show ", instructions, " instructions with thousands separators:\n", summary);

    // The slow variant: the violations, each with its call stack.
    if (slow) {
        const auto violations = texts("Array.from(document.querySelectorAll('#constraints .violation')).map(e => e.textContent)");
        CHECK(!violations.empty());
        bool with_stack = std::any_of(violations.begin(), violations.end(), [&](const std::string& v) {
            return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return contains_word(v, n); });
        });
        CHECK_MESSAGE(with_stack, "no violation shows a call stack of the run's functions:\n", join(violations));
    }

    // The screenshot, as a test artifact.
    const fs::path png = kArtifacts / png_name;
    b.save_screenshot(png);
    const std::string bytes = read_file(png.string());
    CHECK(bytes.size() > 10'000);
    CHECK(bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    std::printf("screenshot: %s\n", png.c_str());
}

}  // namespace

TEST_CASE("the franking report renders in headless Chromium with every section and chart") {
    Report r = run_report("scenarios/franking/franking.yaml", "franking-report");
    CHECK_MESSAGE(r.status == 0, "exit status 0 expected\n", r.err);
    check_report(r, "franking-report.png", false);
}

TEST_CASE("the slow franking report shows its violations with their call stacks") {
    Report r = run_report("scenarios/franking/franking-slow.yaml", "franking-slow-report");
    CHECK_MESSAGE(r.status == 1, "exit status 1 (a constraint violated) expected\n", r.err);
    check_report(r, "franking-slow-report.png", true);
}

REGISTER_LISTENER("filter_count", 1, emutrace::test::FilterCountListener);

int main(int argc, char** argv) {
    if (!emutrace::test::doctest_only_lists(argc, argv) && DevtoolsBrowser::find_chromium().empty()) {
        std::printf("SKIPPED: no chromium on this machine (scripts/install-deps installs Debian's chromium; or set EMUTRACE_CHROMIUM)\n");
        return 77;
    }
    doctest::Context context(argc, argv);
    int status = emutrace::test::run_doctest(context, argc, argv);
    std::fflush(stdout);
    return status;
}
