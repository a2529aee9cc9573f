#pragma once
// Writes the event stream as JSON Lines, one event per line, for people and scripts to inspect
// a run (`emutrace run --events FILE`). Device names come from RunInfo.

#include <cstdio>
#include <string>
#include <vector>

#include "trace/trace_sink.h"

namespace emutrace::analysis {

class EventLogWriter final : public trace::TraceSink {
public:
    /// Opens `path` for writing; throws ConfigError when it cannot.
    explicit EventLogWriter(const std::string& path);
    ~EventLogWriter() override;
    EventLogWriter(const EventLogWriter&) = delete;
    EventLogWriter& operator=(const EventLogWriter&) = delete;

    std::uint32_t wants() const override {
        return trace::WantBlocks | trace::WantMmio | trace::WantOutput | trace::WantExceptions | trace::WantMarkers | trace::WantBranches |
               trace::WantWatches;
    }
    void on_start(const trace::RunInfo& info) override { devices_ = info.devices; }
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override;

private:
    std::string device(std::uint16_t index) const;
    std::FILE* out_;
    std::vector<std::string> devices_;
};

}  // namespace emutrace::analysis
