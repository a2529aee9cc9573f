#pragma once
// The sampling monitor in emulation: every `period` cycles (plus seeded jitter) it records the
// block executing in the monitored function and the markers, which it then zeroes. Markers are
// shadow state, updated when an instrumented block starts, so the firmware needs no rebuild.
// The emulator's blocks end at branches, not at every CFG leader; the monitor splits each into
// the function's blocks itself, timed by their costs, so the emulator need not split its stream
// (which costs more than the whole monitor).
// Each interval between two samples is reconstructed from the samples alone and checked against
// what really ran, as it closes (IntervalChecker).

#include <cstdint>
#include <random>
#include <vector>

#include "analysis/sampler/interval_checker.h"
#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/sampling_graph.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::sampler {

class SamplingMonitor final : public trace::TraceSink {
public:
    /// `stretch`: reconstruct as if blocks may run longer than their best case (see pair_search.h).
    SamplingMonitor(const SamplingGraph& graph, const MarkerPlan& plan, std::uint64_t period, std::uint64_t jitter, std::uint64_t seed, bool stretch);
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions; }
    void on_batch(const trace::EventBatch& batch) override;

    const MonitorCounts& counts() const { return counts_; }

private:
    void take_sample(std::uint64_t cycle);
    void enter(std::uint32_t vertex);

    const SamplingGraph& graph_;
    std::uint64_t period_, jitter_;
    std::mt19937_64 rng_;
    CodeIndex code_;
    /// A block's marker operations folded into one step (the last write to a bit or to the value
    /// wins, increments add up), so entering a block costs a few instructions, not a walk of its
    /// operations.
    struct Effect {
        std::uint64_t set = 0, clear = 0;
        bool assigns = false;
        std::uint16_t value = 0;
        std::uint32_t cost = 0;  ///< cycles of the operations on the core
        std::vector<std::pair<std::uint8_t, std::uint16_t>> increments;
    };
    std::vector<Effect> effects_;
    std::vector<std::uint8_t> has_ops_;
    std::uint64_t next_sample_ = 0, last_sample_ = 0;
    std::int32_t current_ = -1, sampled_ = -1;  ///< the block running now; the one the last sample saw
    bool have_sample_ = false, clean_ = true;
    MarkerState markers_;
    std::vector<std::uint32_t> truth_;  ///< blocks entered since the last sample (reused)
    IntervalChecker checker_;
    MonitorCounts counts_;
};

}  // namespace emutrace::analysis::sampler
