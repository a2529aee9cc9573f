#include "app/campaign/campaign_report.h"

#include <algorithm>
#include <cstdio>

#include "report/bar_chart.h"
#include "report/html.h"
#include "report/json_fields.h"
#include "report/page.h"

namespace emutrace::app {
namespace {

using report::count_at;
using report::escape;
using report::member;
using report::text_at;
using report::thousands;

constexpr std::size_t kNotPassedShown = 50;

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

std::string campaign_report_html(const AnalysisRegistry& registry, const nlohmann::json& m) {
    report::Page page;
    page.title = "emutrace campaign: " + text_at(m, "campaign");
    page.facts = {text_at(m, "file")};
    const nlohmann::json& overall = member(m, "overall");
    if (member(overall, "not_passed").is_array() && !overall["not_passed"].empty())
        page.failures.push_back(thousands(overall["not_passed"].size()) + " of " + thousands(count_at(overall, "cases")) + " cases did not pass");
    if (count_at(m, "incomplete")) page.failures.push_back(thousands(count_at(m, "incomplete")) + " cases are not complete");
    page.passed = "every case passed";
    page.sections.push_back(cases_section(m));
    const std::string merged = m.dump();
    for (const auto& type : registry.types())
        if (type.campaign.report_html)
            if (std::string s = type.campaign.report_html(merged); !s.empty()) page.sections.push_back(std::move(s));
    if (std::string s = not_passed_section(overall); !s.empty()) page.sections.push_back(std::move(s));
    return page.html();
}

}  // namespace emutrace::app
