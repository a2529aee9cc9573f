#include "app/campaign/campaign_report.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "app/campaign/campaign_merge.h"
#include "report/bar_chart.h"
#include "report/html.h"
#include "report/json_fields.h"
#include "report/page.h"

namespace emutrace::app {
namespace {

using report::count_at;
using report::escape;
using report::number_at;
using report::text_at;
using report::thousands;

constexpr std::size_t kTop = 25, kNotPassedShown = 50;

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
    static const nlohmann::json none;
    auto it = j.find(key);
    return it == j.end() ? none : *it;
}

std::string cases_section(const nlohmann::json& m) {
    const nlohmann::json& overall = member(m, "overall");
    std::string body = "<p>" + thousands(count_at(overall, "cases")) + " cases, " + thousands(count_at(overall, "instructions")) + " instructions, " +
                       thousands(count_at(overall, "cycles")) + " cycles" +
                       (count_at(m, "incomplete") ? "; <span class=\"bad\">" + thousands(count_at(m, "incomplete")) + " not complete</span>" : "") +
                       ". Results in <code>" + escape(text_at(m, "results")) + "</code>.</p>\n";
    std::vector<report::Bar> bars;
    if (member(overall, "statuses").is_object())
        for (const auto& [status, n] : overall["statuses"].items()) {
            std::uint64_t count = n.is_number_unsigned() ? n.get<std::uint64_t>() : 0;
            bars.push_back({"status " + status, static_cast<double>(count), thousands(count), {}, status != "0"});
        }
    body += report::horizontal_bars(bars, "Cases by exit status (0 passed, 1 a constraint violated or a regression, 2 bad input, ...)");
    report::Table t;
    t.headers = {"run entry", "cases", "passed", "not passed", "instructions", "cycles"};
    t.numeric = {false, true, true, true, true, true};
    if (member(m, "runs").is_object())
        for (const auto& [group, r] : m["runs"].items()) {
            std::uint64_t passed = member(r, "statuses").is_object() ? count_at(r["statuses"], "0") : 0;
            t.rows.push_back({escape(group), thousands(count_at(r, "cases")), thousands(passed),
                              thousands(count_at(r, "cases") - std::min(passed, count_at(r, "cases"))), thousands(count_at(r, "instructions")),
                              thousands(count_at(r, "cycles"))});
            t.row_classes.push_back("run-entry");
        }
    return report::section("summary", "Campaign", body + t.html());
}

std::string constraints_section(const nlohmann::json& overall) {
    const nlohmann::json& list = member(overall, "constraints");
    if (!list.is_array() || list.empty()) return {};
    report::Table t;
    t.headers = {"constraint", "occurrences", "violated", "cases failed", "min", "mean", "max (case)", "limit", "max / limit"};
    t.numeric = {false, true, true, true, true, true, true, true, true};
    std::vector<report::Bar> bars;
    for (const auto& c : list) {
        std::uint64_t limit = count_at(c, "limit_cycles"), smallest = count_at(c, "smallest_limit_cycles"), max = count_at(c, "max_cycles");
        double mean = c.contains("mean_cycles") && c["mean_cycles"].is_number() ? c["mean_cycles"].get<double>() : 0;
        std::string limits = !limit ? "-" : smallest && smallest != limit ? thousands(smallest) + "-" + thousands(limit) : thousands(limit);
        // Against the smallest limit in cycles: the case at the fastest clock has the least room.
        double ratio = smallest ? static_cast<double>(max) / static_cast<double>(smallest) : 0;
        bool passed = c.value("passed", false);
        t.rows.push_back({escape(text_at(c, "name")), thousands(count_at(c, "occurrences")), thousands(count_at(c, "violation_count")),
                          thousands(member(c, "failed_cases").is_array() ? c["failed_cases"].size() : 0), thousands(count_at(c, "min_cycles")),
                          thousands(static_cast<std::uint64_t>(mean)), thousands(max) + " (" + escape(text_at(c, "max_case")) + ")", limits,
                          limit ? report::percent(ratio) : "-"});
        t.row_classes.push_back(passed ? "constraint pass" : "constraint fail");
        if (limit) bars.push_back({text_at(c, "name"), 100 * ratio, report::percent(ratio), {}, ratio > 1});
    }
    std::string body =
        "<p class=\"note\">Cycles over every case; where cases run at other clocks a limit in time is a range of "
        "limits in cycles, and max / limit is against the smallest.</p>\n" +
        t.html();
    if (!bars.empty()) body += report::horizontal_bars(bars, "The longest occurrence in any case as a share of the limit; red: missed");
    return report::section("constraints", "Timing constraints over all cases", body);
}

std::string profile_section(const nlohmann::json& overall) {
    const nlohmann::json& list = member(overall, "functions");
    if (!list.is_array() || list.empty()) return {};
    std::vector<const nlohmann::json*> rows;
    for (const auto& f : list)
        if (count_at(f, "exclusive_cycles")) rows.push_back(&f);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto* a, const auto* b) { return count_at(*a, "exclusive_cycles") > count_at(*b, "exclusive_cycles"); });
    if (rows.size() > kTop) rows.resize(kTop);
    // Cases of several firmware: each function is its firmware's (campaign_merge.h).
    std::set<std::string> firmware;
    for (const auto& f : list) firmware.insert(text_at(f, "firmware"));
    auto label = [&](const nlohmann::json& f) { return FirmwareFunction{text_at(f, "firmware"), text_at(f, "function")}.label(firmware.size() > 1); };
    std::vector<report::Bar> bars;
    for (const auto* f : rows)
        bars.push_back({label(*f),
                        static_cast<double>(count_at(*f, "exclusive_cycles")),
                        thousands(count_at(*f, "exclusive_cycles")) + " in " + thousands(count_at(*f, "calls")) + " calls",
                        {},
                        false});
    return report::section("profile", "Profile over all cases",
                           report::horizontal_bars(bars, "Exclusive cycles of the busiest functions, summed over every case"));
}

