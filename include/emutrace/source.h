#pragma once
// The producer side of the event model: the emulator and every recorded trace (a probe's capture,
// a device's dump) deliver the same events to the same sinks. Recorded sources are rows of a
// registry like analyses: in-tree ones in sources/registry.cpp, out-of-tree ones in plug-ins.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "emutrace/analysis.h"
#include "emutrace/sink.h"

namespace emutrace::trace {

class TraceSource {
public:
    virtual ~TraceSource() = default;
    /// `sink` receives every event of the next delivery; it must outlive deliver().
    virtual void add_sink(TraceSink& sink) = 0;
    /// Produces the whole trace into the sinks (on_start, batches, a final Stop, on_end). Bad
    /// input throws ConfigError before the first batch; a fault later ends the trace instead.
    virtual SourceTotals deliver() = 0;
};

/// A trace recorded away from the emulator, delivered as an emulated run is; the run's report
/// then opens with its summary instead of the emulator's.
class RecordedSource : public TraceSource {
public:
    /// Lines for the terminal summary of the last delivery (what was read, what was lost).
    virtual std::string summary() const = 0;
    /// The same as the text of one JSON object: the JSON result's top-level members.
    virtual std::string json() const = 0;
    /// Its own verdict on what it delivered: 0, or an exit status with `why` in one line
    /// (kNothingDecoded, kPartlyDecoded).
    virtual int verdict(std::string& why) const {
        (void)why;
        return 0;
    }
    static constexpr int kNothingDecoded = 2;  ///< an empty, cut to nothing or unreadable input
    static constexpr int kPartlyDecoded = 7;   ///< decoder errors, or bytes skipped to resynchronise
};

}  // namespace emutrace::trace

namespace emutrace {

/// Opens `input` (a file or directory) as a source; its options come through setup.flag(name).
/// Throws ConfigError naming the input when it cannot be read.
using SourceFactory = std::function<std::unique_ptr<trace::RecordedSource>(const AnalysisSetup& setup, const std::string& input)>;

/// A registry row: a kind of recorded trace that `emutrace decode NAME INPUT` (and the commands
/// built on it) feed to the analyses.
struct SourceType {
    std::string name;     ///< how commands name it ("ptm", "ring")
    std::string summary;  ///< one line
    std::string input;    ///< what INPUT is, for --help ("an OpenCSD snapshot directory")
    /// Whether decoding needs the traced firmware (--elf); the analyses' symbols need it anyway.
    bool needs_firmware = false;
    std::vector<AnalysisOption> options;  ///< its own command-line options
    SourceFactory open;
};

}  // namespace emutrace
