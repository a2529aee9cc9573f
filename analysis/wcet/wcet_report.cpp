#include "analysis/wcet/wcet_report.h"

#include <algorithm>
#include <map>

#include "config/units.h"
#include "report/bar_chart.h"
#include "report/cfg_drawing.h"
#include "report/html.h"

namespace emutrace::analysis::wcet {
namespace {

using report::escape;

constexpr std::size_t kFunctionsDrawn = 6;  ///< the worst path's busiest functions
constexpr std::size_t kBlocksDrawn = 160;   ///< a larger CFG is listed, not drawn
constexpr std::size_t kPathRows = 40;

std::string cycles_text(std::uint64_t cycles, std::uint64_t hz) {
    return report::thousands(cycles) + " cycles" + (hz ? " (" + report::duration(static_cast<double>(cycles), hz) + ")" : "");
}

std::string function_cfg(const decode::Function& f, const std::map<std::uint32_t, const PathBlock*>& on_path,
                         const std::map<std::uint32_t, bool>& never) {
    if (f.blocks.size() > kBlocksDrawn)
        return "<p class=\"note\">" + escape(f.name) + " has " + std::to_string(f.blocks.size()) +
               " blocks, too many to draw; its blocks on the worst path are in the table below.</p>\n";
    std::vector<report::CfgBlock> blocks;
    for (const auto& b : f.blocks) {
        report::CfgBlock c;
        c.title = config::hex32(b.start) + "-" + config::hex32(b.end) + "  " + std::to_string(b.instructions) + " instructions" +
                  (b.loop >= 0 ? ", loop " + std::to_string(b.loop) : "");
        if (auto it = on_path.find(b.start); it != on_path.end()) {
            const PathBlock& p = *it->second;
            c.style = report::CfgBlock::Style::Path;
            c.detail = "first " + std::to_string(p.first_count) + " x " + std::to_string(p.first_cost) + " + later " + std::to_string(p.later_count) +
                       " x " + std::to_string(p.later_cost) + " = " + report::thousands(p.cycles) + " cycles";
        } else if (never.count(b.start)) {
            c.style = report::CfgBlock::Style::Never;
            c.detail = "never executed";
        } else {
            c.detail = "not on the worst path";
        }
        blocks.push_back(std::move(c));
    }
    std::vector<report::CfgEdge> edges;
    for (const auto& e : f.edges)
        edges.push_back({e.from, e.to, on_path.count(f.blocks[e.from].start) > 0 && on_path.count(f.blocks[e.to].start) > 0});
    return report::cfg_drawing(blocks, edges,
                               f.name +
                                   ": blocks in address order; red: on the worst path (first-iteration count x cost + later "
                                   "iterations' count x cost), dashed: never executed; loops' back edges on the left");
}

}  // namespace

std::string wcet_report_html(const decode::Program& program, const WcetResult& r, std::uint64_t clock_hz, std::uint64_t max_cycles) {
    std::string body;
    if (!r.trusted()) {
        body += "<div class=\"verdict fail\">This bound is not to be trusted<ul>";
        for (const auto& e : r.errors) body += "<li>" + escape(e) + "</li>";
        body += "</ul></div>\n";
    }
    std::vector<report::Bar> bars = {
        {"WCET bound (loop context)", static_cast<double>(r.bound_cycles), cycles_text(r.bound_cycles, clock_hz), {}, false},
        {"bound without loop context", static_cast<double>(r.insensitive_bound_cycles), cycles_text(r.insensitive_bound_cycles, clock_hz), {}, false},
        {"longest observed run", static_cast<double>(r.observed_max_cycles), cycles_text(r.observed_max_cycles, clock_hz),
         "the longest of " + std::to_string(r.observed_runs) + " measured runs", r.observed_max_cycles > r.bound_cycles}};
    if (max_cycles)
        bars.push_back({"limit (max_cycles)", static_cast<double>(max_cycles), cycles_text(max_cycles, clock_hz), {}, r.bound_cycles > max_cycles});
    body += report::horizontal_bars(bars, "The bound of " + r.function + " beside the longest of its " + std::to_string(r.observed_runs) +
                                              " observed runs; the gap is what no measured input exercised together");

    std::vector<FunctionShare> shares = r.functions;
    std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.cycles > b.cycles; });
    std::vector<report::Bar> share_bars;
    for (const auto& s : shares)
        share_bars.push_back(
            {s.name, static_cast<double>(s.cycles),
             report::thousands(s.cycles) + " (" +
                 report::percent(static_cast<double>(s.cycles) / static_cast<double>(std::max<std::uint64_t>(r.bound_cycles, 1))) + ")",
             s.name + ": " + report::thousands(s.cycles) + " cycles of the bound in " + std::to_string(s.entries) + " entries", false});
    body += "<h3>Where the worst path spends its cycles</h3>\n" +
            report::horizontal_bars(share_bars, "Cycles of the bound in each function's own blocks");

    std::map<std::uint32_t, const PathBlock*> on_path;
    for (const auto& b : r.path) on_path[b.start] = &b;
    std::map<std::uint32_t, bool> never;
    for (const auto& b : r.never_executed) never[b.start] = true;
    for (std::size_t i = 0; i < shares.size() && i < kFunctionsDrawn; ++i)
        if (const decode::Function* f = program.function(shares[i].name))
            body += "<h3>Worst path in " + escape(f->name) + "</h3>\n" + function_cfg(*f, on_path, never);
    if (shares.size() > kFunctionsDrawn)
        body += "<p class=\"note\">" + std::to_string(shares.size() - kFunctionsDrawn) + " more functions on the worst path are in the table.</p>\n";

    std::vector<PathBlock> path = r.path;
    std::sort(path.begin(), path.end(), [](const auto& a, const auto& b) { return a.cycles > b.cycles; });
    report::Table t;
    t.headers = {"function", "block", "first: count x cost", "later: count x cost", "cycles"};
    t.numeric = {false, false, true, true, true};
    for (std::size_t i = 0; i < path.size() && i < kPathRows; ++i) {
        const PathBlock& p = path[i];
        t.rows.push_back({escape(p.function), config::hex32(p.start) + "-" + config::hex32(p.end),
                          std::to_string(p.first_count) + " x " + std::to_string(p.first_cost),
                          std::to_string(p.later_count) + " x " + std::to_string(p.later_cost), report::thousands(p.cycles)});
        t.row_classes.push_back("path-block");
    }
    body += "<h3>Blocks of the worst path, costliest first</h3>\n" + t.html();
    if (path.size() > kPathRows)
        body += "<p class=\"note\">&hellip; and " + std::to_string(path.size() - kPathRows) + " more (--json has them all).</p>\n";

    if (!r.loops.empty()) {
        report::Table l;
        l.headers = {"function", "loop", "header", "bound", "from", "source"};
        l.numeric = {false, true, false, true, false, false};
        for (const auto& x : r.loops)
            l.rows.push_back(
                {escape(x.function), std::to_string(x.loop), config::hex32(x.header), report::thousands(x.bound), escape(x.source), escape(x.line)});
        body += "<h3>Loop bounds used</h3>\n" + l.html();
    }
    if (!r.warnings.empty()) {
        body += "<h3>Warnings</h3><ul>";
        for (const auto& w : r.warnings) body += "<li>" + escape(w) + "</li>";
        body += "</ul>\n";
    }
    if (!r.cross_check.empty()) body += "<p class=\"note\">" + escape(r.cross_check) + "</p>\n";
    return report::section("wcet", "WCET of " + r.function, body);
}

}  // namespace emutrace::analysis::wcet
