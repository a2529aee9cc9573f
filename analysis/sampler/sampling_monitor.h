#pragma once
// The sampling monitor in emulation: every `period` cycles (plus seeded jitter) it records the
// block executing in the monitored function and the markers, which it then zeroes. Markers are
// shadow state, updated when an instrumented block starts, so the firmware needs no rebuild.
// Beside the samples it keeps what really ran between them, to check each reconstruction.

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/sampling_graph.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::sampler {

struct Sample {
    std::uint64_t cycle = 0;
    std::int32_t block = -1;  ///< vertex, or -1 outside the function (a callee, a handler, other code)
    MarkerState markers;
};

/// Two consecutive samples and the blocks of the function entered between them.
struct Interval {
    std::uint32_t first = 0;  ///< index into samples()
    std::vector<std::uint32_t> truth;
    bool clean = true;  ///< both samples in the function, no exception or other code between
};

class SamplingMonitor final : public trace::TraceSink {
public:
    SamplingMonitor(const SamplingGraph& graph, const MarkerPlan& plan, std::uint64_t period, std::uint64_t jitter, std::uint64_t seed);
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions; }
    void on_batch(const trace::EventBatch& batch) override;

    const std::vector<Sample>& samples() const { return samples_; }
    const std::vector<Interval>& intervals() const { return intervals_; }
    std::uint64_t blocks_entered() const { return entered_; }       ///< blocks of the function run
    std::uint64_t blocks_run() const { return all_blocks_; }        ///< blocks of the whole run
    std::uint64_t marker_cycles() const { return marker_cycles_; }  ///< cycles the marker operations cost

private:
    void take_sample(std::uint64_t cycle);

    const SamplingGraph& graph_;
    const MarkerPlan& plan_;
    std::uint64_t period_, jitter_;
    std::mt19937_64 rng_;
    std::unordered_map<std::uint32_t, std::uint32_t> vertex_of_;
    std::uint64_t next_sample_ = 0;
    std::int32_t current_ = -1;
    MarkerState markers_;
    std::vector<Sample> samples_;
    std::vector<Interval> intervals_;
    Interval open_;
    std::uint64_t entered_ = 0, marker_cycles_ = 0, all_blocks_ = 0;
};

}  // namespace emutrace::analysis::sampler
