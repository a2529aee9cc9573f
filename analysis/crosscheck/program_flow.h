#pragma once
// A run reduced to what both an emulator and a PTM capture can say about it: straight-line
// instruction ranges (a run of blocks up to a waypoint), exceptions, exception returns and gaps.
// The same program flow gives the same steps from either source, so two runs compare step by step.

#include <cstdint>
#include <string>
#include <vector>

#include "emutrace/sink.h"

namespace emutrace::decode {
class ElfImage;
}

namespace emutrace::analysis {

struct FlowStep {
    enum class Kind : std::uint8_t { Range, Exception, ExceptionReturn, Gap };
    Kind kind = Kind::Range;
    std::uint32_t start = 0;                              ///< Range: first instruction. Exception: return address.
    std::uint32_t end = 0;                                ///< Range: after the last instruction. Exception: the exception number.
    std::uint32_t instructions = 0;                       ///< Range only
    std::uint64_t cycle = 0;                              ///< stamp of the step's start
    trace::BlockEnd last = trace::BlockEnd::Fallthrough;  ///< Range: how it ended
    bool operator==(const FlowStep&) const = default;
};

std::string describe(const FlowStep& step);

/// Sink that records a run's program flow. `image` (optional) counts the instructions of a
/// range an exception cut short; without it such a range keeps the count of its whole blocks.
class FlowRecorder final : public trace::TraceSink {
public:
    explicit FlowRecorder(const decode::ElfImage* image = nullptr) : image_(image) {}
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions; }
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override { close(); }

    const std::vector<FlowStep>& steps() const { return steps_; }

private:
    void close();
    void cut_at(std::uint32_t address);

    const decode::ElfImage* image_;
    std::vector<FlowStep> steps_;
    bool open_ = false;
};

/// Where two flows part.
struct FlowComparison {
    std::size_t matching = 0;  ///< steps equal from the start
    bool identical = false;
    std::size_t first_divergence = 0;  ///< index of the first differing step (when not identical)
    std::size_t left_steps = 0, right_steps = 0;
};

/// Compares step by step; cycle stamps count only when `compare_cycles`.
FlowComparison compare_flows(const std::vector<FlowStep>& left, const std::vector<FlowStep>& right, bool compare_cycles);

}  // namespace emutrace::analysis
