#include "analysis/calltrace/calltrace_report.h"

#include <algorithm>
#include <cstdio>

#include "report/bar_chart.h"
#include "report/flame_graph.h"
#include "report/html.h"
#include "report/timeline.h"

namespace emutrace::analysis {
namespace {

using report::escape;

constexpr std::size_t kTop = 25;              ///< bars in the profile and frequency charts
constexpr std::size_t kViolationsShown = 20;  ///< per constraint; the JSON has up to 1,000

std::string signed_duration(std::int64_t cycles, std::uint64_t hz) {
    std::string text = report::duration(static_cast<double>(cycles < 0 ? -cycles : cycles), hz);
    return cycles < 0 ? "-" + text : text;
}

std::string constraints_section(const CalltraceReport& r) {
    const std::uint64_t hz = r.clock_hz;
    const auto& results = r.checker.results();
    if (results.empty())
        return report::section("constraints", "Timing constraints", "<p class=\"note\">The scenario states no timing constraints.</p>\n");
    report::Table t;
    t.headers = {"constraint", "occurrences", "min", "mean", "max", "limit", "worst slack", "max / limit", "verdict"};
    t.numeric = {false, true, true, true, true, true, true, true, false};
    for (const auto& c : results) {
        std::uint64_t limit = c.spec->limit_cycles;
        std::string ratio = limit ? report::percent(static_cast<double>(c.max) / static_cast<double>(limit)) : "-";
        std::string verdict =
            c.passed() ? "<span class=\"good\">ok</span>" : "<span class=\"bad\">VIOLATED " + report::thousands(c.violation_count) + "&times;</span>";
        t.rows.push_back({escape(c.spec->name), report::thousands(c.occurrences),
                          c.occurrences ? escape(report::duration(static_cast<double>(c.min), hz)) : "-", escape(report::duration(c.mean(), hz)),
                          escape(report::duration(static_cast<double>(c.max), hz)),
                          limit ? escape(report::duration(static_cast<double>(limit), hz)) : "-",
                          limit ? "<span class=\"" + std::string(c.worst_slack() < 0 ? "bad" : "good") + "\">" +
                                      escape(signed_duration(c.worst_slack(), hz)) + "</span>"
                                : "-",
                          ratio, verdict});
        t.row_classes.push_back(c.passed() ? "constraint pass" : "constraint fail");
    }
    std::string body = t.html();
    for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& c = results[i];
        if (c.spec->limit_cycles && c.occurrences) {
            auto bins = r.margins.bins(i);
            std::vector<report::Bar> bars;
            for (std::size_t b = 0; b < bins.size(); ++b) {
                std::string label = b + 1 < bins.size() ? std::to_string(b * 10) + "%" : "150%+";
                bars.push_back({label, static_cast<double>(bins[b]), bins[b] ? report::thousands(bins[b]) : "",
                                std::to_string(bins[b]) + " occurrences at " +
                                    (b + 1 < bins.size() ? std::to_string(b * 10) + "-" + std::to_string(b * 10 + 10) + "%" : "150% or more") +
                                    " of the limit",
                                b >= 10});
            }
            body += "<h3>" + escape(c.spec->name) + ": how close each occurrence came</h3>\n";
            body += report::columns(bars,
                                    "Occurrences by duration as a share of the limit (" +
                                        report::duration(static_cast<double>(c.spec->limit_cycles), hz) + "); red bins missed it",
                                    "duration / limit");
        }
        if (c.violations.empty()) continue;
        body += "<h3>" + escape(c.spec->name) + ": violations</h3>\n";
        for (std::size_t k = 0; k < c.violations.size() && k < kViolationsShown; ++k) {
            const Violation& v = c.violations[k];
            std::string stack;
            for (const auto& f : v.stack) stack += (stack.empty() ? "" : " &gt; ") + escape(f);
            body += "<div class=\"violation\"><b>at " + escape(report::duration(static_cast<double>(v.end_cycle), hz)) + "</b> (cycle " +
                    report::thousands(v.end_cycle) + ", key " + std::to_string(v.key) + "): " + escape(v.reason) +
                    "<pre class=\"stack\">call stack: " + (stack.empty() ? "(none)" : stack) + "</pre></div>\n";
        }
        if (c.violation_count > kViolationsShown)
            body += "<p class=\"note\">&hellip; and " + report::thousands(c.violation_count - kViolationsShown) +
                    " more; the --json result lists the first " + std::to_string(ConstraintResult::kMaxViolations) + ".</p>\n";
    }
    if (!r.baseline.empty()) {
        if (r.regressions.empty()) {
            body += "<p class=\"note\">No regression against the baseline " + escape(r.baseline) + ".</p>\n";
        } else {
            report::Table g;
            g.headers = {"constraint", "measure", "baseline", "now", "change"};
            g.numeric = {false, false, true, true, true};
            for (const auto& x : r.regressions) {
                char change[32];
                std::snprintf(change, sizeof change, "%+.1f%%", 100 * x.value("change", 0.0));
                g.rows.push_back({escape(x.value("name", "")), escape(x.value("measure", "")), escape(report::duration(x.value("baseline", 0.0), hz)),
                                  escape(report::duration(x.value("now", 0.0), hz)), "<span class=\"bad\">" + std::string(change) + "</span>"});
                g.row_classes.push_back("regression");
            }
            body += "<h3>Regressions against " + escape(r.baseline) + "</h3>\n" + g.html();
        }
    }
    return report::section("constraints", "Timing constraints", body);
}

std::string timeline_section(const CalltraceReport& r) {
    std::vector<report::Lane> lanes = r.timeline.lanes();
    std::string body;
    if (lanes.empty()) {
        body = "<p class=\"note\">No function was entered.</p>\n";
    } else {
        body = report::timeline(
            lanes, std::max(r.timeline.end_cycle(), r.total_cycles), r.clock_hz,
            "Calls per thread, outer " + std::to_string(CallTimeline::kMaxDepth) + " levels; the band above a thread's calls shows when it ran");
        if (r.timeline.min_cycles())
            body += "<p class=\"note\">Calls shorter than " + escape(report::duration(static_cast<double>(r.timeline.min_cycles()), r.clock_hz)) +
                    " are left out of this overview.</p>\n";
    }
    if (!r.perfetto.empty())
        body += "<p class=\"note\">Every call, zoomable: open <code>" + escape(r.perfetto) +
                "</code> in <a href=\"https://ui.perfetto.dev\">ui.perfetto.dev</a> (the file stays on your machine).</p>\n";
    else
        body += "<p class=\"note\">For every call, zoomable, write a Perfetto trace too: <code>--perfetto FILE</code>.</p>\n";
    return report::section("timeline", "Timeline", body);
}

std::vector<std::pair<std::uint32_t, FunctionStats>> ranked(const Profile& p, bool by_calls) {
    std::vector<std::pair<std::uint32_t, FunctionStats>> rows;
    for (const auto& [fn, s] : p.overall())
        if (by_calls ? s.calls > 0 : s.exclusive > 0) rows.emplace_back(fn, s);
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
        return by_calls ? a.second.calls > b.second.calls : a.second.exclusive > b.second.exclusive;
    });
    if (rows.size() > kTop) rows.resize(kTop);
    return rows;
}

