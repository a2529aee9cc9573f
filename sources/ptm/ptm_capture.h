#pragma once
// A PTM/PFT capture (OpenCSD snapshot directory) as a recorded source: the same events as an
// emulated run, decoded with OpenCSD (sources/ptm/capture_decoder.h).

#include <string>
#include <vector>

#include "emutrace/source.h"
#include "sources/ptm/capture_decoder.h"

namespace emutrace::decode {

class PtmCapture final : public trace::RecordedSource {
public:
    /// `only_id` restricts decoding to one trace ID (0 = every PTM source).
    explicit PtmCapture(std::string dir, std::uint8_t only_id = 0) : dir_(std::move(dir)), only_id_(only_id) {}
    void add_sink(trace::TraceSink& sink) override { sinks_.push_back(&sink); }
    /// Decodes the whole capture; a missing or malformed file throws ConfigError naming it.
    /// Cycles are the capture's cycle counts when it is cycle-accurate, else instructions.
    SourceTotals deliver() override;
    /// What the last deliver() decoded: bytes, sources, ranges, instructions, exceptions, gaps, losses.
    const CaptureSummary& totals() const { return summary_; }
    std::string summary() const override;
    std::string json() const override;
    /// Nothing decoded, or OpenCSD errors and bytes skipped to resynchronise.
    int verdict(std::string& why) const override;

private:
    std::string dir_;
    std::uint8_t only_id_;
    std::vector<trace::TraceSink*> sinks_;
    CaptureSummary summary_;
};

}  // namespace emutrace::decode