std::string wcet_section(const nlohmann::json& m) {
    std::string body;
    const nlohmann::json& list = member(member(m, "overall"), "wcet");
    if (list.is_array())
        for (const auto& w : list) {
            std::vector<report::Bar> bars = {{"largest bound of a case",
                                              static_cast<double>(count_at(w, "bound_max_cycles")),
                                              thousands(count_at(w, "bound_max_cycles")) + " (" + text_at(w, "bound_max_case") + ")",
                                              {},
                                              false},
                                             {"longest observed run",
                                              static_cast<double>(count_at(w, "observed_max_cycles")),
                                              thousands(count_at(w, "observed_max_cycles")) + " (" + text_at(w, "observed_max_case") + ")",
                                              {},
                                              count_at(w, "observed_max_cycles") > count_at(w, "bound_max_cycles")}};
            body += "<h3>" + escape(text_at(w, "function")) + " over " + thousands(count_at(w, "runs")) + " runs</h3>\n" +
                    report::horizontal_bars(bars, "Cycles; each case bounds its own runs");
        }
    if (member(m, "runs").is_object())
        for (const auto& [group, r] : m["runs"].items()) {
            const nlohmann::json& all = member(r, "wcet_all_runs");
            if (!all.is_object() || !all.contains("bound_cycles")) continue;
            std::vector<report::Bar> bars = {{"bound over every case's runs",
                                              static_cast<double>(count_at(all, "bound_cycles")),
                                              thousands(count_at(all, "bound_cycles")),
                                              {},
                                              false},
                                             {"longest observed run",
                                              static_cast<double>(count_at(all, "observed_max_cycles")),
                                              thousands(count_at(all, "observed_max_cycles")),
                                              {},
                                              false}};
            body += "<h3>" + escape(text_at(all, "function")) + " in " + escape(group) + ", one bound from the merged statistics</h3>\n" +
                    report::horizontal_bars(bars, "IPET over the loop-context statistics of all " + thousands(count_at(all, "observed_runs")) +
                                                      " runs (closest case: " + text_at(all, "closest_case") + ")");
        }
    return body.empty() ? std::string() : report::section("wcet", "WCET over all cases", body);
}

std::string coverage_section(const nlohmann::json& overall) {
    const nlohmann::json& list = member(overall, "coverage");
    if (!list.is_array() || list.empty()) return {};
    report::Table t;
    t.headers = {"firmware", "cases", "functions run", "of", "", "basic blocks run", "of", ""};
    t.numeric = {false, true, true, true, true, true, true, true};
    std::string never;
    for (const auto& c : list) {
        t.rows.push_back({escape(text_at(c, "firmware")), thousands(count_at(c, "cases")), thousands(count_at(c, "functions_executed")),
                          thousands(count_at(c, "functions_defined")), report::percent(number_at(c, "function_rate")),
                          thousands(count_at(c, "blocks_executed")), thousands(count_at(c, "blocks_defined")),
                          report::percent(number_at(c, "block_rate"))});
        t.row_classes.push_back("coverage");
        const nlohmann::json& names = member(c, "functions_never_executed");
        if (!names.is_array() || names.empty()) continue;
        never += "<p>Never run in any case, in " + escape(text_at(c, "firmware")) + ": ";
        std::size_t shown = 0;
        for (const auto& n : names)
            if (n.is_string() && shown++ < kNotPassedShown)
                never += std::string(shown > 1 ? ", " : "") + "<code>" + escape(n.get<std::string>()) + "</code>";
        if (names.size() > kNotPassedShown) never += " &hellip; and " + thousands(names.size() - kNotPassedShown) + " more";
        never += ".</p>\n";
    }
    return report::section("coverage", "Coverage over all cases", t.html() + never);
}

