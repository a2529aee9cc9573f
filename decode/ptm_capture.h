#pragma once
// A PTM/PFT capture (OpenCSD snapshot directory) as a trace source: the same events as an
// emulated run, decoded with OpenCSD (decode/capture_decoder.h).

#include <string>
#include <vector>

#include "decode/capture_decoder.h"
#include "emutrace/source.h"

namespace emutrace::decode {

class PtmCapture final : public trace::TraceSource {
public:
    /// `only_id` restricts decoding to one trace ID (0 = every PTM source).
    explicit PtmCapture(std::string dir, std::uint8_t only_id = 0) : dir_(std::move(dir)), only_id_(only_id) {}
    void add_sink(trace::TraceSink& sink) override { sinks_.push_back(&sink); }
    /// Decodes the whole capture; a missing or malformed file throws ConfigError naming it.
    /// Cycles are the capture's cycle counts when it is cycle-accurate, else instructions.
    SourceTotals deliver() override;
    /// What the last deliver() decoded.
    const CaptureSummary& summary() const { return summary_; }

private:
    std::string dir_;
    std::uint8_t only_id_;
    std::vector<trace::TraceSink*> sinks_;
    CaptureSummary summary_;
};

}  // namespace emutrace::decode
