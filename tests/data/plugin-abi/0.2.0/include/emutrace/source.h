#pragma once
// The producer side of the event model: the emulator, the capture decoder and later ring dumps
// and replay logs all deliver the same events to the same sinks.

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

}  // namespace emutrace::trace
