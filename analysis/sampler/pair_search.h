#pragma once
// The exact search for the intersecting path pair that limits the sampling period: two different
// executions that give identical samples at two instants Δt apart (same block, same markers), so
// that the path between the samples cannot be reconstructed.

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/sampling_graph.h"

namespace emutrace::analysis::sampler {

struct IntersectingPair {
    /// The smallest distance between two samples at which the executions agree: sampling every
    /// Δt - 1 cycles or faster reconstructs every path between samples uniquely.
    std::uint64_t delta_t = 0;
    /// The blocks each execution enters after the first sample, the block of the second sample
    /// last; both start in `start`.
    std::vector<std::uint32_t> first, second;
    std::uint32_t start = 0;
};

struct SearchLimits {
    std::uint64_t max_delta_t = 1'000'000;  ///< give up above this Δt: none found below it
    std::size_t max_states = 20'000'000;    ///< product states explored before giving up
    /// Blocks may run longer than their best case (wait states, taken branches, stalls): two
    /// paths between the same samples are then confused whatever their costs' difference, and Δt
    /// is the longer path's best case. Off: blocks take exactly c(v), as in the paper.
    bool stretch = false;
};

struct SearchOutcome {
    std::optional<IntersectingPair> pair;  ///< none: no two executions agree below the limit
    std::uint64_t explored = 0;            ///< product states popped
    bool exhausted = false;                ///< the state budget ran out: Δt is at least `lower_bound`
    std::uint64_t lower_bound = 0;         ///< every pair has a Δt of at least this
};

/// Dijkstra over pairs of executions (a product automaton): a state is both executions' current
/// blocks, the difference of their start times, their marker states, and, until they part, the
/// blocks the earlier one entered that the later has yet to. Ordered by the later start time,
/// the first state where both are in one block with overlapping time, different paths and equal
/// markers gives the smallest Δt. The start offsets in the first block and the end offsets in the
/// last are the slack a monitor cannot see.
SearchOutcome find_intersecting_pair(const SamplingGraph& graph, const MarkerPlan& plan, const SearchLimits& limits = {});

}  // namespace emutrace::analysis::sampler
