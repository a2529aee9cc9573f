#pragma once
// The progress line of a long run on a terminal (stderr): emulated time, instructions, MIPS and
// events delivered, redrawn in place at most ten times a second, first after a second of host
// time, and erased when the run ends (so the summary that follows is as without it).

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "emutrace/sink.h"

namespace emutrace::session {

class ProgressMeter final : public trace::TraceSink {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr Clock::duration kQuiet = std::chrono::seconds(1);            ///< nothing drawn before
    static constexpr Clock::duration kInterval = std::chrono::milliseconds(100);  ///< between redraws

    /// Draws on `out`; `clock_hz` turns cycle stamps into emulated time (0: cycles are shown).
    ProgressMeter(std::uint64_t clock_hz, std::FILE* out) : clock_hz_(clock_hz), out_(out) {}

    /// Added last to the source: it sees every batch and needs no kind of event of its own.
    std::uint32_t wants() const override { return 0; }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override;

    /// The source's own counts between batches (the emulator's, which it keeps also when no sink
    /// gets events): cycles and instructions so far. Without them the instructions are the
    /// delivered Block events' (none when no sink asked for blocks: then none are shown).
    void counts(std::uint64_t cycles, std::uint64_t instructions);

    /// How many times the line was drawn.
    std::uint64_t redraws() const { return redraws_; }

private:
    void maybe_draw();
    void draw(Clock::time_point now);

    std::uint64_t clock_hz_;
    std::FILE* out_;
    Clock::time_point started_ = Clock::now(), next_draw_ = started_ + kQuiet;
    std::uint64_t cycles_ = 0, instructions_ = 0, block_instructions_ = 0, events_ = 0, redraws_ = 0;
    bool source_counts_ = false;  ///< counts() was called: its instructions are the source's own
    bool drawn_ = false;          ///< a line is on the terminal
};

}  // namespace emutrace::session
