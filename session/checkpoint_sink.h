#pragma once
// The clock of a long run's checkpoints (--checkpoint-every): after each batch, whether the
// emulated time has passed the next checkpoint, and if so, what to write.

#include <cstdint>
#include <functional>

#include "emutrace/sink.h"

namespace emutrace::session {

class CheckpointSink final : public trace::TraceSink {
public:
    /// `write` runs at the first batch at or after every `period_cycles` of emulated time, with
    /// the batch's last cycle stamp; between batches, so the analyses have seen every event before it.
    CheckpointSink(std::uint64_t period_cycles, std::function<void(std::uint64_t cycle)> write)
        : period_(period_cycles ? period_cycles : 1), next_(period_), write_(std::move(write)) {}
    std::uint32_t wants() const override { return 0; }
    void on_batch(const trace::EventBatch& batch) override {
        if (batch.events.empty() || batch.events.back().cycle < next_) return;
        std::uint64_t cycle = batch.events.back().cycle;
        next_ = (cycle / period_ + 1) * period_;
        write_(cycle);
    }

private:
    std::uint64_t period_, next_;
    std::function<void(std::uint64_t)> write_;
};

}  // namespace emutrace::session
