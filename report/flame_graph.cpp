#include "report/flame_graph.h"

#include <algorithm>
#include <cstdio>

#include "report/html.h"

namespace emutrace::report {
namespace {

constexpr double kWidth = 1000, kRow = 17;

std::size_t depth_of(const FlameNode& n, double px_per_cycle) {
    std::size_t d = 0;
    for (const FlameNode& c : n.children)
        if (static_cast<double>(c.value) * px_per_cycle >= 1) d = std::max(d, depth_of(c, px_per_cycle));
    return d + 1;
}

/// A warm colour from the name, so that one function has one colour wherever it appears.
std::string colour(std::string_view name) {
    std::uint32_t h = 2166136261u;
    for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    char text[32];
    std::snprintf(text, sizeof text, "hsl(%u,%u%%,%u%%)", 8 + h % 42, 70 + (h >> 8) % 20, 55 + (h >> 16) % 12);
    return text;
}

struct Drawing {
    const FlameNode& root;
    std::uint64_t clock_hz;
    double px_per_cycle, height;
    std::string out;

    void draw(const FlameNode& n, double x, std::size_t depth) {
        double w = static_cast<double>(n.value) * px_per_cycle;
        if (w < 1) return;
        double y = height - kRow * static_cast<double>(depth + 1);
        std::string title = n.name + ": " + thousands(n.value) + " cycles";
        if (clock_hz) title += ", " + duration(static_cast<double>(n.value), clock_hz);
        title += ", " + percent(static_cast<double>(n.value) / static_cast<double>(std::max<std::uint64_t>(root.value, 1)));
        out += "<g><rect class=\"slice\" x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" + svg_number(w) + "\" height=\"" +
               svg_number(kRow - 1) + "\" fill=\"" + colour(n.name) + "\"><title>" + escape(title) + "</title></rect>";
        if (w > 40) {
            std::size_t fits = static_cast<std::size_t>((w - 6) / 6.2);
            std::string label = n.name.size() > fits ? n.name.substr(0, fits > 1 ? fits - 1 : 0) + "\xE2\x80\xA6" : n.name;
            out += "<text x=\"" + svg_number(x + 3) + "\" y=\"" + svg_number(y + kRow * 0.72) + "\">" + escape(label) + "</text>";
        }
        out += "</g>\n";
        double child_x = x;
        for (const FlameNode& c : n.children) {
            draw(c, child_x, depth + 1);
            child_x += static_cast<double>(c.value) * px_per_cycle;
        }
    }
};

}  // namespace

std::string flame_graph(const FlameNode& root, std::uint64_t clock_hz, std::string_view caption) {
    double px_per_cycle = kWidth / static_cast<double>(std::max<std::uint64_t>(root.value, 1));
    double height = kRow * static_cast<double>(depth_of(root, px_per_cycle)) + 2;
    Drawing d{root, clock_hz, px_per_cycle, height, {}};
    d.out = "<figure><svg class=\"chart flame-graph\" viewBox=\"0 0 " + svg_number(kWidth) + " " + svg_number(height) +
            "\" role=\"img\" aria-label=\"" + escape(caption) + "\">\n";
    d.draw(root, 0, 0);
    return d.out + "</svg><figcaption>" + escape(caption) + "</figcaption></figure>\n";
}

}  // namespace emutrace::report
