#include "analysis/sampler/firmware_sample_monitor.h"

namespace emutrace::analysis::sampler {

FirmwareSampleMonitor::FirmwareSampleMonitor(const SamplingGraph& graph, const RecordedPlan& plan, FirmwareSampling sampling, bool stretch)
    : graph_(graph), recorded_(plan), sampling_(sampling), code_(graph), checker_(graph, plan.plan, stretch) {
    ran_.reserve(256);
    for (std::uint32_t v = 0; v < graph.vertices.size(); ++v) op_cycles_.push_back(plan.plan.cost(v));
}

void FirmwareSampleMonitor::close_sample(std::uint32_t pc, std::uint64_t cycle) {
    ++counts_.samples;
    const std::int32_t v = code_.holding(pc);
    // At a block's entry (where an interrupt taken between blocks samples) the block has not run:
    // the interval ends on entering it, with its operations still to come, and the next starts
    // there. Inside a block before its marker operations have ended, the markers show a state the
    // model (operations at the block's start) has none for.
    const bool at_entry = v >= 0 && pc == graph_.vertices[static_cast<std::uint32_t>(v)].address;
    const bool torn = v >= 0 && !at_entry && pc < recorded_.ops_end[static_cast<std::uint32_t>(v)];
    // Entered at the sample (its resumption is the same instance), unless this is the entry the
    // previous sample already saw and nothing has run since (the interrupt came straight back).
    if (at_entry && !(previous_at_entry_ && previous_ == v && !moved_)) ran_.push_back(static_cast<std::uint32_t>(v));
    const std::uint64_t elapsed = have_elapsed_ ? elapsed_ : cycle - previous_cycle_;
    elapsed_sum_ += elapsed;
    if (have_sample_) {
        if (!clean_ || previous_ < 0 || v < 0 || torn || previous_torn_) {
            ++counts_.left_out;
            counts_.inside_marker_op += torn || previous_torn_;
        } else {
            MarkerState markers;
            markers.bits = recorded_.plan.bits >= 64 ? bits_ : bits_ & ((std::uint64_t{1} << recorded_.plan.bits) - 1);
            markers.assigned = value_;
            for (unsigned k = 0; k < recorded_.plan.counters; ++k)
                markers.counters[k] = static_cast<std::uint16_t>(counters_[k] - previous_counters_[k]);
            if (at_entry) recorded_.plan.apply(static_cast<std::uint32_t>(v), markers);  // as if entered at the sample
            const std::uint64_t cycles = elapsed > sampling_.overhead ? elapsed - sampling_.overhead : 0;
            if (sampling_.check)
                checker_.check(static_cast<std::uint32_t>(previous_), static_cast<std::uint32_t>(v), markers, cycles, ran_, counts_,
                               previous_at_entry_);
            else
                checker_.classify(static_cast<std::uint32_t>(previous_), static_cast<std::uint32_t>(v), markers, cycles, counts_, previous_at_entry_);
        }
    }
    have_sample_ = true;
    previous_ = v;
    previous_torn_ = torn;
    previous_at_entry_ = at_entry;
    previous_cycle_ = cycle;
    previous_counters_ = counters_;
    ran_.clear();
    moved_ = false;
    clean_ = true;
    bits_ = 0;
    value_ = 0;
    have_elapsed_ = false;
}

void FirmwareSampleMonitor::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        switch (e.kind) {
            case trace::EventKind::Block: {
                if (in_handler_) break;  // the sampling interrupt itself
                ++counts_.blocks_run;
                moved_ = true;
                if (resuming_) {
                    resuming_ = false;
                    if (e.address == resume_pc_) break;  // the interrupted block goes on
                }
                std::int32_t v = code_.starting_at(e.address);
                if (v < 0) {
                    clean_ = false;  // a callee, a handler, or other code
                    break;
                }
                ran_.push_back(static_cast<std::uint32_t>(v));
                counts_.marker_cycles += op_cycles_[static_cast<std::uint32_t>(v)];
                break;
            }
            case trace::EventKind::ExceptionEntry:
                if (!in_handler_ && e.value == sampling_.exception) {
                    in_handler_ = true;
                    resume_pc_ = e.address;
                } else if (!in_handler_) {
                    clean_ = false;
                }
                break;
            case trace::EventKind::ExceptionReturn:
                if (in_handler_ && e.value == sampling_.exception) {
                    in_handler_ = false;
                    resuming_ = true;
                }
                break;
            case trace::EventKind::Marker: {
                const std::uint32_t field = e.value - sampling_.sample_id;
                if (e.width != 0 || field >= kSampleCounters + kMaxCounters) break;  // not a sample
                if (field == kSampleBitsLow)
                    bits_ = (bits_ & ~std::uint64_t{0xFFFFFFFF}) | e.extra;
                else if (field == kSampleBitsLow + 1)
                    bits_ = (bits_ & 0xFFFFFFFF) | std::uint64_t{e.extra} << 32;
                else if (field == kSampleValue)
                    value_ = static_cast<std::uint16_t>(e.extra);
                else if (field == kSampleElapsed)
                    elapsed_ = e.extra, have_elapsed_ = true;
                else if (field >= kSampleCounters)
                    counters_[field - kSampleCounters] = static_cast<std::uint16_t>(e.extra);
                else if (field == kSamplePc)
                    close_sample(e.extra, e.cycle);
                break;
            }
            default: break;
        }
    }
}

}  // namespace emutrace::analysis::sampler
