#pragma once
// Path counts: how often each block ran per run of its context's scope, as a flow fact of the
// IPET. A routine whose time depends on its operands (soft-float normalisation, a division's
// special cases) is otherwise charged its slowest path at every call; held to the number of
// times the runs took each path, the bound keeps the runs' path mix. A count is used only where
// every run of the scope did the same (a single run, or runs that agree): a count that differed
// between runs depends on the input, and the bound then allows any mix. A flow fact
// `{function, block, count, per}` gives or overrides one by hand.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/ipet.h"
#include "analysis/wcet/wcet_bound.h"
#include "decode/program.h"

namespace emutrace::analysis::wcet {

/// A bound's function instances as path counts see them.
struct PathCountView {
    struct Instance {
        std::size_t function = 0;  ///< Program::functions() index
        std::size_t base = 0;      ///< its first block in the IPET problem
        const ContextRecord* stats = nullptr;
        /// The function whose runs the recorded counts are per (the outermost caller of the call
        /// string, or the instance's own function when the bound keeps no contexts); -1: the
        /// bounded function's one run (the string reaches past it).
        int scope = -1;
        /// The statistics are this context's own (not a union over contexts that did not match).
        bool own_context = true;
        std::vector<std::uint32_t> call_instructions;  ///< FlowFact::context
        std::string label;                             ///< "f@0x... > g@0x...", "" for the bounded function
    };
    std::vector<Instance> instances;  ///< [0] the bounded function's
    /// The bounded function ran once in every run of its scope: a count per run of a scope past
    /// it is then per run of it too, and a fact's count per its run can be checked against it.
    bool root_once_per_scope = false;
};

/// Holds the blocks of `view` to their path counts: a fact's (FlowFact::block) where one names
/// the block, else, with `observed`, the runs' where every run of the scope did the same. Appends
/// the caps to `problem` and returns what it held. Throws ConfigError naming a fact's origin when
/// the fact names no block, a function not in the bound, or is below what a run did.
std::vector<PathCountUsed> hold_path_counts(const std::vector<decode::Function>& fns, const PathCountView& view, const std::vector<FlowFact>& facts,
                                            bool observed, IpetProblem& problem);

}  // namespace emutrace::analysis::wcet
