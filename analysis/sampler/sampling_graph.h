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
    /// Adds a vertex and returns its index.
    std::uint32_t add(std::string name, std::uint32_t cost);
    void edge(std::uint32_t from, std::uint32_t to) { vertices[from].successors.push_back(to); }
};

/// Which vertex's code holds an address, by table (a lookup per event on the monitors' hot path).
class CodeIndex {
public:
    explicit CodeIndex(const SamplingGraph& graph);
    /// The vertex whose code holds `address`, or -1.
    std::int32_t holding(std::uint32_t address) const {
        std::uint32_t k = (address - base_) >> 1;  // Thumb: code on halfwords
        return address >= base_ && k < holding_.size() ? holding_[k] : -1;
    }
    /// The vertex starting at `address`, or -1.
    std::int32_t starting_at(std::uint32_t address) const {
        std::int32_t v = holding(address);
        return v >= 0 && (*starts_)[static_cast<std::uint32_t>(v)].address == address ? v : -1;
    }

private:
    const std::vector<SamplingGraph::Vertex>* starts_;
    std::uint32_t base_ = 0;
    std::vector<std::int32_t> holding_;  ///< by halfword from base_
};

/// The blocks of `function` with their best-case costs from `block_cost` (start, end) -> cycles;
/// edges leave the function nowhere: a return, tail call or call is followed by the block the
/// code continues at inside the function (a call's time is the callee's best case, folded into
/// `block_cost` by the caller of this function if wanted).
SamplingGraph graph_of(const decode::Function& function, const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& block_cost);

}  // namespace emutrace::analysis::sampler
