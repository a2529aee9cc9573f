#pragma once
// The monitor of a firmware that samples itself: a timer interrupt reads the interrupted pc and
// the real marker variables and sends them as marker-device events (the header's
// emutrace_markers_sample()), so the plan, the markers and the sampling all run as they would on
// a board. The monitor only listens: it rebuilds each sample from the events, reconstructs each
// interval from its two samples and checks it against the blocks that ran (IntervalChecker).

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/sampler/interval_checker.h"
#include "analysis/sampler/marker_records.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::sampler {

struct FirmwareSampling {
    std::uint32_t sample_id = 0xE5A00000u;  ///< the header's EMUTRACE_SAMPLE_ID
    std::uint32_t exception = 15;           ///< the sampling interrupt's exception number (SysTick)
    std::uint64_t overhead = 0;             ///< cycles of the elapsed count that are not the interrupted code's
    /// Check each reconstruction against the blocks that ran. Off: the monitor sees only the
    /// samples, as in the field, and costs the emulation next to nothing.
    bool check = true;
};

class FirmwareSampleMonitor final : public trace::TraceSink {
public:
    FirmwareSampleMonitor(const SamplingGraph& graph, const RecordedPlan& plan, FirmwareSampling sampling, bool stretch);
    std::uint32_t wants() const override {
        return sampling_.check ? trace::WantBlocks | trace::WantExceptions | trace::WantMarkers : trace::WantMarkers;
    }
    void on_batch(const trace::EventBatch& batch) override;

    const MonitorCounts& counts() const { return counts_; }
    /// Mean cycles between samples, as the firmware measured them.
    double mean_elapsed() const { return counts_.samples ? static_cast<double>(elapsed_sum_) / static_cast<double>(counts_.samples) : 0.0; }

private:
    void close_sample(std::uint32_t pc, std::uint64_t cycle);

    const SamplingGraph& graph_;
    const RecordedPlan& recorded_;
    FirmwareSampling sampling_;
    CodeIndex code_;
    std::vector<std::uint32_t> op_cycles_;  ///< per vertex: what its marker operations cost, for each block run
    IntervalChecker checker_;
    // The sample being received.
    std::uint64_t bits_ = 0;
    std::uint16_t value_ = 0;
    std::array<std::uint16_t, kMaxCounters> counters_{}, previous_counters_{};
    std::uint64_t elapsed_ = 0;
    bool have_elapsed_ = false;
    // The previous sample and what ran since.
    bool have_sample_ = false, clean_ = true, previous_torn_ = false, previous_at_entry_ = false;
    std::int32_t previous_ = -1;
    std::uint64_t previous_cycle_ = 0, elapsed_sum_ = 0;
    std::vector<std::uint32_t> ran_;
    bool in_handler_ = false, resuming_ = false;
    bool moved_ = false;  ///< the interrupted code ran a block since the last sample
    std::uint32_t resume_pc_ = 0;
    MonitorCounts counts_;
};

}  // namespace emutrace::analysis::sampler
