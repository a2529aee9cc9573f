#pragma once
// What a monitor can say from two consecutive samples: the paths from the first sample's block
// to the second's that fit the time between them and leave the markers as the second sample
// shows them. One path: reconstructed. More: ambiguous.

#include <cstdint>
#include <vector>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/sampling_graph.h"

namespace emutrace::analysis::sampler {

struct Reconstruction {
    std::size_t candidates = 0;       ///< 0, 1, or 2 for "two or more"
    std::vector<std::uint32_t> path;  ///< the blocks entered after the first sample, when unique
};

/// `period`: cycles between the samples. `stretch`: blocks may take longer than their best case
/// (as on a real core), else exactly c(v). `from_entry`: the first sample fell at the entry of
/// `from`, before it ran (where an interrupt taken between blocks samples), so `from` runs in full
/// with its operations; only with `stretch`. A second sample at the entry of `to` passes
/// `markers` with `to`'s operations applied.
Reconstruction reconstruct(const SamplingGraph& graph, const MarkerPlan& plan, std::uint32_t from, std::uint32_t to, const MarkerState& markers,
                           std::uint64_t period, bool stretch, bool from_entry = false);

}  // namespace emutrace::analysis::sampler
