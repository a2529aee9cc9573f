// The call tracer over a campaign's cases: each constraint over every case (its worst occurrence
// and the case that gave it, the cases that violated it) and each function's calls and cycles.
#include "analysis/calltrace/calltrace_campaign.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "analysis/campaign_totals.h"
#include "report/bar_chart.h"
#include "report/html.h"
#include "report/json_fields.h"

namespace emutrace::analysis {
namespace {

using nlohmann::json;
using report::count_at;
using report::text_at;
using report::thousands;

constexpr std::size_t kTop = 25;

struct ConstraintTotals {
    std::uint64_t limit_cycles = 0;  ///< the largest limit; cases at other clocks have other limits in cycles
    std::uint64_t smallest_limit_cycles = UINT64_MAX;
    std::uint64_t occurrences = 0, violations = 0, total_cycles = 0;
    std::uint64_t min_cycles = UINT64_MAX;
    Extreme max;                   ///< the longest occurrence and its case
    std::set<std::string> failed;  ///< cases in which it was violated

    void add(const ConstraintTotals& b) {
        limit_cycles = std::max(limit_cycles, b.limit_cycles);
        smallest_limit_cycles = std::min(smallest_limit_cycles, b.smallest_limit_cycles);
        add_counts(*this, b, &ConstraintTotals::occurrences, &ConstraintTotals::violations, &ConstraintTotals::total_cycles);
        min_cycles = std::min(min_cycles, b.min_cycles);
        max.keep_larger(b.max);
        failed.insert(b.failed.begin(), b.failed.end());
    }
};

/// A function of one firmware: a campaign may run several, each with its own main.
struct FirmwareFunction {
    std::string firmware;  ///< the ELF's path, as the case's result names it
    std::string function;
    auto operator<=>(const FirmwareFunction&) const = default;
};

struct FunctionTotals {
    std::uint64_t calls = 0, inclusive_cycles = 0, exclusive_cycles = 0;
    std::uint64_t inclusive_min = UINT64_MAX, exclusive_min = UINT64_MAX, inclusive_max = 0, exclusive_max = 0;

    void add(const FunctionTotals& b) {
        add_counts(*this, b, &FunctionTotals::calls, &FunctionTotals::inclusive_cycles, &FunctionTotals::exclusive_cycles);
        inclusive_min = std::min(inclusive_min, b.inclusive_min);
        exclusive_min = std::min(exclusive_min, b.exclusive_min);
        inclusive_max = std::max(inclusive_max, b.inclusive_max);
        exclusive_max = std::max(exclusive_max, b.exclusive_max);
    }
};

ConstraintTotals constraint_of(const json& k, const std::string& case_id) {
    ConstraintTotals t;
    t.limit_cycles = t.smallest_limit_cycles = count_at(k, "limit_cycles");
    t.occurrences = count_at(k, "occurrences");
    t.violations = count_at(k, "violation_count");
    // The case's total: its mean over its occurrences, in whole cycles (the durations are).
    const double total = std::round(k.value("mean_cycles", 0.0) * static_cast<double>(t.occurrences));
    t.total_cycles = total >= 0x1p64 ? UINT64_MAX : total > 0 ? static_cast<std::uint64_t>(total) : 0;
    if (t.occurrences) t.min_cycles = count_at(k, "min_cycles");
    if (t.occurrences) t.max = {count_at(k, "max_cycles"), case_id};
    if (t.violations) t.failed.insert(case_id);
    return t;
}

const json& array_at(const json& j, const char* key) {
    static const json none = json::array();
    const json& m = member(j, key);
    return m.is_array() ? m : none;
}

struct CalltraceTotals {
    std::map<std::string, ConstraintTotals> constraints;   ///< by name
    std::map<FirmwareFunction, FunctionTotals> functions;  ///< by firmware and function

