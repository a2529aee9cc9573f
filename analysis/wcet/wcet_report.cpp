#include "analysis/wcet/wcet_report.h"

#include "analysis/wcet/wcet_session.h"

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
constexpr std::size_t kGapRows = 20;  ///< blocks where the bound parts from the run most

std::string cycles_text(std::uint64_t cycles, std::uint64_t hz) {
    return report::thousands(cycles) + " cycles" + (hz ? " (" + report::duration(static_cast<double>(cycles), hz) + ")" : "");
}

/// Per block, the longest run beside the worst path, call contexts summed.
struct BlockGap {
    std::uint64_t observed_count = 0, observed_cycles = 0, bound_cycles = 0;
};

std::string function_cfg(const decode::Function& f, const std::map<std::uint32_t, PathBlock>& on_path, const std::map<std::uint32_t, bool>& never,
                         const std::map<std::uint32_t, BlockGap>& gaps) {
    if (f.blocks.size() > kBlocksDrawn)
        return "<p class=\"note\">" + escape(f.name) + " has " + std::to_string(f.blocks.size()) +
               " blocks, too many to draw; its blocks on the worst path are in the table below.</p>\n";
    std::vector<report::CfgBlock> blocks;
    for (const auto& b : f.blocks) {
        report::CfgBlock c;
        c.title = config::hex32(b.start) + "-" + config::hex32(b.end) + "  " + std::to_string(b.instructions) + " instructions" +
                  (b.loop >= 0 ? ", loop " + std::to_string(b.loop) : "");
        if (auto it = on_path.find(b.start); it != on_path.end()) {
            const PathBlock& p = it->second;
            c.style = report::CfgBlock::Style::Path;
            c.detail = "first " + std::to_string(p.first_count) + " x " + std::to_string(p.first_cost) + " + later " + std::to_string(p.later_count) +
                       " x " + std::to_string(p.later_cost) + " = " + report::thousands(p.cycles) + " cycles";
            if (auto g = gaps.find(b.start); g != gaps.end()) {
                const auto gap = static_cast<std::int64_t>(g->second.bound_cycles) - static_cast<std::int64_t>(g->second.observed_cycles);
                c.detail += "; longest run " + std::to_string(g->second.observed_count) + " times, " + report::thousands(g->second.observed_cycles) +
                            " cycles (gap " + (gap >= 0 ? "+" : "-") + report::thousands(static_cast<std::uint64_t>(gap >= 0 ? gap : -gap)) + ")";
            }
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
                                   "iterations' count x cost, call contexts summed, beside the longest run), dashed: never executed; loops' "
                                   "back edges on the left");
}

// Where the bound parts from the longest run: the blocks and contexts with the largest gaps.
std::string gap_table(const WcetResult& r) {
    if (r.gap.empty()) return "";
    report::Table t;
    t.headers = {"function", "called from", "block", "bound: count, cycles", "longest run: count, cycles", "gap", "because"};
    t.numeric = {false, false, false, true, true, true, false};
    std::size_t rows = 0;
    for (const auto& g : r.gap) {
        if (g.gap() <= 0 || rows++ == kGapRows) break;
        t.rows.push_back({escape(g.function), escape(g.context.empty() ? "(bounded function)" : g.context),
                          config::hex32(g.start) + "-" + config::hex32(g.end),
                          report::thousands(g.bound_count) + ", " + report::thousands(g.bound_cycles),
                          report::thousands(g.observed_count) + ", " + report::thousands(g.observed_cycles),
                          "+" + report::thousands(static_cast<std::uint64_t>(g.gap())),
                          g.from_count() >= g.gap() / 2 ? "executions the run did not make" : "slower executions than the run's"});
    }
    return "<h3>Where the bound parts from the longest run (" + report::thousands(r.profiled_cycles) + " cycles)</h3>\n" + t.html();
}

std::string coverage_html(const WcetResult& r) {
    const Coverage& c = r.coverage;
    std::string s =
        "<h3>What the bound covers</h3>\n<p>A measurement-based (hybrid) bound: safe for the paths, loop counts and call contexts "
        "the runs covered, combined in every way the CFG allows; not a static proof. Covered: " +
        std::to_string(c.blocks_seen) + " of " + std::to_string(c.blocks) + " blocks, " + std::to_string(c.edges_seen) + " of " +
        std::to_string(c.edges) + " edges, " + std::to_string(c.contexts) + " call contexts (call strings of up to " + std::to_string(c.call_depth) +
        " call sites).</p>\n";
    std::size_t held = 0;
    for (const auto& u : r.path_counts) held += u.source == "observed";
    if (held)
        s += "<p>Path counts: " + std::to_string(held) +
             " blocks are held to how often they ran per run of their caller, the same in every run (with one input: that input's "
             "paths). Over any mix of paths the bound is " +
             report::thousands(r.any_path_bound_cycles) + " cycles.</p>\n";
    else if (!r.path_counts_unused.empty())
        s += "<p>Path counts: none from the runs (" + escape(r.path_counts_unused) + ").</p>\n";
    if (!c.unseen_contexts.empty()) {
        s += "<p>Calls no run made (their callees are not in the bound from there):</p><ul>";
        for (const auto& u : c.unseen_contexts) s += "<li>" + escape(u) + "</li>";
        s += "</ul>\n";
    }
    return s;
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

    const std::map<std::uint32_t, PathBlock> on_path = path_by_block(r);
    std::map<std::uint32_t, bool> never;
    for (const auto& b : r.never_executed) never[b.start] = true;
    std::map<std::uint32_t, BlockGap> gaps;
    for (const auto& g : r.gap) {
        BlockGap& b = gaps[g.start];
        b.observed_count += g.observed_count;
        b.observed_cycles += g.observed_cycles;
        b.bound_cycles += g.bound_cycles;
    }
    body += gap_table(r) + coverage_html(r);
    for (std::size_t i = 0; i < shares.size() && i < kFunctionsDrawn; ++i)
        if (const decode::Function* f = program.function(shares[i].name))
            body += "<h3>Worst path in " + escape(f->name) + "</h3>\n" + function_cfg(*f, on_path, never, gaps);
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
