#include "analysis/sampler/sampling_monitor.h"

namespace emutrace::analysis::sampler {

SamplingMonitor::SamplingMonitor(const SamplingGraph& graph, const MarkerPlan& plan, std::uint64_t period, std::uint64_t jitter, std::uint64_t seed)
    : graph_(graph), plan_(plan), period_(period ? period : 1), jitter_(jitter), rng_(seed), next_sample_(period_) {
    for (std::uint32_t v = 0; v < graph.vertices.size(); ++v) vertex_of_[graph.vertices[v].address] = v;
    samples_.reserve(1024);
}

void SamplingMonitor::take_sample(std::uint64_t cycle) {
    samples_.push_back({cycle, current_, markers_});
    markers_ = MarkerState{};
    if (samples_.size() > 1) {
        open_.clean = open_.clean && current_ >= 0 && samples_[samples_.size() - 2].block >= 0;
        intervals_.push_back(std::move(open_));
    }
    open_ = Interval{static_cast<std::uint32_t>(samples_.size() - 1), {}, true};
    // Seeded jitter around the period, as a timer interrupt's latency gives.
    std::uint64_t step = period_;
    if (jitter_) step = period_ - std::min(period_ - 1, jitter_) + rng_() % (2 * std::min(period_ - 1, jitter_) + 1);
    next_sample_ = cycle + step;
}

void SamplingMonitor::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        // Samples due before this event see the block that ran up to it.
        while (next_sample_ < e.cycle) take_sample(next_sample_);
        switch (e.kind) {
            case trace::EventKind::Block: {
                ++all_blocks_;
                auto it = vertex_of_.find(e.address);
                if (it == vertex_of_.end()) {
                    // Other code: a callee, a handler, or a block of the function cut short. The
                    // interval it falls in is left out of the check.
                    current_ = -1;
                    open_.clean = false;
                    break;
                }
                current_ = static_cast<std::int32_t>(it->second);
                plan_.apply(it->second, markers_);
                marker_cycles_ += plan_.cost(it->second);
                open_.truth.push_back(it->second);
                ++entered_;
                break;
            }
            case trace::EventKind::ExceptionEntry:
            case trace::EventKind::ExceptionReturn:
                current_ = -1;
                open_.clean = false;
                break;
            default: break;
        }
    }
}

}  // namespace emutrace::analysis::sampler
