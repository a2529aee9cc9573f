#include "report/timeline.h"

#include <algorithm>
#include <cstdio>

#include "report/html.h"

namespace emutrace::report {
namespace {

constexpr double kWidth = 1000, kLabel = 120, kRow = 13, kBand = 4, kGap = 10, kAxis = 22;

std::string colour(std::string_view name) {
    std::uint32_t h = 2166136261u;
    for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    char text[32];
    std::snprintf(text, sizeof text, "hsl(%u,55%%,%u%%)", h % 360, 55 + (h >> 9) % 15);
    return text;
}

}  // namespace

std::string timeline(std::span<const Lane> lanes, std::uint64_t end_cycle, std::uint64_t clock_hz, std::string_view caption) {
    const double plot = kWidth - kLabel - 10;
    const double scale = plot / static_cast<double>(std::max<std::uint64_t>(end_cycle, 1));
    double height = kAxis;
    for (const Lane& lane : lanes) {
        std::uint32_t depth = 0;
        for (const Span& s : lane.spans) depth = std::max(depth, s.depth + 1);
        height += kBand + 2 + kRow * std::max<std::uint32_t>(depth, 1) + kGap;
    }
    std::string out = "<figure><svg class=\"chart timeline\" viewBox=\"0 0 " + svg_number(kWidth) + " " + svg_number(height) +
                      "\" role=\"img\" aria-label=\"" + escape(caption) + "\">\n";
    // Time axis: five ticks across the run.
    for (int i = 0; i <= 4; ++i) {
        double cycle = static_cast<double>(end_cycle) * i / 4, x = kLabel + cycle * scale;
        out += "<line class=\"tick\" x1=\"" + svg_number(x) + "\" y1=\"14\" x2=\"" + svg_number(x) + "\" y2=\"" + svg_number(height) + "\"/>";
        out += "<text class=\"axis\" x=\"" + svg_number(x) + "\" y=\"10\" text-anchor=\"" +
               (i == 0   ? "start"
                : i == 4 ? "end"
                         : "middle") +
               "\">" + escape(duration(cycle, clock_hz)) + "</text>\n";
    }
    double y = kAxis;
    for (const Lane& lane : lanes) {
        std::uint32_t depth = 0;
        for (const Span& s : lane.spans) depth = std::max(depth, s.depth + 1);
        out += "<text class=\"label\" x=\"" + svg_number(kLabel - 6) + "\" y=\"" + svg_number(y + kBand + kRow) + "\" text-anchor=\"end\">" +
               escape(lane.name) + "</text>\n";
        for (const auto& [b, e] : lane.running)
            out += "<rect class=\"running\" x=\"" + svg_number(kLabel + static_cast<double>(b) * scale) + "\" y=\"" + svg_number(y) + "\" width=\"" +
                   svg_number(std::max(static_cast<double>(e - b) * scale, 0.3)) + "\" height=\"" + svg_number(kBand) + "\"/>";
        double calls_y = y + kBand + 2;
        for (const Span& s : lane.spans) {
            double x = kLabel + static_cast<double>(s.begin) * scale;
            double w = std::max(static_cast<double>(s.end - s.begin) * scale, 0.3);
            out += "<rect class=\"span\" x=\"" + svg_number(x) + "\" y=\"" + svg_number(calls_y + kRow * s.depth) + "\" width=\"" + svg_number(w) +
                   "\" height=\"" + svg_number(kRow - 1) + "\" fill=\"" + colour(s.name) + "\"><title>" + escape(s.name) + ": " +
                   escape(duration(static_cast<double>(s.end - s.begin), clock_hz)) + " from " +
                   escape(duration(static_cast<double>(s.begin), clock_hz)) + "</title></rect>";
            if (w > 50) {
                std::size_t fits = static_cast<std::size_t>((w - 4) / 5.6);
                std::string label = s.name.size() > fits ? s.name.substr(0, fits > 1 ? fits - 1 : 0) + "\xE2\x80\xA6" : s.name;
                out += "<text class=\"span-label\" x=\"" + svg_number(x + 2) + "\" y=\"" + svg_number(calls_y + kRow * s.depth + kRow * 0.72) +
                       "\">" + escape(label) + "</text>";
            }
            out += "\n";
        }
        y += kBand + 2 + kRow * std::max<std::uint32_t>(depth, 1) + kGap;
    }
    return out + "</svg><figcaption>" + escape(caption) + "</figcaption></figure>\n";
}

}  // namespace emutrace::report
