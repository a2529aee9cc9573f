#include "report/page.h"

#include "emutrace/version.h"
#include "report/html.h"

namespace emutrace::report {
namespace {

// System fonts only: the page must look the same without a network.
constexpr const char* kStyle = R"css(
:root { --ink: #1d2330; --muted: #5b6472; --rule: #d8dce3; --bar: #3d7bd9; --warn: #d9463d; --ok: #2f8f4e; }
body { font: 14px/1.45 system-ui, "DejaVu Sans", sans-serif; color: var(--ink); margin: 0 auto; max-width: 1060px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--rule); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.facts { color: var(--muted); margin: 0 0 12px; padding: 0; list-style: none; } .facts li { display: inline; margin-right: 18px; }
.verdict { padding: 10px 14px; border-radius: 6px; font-weight: 600; margin: 12px 0; }
.verdict.pass { background: #e6f4ea; color: var(--ok); } .verdict.fail { background: #fbe9e7; color: var(--warn); }
.verdict.none { background: #eef0f3; color: var(--ink); }
.verdict ul { margin: 6px 0 0; font-weight: normal; color: var(--ink); }
nav.toc { columns: 3; font-size: 13px; margin: 8px 0 4px; } nav.toc a { color: var(--bar); text-decoration: none; display: block; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; }
th { background: #f3f5f8; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.fail td, .bad { color: var(--warn); } tr.pass td .verdict-cell, .good { color: var(--ok); }
table.facts-table td:first-child { color: var(--muted); }
figure { margin: 8px 0 16px; } figcaption { color: var(--muted); font-size: 12px; }
svg.chart { width: 100%; height: auto; font: 11px system-ui, "DejaVu Sans", sans-serif; }
svg .bar { fill: var(--bar); } svg .bar.warn { fill: var(--warn); } svg .value, svg .axis { fill: var(--muted); }
svg .tick { stroke: var(--rule); stroke-width: 0.5; } svg .running { fill: #9db7de; }
svg .slice { stroke: #fff; stroke-width: 0.5; } svg .flame-graph text, svg .span-label { font-size: 10px; pointer-events: none; }
svg .block { fill: #f3f5f8; stroke: #9aa3b0; } svg .block.worst { fill: #fde3df; stroke: var(--warn); }
svg .edge { fill: none; stroke: #9aa3b0; } svg .edge.worst { stroke: var(--warn); stroke-width: 1.6; }
details { margin: 4px 0; } pre.stack { margin: 4px 0; font-size: 12px; background: #f7f8fa; padding: 4px 8px; }
.note { color: var(--muted); font-size: 13px; }
@media print { body { max-width: none; padding: 0; } nav.toc { display: none; } section { break-inside: avoid-page; }
  details { display: block; } details > * { display: block; } }
)css";

/// The id and heading of each section, for the table of contents (a part may hold several).
std::vector<std::pair<std::string, std::string>> headings(const std::vector<std::string>& sections) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& s : sections) {
        for (auto at = s.find("<section id=\""); at != std::string::npos; at = s.find("<section id=\"", at + 1)) {
            auto id = at + 13, id_end = s.find('"', id);
            auto h2 = s.find("<h2>", id_end), h2_end = s.find("</h2>", h2);
            if (id_end == std::string::npos || h2 == std::string::npos || h2_end == std::string::npos) break;
            out.emplace_back(s.substr(id, id_end - id), s.substr(h2 + 4, h2_end - h2 - 4));
        }
    }
    return out;
}

}  // namespace

std::string Page::html() const {
    std::string out =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"generator\" content=\"emutrace " EMUTRACE_VERSION "\">\n<title>" +
        escape(title) + "</title>\n<style>" + kStyle + "</style></head>\n<body>\n<header><h1>" + escape(title) + "</h1>\n";
    out += "<ul class=\"facts\">";
    for (const std::string& f : facts) out += "<li>" + escape(f) + "</li>";
    out += "<li>emutrace " EMUTRACE_VERSION "</li></ul>\n";
    if (has_verdict) {
        if (failures.empty() && !nothing_checked.empty()) {
            out += "<div class=\"verdict none\">NOT CHECKED: " + escape(nothing_checked) + "</div>\n";
        } else if (failures.empty()) {
            out += "<div class=\"verdict pass\">PASSED: " + escape(passed) + "</div>\n";
        } else {
            out += "<div class=\"verdict fail\">FAILED<ul>";
            for (const std::string& f : failures) out += "<li>" + escape(f) + "</li>";
            out += "</ul></div>\n";
        }
    }
    out += "<nav class=\"toc\">";
    for (const auto& [id, heading] : headings(sections)) out += "<a href=\"#" + id + "\">" + heading + "</a>";
    out += "</nav></header>\n<main>\n";
    for (const std::string& s : sections) out += s;
    return out + "</main>\n</body></html>\n";
}

}  // namespace emutrace::report