std::string profile_section(const CalltraceReport& r) {
    auto rows = ranked(r.profile, false);
    std::vector<report::Bar> bars;
    report::Table t;
    t.headers = {"function", "calls", "inclusive", "exclusive", "excl min", "excl max", "share", "source"};
    t.numeric = {false, true, true, true, true, true, true, false};
    double total = static_cast<double>(std::max<std::uint64_t>(r.total_cycles, 1));
    for (const auto& [fn, s] : rows) {
        std::string name = r.tracer.function_name(fn), share = report::percent(static_cast<double>(s.exclusive) / total);
        bars.push_back({name, static_cast<double>(s.exclusive), report::thousands(s.exclusive) + " (" + share + ")", {}, false});
        t.rows.push_back({escape(name), report::thousands(s.calls), report::thousands(s.inclusive), report::thousands(s.exclusive),
                          report::thousands(s.exclusive_min), report::thousands(s.exclusive_max), share, escape(r.lines.at(fn).value_or(""))});
    }
    if (rows.empty()) return report::section("profile", "Profile", "<p class=\"note\">No function was entered.</p>\n");
    std::string body = report::horizontal_bars(
        bars, "Exclusive cycles of the " + std::to_string(rows.size()) + " busiest functions (callees, interrupts and switched-out time left out)");
    body += "<details><summary>The same as a table</summary>\n" + t.html() + "</details>\n";
    return report::section("profile", "Profile", body);
}

std::string flame_section(const CalltraceReport& r) {
    report::FlameNode root = r.paths.flame();
    if (!root.value) return report::section("flamegraph", "Flame graph", "<p class=\"note\">No cycles were traced.</p>\n");
    return report::section("flamegraph", "Flame graph",
                           report::flame_graph(root, r.clock_hz,
                                               "Cycles by call path: each slice is a function with everything it called above it; width is "
                                               "time. Threads and exception handlers are separate towers. Hover for figures."));
}

std::string frequency_section(const CalltraceReport& r) {
    auto rows = ranked(r.profile, true);
    if (rows.empty()) return report::section("frequency", "Execution frequencies", "<p class=\"note\">No function was entered.</p>\n");
    std::vector<report::Bar> bars;
    for (const auto& [fn, s] : rows)
        bars.push_back({r.tracer.function_name(fn), static_cast<double>(s.calls), report::thousands(s.calls), {}, false});
    return report::section("frequency", "Execution frequencies",
                           report::horizontal_bars(bars,
                                                   "Calls per function: a tall bar is a function whose tracing costs the most "
                                                   "events for the least insight (leave it out with calltrace.exclude)"));
}

}  // namespace

std::string CalltraceReport::html() const {
    return constraints_section(*this) + timeline_section(*this) + profile_section(*this) + flame_section(*this) + frequency_section(*this);
}

}  // namespace emutrace::analysis
