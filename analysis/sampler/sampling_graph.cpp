#include "analysis/sampler/sampling_graph.h"

#include <algorithm>

#include "decode/program.h"

namespace emutrace::analysis::sampler {

std::size_t SamplingGraph::edges() const {
    std::size_t n = 0;
    for (const auto& v : vertices) n += v.successors.size();
    return n;
}

std::uint32_t SamplingGraph::add(std::string name, std::uint32_t cost) {
    vertices.push_back({0, std::max<std::uint32_t>(cost, 1), 0, {}, std::move(name)});
    return static_cast<std::uint32_t>(vertices.size() - 1);
}

CodeIndex::CodeIndex(const SamplingGraph& graph) : starts_(&graph.vertices) {
    std::uint32_t lo = UINT32_MAX, hi = 0;
    for (const auto& v : graph.vertices)
        if (v.size) lo = std::min(lo, v.address), hi = std::max(hi, v.address + v.size);
    if (lo >= hi) return;
    base_ = lo;
    holding_.assign((hi - lo + 1) / 2, -1);
    for (std::uint32_t v = 0; v < graph.vertices.size(); ++v)
        for (std::uint32_t a = graph.vertices[v].address; a < graph.vertices[v].address + graph.vertices[v].size; a += 2)
            holding_[(a - base_) >> 1] = static_cast<std::int32_t>(v);
}

SamplingGraph graph_of(const decode::Function& f, const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& block_cost) {
    SamplingGraph g;
    for (const auto& b : f.blocks) {
        char name[64];
        std::snprintf(name, sizeof name, "%s+0x%x", f.name.c_str(), b.start - f.start);
        std::uint32_t v = g.add(name, block_cost(b.start, b.end));
        g.vertices[v].address = b.start;
        g.vertices[v].size = b.end - b.start;
    }
    for (const auto& e : f.edges) {
        auto& succ = g.vertices[e.from].successors;
        if (std::find(succ.begin(), succ.end(), static_cast<std::uint32_t>(e.to)) == succ.end()) succ.push_back(static_cast<std::uint32_t>(e.to));
    }
    return g;
}

}  // namespace emutrace::analysis::sampler