std::string sampler_section(const nlohmann::json& overall) {
    const nlohmann::json& list = member(overall, "sampler");
    if (!list.is_array() || list.empty()) return {};
    report::Table t;
    t.headers = {"sampler", "cases", "intervals checked", "reconstructed", "", "wrong or impossible", "most in"};
    t.numeric = {false, true, true, true, true, true, false};
    for (const auto& x : list) {
        t.rows.push_back({escape(text_at(x, "sampler")), thousands(count_at(x, "cases")), thousands(count_at(x, "intervals_checked")),
                          thousands(count_at(x, "correct")), report::percent(number_at(x, "reconstructed_rate")),
                          thousands(count_at(x, "wrong") + count_at(x, "impossible")), escape(text_at(x, "most_wrong_case"))});
        t.row_classes.push_back(count_at(x, "wrong") + count_at(x, "impossible") ? "sampler bad" : "sampler");
    }
    return report::section("sampler", "Sampling over all cases", t.html());
}

std::string replay_section(const nlohmann::json& overall) {
    const nlohmann::json& r = member(overall, "replay");
    if (!r.is_object()) return {};
    std::string body = "<p>" + thousands(count_at(r, "reproduced")) + " of " + thousands(count_at(r, "replays")) + " replays reproduced their log (" +
                       thousands(count_at(r, "same_global_order")) + " in the same global order; " + thousands(count_at(r, "events_reproduced")) +
                       " of " + thousands(count_at(r, "events")) + " events); " + thousands(count_at(r, "recordings")) + " recordings of " +
                       thousands(count_at(r, "recorded_events")) + " events.</p>\n";
    const nlohmann::json& diverged = member(r, "diverged_cases");
    if (diverged.is_array() && !diverged.empty()) {
        body += "<ul class=\"diverged\">";
        std::size_t shown = 0;
        for (const auto& id : diverged)
            if (id.is_string() && shown++ < kNotPassedShown) body += "<li><code>" + escape(id.get<std::string>()) + "</code> diverged</li>";
        body += "</ul>\n";
        if (diverged.size() > kNotPassedShown)
            body += "<p class=\"note\">&hellip; and " + thousands(diverged.size() - kNotPassedShown) +
                    " more (overall.replay.diverged_cases in the JSON).</p>\n";
    }
    return report::section("replay", "Replay over all cases", body);
}

std::string not_passed_section(const nlohmann::json& overall) {
    const nlohmann::json& list = member(overall, "not_passed");
    if (!list.is_array() || list.empty()) return {};
    std::string body = "<ul class=\"not-passed\">";
    std::size_t shown = 0;
    for (const auto& id : list)
        if (shown++ < kNotPassedShown && id.is_string()) body += "<li><code>" + escape(id.get<std::string>()) + "</code></li>";
    body += "</ul>\n";
    if (list.size() > kNotPassedShown)
        body += "<p class=\"note\">&hellip; and " + thousands(list.size() - kNotPassedShown) + " more (overall.not_passed in the JSON).</p>\n";
    body += "<p class=\"note\">Each case's directory holds its command, stderr, result and report.</p>\n";
    return report::section("not-passed", "Cases not passed", body);
}

}  // namespace

std::string campaign_report_html(const nlohmann::json& m) {
    report::Page page;
    page.title = "emutrace campaign: " + text_at(m, "campaign");
    page.facts = {text_at(m, "file")};
    const nlohmann::json& overall = member(m, "overall");
    if (member(overall, "not_passed").is_array() && !overall["not_passed"].empty())
        page.failures.push_back(thousands(overall["not_passed"].size()) + " of " + thousands(count_at(overall, "cases")) + " cases did not pass");
    if (count_at(m, "incomplete")) page.failures.push_back(thousands(count_at(m, "incomplete")) + " cases are not complete");
    page.passed = "every case passed";
    for (std::string s : {cases_section(m), constraints_section(overall), profile_section(overall), wcet_section(m), coverage_section(overall),
                          sampler_section(overall), replay_section(overall), not_passed_section(overall)})
        if (!s.empty()) page.sections.push_back(std::move(s));
    return page.html();
}

}  // namespace emutrace::app
