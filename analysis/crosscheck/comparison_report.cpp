#include "analysis/crosscheck/comparison_report.h"

#include <algorithm>

#include "report/bar_chart.h"
#include "report/html.h"

namespace emutrace::analysis {
namespace {
using report::escape;
}

std::string comparison_report_html(const nlohmann::json& c) {
    const bool identical = c.value("identical", false);
    std::string body = identical ? "<div class=\"verdict pass\">The capture and the emulated run took the same path: " +
                                       report::thousands(c.value("matching_steps", std::uint64_t{0})) + " steps (ranges, exceptions, returns)</div>\n"
                                 : "<div class=\"verdict fail\">The paths differ: " + report::thousands(c.value("matching_steps", std::uint64_t{0})) +
                                       " of " + report::thousands(c.value("capture_steps", std::uint64_t{0})) + " captured / " +
                                       report::thousands(c.value("emulated_steps", std::uint64_t{0})) + " emulated steps match</div>\n";
    if (c.contains("first_divergence")) {
        const auto& d = c["first_divergence"];
        report::Table t;
        t.headers = {"", "step " + std::to_string(d.value("step", std::uint64_t{0}))};
        if (!d.value("before", "").empty()) t.rows.push_back({"before (both)", escape(d.value("before", ""))});
        t.rows.push_back({"capture", escape(d.value("capture", ""))});
        t.rows.push_back({"emulated", escape(d.value("emulated", ""))});
        t.row_classes = {"", "divergence", "divergence"};
        if (t.rows.size() == 2) t.row_classes = {"divergence", "divergence"};
        body += "<h3>First divergence</h3>\n" + t.html();
    }
    std::uint64_t captured = c.value("capture_cycles", std::uint64_t{0}), emulated = c.value("emulated_cycles", std::uint64_t{0});
    if (captured || emulated) {
        std::vector<report::Bar> bars = {{"capture", static_cast<double>(captured), report::thousands(captured) + " cycles", {}, false},
                                         {"emulated", static_cast<double>(emulated), report::thousands(emulated) + " cycles", {}, false}};
        body += report::horizontal_bars(bars, "Cycles of the whole run (a capture without cycle-accurate trace counts instructions)");
    }
    // Per function, the ones that differ first, then by instructions.
    std::vector<nlohmann::json> rows;
    if (c.contains("functions"))
        for (const auto& f : c["functions"]) rows.push_back(f);
    auto differs = [](const nlohmann::json& f) {
        return f.value("capture", std::uint64_t{0}) != f.value("emulated", std::uint64_t{0}) ||
               f.value("capture_calls", std::uint64_t{0}) != f.value("emulated_calls", std::uint64_t{0});
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
        if (differs(a) != differs(b)) return differs(a);
        return std::max(a.value("capture", std::uint64_t{0}), a.value("emulated", std::uint64_t{0})) >
               std::max(b.value("capture", std::uint64_t{0}), b.value("emulated", std::uint64_t{0}));
    });
    report::Table t;
    t.headers = {"function", "capture instructions", "emulated instructions", "capture calls", "emulated calls", ""};
    t.numeric = {false, true, true, true, true, false};
    for (const auto& f : rows) {
        bool d = differs(f);
        t.rows.push_back({escape(f.value("function", "")), report::thousands(f.value("capture", std::uint64_t{0})),
                          report::thousands(f.value("emulated", std::uint64_t{0})), report::thousands(f.value("capture_calls", std::uint64_t{0})),
                          report::thousands(f.value("emulated_calls", std::uint64_t{0})), d ? "<span class=\"bad\">differs</span>" : ""});
        t.row_classes.push_back(d ? "function differs" : "function");
    }
    if (!rows.empty()) body += "<h3>Per function</h3>\n" + t.html();
    return report::section("comparison", "Capture against emulation", body);
}

}  // namespace emutrace::analysis
