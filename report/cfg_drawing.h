#pragma once
// A function's control-flow graph as inline SVG, blocks in address order from top to bottom
// (the order a disassembly reads), edges as arcs beside them: forward ones on the right, back
// edges (loops) on the left. Blocks and edges of a highlighted path are drawn in the warning
// colour; blocks never executed are dashed. <svg class="chart cfg">, a <rect class="block">
// per block.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::report {

struct CfgBlock {
    std::string title;   ///< first line: the address range
    std::string detail;  ///< second line: counts and costs
    enum class Style { Normal, Path, Never } style = Style::Normal;
};

struct CfgEdge {
    std::size_t from = 0, to = 0;  ///< block indices
    bool path = false;
};

std::string cfg_drawing(const std::vector<CfgBlock>& blocks, const std::vector<CfgEdge>& edges, std::string_view caption);

}  // namespace emutrace::report
