#include "report/html.h"

#include <cmath>
#include <cstdio>

namespace emutrace::report {

std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default:
                // Control characters are not allowed in HTML text; firmware symbol names are untrusted.
                if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
                    out += "\xEF\xBF\xBD";  // U+FFFD
                else
                    out += c;
        }
    }
    return out;
}

std::string thousands(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string duration(double cycles, std::uint64_t clock_hz) {
    char text[64];
    if (!clock_hz) {
        std::snprintf(text, sizeof text, "%.0f cycles", cycles);
        return text;
    }
    double s = cycles / static_cast<double>(clock_hz);
    if (std::fabs(s) >= 1)
        std::snprintf(text, sizeof text, "%.3f s", s);
    else if (std::fabs(s) >= 1e-3)
        std::snprintf(text, sizeof text, "%.3f ms", s * 1e3);
    else
        std::snprintf(text, sizeof text, "%.1f us", s * 1e6);
    return text;
}

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
    return text;
}

std::string svg_number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}

std::string Table::html() const {
    auto align = [&](std::size_t column) { return column < numeric.size() && numeric[column] ? " class=\"num\"" : ""; };
    std::string out = "<table><thead><tr>";
    for (std::size_t c = 0; c < headers.size(); ++c) out += std::string("<th") + align(c) + ">" + headers[c] + "</th>";
    out += "</tr></thead><tbody>\n";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        out += r < row_classes.size() && !row_classes[r].empty() ? "<tr class=\"" + row_classes[r] + "\">" : "<tr>";
        for (std::size_t c = 0; c < rows[r].size(); ++c) out += std::string("<td") + align(c) + ">" + rows[r][c] + "</td>";
        out += "</tr>\n";
    }
    return out + "</tbody></table>\n";
}

std::string section(std::string_view id, std::string_view title, std::string_view body) {
    std::string out = "<section id=\"" + escape(id) + "\" class=\"report-section\"><h2>" + escape(title) + "</h2>\n";
    out += body;
    return out + "</section>\n";
}

}  // namespace emutrace::report
