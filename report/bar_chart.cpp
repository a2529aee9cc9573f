#include "report/bar_chart.h"

#include <algorithm>

#include "report/html.h"

namespace emutrace::report {
namespace {

double longest(std::span<const Bar> bars) {
    double m = 0;
    for (const Bar& b : bars) m = std::max(m, b.value);
    return m > 0 ? m : 1;
}

std::string tooltip(const Bar& b) {
    return escape(b.tooltip.empty() ? b.label + ": " + b.value_text : b.tooltip);
}

}  // namespace

std::string horizontal_bars(std::span<const Bar> bars, std::string_view caption) {
    constexpr double width = 760, label_width = 200, value_width = 180, row = 18;
    const double plot = width - label_width - value_width, top = 4;
    const double height = top + row * static_cast<double>(bars.size()) + 4, scale = plot / longest(bars);
    std::string out = "<figure><svg class=\"chart bar-chart\" viewBox=\"0 0 " + svg_number(width) + " " + svg_number(height) +
                      "\" role=\"img\" aria-label=\"" + escape(caption) + "\">\n";
    double y = top;
    for (const Bar& b : bars) {
        double w = std::max(0.0, b.value) * scale;
        std::string label = b.label.size() > 30 ? b.label.substr(0, 29) + "\xE2\x80\xA6" : b.label;
        out += "<text class=\"label\" x=\"" + svg_number(label_width - 6) + "\" y=\"" + svg_number(y + row * 0.7) + "\" text-anchor=\"end\">" +
               escape(label) + "</text>";
        out += "<rect class=\"bar" + std::string(b.highlight ? " warn" : "") + "\" x=\"" + svg_number(label_width) + "\" y=\"" + svg_number(y + 2) +
               "\" width=\"" + svg_number(std::max(w, 0.5)) + "\" height=\"" + svg_number(row - 4) + "\"><title>" + tooltip(b) + "</title></rect>";
        out += "<text class=\"value\" x=\"" + svg_number(label_width + w + 4) + "\" y=\"" + svg_number(y + row * 0.7) + "\">" + escape(b.value_text) +
               "</text>\n";
        y += row;
    }
    return out + "</svg><figcaption>" + escape(caption) + "</figcaption></figure>\n";
}

std::string columns(std::span<const Bar> bars, std::string_view caption, std::string_view x_title) {
    constexpr double width = 760, plot_height = 110, top = 16, bottom = 44;
    const double n = std::max<double>(1, static_cast<double>(bars.size()));
    const double step = (width - 20) / n, scale = plot_height / longest(bars);
    std::string out = "<figure><svg class=\"chart bar-chart columns\" viewBox=\"0 0 " + svg_number(width) + " " +
                      svg_number(top + plot_height + bottom) + "\" role=\"img\" aria-label=\"" + escape(caption) + "\">\n";
    double x = 10;
    for (const Bar& b : bars) {
        double h = std::max(0.0, b.value) * scale;
        double y = top + plot_height - h;
        out += "<rect class=\"bar" + std::string(b.highlight ? " warn" : "") + "\" x=\"" + svg_number(x + step * 0.1) + "\" y=\"" + svg_number(y) +
               "\" width=\"" + svg_number(step * 0.8) + "\" height=\"" + svg_number(std::max(h, 0.5)) + "\"><title>" + tooltip(b) + "</title></rect>";
        if (!b.value_text.empty() && b.value > 0)
            out += "<text class=\"value\" x=\"" + svg_number(x + step / 2) + "\" y=\"" + svg_number(y - 3) + "\" text-anchor=\"middle\">" +
                   escape(b.value_text) + "</text>";
        out += "<text class=\"label\" x=\"" + svg_number(x + step / 2) + "\" y=\"" + svg_number(top + plot_height + 14) +
               "\" text-anchor=\"middle\">" + escape(b.label) + "</text>\n";
        x += step;
    }
    out += "<text class=\"axis\" x=\"" + svg_number(width / 2) + "\" y=\"" + svg_number(top + plot_height + 36) + "\" text-anchor=\"middle\">" +
           escape(x_title) + "</text>";
    return out + "</svg><figcaption>" + escape(caption) + "</figcaption></figure>\n";
}

}  // namespace emutrace::report
