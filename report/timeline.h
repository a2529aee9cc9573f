#pragma once
// A timeline as inline SVG: one lane per thread (and one for exception handlers), each call a
// <rect class="span"> at its nesting depth, from entry to exit on a shared time axis; a thin
// band above a lane's calls shows when its thread ran. Static, printable; the Perfetto file of
// the same run is the zoomable view.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::report {

struct Span {
    std::uint64_t begin = 0, end = 0;  ///< cycles
    std::uint32_t depth = 0;           ///< 0: outermost
    std::string name;
};

struct Lane {
    std::string name;
    std::vector<Span> spans;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> running;  ///< [begin, end) the thread ran; empty: not known
};

std::string timeline(std::span<const Lane> lanes, std::uint64_t end_cycle, std::uint64_t clock_hz, std::string_view caption);

}  // namespace emutrace::report
