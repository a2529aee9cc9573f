#include "analysis/sampler/marker_report.h"

#include <cstdio>

#include "config/units.h"
#include "report/bar_chart.h"
#include "report/html.h"

namespace emutrace::analysis::sampler {
using report::escape;

std::string marker_report_html(const nlohmann::json& r) {
    std::string body = "<p>Function <b>" + escape(r.value("function", "")) + "</b> (" + std::to_string(r.value("blocks", std::uint64_t{0})) +
                       " blocks, " + std::to_string(r.value("edges", std::uint64_t{0})) + " edges) on " + escape(r.value("cpu", "")) + ", scheme " +
                       escape(r.value("scheme", "")) + ": a monitor that samples every " +
                       report::thousands(std::max<std::uint64_t>(r.value("achieved_delta_t", std::uint64_t{1}), 2) - 1) +
                       " cycles or faster reconstructs every path" + (r.value("unlimited", false) ? " (no limit found within the search)" : "") +
                       ", with " + report::thousands(r.value("marker_bytes", std::uint64_t{0})) + " bytes of markers costing " +
                       report::thousands(r.value("overhead_cycles", std::uint64_t{0})) + " cycles if every instrumented block runs once.</p>\n";
    std::vector<report::Bar> bars;
    if (r.contains("delta_t")) {
        std::size_t step = 0;
        for (const auto& d : r["delta_t"]) {
            std::uint64_t v = d.get<std::uint64_t>();
            bars.push_back({step ? std::to_string(step) : "none", static_cast<double>(v), report::thousands(v),
                            step ? "after step " + std::to_string(step) + ": Δt " + report::thousands(v) + " cycles"
                                 : "without markers: Δt " + report::thousands(v) + " cycles",
                            false});
            ++step;
        }
    }
    body += report::columns(bars, "The longest sampling period that still tells every two paths apart (Δt, cycles), after each step of markers",
                            "markers added (steps)");
    report::Table t;
    t.headers = {"block", "name", "marker operations", "cycles"};
    t.numeric = {false, false, false, true};
    if (r.contains("plan"))
        for (const auto& p : r["plan"]) {
            std::string ops;
            for (const auto& op : p["ops"]) ops += (ops.empty() ? "" : "; ") + op.get<std::string>();
            t.rows.push_back({config::hex32(p.value("block", std::uint64_t{0})), escape(p.value("name", "")), escape(ops),
                              report::thousands(p.value("cycles", std::uint64_t{0}))});
            t.row_classes.push_back("marker");
        }
    if (!t.rows.empty()) body += "<h3>Where the markers go</h3>\n" + t.html();
    char metrics[200];
    std::snprintf(metrics, sizeof metrics, "max Δt %llu, interference %llu, memory efficiency %.2f cycles/byte; %s",
                  static_cast<unsigned long long>(r.value("max_delta_t", std::uint64_t{0})),
                  static_cast<unsigned long long>(r.value("interference", std::uint64_t{0})), r.value("memory_efficiency", 0.0),
                  r.value("stopped", "").c_str());
    body += "<p class=\"note\">" + escape(metrics) + "</p>\n";
    return report::section("markers", "Markers for " + r.value("function", std::string()), body);
}

}  // namespace emutrace::analysis::sampler
