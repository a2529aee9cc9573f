#include "analysis/sampler/sampling_monitor.h"

#include <algorithm>
#include <array>

namespace emutrace::analysis::sampler {

SamplingMonitor::SamplingMonitor(const SamplingGraph& graph, const MarkerPlan& plan, std::uint64_t period, std::uint64_t jitter, std::uint64_t seed,
                                 bool stretch)
    : graph_(graph), period_(period ? period : 1), jitter_(jitter), rng_(seed), code_(graph), next_sample_(period_), checker_(graph, plan, stretch) {
    truth_.reserve(256);
    effects_.resize(graph.vertices.size());
    has_ops_.resize(graph.vertices.size());
    for (std::uint32_t v = 0; v < graph.vertices.size(); ++v) {
        Effect& fx = effects_[v];
        has_ops_[v] = !plan.ops[v].empty();
        fx.cost = plan.cost(v);
        std::array<std::uint32_t, kMaxCounters> added{};
        for (const MarkerOp& op : plan.ops[v]) {
            const std::uint64_t bit = std::uint64_t{1} << (op.marker % kMaxBits);
            switch (op.kind) {
                case MarkerOp::Kind::SetBit: fx.set |= bit, fx.clear &= ~bit; break;
                case MarkerOp::Kind::ClearBit: fx.clear |= bit, fx.set &= ~bit; break;
                case MarkerOp::Kind::Increment: added[op.marker] += op.value; break;
                case MarkerOp::Kind::Assign: fx.assigns = true, fx.value = op.value; break;
            }
        }
        for (unsigned c = 0; c < kMaxCounters; ++c)
            if (added[c]) fx.increments.emplace_back(static_cast<std::uint8_t>(c), static_cast<std::uint16_t>(added[c]));
    }
}

void SamplingMonitor::take_sample(std::uint64_t cycle) {
    ++counts_.samples;
    if (have_sample_) {
        if (!clean_ || sampled_ < 0 || current_ < 0) {
            ++counts_.left_out;
        } else {
            checker_.check(static_cast<std::uint32_t>(sampled_), static_cast<std::uint32_t>(current_), markers_, cycle - last_sample_, truth_,
                           counts_);
        }
    }
    have_sample_ = true;
    sampled_ = current_;
    last_sample_ = cycle;
    clean_ = true;
    markers_ = MarkerState{};
    truth_.clear();
    // Seeded jitter around the period, as a timer interrupt's latency gives.
    std::uint64_t step = period_;
    if (jitter_) {
        std::uint64_t j = std::min(period_ - 1, jitter_);
        step = period_ - j + rng_() % (2 * j + 1);
    }
    next_sample_ = cycle + step;
}

void SamplingMonitor::enter(std::uint32_t u) {
    current_ = static_cast<std::int32_t>(u);
    if (has_ops_[u]) {
        const Effect& fx = effects_[u];
        markers_.bits = (markers_.bits | fx.set) & ~fx.clear;
        if (fx.assigns) markers_.assigned = fx.value;
        for (const auto& [counter, by] : fx.increments) markers_.counters[counter] = static_cast<std::uint16_t>(markers_.counters[counter] + by);
        counts_.marker_cycles += fx.cost;
    }
    truth_.push_back(u);
}

void SamplingMonitor::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        // Samples due before this event see the block that ran up to it.
        while (next_sample_ < e.cycle) take_sample(next_sample_);
        switch (e.kind) {
            case trace::EventKind::Block: {
                ++counts_.blocks_run;
                std::int32_t v = code_.holding(e.address);
                if (v < 0) {  // other code: a callee, a handler
                    current_ = -1;
                    clean_ = false;
                    break;
                }
                // The emulator's block from its start: the function's blocks it runs through,
                // one after the other (no branch between them), each entered when the one before
                // has taken its cycles. A start inside a block (a return from an interrupt) goes
                // on with that block.
                auto u = static_cast<std::uint32_t>(v);
                if (graph_.vertices[u].address == e.address)
                    enter(u);
                else
                    current_ = v;
                const std::uint32_t end = e.address + e.value;
                std::uint64_t at = e.cycle;
                for (;;) {
                    const auto& block = graph_.vertices[u];
                    const std::uint32_t next_address = block.address + block.size;
                    if (next_address >= end) break;
                    std::int32_t w = code_.holding(next_address);
                    if (w < 0) break;
                    // A block run from its start takes its cost; one the emulator's block started
                    // inside, the share of it that remained.
                    const bool whole = block.address >= e.address;
                    at += whole ? block.cost : block.cost * (next_address - e.address) / std::max<std::uint32_t>(block.size, 1);
                    while (next_sample_ < at) take_sample(next_sample_);
                    u = static_cast<std::uint32_t>(w);
                    enter(u);
                }
                break;
            }
            case trace::EventKind::ExceptionEntry:
            case trace::EventKind::ExceptionReturn:
                current_ = -1;
                clean_ = false;
                break;
            default: break;
        }
    }
}

}  // namespace emutrace::analysis::sampler