    void add_case(const CampaignCase& c, const json& calltrace) {
        for (const auto& k : array_at(calltrace, "constraints"))
            if (k.is_object()) constraints[text_at(k, "name")].add(constraint_of(k, c.id));
        for (const auto& f : array_at(calltrace, "functions")) {
            if (!f.is_object()) continue;
            FunctionTotals t{count_at(f, "calls"),         count_at(f, "inclusive_cycles"), count_at(f, "exclusive_cycles"),
                             count_at(f, "inclusive_min"), count_at(f, "exclusive_min"),    count_at(f, "inclusive_max"),
                             count_at(f, "exclusive_max")};
            functions[{c.firmware, text_at(f, "function")}].add(t);
        }
    }
    void merge(const CalltraceTotals& b) {
        for (const auto& [name, t] : b.constraints) constraints[name].add(t);
        for (const auto& [key, t] : b.functions) functions[key].add(t);
    }
    json to_json() const { return {{"constraints", constraints_json()}, {"functions", functions_json()}}; }
    std::string summary(bool brief) const { return constraints_lines() + functions_lines(brief ? 3 : 8); }

    // One JUnit test case per constraint of the case.
    std::vector<TestCase> test_cases(const CampaignCase& c, const json& calltrace) const {
        std::vector<TestCase> out;
        for (const auto& k : array_at(calltrace, "constraints")) {
            if (!k.is_object()) continue;
            TestCase t;
            t.classname = "emutrace.campaign";
            t.name = c.label + ": " + text_at(k, "name");
            if (std::uint64_t violations = count_at(k, "violation_count"))
                t.failure = std::to_string(violations) + " of " + std::to_string(count_at(k, "occurrences")) + " occurrences violated";
            t.output = "max " + std::to_string(count_at(k, "max_cycles")) + " cycles, limit " + std::to_string(count_at(k, "limit_cycles"));
            out.push_back(std::move(t));
        }
        return out;
    }

private:
    json constraints_json() const;
    json functions_json() const;
    std::string constraints_lines() const;
    std::string functions_lines(std::size_t top) const;
};

json CalltraceTotals::constraints_json() const {
    json out = json::array();
    for (const auto& [name, t] : constraints)
        out.push_back({{"name", name},
                       {"limit_cycles", t.limit_cycles},
                       {"smallest_limit_cycles", t.occurrences ? t.smallest_limit_cycles : t.limit_cycles},
                       {"occurrences", t.occurrences},
                       {"violation_count", t.violations},
                       {"min_cycles", t.occurrences ? t.min_cycles : 0},
                       {"mean_cycles", t.occurrences ? static_cast<double>(t.total_cycles) / static_cast<double>(t.occurrences) : 0.0},
                       {"max_cycles", t.max.value},
                       {"max_case", t.max.case_id},
                       {"failed_cases", t.failed},
                       {"passed", t.violations == 0}});
    return out;
}

json CalltraceTotals::functions_json() const {
    json out = json::array();
    for (const auto& [key, t] : functions)
        out.push_back({{"function", key.function},
                       {"firmware", key.firmware},
                       {"calls", t.calls},
                       {"inclusive_cycles", t.inclusive_cycles},
                       {"exclusive_cycles", t.exclusive_cycles},
                       {"inclusive_min", t.calls ? t.inclusive_min : 0},
                       {"inclusive_max", t.inclusive_max},
                       {"exclusive_min", t.calls ? t.exclusive_min : 0},
                       {"exclusive_max", t.exclusive_max}});
    return out;
}

std::string CalltraceTotals::constraints_lines() const {
    if (constraints.empty()) return {};
    char line[256];
    std::snprintf(line, sizeof line, "  %-26s %10s %10s %15s %12s %12s  %s\n", "constraint", "count", "violated", "limit (cycles)", "mean", "max",
                  "worst case");
    std::string out = line;
    for (const auto& [name, t] : constraints) {
        // Cases at other clocks have other limits in cycles: then the range.
        std::string limit = std::to_string(t.limit_cycles);
        if (t.smallest_limit_cycles < t.limit_cycles) limit = std::to_string(t.smallest_limit_cycles) + "-" + limit;
        std::snprintf(line, sizeof line, "  %-26s %10llu %10llu %15s %12.1f %12llu  %s\n", name.substr(0, 26).c_str(),
                      static_cast<unsigned long long>(t.occurrences), static_cast<unsigned long long>(t.violations), limit.c_str(),
                      t.occurrences ? static_cast<double>(t.total_cycles) / static_cast<double>(t.occurrences) : 0.0,
                      static_cast<unsigned long long>(t.max.value), t.max.case_id.c_str());
        out += line;
    }
    return out;
}

std::string CalltraceTotals::functions_lines(std::size_t top) const {
    if (functions.empty()) return {};
    std::set<std::string> firmware;
    for (const auto& [key, t] : functions) firmware.insert(key.firmware);
    std::vector<std::pair<FirmwareFunction, FunctionTotals>> by_cycles(functions.begin(), functions.end());
    std::sort(by_cycles.begin(), by_cycles.end(), [](const auto& a, const auto& b) {
        return a.second.exclusive_cycles != b.second.exclusive_cycles ? a.second.exclusive_cycles > b.second.exclusive_cycles : a.first < b.first;
    });
    char line[256];
    std::snprintf(line, sizeof line, "  %-30s %12s %16s %14s\n", "function (all cases)", "calls", "exclusive cycles", "excl max");
    std::string out = line;
    for (std::size_t i = 0; i < by_cycles.size() && i < top; ++i) {
        const auto& [key, t] = by_cycles[i];
        std::snprintf(line, sizeof line, "  %-30s %12llu %16llu %14llu\n",
                      function_label(key.firmware, key.function, firmware.size() > 1).substr(0, 30).c_str(), static_cast<unsigned long long>(t.calls),
                      static_cast<unsigned long long>(t.exclusive_cycles), static_cast<unsigned long long>(t.exclusive_max));
        out += line;
    }
    return out;
}

std::string constraints_section(const json& overall) {
    const json& list = member(overall, "constraints");
    if (!list.is_array() || list.empty()) return {};
    report::Table t;
    t.headers = {"constraint", "occurrences", "violated", "cases failed", "min", "mean", "max (case)", "limit", "max / limit"};
    t.numeric = {false, true, true, true, true, true, true, true, true};
    std::vector<report::Bar> bars;
    for (const auto& c : list) {
        std::uint64_t limit = count_at(c, "limit_cycles"), smallest = count_at(c, "smallest_limit_cycles"), max = count_at(c, "max_cycles");
        double mean = report::number_at(c, "mean_cycles");
        std::string limits = !limit ? "-" : smallest && smallest != limit ? thousands(smallest) + "-" + thousands(limit) : thousands(limit);
        // Against the smallest limit in cycles: the case at the fastest clock has the least room.
        double ratio = smallest ? static_cast<double>(max) / static_cast<double>(smallest) : 0;
        bool passed = c.value("passed", false);
        t.rows.push_back({report::escape(text_at(c, "name")), thousands(count_at(c, "occurrences")), thousands(count_at(c, "violation_count")),
                          thousands(member(c, "failed_cases").is_array() ? c["failed_cases"].size() : 0), thousands(count_at(c, "min_cycles")),
                          thousands(static_cast<std::uint64_t>(mean)), thousands(max) + " (" + report::escape(text_at(c, "max_case")) + ")", limits,
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

std::string profile_section(const json& overall) {
    const json& list = member(overall, "functions");
    if (!list.is_array() || list.empty()) return {};
    std::vector<const json*> rows;
    for (const auto& f : list)
        if (count_at(f, "exclusive_cycles")) rows.push_back(&f);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto* a, const auto* b) { return count_at(*a, "exclusive_cycles") > count_at(*b, "exclusive_cycles"); });
    if (rows.size() > kTop) rows.resize(kTop);
    std::set<std::string> firmware;  // cases of several firmware: each function is its firmware's
    for (const auto& f : list) firmware.insert(text_at(f, "firmware"));
    std::vector<report::Bar> bars;
    for (const auto* f : rows)
        bars.push_back({function_label(text_at(*f, "firmware"), text_at(*f, "function"), firmware.size() > 1),
                        static_cast<double>(count_at(*f, "exclusive_cycles")),
                        thousands(count_at(*f, "exclusive_cycles")) + " in " + thousands(count_at(*f, "calls")) + " calls",
                        {},
                        false});
    return report::section("profile", "Profile over all cases",
                           report::horizontal_bars(bars, "Exclusive cycles of the busiest functions, summed over every case"));
}

std::string calltrace_report(const json& merged) {
    const json& overall = member(merged, "overall");
    return constraints_section(overall) + profile_section(overall);
}

}  // namespace

CampaignMerge calltrace_campaign() {
    return campaign_merge_of<CalltraceTotals>(&calltrace_report);
}

}  // namespace emutrace::analysis
