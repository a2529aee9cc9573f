#include "report/cfg_drawing.h"

#include <algorithm>
#include <cstdlib>

#include "report/html.h"

namespace emutrace::report {
namespace {

constexpr double kBlockW = 430, kBlockH = 32, kGap = 12, kLeft = 120;

double top_of(std::size_t i) {
    return 6 + static_cast<double>(i) * (kBlockH + kGap);
}

}  // namespace

std::string cfg_drawing(const std::vector<CfgBlock>& blocks, const std::vector<CfgEdge>& edges, std::string_view caption) {
    const double height = top_of(blocks.size()) + 6;
    const double width = kLeft + kBlockW + 140;
    std::string out = "<figure><svg class=\"chart cfg\" viewBox=\"0 0 " + svg_number(width) + " " + svg_number(height) +
                      "\" role=\"img\" aria-label=\"" + escape(caption) +
                      "\">\n<defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" refX=\"5\" refY=\"3\" markerWidth=\"6\" "
                      "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\" fill=\"#9aa3b0\"/></marker>"
                      "<marker id=\"arrow-worst\" viewBox=\"0 0 6 6\" refX=\"5\" refY=\"3\" markerWidth=\"6\" markerHeight=\"6\" "
                      "orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\" fill=\"#d9463d\"/></marker></defs>\n";
    // Edges first, under the blocks; the path's last, over the others.
    std::vector<CfgEdge> ordered = edges;
    std::stable_partition(ordered.begin(), ordered.end(), [](const CfgEdge& e) { return !e.path; });
    for (const CfgEdge& e : ordered) {
        if (e.from >= blocks.size() || e.to >= blocks.size()) continue;
        std::string cls = e.path ? "edge worst" : "edge", marker = e.path ? "url(#arrow-worst)" : "url(#arrow)";
        std::string d;
        if (e.to == e.from + 1) {  // straight down to the next block
            double x = kLeft + kBlockW / 2;
            d = "M" + svg_number(x) + "," + svg_number(top_of(e.from) + kBlockH) + " L" + svg_number(x) + "," + svg_number(top_of(e.to) - 1);
        } else {
            bool back = e.to <= e.from;
            double span = static_cast<double>(back ? e.from - e.to : e.to - e.from);
            double reach = std::min(110.0, 14 + 9 * span);
            double x = back ? kLeft : kLeft + kBlockW, bulge = back ? x - reach : x + reach;
            double y1 = top_of(e.from) + kBlockH * (back ? 0.35 : 0.65), y2 = top_of(e.to) + kBlockH * (back ? 0.65 : 0.35);
            d = "M" + svg_number(x) + "," + svg_number(y1) + " C" + svg_number(bulge) + "," + svg_number(y1) + " " + svg_number(bulge) + "," +
                svg_number(y2) + " " + svg_number(x + (back ? -1 : 1)) + "," + svg_number(y2);
        }
        out += "<path class=\"" + cls + "\" d=\"" + d + "\" marker-end=\"" + marker + "\"/>\n";
    }
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const CfgBlock& b = blocks[i];
        std::string cls = b.style == CfgBlock::Style::Path ? "block worst" : "block";
        std::string dash = b.style == CfgBlock::Style::Never ? " stroke-dasharray=\"4 3\"" : "";
        double y = top_of(i);
        out += "<g><rect class=\"" + cls + "\" x=\"" + svg_number(kLeft) + "\" y=\"" + svg_number(y) + "\" width=\"" + svg_number(kBlockW) +
               "\" height=\"" + svg_number(kBlockH) + "\" rx=\"3\"" + dash + "><title>" + escape(b.title + "\n" + b.detail) + "</title></rect>";
        out += "<text x=\"" + svg_number(kLeft + 6) + "\" y=\"" + svg_number(y + 13) + "\">" + escape(b.title) + "</text>";
        out += "<text class=\"value\" x=\"" + svg_number(kLeft + 6) + "\" y=\"" + svg_number(y + 26) + "\">" + escape(b.detail) + "</text></g>\n";
    }
    return out + "</svg><figcaption>" + escape(caption) + "</figcaption></figure>\n";
}

}  // namespace emutrace::report
