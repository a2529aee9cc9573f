#pragma once
// A flame graph as inline SVG: the root ("all") across the full width at the bottom, each
// node's children above it, widths in proportion to their cycles. Each drawn node is a
// <rect class="slice"> whose <title> starts with the node's name; nodes narrower than a
// pixel are left out, which bounds the page however deep the program's calls go.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::report {

struct FlameNode {
    std::string name;
    std::uint64_t value = 0;  ///< cycles of the node and everything above it
    std::vector<FlameNode> children;
};

std::string flame_graph(const FlameNode& root, std::uint64_t clock_hz, std::string_view caption);

}  // namespace emutrace::report
