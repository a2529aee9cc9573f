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
    /// Terms of a condition (if, while, do-while): 1..max_condition_terms, each a block that
    /// short-circuits (&&, ||) to one side. More terms, more edges per block.
    unsigned max_condition_terms = 1;
    /// A straight-line block inside a loop breaks or continues conditionally once in this many.
    unsigned jump_one_in = 4;
    /// A straight-line block returns early (back to the main loop's entry) once in this many; 0: never.
    unsigned return_one_in = 0;
    /// The first block of a then, else, case or loop body may jump like a straight-line block.
    bool jumps_from_region_starts = false;
};

/// Options whose graphs have about the paper's density (1.9 edges per block): conditions of up to
/// four terms, and every straight-line block and region start leaving conditionally (break or
/// continue in a loop, an early return elsewhere).
GeneratorOptions paper_density_options();

SamplingGraph generate_structured_cfg(std::uint64_t seed, const GeneratorOptions& options = {});

}  // namespace emutrace::analysis::sampler
