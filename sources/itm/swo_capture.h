#pragma once
// A probe's SWO capture (the ITM/DWT byte stream, TPIU formatter bypassed, as orbuculum, pyOCD or a
// J-Link write it) as a recorded source: stimulus port writes become output per port (devices
// "ITM0".."ITM31"), exception trace becomes exception entries and returns, PC samples one-
// instruction blocks, DWT data trace DataTrace events, overflows gaps; local timestamps give the
// cycles.

#include <cstdint>
#include <string>
#include <vector>

#include "emutrace/source.h"

namespace emutrace::decode::itm {

struct SwoSummary {
    std::uint64_t bytes = 0, packets = 0, syncs = 0, overflows = 0, timestamps = 0;
    std::uint64_t exceptions = 0, pc_samples = 0, sleep_samples = 0, data_trace = 0, unknown = 0;
    std::uint64_t cycles = 0;               ///< the last timestamp, in timestamp clocks
    std::uint64_t global_timestamps = 0;    ///< GTS1 packets
    std::uint64_t global_timestamp = 0;     ///< the last one, bits [47:0] (GTS2 gives the upper ones)
    std::vector<std::uint64_t> port_bytes;  ///< stimulus bytes per port (32)
    std::string port0_text;                 ///< what port 0 carried (the firmware's printf)
    bool truncated = false;                 ///< the last packet was cut off
    bool framed = false;                    ///< read without --tpiu-id, it starts with a formatter sync
};

class SwoCapture final : public trace::RecordedSource {
public:
    /// `formatter_id`: the capture is TPIU formatter frames, and the ITM's bytes are this trace ID's; 0: bypassed.
    SwoCapture(std::string file, std::uint8_t formatter_id) : file_(std::move(file)), formatter_id_(formatter_id) {}
    void add_sink(trace::TraceSink& sink) override { sinks_.push_back(&sink); }
    /// Reads the file (a missing one throws ConfigError naming it) and decodes it whole.
    SourceTotals deliver() override;
    const SwoSummary& totals() const { return summary_; }
    std::string summary() const override;
    std::string json() const override;
    /// Nothing decoded; or unknown headers, a cut-off packet.
    int verdict(std::string& why) const override;

private:
    std::string file_;
    std::uint8_t formatter_id_;
    std::vector<trace::TraceSink*> sinks_;
    SwoSummary summary_;
};

}  // namespace emutrace::decode::itm
