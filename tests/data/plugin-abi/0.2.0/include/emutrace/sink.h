#pragma once
// The consumer side of the event model. A sink says which event kinds it needs so that a source
// installs only the hooks some sink asks for.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "emutrace/event.h"

namespace emutrace::trace {

/// Bit mask of the event kinds a sink wants delivered.
enum Capability : std::uint32_t {
    WantBlocks = 1u << 0,
    WantMmio = 1u << 1,
    WantOutput = 1u << 2,
    WantExceptions = 1u << 3,  ///< exception entry/return and thread switches
    WantMarkers = 1u << 4,     ///< user-defined events
    WantBranches = 1u << 5,    ///< calls, returns, jumps, vectors and resumes
};

/// What a source tells its sinks before the first batch.
struct RunInfo {
    std::string source;                ///< e.g. "emulator" or a capture file name
    std::string firmware;              ///< path of the ELF
    std::string cpu;                   ///< core name, e.g. "cortex-m3"
    std::uint64_t clock_hz = 0;        ///< converts cycle stamps to time
    std::vector<std::string> devices;  ///< device names, indexed by Event::channel
};

/// Memory a sink lends a source to write batches into, so that a sink which keeps every batch
/// anyway (BackgroundSink) gets it without a copy. One source writes into it at a time.
class BatchStorage {
public:
    virtual ~BatchStorage() = default;
    /// Room for `events` events; the source fills it and delivers it as its next batch.
    virtual Event* next_batch(std::size_t events) = 0;
};

class TraceSink {
public:
    virtual ~TraceSink() = default;
    /// The Capability bits of the events this sink needs (Stop events always arrive).
    virtual std::uint32_t wants() const = 0;
    virtual void on_start(const RunInfo& info) { (void)info; }
    /// Called once per batch, in order; the spans are only valid during the call.
    virtual void on_batch(const EventBatch& batch) = 0;
    /// Called once after the last batch, also when the run faulted.
    virtual void on_end() {}
    /// Storage this sink lends the source, or null: the source then writes into its own buffer.
    virtual BatchStorage* batch_storage() { return nullptr; }
};

}  // namespace emutrace::trace
