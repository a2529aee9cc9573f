#pragma once
// The sampling monitor in emulation: every `period` cycles (plus seeded jitter) it records the
// block executing in the monitored function and the markers, which it then zeroes. Markers are
// shadow state, updated when an instrumented block starts, so the firmware needs no rebuild.
// Each interval between two samples is reconstructed from the samples alone and checked against
// what really ran, as it closes: no sample is stored, and reconstructions are cached by what
// determines them (the two blocks, the markers, the time between).

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/path_reconstruction.h"
#include "analysis/sampler/sampling_graph.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::sampler {

struct MonitorCounts {
    std::uint64_t samples = 0;
    std::uint64_t checked = 0;        ///< intervals with both samples in the function and nothing else between
    std::uint64_t correct = 0;        ///< reconstructed uniquely, and what ran
    std::uint64_t ambiguous = 0;      ///< two or more paths fit the samples
    std::uint64_t wrong = 0;          ///< one path fits, and it is not what ran
    std::uint64_t impossible = 0;     ///< no path fits (a block ran faster than its best case)
    std::uint64_t left_out = 0;       ///< a call, an exception or other code in between, or a sample outside
    std::uint64_t blocks_run = 0;     ///< every block of the run, for the cost of a full trace
    std::uint64_t marker_cycles = 0;  ///< what the marker operations cost, on the core's model
};

class SamplingMonitor final : public trace::TraceSink {
public:
    /// `stretch`: reconstruct as if blocks may run longer than their best case (see pair_search.h).
    SamplingMonitor(const SamplingGraph& graph, const MarkerPlan& plan, std::uint64_t period, std::uint64_t jitter, std::uint64_t seed, bool stretch);
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions; }
    void on_batch(const trace::EventBatch& batch) override;

    const MonitorCounts& counts() const { return counts_; }

private:
    void take_sample(std::uint64_t cycle);
    std::int32_t vertex_at(std::uint32_t address) const {
        std::uint32_t k = (address - base_) >> 1;  // Thumb: every block starts on a halfword
        return address >= base_ && k < vertex_of_.size() ? vertex_of_[k] : -1;
    }

    struct CacheKey {
        std::uint32_t from, to;
        std::uint64_t period;
        MarkerState markers;
        bool operator==(const CacheKey&) const = default;
    };
    struct CacheHash {
        std::size_t operator()(const CacheKey& k) const;
    };

    const SamplingGraph& graph_;
    const MarkerPlan& plan_;
    std::uint64_t period_, jitter_;
    bool stretch_;
    std::mt19937_64 rng_;
    std::uint32_t base_ = 0;
    std::vector<std::int32_t> vertex_of_;  ///< by halfword from base_: the block starting there, or -1
    std::uint64_t next_sample_ = 0, last_sample_ = 0;
    std::int32_t current_ = -1, sampled_ = -1;  ///< the block running now; the one the last sample saw
    bool have_sample_ = false, clean_ = true;
    MarkerState markers_;
    std::vector<std::uint32_t> truth_;  ///< blocks entered since the last sample (reused)
    std::unordered_map<CacheKey, Reconstruction, CacheHash> cache_;
    MonitorCounts counts_;
};

}  // namespace emutrace::analysis::sampler
