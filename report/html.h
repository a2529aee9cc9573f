#pragma once
// Pieces of the --report page: escaping, numbers as a reader wants them, tables and sections.
// Everything is text; the page is built once at the end of a run.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::report {

/// Text as HTML/SVG character data or an attribute value: & < > " ' escaped.
std::string escape(std::string_view text);
/// 1234567 as "1,234,567".
std::string thousands(std::uint64_t n);
/// Cycles at clock_hz as "12.345 ms" / "678.9 us" / "3.210 s"; as cycles when clock_hz is 0.
std::string duration(double cycles, std::uint64_t clock_hz);
/// A share as "12.3%".
std::string percent(double fraction);
/// An SVG coordinate or length, to a tenth of a pixel ("12.5").
std::string svg_number(double v);

/// An HTML table: one header row, rows of cells given as HTML (escape text first). `row_class`
/// is put on every body row (e.g. "constraint", for the browser test and for styling).
struct Table {
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row_classes;  ///< per row; empty or shorter: none
    std::vector<bool> numeric;             ///< per column: right-aligned
    std::string html() const;
};

/// <section id="ID" class="report-section"><h2>TITLE</h2>BODY</section>
std::string section(std::string_view id, std::string_view title, std::string_view body);

}  // namespace emutrace::report
