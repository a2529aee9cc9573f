#pragma once
// Seeded structured control-flow graphs like the paper's evaluation set (section 6: ~5,000
// graphs of about 114 blocks and 218 edges with C-like nesting): sequences, if/else, switch,
// while and do-while loops with break and continue, inside an endless main loop.

#include <cstdint>

#include "analysis/sampler/sampling_graph.h"

namespace emutrace::analysis::sampler {

struct GeneratorOptions {
    unsigned target_blocks = 114;  ///< about this many blocks (the paper's mean)
    unsigned max_depth = 4;        ///< nesting of loops and branches
    unsigned max_cost = 8;         ///< block costs are 1..max_cost cycles, small ones likelier
};

SamplingGraph generate_structured_cfg(std::uint64_t seed, const GeneratorOptions& options = {});

}  // namespace emutrace::analysis::sampler
