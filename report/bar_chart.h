#pragma once
// Bar charts as inline SVG: horizontal bars for ranked figures (a profile, execution
// frequencies), columns for histograms (an error distribution). Each bar is a
// <rect class="bar"> with a <title> tooltip; the chart is <svg class="chart bar-chart">.

#include <span>
#include <string>

namespace emutrace::report {

struct Bar {
    std::string label;       ///< left of a horizontal bar, under a column
    double value = 0;        ///< the bar's length; negative counts as 0
    std::string value_text;  ///< written at the bar's end
    std::string tooltip;     ///< the <title>; the label and value_text when empty
    bool highlight = false;  ///< drawn in the warning colour
};

/// One row per bar, in the order given, longest bar at the full width.
std::string horizontal_bars(std::span<const Bar> bars, std::string_view caption);
/// Columns side by side, in the order given (bins of a histogram), tallest at the full height.
std::string columns(std::span<const Bar> bars, std::string_view caption, std::string_view x_title);

}  // namespace emutrace::report
