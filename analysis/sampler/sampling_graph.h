#pragma once
// The model of Thomas, Fischmeister and Kumar (LCTES 2011, section 3) on a region of code: a
// control-flow graph whose vertices are basic blocks with a best-case cost c(v) in cycles. A
// monitor samples the running program every Δt cycles and records the block executing then
// (and the markers, marker_plan.h); vertex 0 is the region's entry.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace emutrace::decode {
struct Function;
class ElfImage;
}  // namespace emutrace::decode

namespace emutrace::analysis::sampler {

struct SamplingGraph {
    struct Vertex {
        std::uint32_t address = 0;  ///< first instruction (0 in generated graphs)
        std::uint32_t cost = 1;     ///< best-case cycles, at least 1
        std::uint32_t size = 0;     ///< bytes of code (0 in generated graphs)
        std::vector<std::uint32_t> successors;
        std::string name;  ///< "A", or "f+0x1c" for code
    };
    std::vector<Vertex> vertices;

    std::size_t edges() const;
    /// The vertex whose code holds `address`, or -1.
    std::int32_t vertex_holding(std::uint32_t address) const;
    /// Adds a vertex and returns its index.
    std::uint32_t add(std::string name, std::uint32_t cost);
    void edge(std::uint32_t from, std::uint32_t to) { vertices[from].successors.push_back(to); }
};

/// The blocks of `function` with their best-case costs from `block_cost` (start, end) -> cycles;
/// edges leave the function nowhere: a return, tail call or call is followed by the block the
/// code continues at inside the function (a call's time is the callee's best case, folded into
/// `block_cost` by the caller of this function if wanted).
SamplingGraph graph_of(const decode::Function& function, const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& block_cost);

}  // namespace emutrace::analysis::sampler
