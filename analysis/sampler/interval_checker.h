#pragma once
// The check both monitors make when an interval between two samples closes: reconstruct it from
// the two samples alone, and compare with the blocks that really ran. Reconstructions are cached
// by what determines them (the two blocks, the markers, the time between), so no sample is kept.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/path_reconstruction.h"
#include "analysis/sampler/sampling_graph.h"

namespace emutrace::analysis::sampler {

struct MonitorCounts {
    std::uint64_t samples = 0;
    std::uint64_t checked = 0;           ///< intervals with both samples in the function and nothing else between
    std::uint64_t correct = 0;           ///< reconstructed uniquely, and what ran
    std::uint64_t unique = 0;            ///< reconstructed uniquely, not checked (a monitor without the run's blocks)
    std::uint64_t ambiguous = 0;         ///< two or more paths fit the samples
    std::uint64_t wrong = 0;             ///< one path fits, and it is not what ran
    std::uint64_t impossible = 0;        ///< no path fits (a block ran faster than its best case)
    std::uint64_t left_out = 0;          ///< a call, an exception or other code in between, or a sample outside
    std::uint64_t inside_marker_op = 0;  ///< of those, a sample fell in a block before its marker operations ended
    std::uint64_t blocks_run = 0;        ///< every block of the run, for the cost of a full trace
    std::uint64_t marker_cycles = 0;     ///< what the marker operations cost, on the core's model
};

class IntervalChecker {
public:
    IntervalChecker(const SamplingGraph& graph, const MarkerPlan& plan, bool stretch) : graph_(graph), plan_(plan), stretch_(stretch) {}
    /// One interval from a sample in `from` to one in `to`, `cycles` apart, whose second sample
    /// showed `markers`; `ran`: the blocks entered in between, `to` last. `from_entry`: the first
    /// sample fell at the entry of `from` (see reconstruct()).
    void check(std::uint32_t from, std::uint32_t to, const MarkerState& markers, std::uint64_t cycles, const std::vector<std::uint32_t>& ran,
               MonitorCounts& counts, bool from_entry = false);
    /// The same without the blocks that ran: how many paths fit, as a monitor in the field sees it.
    void classify(std::uint32_t from, std::uint32_t to, const MarkerState& markers, std::uint64_t cycles, MonitorCounts& counts,
                  bool from_entry = false);

private:
    /// `ran` null: not checked, a unique path counts as unique.
    static void tally(const Reconstruction& r, const std::vector<std::uint32_t>* ran, MonitorCounts& counts);
    const Reconstruction& lookup(std::uint32_t from, std::uint32_t to, const MarkerState& markers, std::uint64_t cycles, bool from_entry);
    struct Key {
        std::uint32_t from, to;
        std::uint64_t cycles;
        MarkerState markers;
        bool from_entry;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const;
    };
    const SamplingGraph& graph_;
    const MarkerPlan& plan_;
    bool stretch_;
    std::unordered_map<Key, Reconstruction, KeyHash> cache_;
};

}  // namespace emutrace::analysis::sampler
